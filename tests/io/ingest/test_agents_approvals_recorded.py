"""OpenAI Agents SDK approvals as the SDK itself records them, read and scored.

``producers/openai_agents_sdk_approvals.jsonl`` was written by
``tools/producers/openai_agents_approval.py`` (``openai-agents`` 0.24.0): agent ``Billing``
with ``lookup_order`` and ``issue_refund`` (``needs_approval=True``), each run interrupted
and resumed from its ``RunState`` after ``approve``, ``reject``, ``always_approve``,
``always_reject``, or never resumed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade import Case, Run, score
from pathgrade.core.config import ApprovalsConfig, ScoringConfig
from pathgrade.core.types import Step
from pathgrade.io.ingest import FORMATS, IngestOptions
from pathgrade.io.ingest._agents_approvals import REJECTED_ON_RESUME

GOLDEN = Path(__file__).parents[2] / "golden" / "ingest" / "producers"
RECORDED = GOLDEN / "openai_agents_sdk_approvals.jsonl"
A17 = {"order_id": "A17", "amount": 25.0}
B22 = {"order_id": "B22", "amount": 25.0}
LOOKUP = {"tool": "lookup_order", "arguments": {"order_id": "A17"}}


def _runs() -> dict[str, Run]:
    options = IngestOptions()
    runs = {r.case_id: r for r in FORMATS["openai-agents"].read(RECORDED, options)}
    assert options.skipped == []
    return runs


def _function_spans() -> dict[str, int]:
    """Trace id -> the number of ``function`` spans the SDK wrote in it."""
    counts: dict[str, int] = {}
    for line in RECORDED.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item.get("span_data", {}).get("type") == "function":
            counts[item["trace_id"]] = counts.get(item["trace_id"], 0) + 1
    return counts


def test_recorded_approvals_read_to_granted_and_denied_steps() -> None:
    runs = _runs()
    # (tool, arguments, approval, error) per step
    got = {
        case: [(s.tool, s.arguments, s.approval, s.error) for s in run.steps]
        for case, run in runs.items()
    }
    rejected_b = "Tool execution for call_refund_b was manually rejected by user."
    assert got == {
        "approve-A17": [
            ("lookup_order", {"order_id": "A17"}, None, None),
            ("issue_refund", A17, "granted", None),
        ],
        "reject-A17": [("issue_refund", A17, "denied", REJECTED_ON_RESUME)],
        # always_approve leaves no mark on the later call: it reads as an ordinary call
        "always-approve": [
            ("issue_refund", A17, "granted", None),
            ("issue_refund", B22, None, None),
        ],
        "always-reject": [
            ("issue_refund", A17, "denied", REJECTED_ON_RESUME),
            ("issue_refund", B22, "denied", rejected_b),
        ],
        "pending-A17": [],
    }
    # the granted call has the output of the approved span, the call id of the emission
    granted = runs["approve-A17"].steps[1]
    assert (granted.output, granted.call_id) == ("refund of 25.00 for A17", "call_refund")
    # a call rejected on resume has no span: its output is what the next model call was shown
    assert runs["reject-A17"].steps[0].output == "Refunds over 20 EUR need a manager."


def test_the_interruption_itself_is_no_step() -> None:
    runs = _runs()
    spans = _function_spans()
    # function spans -> steps: approve 3 (lookup, interruption, approved) -> 2; reject 1
    # (interruption; the rejection on resume has none) -> 1; always-approve 3 (interruption,
    # A17, B22) -> 2; always-reject 2 (interruption, B22 rejected) -> 2; pending 1 -> 0
    got = {case: (spans[run.run_id], len(run.steps)) for case, run in runs.items()}
    assert got == {
        "approve-A17": (3, 2),
        "reject-A17": (1, 1),
        "always-approve": (3, 2),
        "always-reject": (2, 2),
        "pending-A17": (1, 0),
    }


REFERENCES: dict[str, list[Any]] = {
    "approve-A17": [LOOKUP, {"tool": "issue_refund", "arguments": A17}],
    "reject-A17": [{"tool": "issue_refund", "arguments": A17}],
    "always-approve": [
        {"tool": "issue_refund", "arguments": A17},
        {"tool": "issue_refund", "arguments": B22},
    ],
    "always-reject": [{"tool": "issue_refund", "arguments": A17}],
}


def _scored(runs: dict[str, Run], config: ScoringConfig, **case: Any) -> dict[str, Any]:
    cases = [
        Case.model_validate({"case_id": c, "reference": REFERENCES[c], **case}) for c in REFERENCES
    ]
    results = score(cases, [runs[c] for c in REFERENCES], config)
    return {
        r.case_id: (
            r.metrics["path_score"],
            [(d.kind, d.penalty, d.agent_step) for d in r.defects],
        )
        for r in results
    }


@pytest.mark.parametrize(
    ("config", "case"),
    [
        (ScoringConfig(), {"requires_approval": ["issue_refund"]}),
        (ScoringConfig(approvals=ApprovalsConfig(tools=("issue_refund",))), {}),
    ],
    ids=["case", "config"],
)
def test_scoring_the_recorded_runs_with_requires_approval(
    config: ScoringConfig, case: dict[str, Any]
) -> None:
    got = _scored(_runs(), config, **case)
    assert got == {
        # every reference step paired, the refund granted: 100
        "approve-A17": (100.0, []),
        # the denied refund pairs with the reference step (a failed call is a call) and was
        # not performed: 100, no denied_action_performed
        "reject-A17": (100.0, []),
        # B22 was approved by always_approve, which the trace does not show:
        # 100 - 100 (unapproved_action) = 0
        "always-approve": (0.0, [("unapproved_action", 100.0, 1)]),
        # the denied B22 is an extra step (no tool kinds: no penalty), not performed: 100
        "always-reject": (100.0, []),
    }


def test_a_rejected_call_performed_anyway_and_an_unmarked_call_are_defects() -> None:
    runs = _runs()
    rejected = runs["reject-A17"]
    performed = Step(tool="issue_refund", arguments=A17, output="refund of 25.00 for A17")
    anyway = rejected.model_copy(update={"steps": (*rejected.steps, performed)})
    approved = runs["approve-A17"]
    unmarked = approved.model_copy(
        update={"steps": tuple(s.model_copy(update={"approval": None}) for s in approved.steps)}
    )
    config = ScoringConfig()
    cases = [
        Case.model_validate(
            {"case_id": c, "reference": REFERENCES[c], "requires_approval": ["issue_refund"]}
        )
        for c in ("reject-A17", "approve-A17")
    ]
    results = score(cases, [anyway, unmarked], config)
    got = [
        (r.metrics["path_score"], [(d.kind, d.penalty, d.agent_step) for d in r.defects])
        for r in results
    ]
    # the refund after its denial: max(0, 100 - 200 (denied_action_performed)) = 0 (the extra
    # refund retries the failed, denied call: no waste). The approved refund without its
    # mark: 100 - 100 (unapproved_action) = 0.
    assert got == [
        (0.0, [("denied_action_performed", 200.0, 1)]),
        (0.0, [("unapproved_action", 100.0, 1)]),
    ]


def test_the_first_call_of_a_resumed_run_is_marked_resumed() -> None:
    # Each resume decides its earliest waiting call, which is the resumed run's first call:
    # that step carries Step.resumed (the system layer's resume metrics read it); later calls
    # and runs that never resumed do not.
    runs = _runs()
    marks = {case_id: [s.resumed for s in run.steps] for case_id, run in runs.items()}
    assert marks == {
        "approve-A17": [False, True],
        "reject-A17": [True],
        "always-approve": [True, False],
        "always-reject": [True, False],
        "pending-A17": [],
    }
