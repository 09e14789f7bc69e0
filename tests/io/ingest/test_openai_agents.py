"""OpenAI Agents SDK trace export reader: hand-written traces and the SDK's own export."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, openai_agents

from .helpers import write_lines

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
TRACE_A = "trace_5b8efff798038103d269b633813fc60c"
TRACE_B = "trace_0af7651916cd43dd8448eb211c80319c"
BASE = dt.datetime(2025, 3, 1, 12, 0, 0, tzinfo=dt.UTC)


def iso(ms: int) -> str:
    """The SDK's time format (``datetime.isoformat()``) ``ms`` milliseconds after BASE."""
    return (BASE + dt.timedelta(milliseconds=ms)).isoformat()


def span(
    trace: str,
    sid: str,
    parent: str | None,
    start: int,
    end: int,
    data: dict[str, Any],
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "object": "trace.span",
        "id": f"span_{sid}",
        "trace_id": trace,
        "parent_id": f"span_{parent}" if parent else None,
        "started_at": iso(start),
        "ended_at": iso(end),
        "span_data": data,
        "error": error,
    }


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def generation(calls: list[dict[str, Any]], usage: dict[str, int], **more: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": more.pop("content", None), "tool_calls": calls}
    return {"type": "generation", "output": [message], "usage": usage, "model": "m", **more}


def function(name: str, arguments: str, output: str | None, **more: Any) -> dict[str, Any]:
    return {"type": "function", "name": name, "input": arguments, "output": output, **more}


def handoff_trace() -> list[dict[str, Any]]:
    """Triage (two parallel calls, then a handoff) -> Refund Desk (a failed call and an MCP
    call from one response, then the answer)."""
    shown = [
        {"role": "user", "content": "refund A1"},
        {"role": "tool", "tool_call_id": "c1", "content": "paid"},
    ]
    return [
        span(
            TRACE_A,
            "1",
            None,
            0,
            125,
            {"type": "agent", "name": "Triage", "handoffs": ["Refund Desk"], "tools": None},
        ),
        span(TRACE_A, "2", "1", 1, 2, {"type": "guardrail", "name": "pii_check"}),
        span(
            TRACE_A,
            "3",
            "1",
            5,
            50,
            generation(
                [call("c1", "lookup", '{"order": "A1"}'), call("c2", "policy", "{}")],
                {"input_tokens": 100, "output_tokens": 20},
            ),
        ),
        # policy starts first, but the model asked for lookup first: emission order wins.
        span(TRACE_A, "4", "1", 55, 70, function("policy", "{}", "30 days")),
        span(TRACE_A, "5", "1", 60, 80, function("lookup", '{"order": "A1"}', None)),
        span(
            TRACE_A,
            "6",
            "1",
            90,
            120,
            generation(
                [call("c3", "transfer_to_refund_desk", "{}")], {"total_tokens": 200}, input=shown
            ),
        ),
        span(
            TRACE_A,
            "7",
            "1",
            121,
            122,
            {"type": "handoff", "from_agent": "Triage", "to_agent": "Refund Desk"},
        ),
        span(TRACE_A, "8", None, 130, 900, {"type": "agent", "name": "Refund Desk"}),
        span(
            TRACE_A,
            "9",
            "8",
            140,
            200,
            generation(
                [
                    call("c4", "refund", '{"order": "A1", "amount": 5}'),
                    call("c5", "fetch_doc", '{"id": "d9"}'),
                ],
                {"total_tokens": 150},
            ),
        ),
        span(
            TRACE_A,
            "10",
            "8",
            210,
            260,
            function("refund", '{"order": "A1", "amount": 5}', "declined"),
            error={
                "message": "Error running tool (non-fatal)",
                "data": {"tool_name": "refund", "error": "card expired"},
            },
        ),
        span(
            TRACE_A,
            "11",
            "8",
            205,
            280,
            function(
                "fetch_doc", '{"id": "d9"}', '{"text": "policy"}', mcp_data={"server": "docs"}
            ),
        ),
        span(
            TRACE_A,
            "12",
            "8",
            300,
            350,
            generation(
                [],
                {"input_tokens": 50, "output_tokens": 10},
                content="Refund declined: card expired.",
            ),
        ),
    ]


def responses_trace() -> list[dict[str, Any]]:
    """A Responses-API model: response spans carry usage only."""
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    return [
        span(TRACE_B, "b1", None, 0, 40, {"type": "agent", "name": "Solo"}),
        span(TRACE_B, "b2", "b1", 1, 10, {"type": "response", "response_id": "r1", "usage": usage}),
        span(TRACE_B, "b3", "b1", 11, 12, function("clock", "{}", "12:00")),
        span(TRACE_B, "b4", "b1", 13, 30, {"type": "response", "usage": {"total_tokens": 7}}),
    ]


def write_golden_trace(path: Path) -> Path:
    """The golden file: spans in end order (as the SDK exports them), the first four in an
    exporter payload, trace A's trace object last."""
    spans = sorted(handoff_trace(), key=lambda s: s["ended_at"]) + responses_trace()
    trace = {
        "object": "trace",
        "id": TRACE_A,
        "workflow_name": "support",
        "group_id": "thread-1",
        "metadata": {"pathgrade.case_id": "oa-1", "pathgrade.trial": 2},
    }
    return write_lines(path, [{"data": spans[:4]}, *spans[4:], trace])


def test_golden_run_handoff_guardrail_and_failed_call(tmp_path: Path) -> None:
    path = write_golden_trace(tmp_path / "t.jsonl")
    assert detect(path).name == "openai-agents"
    options = IngestOptions()
    run, solo = list(openai_agents.read(path, options))
    assert options.skipped == [] and options.fallbacks == [TRACE_B]
    assert (run.case_id, run.run_id, run.trial) == ("oa-1", TRACE_A, 2)
    # The handoff call (transfer_to_refund_desk) is not a step; lookup before policy (the
    # model's order, not start time); the Refund Desk's MCP call started before refund.
    steps = [(s.tool, s.arguments, s.output, s.error, s.call_id) for s in run.steps]
    assert steps == [
        ("lookup", {"order": "A1"}, "paid", None, "c1"),  # output from the tool message
        ("policy", {}, "30 days", None, "c2"),
        ("refund", {"order": "A1", "amount": 5}, "declined", "card expired", "c4"),
        ("fetch_doc", {"id": "d9"}, {"text": "policy"}, None, "c5"),
    ]
    assert [s.metadata["agent"] for s in run.steps] == ["Triage"] * 2 + ["Refund Desk"] * 2
    assert [s.parent for s in run.steps] == ["span_1", "span_1", "span_8", "span_8"]
    # Turns: the first response's two calls; the handoff-only response has no step; then
    # the Refund Desk's response.
    assert [s.turn for s in run.steps] == [0, 0, 1, 1]
    assert run.steps[3].metadata["mcp_server"] == "docs"
    assert run.answer == "Refund declined: card expired."
    # Tokens 100 + 20 + 200 + 150 + 50 + 10 = 530; two root agents: latency from the first
    # start (0 ms) to the last end (900 ms).
    assert run.usage is not None
    assert (run.usage.tokens, run.usage.cost) == (530.0, None)
    assert run.usage.latency_ms == pytest.approx(900.0)
    assert run.metadata["handoffs"] == [
        {"from": "Triage", "to": "Refund Desk", "span_id": "span_7"}
    ]
    assert run.metadata["guardrails"] == [
        {"name": "pii_check", "triggered": False, "agent": "Triage"}
    ]
    assert run.metadata["guardrails_triggered"] == []
    assert (run.metadata["workflow_name"], run.metadata["group_id"]) == ("support", "thread-1")
    # Responses-API trace: tokens 15 + 7, no text in the export, so no answer.
    assert [s.tool for s in solo.steps] == ["clock"] and solo.answer is None
    assert solo.usage is not None and solo.usage.tokens == 22.0
    assert solo.steps[0].metadata["agent"] == "Solo"


def test_golden_file_is_what_the_test_writes(tmp_path: Path) -> None:
    path = write_golden_trace(tmp_path / "openai_agents.jsonl")
    assert (GOLDEN / "openai_agents.jsonl").read_bytes() == path.read_bytes()


def test_handoff_tool_name_is_the_sdk_default() -> None:
    assert openai_agents.handoff_tool_name("Refund Desk") == "transfer_to_refund_desk"
    assert openai_agents.handoff_tool_name("Bill-ing 2") == "transfer_to_bill_ing_2"


def test_mcp_namespace_names_the_server(tmp_path: Path) -> None:
    path = write_golden_trace(tmp_path / "t.jsonl")
    run = next(openai_agents.read(path, IngestOptions(mcp_namespace=True)))
    assert [s.tool for s in run.steps] == ["lookup", "policy", "refund", "docs/fetch_doc"]


def test_triggered_guardrail_and_a_json_array(tmp_path: Path) -> None:
    spans = [
        span(TRACE_B, "g1", None, 0, 5, {"type": "agent", "name": "Support"}),
        span(TRACE_B, "g2", "g1", 1, 2, {"type": "guardrail", "name": "no_pii", "triggered": True}),
        span(
            TRACE_B, "g3", "g1", 2, 3, {"type": "guardrail", "name": "polite", "triggered": False}
        ),
    ]
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps(spans, option=orjson.OPT_INDENT_2))
    (run,) = list(openai_agents.read(path))
    assert run.steps == () and run.answer is None
    assert run.metadata["guardrails_triggered"] == ["no_pii"]
    assert [g["name"] for g in run.metadata["guardrails"]] == ["no_pii", "polite"]


def test_a_response_object_written_by_a_custom_processor(tmp_path: Path) -> None:
    # span_data.response (Responses API items) read like a generation's output messages.
    response = {
        "output": [
            {"type": "reasoning", "summary": []},
            {"type": "function_call", "name": "clock", "arguments": "{}", "call_id": "fc_1"},
        ],
        "usage": {"input_tokens": 4, "output_tokens": 2},
    }
    final = {
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "It is noon."}],
            }
        ]
    }
    spans = [
        span(TRACE_B, "r1", None, 0, 40, {"type": "agent", "name": "Solo"}),
        span(TRACE_B, "r2", "r1", 1, 10, {"type": "response", "response": response}),
        span(TRACE_B, "r3", "r1", 11, 12, function("clock", "{}", None)),
        span(
            TRACE_B,
            "r4",
            "r1",
            13,
            30,
            {
                "type": "response",
                "input": [{"type": "function_call_output", "call_id": "fc_1", "output": "12:00"}],
                "response": final,
            },
        ),
    ]
    (run,) = list(openai_agents.read(write_lines(tmp_path / "t.jsonl", spans)))
    assert [(s.tool, s.call_id, s.output) for s in run.steps] == [("clock", "fc_1", "12:00")]
    assert run.answer == "It is noon."
    assert run.usage is not None and run.usage.tokens == 6.0  # 4 + 2 (usage of the response)


def test_sniff() -> None:
    assert openai_agents.sniff(b'{"object": "trace.span", "id": "span_1"}')
    assert openai_agents.sniff('{"data": [{"object":"trace","id":"trace_1"}]}')
    assert not openai_agents.sniff(b'{"resourceSpans": []}')
    assert not openai_agents.sniff(b'{"object": "chat.completion"}')


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"span_data": [1]}, "span_data"),
        ({"started_at": "yesterday"}, "started_at"),
        ({"trace_id": 7}, "trace_id"),
        ({"error": 3}, "error"),
        ({"span_data": {"type": "function", "name": 5}}, "span_data.name"),
        ({"span_data": {"type": "generation", "output": [{"tool_calls": {}}]}}, "tool_calls"),
        ({"span_data": {"type": "guardrail", "name": "g", "triggered": "yes"}}, "triggered"),
    ],
)
def test_bad_values_name_the_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    bad = span(TRACE_B, "x", None, 0, 1, function("f", "{}", None)) | change
    good = span(TRACE_A, "y", None, 0, 1, function("g", "{}", None))
    path = write_lines(tmp_path / "t.jsonl", [good, bad])
    with pytest.raises(InputError) as caught:
        list(openai_agents.read(path))
    assert caught.value.line == 2 and field in str(caught.value.field)
    options = IngestOptions(skip_invalid=True)
    assert [r.run_id for r in openai_agents.read(path, options)] == [TRACE_A]
    assert len(options.skipped) == 1


def test_not_a_span_object(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [[1], {"object": "response"}])
    options = IngestOptions(skip_invalid=True)
    assert list(openai_agents.read(path, options)) == []
    assert [e.line for e in options.skipped] == [1, 2]
    assert "expected a trace or trace.span object, got a number" in str(options.skipped[0])


# --- the SDK's own export (tools/producers/openai_agents_trace.py) -------------------------

PRODUCED = GOLDEN / "producers" / "openai_agents_sdk.jsonl"


def test_the_sdk_export_reads_to_the_full_path() -> None:
    assert detect(PRODUCED).name == "openai-agents"
    options = IngestOptions()
    refund, blocked = list(openai_agents.read(PRODUCED, options))
    assert options.skipped == [] and options.fallbacks == []
    assert refund.case_id == "refund-A17" and blocked.case_id == "blocked-1"
    order = {"order_id": "A17", "amount": 25.0}
    found = {"order_id": "A17", "total": 25.0}
    assert [(s.tool, s.arguments, s.output, s.error, s.call_id) for s in refund.steps] == [
        (
            "lookup_order",
            {"order_id": "A17"},
            {**found, "status": "delivered"},
            None,
            "call_lookup",
        ),
        (
            "get_policy",
            {"topic": "refunds"},
            "Refunds within 30 days of delivery.",
            None,
            "call_policy",
        ),
        (
            "issue_refund",
            order,
            "refund failed: payment gateway timeout",
            "payment gateway timeout",
            "call_refund_1",
        ),
        ("issue_refund", order, "refund R-1 of 25.00 for A17", None, "call_refund_2"),
    ]
    # Support asked for lookup_order and get_policy in one response (turn 0), then only
    # for the handoff (no step); Billing's two responses are turns 1 and 2.
    assert [s.turn for s in refund.steps] == [0, 0, 1, 2]
    assert [s.metadata["agent"] for s in refund.steps] == ["Support"] * 2 + ["Billing"] * 2
    assert refund.answer == "Refunded 25.00 EUR for order A17."
    # Tokens of the five replies: (120+30) + (180+12) + (200+20) + (240+20) + (260+11) = 1093.
    assert refund.usage is not None and refund.usage.tokens == 1093.0
    assert refund.usage.cost is None
    assert refund.metadata["handoffs"][0]["from"] == "Support"
    assert refund.metadata["handoffs"][0]["to"] == "Billing"
    assert refund.metadata["guardrails_triggered"] == []
    assert (refund.metadata["workflow_name"], refund.metadata["group_id"]) == (
        "refunds",
        "thread-9",
    )
    # The guardrail tripped before any model call: no step, no answer, the guardrail listed.
    assert blocked.steps == () and blocked.answer is None and blocked.usage is not None
    assert blocked.usage.tokens is None
    assert blocked.metadata["guardrails_triggered"] == ["no_threats"]
    # Latency: the runner's task span (each trace's one root), ended_at - started_at:
    # 22:22:36.616581 - 22:22:36.277069 = 339.512 ms; 36.630898 - 36.617023 = 13.875 ms.
    # (spans.time_ns goes through a float timestamp: within 1 microsecond)
    assert refund.usage.latency_ms == pytest.approx(339.512, abs=1e-3)
    assert blocked.usage.latency_ms == pytest.approx(13.875, abs=1e-3)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(order=st.permutations(range(len(handoff_trace()))), payload=st.booleans())
def test_the_run_does_not_depend_on_the_file_order(
    tmp_path: Path, order: list[int], payload: bool
) -> None:
    # The SDK exports spans as they end, processors may batch them: any order, in payloads
    # or one per line, reads to the same run as the golden file.
    spans = [handoff_trace()[i] for i in order]
    lines: list[Any] = [{"data": spans}] if payload else spans
    trace = {"object": "trace", "id": TRACE_A, "metadata": {"pathgrade.case_id": "oa-1"}}
    path = write_lines(tmp_path / "p.jsonl", [*lines, trace])
    expected = next(openai_agents.read(GOLDEN / "openai_agents.jsonl"))
    run = next(openai_agents.read(path))
    assert run.steps == expected.steps and run.answer == expected.answer
    assert run.usage == expected.usage
