"""A call whose approval was denied was not made: it is never a write, so never an
``unexpected_write`` or a ``duplicate_write_after_resume``, and it repeats no earlier call
(issue 25: the OpenAI Agents SDK recordings give denied refunds)."""

from __future__ import annotations

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.metrics.trajectory.definition import score_runs
from pathgrade.plugins import argument_matchers

CASE = Case.model_validate(
    {
        "case_id": "c",
        "reference": [{"tool": "lookup", "arguments": {"o": "A"}}],
        "tool_kinds": {"refund": "write"},
    }
)


def _run(approval: str | None) -> Run:
    refund = {"tool": "refund", "arguments": {"o": "B"}}
    if approval == "denied":
        refund |= {"approval": "denied", "error": "rejected by user"}
    return Run.model_validate(
        {"case_id": "c", "steps": [{"tool": "lookup", "arguments": {"o": "A"}}, refund]}
    )


def _kinds(run: Run) -> list[str]:
    (result,) = score([CASE], [run])
    engine = [d.kind for d in result.defects]
    (definition,) = score_runs({"c": CASE}, [run], ScoringConfig(), argument_matchers())
    assert [d.kind for d in definition.defects] == engine  # the definition agrees
    return engine


def test_an_extra_write_is_unexpected_but_a_denied_one_is_not() -> None:
    # performed: an extra write, 100 - 25 (unexpected_write) = 75
    assert _kinds(_run(None)) == ["unexpected_write"]
    (performed,) = score([CASE], [_run(None)])
    assert performed.metrics["path_score"] == 75.0
    # denied: not made, so no write; it failed and was never retried: unrecovered_error
    kinds = _kinds(_run("denied"))
    assert "unexpected_write" not in kinds


def test_a_denied_write_after_a_resume_is_no_duplicate() -> None:
    config = ScoringConfig.model_validate({"tool_kinds": {"refund": "write"}})
    case = Case(case_id="r", reference=[{"tool": "refund", "arguments": {"o": "A"}}])
    steps = [
        {"tool": "refund", "arguments": {"o": "A"}},
        {"tool": "refund", "arguments": {"o": "A"}, "resumed": True},
    ]
    (again,) = score([case], [Run(case_id="r", steps=steps)], config)
    assert "duplicate_write_after_resume" in [d.kind for d in again.defects]
    steps[1] |= {"approval": "denied", "error": "rejected by user"}
    (denied,) = score([case], [Run(case_id="r", steps=steps)], config)
    assert "duplicate_write_after_resume" not in [d.kind for d in denied.defects]
