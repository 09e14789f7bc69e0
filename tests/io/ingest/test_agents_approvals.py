"""OpenAI Agents SDK approvals (``needs_approval``) read as approval events and scored.

The spans are shaped as ``openai-agents`` writes them (``run_internal/tool_execution.py``):
the interrupted call a ``function`` span with input and no output; after ``RunState``
resumes the same trace, the decided call a second ``function`` span of the same input, no
model call between; a rejection the error ``data.error`` "Tool execution for <id> was
manually rejected by user.".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pathgrade import Case, score
from pathgrade.core.config import ApprovalsConfig, ScoringConfig
from pathgrade.io.ingest import FORMATS, IngestOptions

ARGS = '{"order_id": "A17"}'
REJECTED = {
    "message": "Tool execution rejected",
    "data": {
        "tool_name": "issue_refund",
        "error": "Tool execution for call_9 was manually rejected by user.",
    },
}


def _span(i: int, data: dict[str, Any], error: Any = None) -> dict[str, Any]:
    return {
        "object": "trace.span",
        "id": f"span_{i}",
        "trace_id": "trace_1",
        "parent_id": None,
        "started_at": f"2025-03-01T12:00:{i:02d}+00:00",
        "ended_at": f"2025-03-01T12:00:{i:02d}.5+00:00",
        "span_data": data,
        "error": error,
    }


def _generation() -> dict[str, Any]:
    return {"type": "generation", "output": [], "usage": {"input_tokens": 1, "output_tokens": 1}}


def _refund(output: Any = None) -> dict[str, Any]:
    return {"type": "function", "name": "issue_refund", "input": ARGS, "output": output}


def _read(tmp_path: Path, spans: list[dict[str, Any]]) -> Any:
    head = {"object": "trace", "id": "trace_1", "metadata": {"pathgrade.case_id": "c"}}
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in [head, *spans]))
    options = IngestOptions()
    runs = list(FORMATS["openai-agents"].read(path, options))
    assert options.skipped == [] and len(runs) == 1
    return runs[0]


def _defects(run: Any) -> list[str]:
    config = ScoringConfig(approvals=ApprovalsConfig(tools=("issue_refund",)))
    case = Case(case_id=run.case_id, reference=["issue_refund"])
    kinds = [d.kind for d in score([case], [run], config)[0].defects]
    return [k for k in kinds if k in ("unapproved_action", "denied_action_performed")]


def test_an_approved_interruption_is_one_granted_call(tmp_path: Path) -> None:
    run = _read(tmp_path, [_span(0, _generation()), _span(1, _refund()), _span(2, _refund("R-1"))])
    assert [(s.tool, s.approval, s.output) for s in run.steps] == [
        ("issue_refund", "granted", "R-1")
    ]
    assert _defects(run) == []


def test_a_rejected_call_is_a_denial_and_calling_anyway_is_its_own_defect(
    tmp_path: Path,
) -> None:
    spans = [_span(0, _generation()), _span(1, _refund()), _span(2, _refund(), REJECTED)]
    run = _read(tmp_path, spans)
    # the interruption is no step; the rejection is a denied, failed call of call_9
    assert [(s.tool, s.approval, s.call_id) for s in run.steps] == [
        ("issue_refund", "denied", "call_9")
    ]
    assert run.steps[0].error is not None
    assert _defects(run) == []  # denied and not performed: no defect
    later = _read(tmp_path, [*spans, _span(3, _generation()), _span(4, _refund("R-1"))])
    assert [s.approval for s in later.steps] == ["denied", None]
    assert _defects(later) == ["denied_action_performed"]


def test_a_call_without_an_approval_is_unapproved(tmp_path: Path) -> None:
    # a None result after a model call is an ordinary call, not an interruption
    run = _read(
        tmp_path,
        [_span(0, _generation()), _span(1, _refund()), _span(2, _generation())],
    )
    assert [(s.tool, s.approval) for s in run.steps] == [("issue_refund", None)]
    assert _defects(run) == ["unapproved_action"]
    # the same input again after a model call: two calls, neither approved
    again = _read(
        tmp_path,
        [
            _span(0, _generation()),
            _span(1, _refund()),
            _span(2, _generation()),
            _span(3, _refund("R")),
        ],
    )
    assert [s.approval for s in again.steps] == [None, None]
    assert _defects(again) == ["unapproved_action", "unapproved_action"]
