"""Small builders shared by the trajectory tests."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.results import RunResult
from pathgrade.metrics.trajectory.outputs import TRAJECTORY_METRICS


def one(
    reference: list[Any] | None,
    steps: list[Any],
    config: ScoringConfig | None = None,
    **case_fields: Any,
) -> RunResult:
    """Score one run against one case and return its result."""
    run_fields = {k[4:]: case_fields.pop(k) for k in list(case_fields) if k.startswith("run_")}
    case = Case.model_validate({"case_id": "c", "reference": reference, **case_fields})
    run = Run.model_validate({"case_id": "c", "steps": steps, **run_fields})
    return score([case], [run], config)[0]


def trajectory_part(result: RunResult) -> RunResult:
    """What the executable definition gives of ``result``: its trajectory metrics only, and
    no provenance (how the run was measured is :func:`pathgrade.score`'s, not a metric)."""
    dropped = {"provenance": None} if "provenance" in {f.name for f in fields(result)} else {}
    metrics = {name: result.metrics[name] for name in TRAJECTORY_METRICS}
    return replace(result, metrics=metrics, **dropped)
