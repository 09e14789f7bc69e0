"""Regression gates: a pure model of rules and their evaluation on in-memory records."""

from __future__ import annotations

from pathgrade.gates.evaluate import GateReport, GateResult, evaluate_gates
from pathgrade.gates.model import Gate, GateSet, GateSettings

__all__ = ["Gate", "GateReport", "GateResult", "GateSet", "GateSettings", "evaluate_gates"]
