"""``pathgrade gate``: regression gates of a gates file (:mod:`pathgrade.gates`) on a variant
against a baseline, after the sides' provenance check."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pathgrade.api.sides import Results, side
from pathgrade.core.comparability import Comparability, check_records
from pathgrade.gates import GateReport, GateSet, evaluate_gates
from pathgrade.io.gates import load_gates

__all__ = ["GateOutcome", "gate"]


@dataclass(frozen=True)
class GateOutcome:
    """Every gate's result (``report``), and the provenance check of the two sides."""

    report: GateReport
    check: Comparability
    names: tuple[str, str]

    @property
    def passed(self) -> bool:
        """Whether every gate passed (the command's exit status 0; 1 otherwise)."""
        return self.report.passed

    def to_dict(self) -> dict[str, Any]:
        """The document ``pathgrade gate --json`` prints: ``warning`` first (when any), the
        gates, ``provenance`` and ``changed_variables``."""
        doc: dict[str, Any] = {"warning": self.check.warning} if self.check.warning else {}
        doc.update(self.report.to_dict())
        doc["provenance"] = self.check.to_dict()
        doc["changed_variables"] = self.check.changed_dict()
        return doc


def gate(
    gates: str | Path | GateSet,
    baseline: Results,
    variant: Results,
    *,
    store: str | Path | None = None,
    allow_config_change: bool = False,
) -> GateOutcome:
    """Evaluate the gates of ``gates`` (a gates TOML file, or a loaded
    :class:`~pathgrade.gates.GateSet`) on ``variant`` against ``baseline`` (results files,
    stored run names in ``store``, or result records).

    Raises:
        InputError: a bad gates file, a side that cannot be read, or sides scored
            differently (unless ``allow_config_change``: ``check.warning`` says so).
    """
    gate_set = gates if isinstance(gates, GateSet) else load_gates(gates)
    base_records, base_name = side(baseline, store, "baseline")
    var_records, var_name = side(variant, store, "variant")
    names = (base_name, var_name)
    # Provenance before any statistic: sides measured differently are refused.
    check = check_records(base_records, var_records, names=names, allow=allow_config_change)
    changed = check.changed if check.recorded else None
    report = evaluate_gates(gate_set, base_records, var_records, changed=changed)
    return GateOutcome(report, check, names)
