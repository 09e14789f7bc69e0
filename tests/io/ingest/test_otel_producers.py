"""Traces written by the real OTel GenAI / MCP / OpenLLMetry producers read to the whole path.

The files are in ``tests/golden/ingest/producers/`` (see the README there for the library
versions); each was generated offline from recorded model replies by a script in
``tools/producers/``. The recorded conversations, reply by reply, are in
``tools/producers/_otel_common.py`` (refund A17) and the scripts themselves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.core.types import Run
from pathgrade.io.ingest import IngestOptions, detect, otel_genai
from pathgrade.io.ingest.mcp import tools_file
from pathgrade.io.tools import parse_tools

PRODUCERS = Path(__file__).resolve().parents[2] / "golden" / "ingest" / "producers"


def runs(name: str, **options: bool) -> list[Run]:
    path = PRODUCERS / name
    assert detect(path).name == "otel-genai"
    found = IngestOptions(**options)  # type: ignore[arg-type]
    out = list(otel_genai.read(path, found))
    assert found.skipped == []
    return out


def path_of(run: Run) -> list[tuple[object, ...]]:
    return [(s.tool, s.arguments, s.turn, s.call_id, s.error) for s in run.steps]


#: The client-level refund (model spans only): the model's calls in the order it wrote them,
#: two per turn in its first response, one per later response; no step failed (the failed
#: refund's result is error *text*, which an OpenAI tool message cannot flag).
REFUND_PATH = [
    ("lookup_order", {"order_id": "A17"}, 0, "call_lookup", None),
    ("search_kb", {"query": "refunds for damaged items"}, 0, "call_kb", None),
    ("issue_refund", {"order_id": "A17"}, 1, "call_refund_1", None),
    ("issue_refund", {"order_id": "A17"}, 2, "call_refund_2", None),
]


@pytest.mark.parametrize(
    "name",
    [
        "otel_openai_v2_spans.jsonl",  # gen_ai.input/output.messages attributes
        "otel_openai_v2_logs.jsonl",  # v1.30 events, as log records in the same file
        "openllmetry_openai_legacy.jsonl",  # flattened gen_ai.prompt.<i> / completion.<i>
    ],
)
def test_client_level_instrumentation_gives_the_whole_path(name: str) -> None:
    run = runs(name)[0]
    assert run.case_id == "refund-A17"
    assert path_of(run) == REFUND_PATH
    # outputs: the tool messages the next model call was shown (JSON text decoded)
    assert [s.output for s in run.steps] == [
        {"order_id": "A17", "status": "delivered"},
        ["kb-refunds", "kb-warranty"],
        "Error: payment gateway timeout",
        {"refund_id": "R-1"},
    ]
    assert all(s.metadata.get("emitted_by") for s in run.steps)  # no tool spans at all
    assert run.answer == "Refunded order A17 (refund R-1)."
    # (120 + 30) + (200 + 15) + (240 + 15) + (260 + 10) = 890
    assert run.usage is not None and run.usage.tokens == 890


def test_app_spans_retrieval_and_a_failed_tool() -> None:
    _, run = runs("otel_openai_v2_spans.jsonl")
    assert run.case_id == "warranty-B2"
    assert path_of(run) == [
        # a retrieval before any model call: a step, its turn unknown
        ("kb", {"query": "Is order B2 still under warranty?", "top_k": 3}, None, None, None),
        # an execute_tool span wrapping a retrieval: one step, named by the tool span
        ("search_kb", {"query": "warranty for order B2"}, 0, "call_kb_2", None),
        ("check_warranty", {"order_id": "B2"}, 0, "call_warranty", "warranty service unavailable"),
    ]
    kb, search, _ = run.steps
    assert kb.output == ["kb-refunds", "kb-warranty"] and kb.metadata["retrieval"] is True
    assert search.output == ["policy-warranty-2y"] and search.metadata["retrieval"] is True
    assert len(search.metadata["span_ids"]) == 2
    assert {s.metadata["agent"] for s in run.steps} == {"support"}
    assert [(d.id, d.score) for d in run.retrieved or ()] == [
        ("kb-refunds", 0.92),
        ("kb-warranty", 0.81),
        ("policy-warranty-2y", 0.88),
    ]
    assert run.answer == "Order B2 is under warranty until 2026."
    assert run.usage is not None and run.usage.tokens == 277  # (90 + 25) + (150 + 12)
    # retrieval steps off: the retrieval alone is no step; the wrapping tool still is
    (_, off) = runs("otel_openai_v2_spans.jsonl", retrieval_steps=False)
    assert [s.tool for s in off.steps] == ["search_kb", "check_warranty"]
    assert off.retrieved == run.retrieved


def test_mcp_client_and_server_spans_are_one_step_and_is_error_fails_it() -> None:
    a17, b9 = runs("otel_mcp.jsonl")  # the MCP handshake traces are not runs
    assert path_of(a17) == [
        ("lookup_order", {"order_id": "A17"}, 0, "call_lookup", None),
        ("search_kb", {"query": "refunds for damaged items"}, 0, "call_kb", None),
        (
            "issue_refund",
            {"order_id": "A17"},
            1,
            "call_refund",
            "Error executing tool issue_refund",
        ),
    ]
    lookup, _, refund = a17.steps
    # client span "MCP send tools/call lookup_order" around the server span: one step
    assert len(lookup.metadata["span_ids"]) == 2
    assert lookup.metadata["mcp_method"] == "tools/call"
    # execute_tool -> MCP client span -> MCP server span: one step
    assert len(refund.metadata["span_ids"]) == 3
    assert refund.output["isError"] is True
    assert a17.usage is not None and a17.usage.tokens == 619  # 150 + 215 + 254
    # B9: the client's export only; every span's status is unset: the isError result fails it
    assert path_of(b9) == [
        (
            "issue_refund",
            {"order_id": "B9"},
            0,
            "call_refund_b9",
            "Error executing tool issue_refund",
        )
    ]
    assert b9.answer == "The refund of order B9 failed."
    # namespaced: the server known to the inner server span names the whole call
    spaced = runs("otel_mcp.jsonl", mcp_namespace=True)[0]
    assert [s.tool for s in spaced.steps] == [
        "support-bot/lookup_order",
        "support-bot/search_kb",
        "support-bot/issue_refund",
    ]


def test_mcp_server_spans_alone_are_the_steps() -> None:
    first, second = runs("otel_mcp_server.jsonl")
    assert [(s.tool, s.error) for s in first.steps] == [
        ("lookup_order", None),
        ("search_kb", None),
        ("issue_refund", "tool_error"),
    ]
    assert all(s.metadata["arguments_recorded"] is False for s in first.steps)
    assert [s.tool for s in second.steps] == ["issue_refund"]
    spaced = runs("otel_mcp_server.jsonl", mcp_namespace=True)[0]
    assert spaced.steps[0].tool == "orders-mcp/lookup_order"  # its resource name


def test_traceloop_workflow_agent_tools_and_mcp() -> None:
    (run,) = runs("traceloop_openai_mcp.jsonl")
    assert run.case_id == "refund-A17"  # a resource attribute
    assert path_of(run) == [
        ("lookup_order", {"order_id": "A17"}, 0, "call_lookup", None),
        ("search_kb", {"query": "refunds for damaged items"}, 0, "call_kb", None),
        (
            "issue_refund",
            {"order_id": "A17"},
            1,
            "call_refund_1",
            "Error executing tool issue_refund: payment gateway timeout",
        ),
        ("issue_refund", {"order_id": "A17"}, 2, "call_refund_2", None),
    ]
    assert [s.output for s in run.steps] == [
        {"order_id": "A17", "status": "delivered"},
        ["kb-refunds", "kb-warranty"],
        "Error executing tool issue_refund: payment gateway timeout",
        {"refund_id": "R-1"},
    ]
    assert {s.metadata["agent"] for s in run.steps} == {"support_agent"}
    assert len({s.parent for s in run.steps}) == 1  # the agent span
    assert run.answer == "Refunded order A17 (refund R-1)."  # the workflow's output
    assert run.usage is not None and run.usage.tokens == 890


def test_tools_file_from_recorded_tools_list() -> None:
    found = tools_file([PRODUCERS / "traceloop_openai_mcp.jsonl"])
    assert [t["function"]["name"] for t in found["tools"]] == ["lookup_order", "issue_refund"]
    lookup = found["tools"][0]["function"]
    assert lookup["description"] == "Look an order up."
    assert lookup["parameters"]["required"] == ["order_id"]
    assert "dangerous" not in found
    assert list(parse_tools(found)) == ["lookup_order", "issue_refund"]  # a valid tools file
    # the mcp SDK does not record results: no tools
    assert tools_file([PRODUCERS / "otel_mcp.jsonl"]) == {"tools": []}
