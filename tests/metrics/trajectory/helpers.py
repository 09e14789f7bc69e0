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
    """What the executable definition gives of ``result``: its trajectory metrics only, no
    provenance (how the run was measured is :func:`pathgrade.score`'s, not a metric), and
    its alignment without the per-field details (``AlignedStep.fields``: an explanation
    that :mod:`pathgrade.metrics.trajectory.field_details` adds after scoring, from the
    alignment, tested on its own in tests/metrics/trajectory/test_field_details.py)."""
    dropped = {"provenance": None} if "provenance" in {f.name for f in fields(result)} else {}
    metrics = {name: result.metrics[name] for name in TRAJECTORY_METRICS}
    alignment = tuple(replace(step, fields=None) for step in result.alignment)
    return replace(result, metrics=metrics, alignment=alignment, **dropped)
