"""Small builders shared by the trajectory tests."""

from __future__ import annotations

from typing import Any

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.results import RunResult


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
