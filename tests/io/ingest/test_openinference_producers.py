"""Traces written by the real OpenInference instrumentations read to the whole path.

The files are in ``tests/golden/ingest/producers`` (see its README for the generators and
library versions): a LangGraph ReAct agent and a LangChain RAG chain
(``openinference-instrumentation-langchain``), as OTLP/JSON and as Phoenix's own exports
(JSONL and the spans dataframe as Parquet), and an OpenAI Agents SDK run with a handoff
(``openinference-instrumentation-openai-agents``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.types import Run
from pathgrade.io.ingest import FORMATS, IngestOptions, detect

from .openinference_golden import AGENTS_STEPS, LANGGRAPH_STEPS, RAG_ANSWER, RAG_STEPS

PRODUCERS = Path(__file__).resolve().parents[2] / "golden" / "ingest" / "producers"
LANGGRAPH_FILES = [
    "openinference_langgraph_otlp.jsonl",
    "openinference_phoenix_spans.jsonl",
    "openinference_phoenix_spans.parquet",
]


def runs(name: str, options: IngestOptions | None = None) -> dict[str, Run]:
    path = PRODUCERS / name
    return {r.run_id: r for r in FORMATS[detect(path).name].read(path, options)}


def path_of(run: Run) -> list[tuple[Any, ...]]:
    return [(s.tool, s.arguments, s.output, s.error) for s in run.steps]


@pytest.mark.parametrize("name", LANGGRAPH_FILES)
def test_langgraph_agent_reads_to_its_whole_path(name: str) -> None:
    run = runs(name)["5eed0000000000000000000000000001"]
    assert path_of(run) == LANGGRAPH_STEPS
    lookup, search, failed, refund = run.steps
    # One turn per model response that asked for tools; the two calls of the first response
    # in the order the model wrote them (the ToolNode ran them in parallel threads).
    assert [s.turn for s in run.steps] == [0, 0, 1, 2]
    assert [s.call_id for s in run.steps] == [
        "call_lookup",
        "call_kb",
        "call_refund_1",
        "call_refund_2",
    ]
    # lookup_order has one argument: the TOOL span recorded only "A17" (no JSON mime type),
    # the arguments come from the model's tool call.
    assert lookup.raw_arguments == '{"order_id": "A17"}'
    # search_kb wraps the KnowledgeBase RETRIEVER span: one step, its documents retrieved
    # (their ids only in each document's metadata).
    assert search.metadata["retrieval"] is True and len(search.metadata["span_ids"]) == 2
    assert [(d.id, d.score) for d in run.retrieved or ()] == [
        ("kb-refunds", None),
        ("kb-payments", None),
    ]
    # The ToolException LangChain handed back to the model: the span's status is OK.
    assert failed.error == "payment gateway timeout" and refund.error is None
    # The ReAct graph's "agent" node runs once per model call: not a nested agent.
    assert all(s.parent is None and "agent" not in s.metadata for s in run.steps)
    assert run.answer == "Refunded 25.00 on order A17."
    assert run.usage is not None and run.usage.tokens == 1116  # 160 + 282 + 322 + 352


@pytest.mark.parametrize("name", LANGGRAPH_FILES)
def test_rag_chain_whose_retrieval_is_a_retriever_span_only(name: str) -> None:
    run = runs(name)["5eed0000000000000000000000000002"]
    assert path_of(run) == RAG_STEPS
    (step,) = run.steps
    assert step.metadata["retrieval"] is True and step.turn is None  # no model call before it
    assert [d.id for d in run.retrieved or ()] == ["kb-refunds", "kb-payments"]
    assert run.answer == RAG_ANSWER
    assert run.usage is not None and run.usage.tokens == 104  # 90 + 14


def test_retrieval_steps_can_be_left_out() -> None:
    found = runs(LANGGRAPH_FILES[0], IngestOptions(retrieval_steps=False))
    rag = found["5eed0000000000000000000000000002"]
    assert rag.steps == () and [d.id for d in rag.retrieved or ()] == ["kb-refunds", "kb-payments"]
    # search_kb is a tool the model called: it stays a step
    assert [s.tool for s in found["5eed0000000000000000000000000001"].steps] == [
        "lookup_order",
        "search_kb",
        "issue_refund",
        "issue_refund",
    ]


def test_the_three_encodings_read_to_the_same_runs() -> None:
    def key(run: Run) -> tuple[Any, ...]:
        steps = [(s.tool, s.arguments, s.output, s.error, s.turn, s.call_id) for s in run.steps]
        retrieved = [(d.id, d.score) for d in run.retrieved or ()]
        tokens = run.usage.tokens if run.usage else None
        return (run.run_id, steps, retrieved, run.answer, tokens)

    encodings = [sorted(key(r) for r in runs(name).values()) for name in LANGGRAPH_FILES]
    assert encodings[0] == encodings[1] == encodings[2]


def test_openai_agents_run_with_a_handoff() -> None:
    found = runs("openinference_openai_agents_otlp.jsonl")
    run = found["5eed0000000000000000000000000001"]
    assert path_of(run) == AGENTS_STEPS
    assert [s.metadata.get("agent") for s in run.steps] == [
        "Support",
        "Support",
        "Billing",
        "Billing",
    ]
    support, billing = run.steps[0].parent, run.steps[2].parent
    assert support is not None and billing is not None and support != billing
    # The handoff (the model's transfer_to_billing call, its handoff span) is not a step,
    # and its model response adds no turn.
    assert [s.turn for s in run.steps] == [0, 0, 1, 2]
    assert [s.call_id for s in run.steps] == [
        "call_lookup",
        "call_kb",
        "call_refund_1",
        "call_refund_2",
    ]
    # search_kb is a RETRIEVER span (tool_span_kinds) with ids and scores; no call id on the
    # span: the model's call gives it.
    search = run.steps[1]
    assert search.metadata["retrieval"] is True
    assert [(d.id, d.score) for d in run.retrieved or ()] == [
        ("kb-refunds", 0.92),
        ("kb-payments", 0.71),
    ]
    assert run.answer == "Refunded 25.00 EUR for order A17."
    assert run.usage is not None and run.usage.tokens == 1093  # 150 + 192 + 220 + 260 + 271
    blocked = found["5eed0000000000000000000000000002"]
    assert blocked.steps == () and blocked.answer is None  # the input guardrail tripped
