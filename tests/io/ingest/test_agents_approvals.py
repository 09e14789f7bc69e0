"""OpenAI Agents SDK approvals (``needs_approval``) read as approval events and scored.

The spans are hand-built in the shapes ``openai-agents`` 0.24.0 writes (recorded in
``tests/golden/ingest/producers/openai_agents_sdk_approvals.jsonl``, read in
``test_agents_approvals_recorded.py``): the interrupted call a ``function`` span with input
and no output; the resumed run a new ``agent`` span in the same trace; the approved call a
second ``function`` span of the same input, no model call between; a call rejected on resume
no span at all; a call rejected before it is attempted a span with the error ``data.error``
"Tool execution for <id> was manually rejected by user.".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pathgrade import Case, score
from pathgrade.core.config import ApprovalsConfig, ScoringConfig
from pathgrade.io.ingest import FORMATS, IngestOptions
from pathgrade.io.ingest._agents_approvals import REJECTED_ON_RESUME

ARGS = '{"order_id": "A17"}'
REJECTED = {
    "message": "Tool execution rejected",
    "data": {
        "tool_name": "issue_refund",
        "error": "Tool execution for call_9 was manually rejected by user.",
    },
}


def _span(
    i: int, data: dict[str, Any], error: Any = None, parent: int | None = None
) -> dict[str, Any]:
    return {
        "object": "trace.span",
        "id": f"span_{i}",
        "trace_id": "trace_1",
        "parent_id": None if parent is None else f"span_{parent}",
        "started_at": f"2025-03-01T12:00:{i:02d}+00:00",
        "ended_at": f"2025-03-01T12:00:{i:02d}.5+00:00",
        "span_data": data,
        "error": error,
    }


def _generation() -> dict[str, Any]:
    return {"type": "generation", "output": [], "usage": {"input_tokens": 1, "output_tokens": 1}}


def _agent() -> dict[str, Any]:
    return {"type": "agent", "name": "Billing", "tools": ["issue_refund"]}


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


def test_a_call_rejected_on_resume_is_a_denial(tmp_path: Path) -> None:
    # interruption, the resumed run's agent span, then a model call with no decided span:
    # the SDK rejected the call on resume (it writes no span for that)
    spans = [
        _span(0, _generation()),
        _span(1, _refund()),
        _span(2, _agent()),
        _span(3, _generation()),
    ]
    run = _read(tmp_path, spans)
    assert [(s.tool, s.approval, s.error) for s in run.steps] == [
        ("issue_refund", "denied", REJECTED_ON_RESUME)
    ]
    assert _defects(run) == []  # denied and not performed: no defect
    # the same shape without the resume is an ordinary call whose tool returned None
    plain = _read(tmp_path, [spans[0], spans[1], spans[3]])
    assert [(s.approval, s.error) for s in plain.steps] == [(None, None)]
    # an agent span inside the call (an agent used as a tool) is no resume
    nested = [spans[0], spans[1], _span(2, _agent(), parent=1), spans[3]]
    assert [s.approval for s in _read(tmp_path, nested).steps] == [None]


def test_an_interruption_never_resumed_is_no_step(tmp_path: Path) -> None:
    # the model emitted the call; neither its emission nor the interruption is a step
    call = {"id": "call_9", "type": "function"}
    call["function"] = {"name": "issue_refund", "arguments": ARGS}
    emits = {**_generation(), "output": [{"role": "assistant", "tool_calls": [call]}]}
    run = _read(tmp_path, [_span(0, emits), _span(1, _refund())])
    assert run.steps == ()
    # the emission of another call is still a step
    other = {"id": "call_10", "type": "function"}
    other["function"] = {"name": "issue_refund", "arguments": '{"order_id": "B2"}'}
    both = {**emits, "output": [{"role": "assistant", "tool_calls": [call, other]}]}
    kept = _read(tmp_path, [_span(0, both), _span(1, _refund())])
    assert [(s.tool, s.arguments) for s in kept.steps] == [("issue_refund", {"order_id": "B2"})]
    # resumed, and the trace ends before the next model call: rejected on resume
    resumed = _read(tmp_path, [_span(0, _generation()), _span(1, _refund()), _span(2, _agent())])
    assert [s.approval for s in resumed.steps] == ["denied"]


def test_a_rejection_span_is_a_denial_and_calling_anyway_is_its_own_defect(
    tmp_path: Path,
) -> None:
    # a call rejected before it was attempted (always_reject): its span has the rejection
    spans = [_span(0, _generation()), _span(1, _refund("not approved"), REJECTED)]
    run = _read(tmp_path, spans)
    assert [(s.tool, s.approval, s.call_id, s.error) for s in run.steps] == [
        ("issue_refund", "denied", "call_9", REJECTED["data"]["error"])
    ]
    assert _defects(run) == []  # denied and not performed: no defect
    later = _read(tmp_path, [*spans, _span(3, _generation()), _span(4, _refund("R-1"))])
    assert [s.approval for s in later.steps] == ["denied", None]
    assert _defects(later) == ["denied_action_performed"]
    # after an interruption of the same call (not what 0.24.0 writes, still read): one step
    after = _read(tmp_path, [spans[0], _span(1, _refund()), _span(2, _refund(), REJECTED)])
    assert [(s.approval, s.call_id) for s in after.steps] == [("denied", "call_9")]
    assert after.steps[0].error == REJECTED["data"]["error"]


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


def test_a_span_type_that_is_not_a_string_is_structure_only(tmp_path: Path) -> None:
    # found by tests/fuzz/test_ingest_fuzz.py: a list as span_data.type
    spans = [
        _span(0, {"type": ["generation"], "name": "g"}),
        _span(1, _refund()),
        _span(2, _refund("R-1")),
    ]
    run = _read(tmp_path, spans)
    assert [(s.tool, s.approval) for s in run.steps] == [("issue_refund", "granted")]
