"""Golden tests on files written by LangSmith's and LangChain's own libraries.

The files in ``tests/golden/ingest/producers/`` were written by the scripts in
``tools/producers/`` (``langsmith_langgraph.py``, ``langsmith_traceable.py``,
``langsmith_chat_model.py``) driving the real tracers offline with recorded model replies;
``tests/golden/ingest/README.md`` lists their library versions. Each test asserts the whole
path: tools and retrievals in order, arguments, outputs, errors, turns, answer and tokens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.types import Run
from pathgrade.io.ingest import IngestOptions, detect, langchain

PRODUCERS = Path(__file__).resolve().parents[2] / "golden" / "ingest" / "producers"
KB_TEXT = "Damaged items are refunded in full within 30 days.\n\n" + (
    "Refunds go back to the original payment method."
)
ERROR_MESSAGE = "Error: TimeoutError('payment gateway timeout')\n Please fix your mistakes."


def read(name: str, **options: Any) -> list[Run]:
    path = PRODUCERS / name
    assert detect(path).name == "langchain"
    opts = IngestOptions(**options)
    runs = list(langchain.read(path, opts))
    assert opts.skipped == [] and opts.fallbacks == []
    return runs


def path_of(run: Run) -> list[tuple[Any, ...]]:
    return [(s.tool, s.arguments, s.output, s.error, s.turn, s.call_id) for s in run.steps]


LANGGRAPH_PATH = [
    (
        "lookup_order",
        {"order_id": "A17"},
        {"order_id": "A17", "status": "delivered", "total": 25.0},
    ),
    ("search_kb", {"query": "refund policy for damaged items"}, KB_TEXT),
    ("issue_refund", {"order_id": "A17", "amount": 25.0}, ERROR_MESSAGE),
    ("issue_refund", {"order_id": "A17", "amount": 25.0}, "refunded 25.00 on A17"),
]
CALL_IDS = ["call_lookup", "call_kb", "call_refund_1", "call_refund_2"]
TURNS = [0, 0, 1, 2]  # the first response asked for two calls at once
# tokens: (212 + 48) + (305 + 22) + (352 + 22) + (398 + 17) = 260 + 327 + 374 + 415 = 1376
LANGGRAPH_TOKENS = 1376.0
ANSWER = "I refunded 25.00 for order A17 to your original card."


def test_langgraph_agent_flat_runs() -> None:
    # 34 flat runs (list_runs): LangGraph nodes, a tool run wrapping the retriever run, a
    # tool that raised and was handed back to the model as an error message
    (run,) = read("langsmith_langgraph_runs.jsonl")
    assert run.case_id == "refund-A17" and run.answer == ANSWER
    assert [(s.tool, s.arguments, s.output) for s in run.steps] == LANGGRAPH_PATH
    assert [s.error for s in run.steps] == [
        None,
        None,
        "TimeoutError('payment gateway timeout')",
        None,
    ]
    assert [s.turn for s in run.steps] == TURNS and [s.call_id for s in run.steps] == CALL_IDS
    search = run.steps[1]
    assert search.metadata["retrieval"] is True and len(search.metadata["span_ids"]) == 2
    assert {s.metadata["agent"] for s in run.steps} == {"LangGraph"}  # nodes are not agents
    assert {s.parent for s in run.steps} == {run.run_id}
    assert [(d.id, d.score) for d in run.retrieved or ()] == [
        ("kb-refunds", 0.91),  # Document.id
        ("kb-payments", 0.64),  # metadata["id"]
    ]
    assert run.usage is not None and run.usage.tokens == LANGGRAPH_TOKENS
    assert run.usage.latency_ms is not None and run.usage.latency_ms > 0


def test_langgraph_agent_without_retrieval_steps_keeps_the_tool() -> None:
    # the model called the retriever tool: the call stays a step; only lone retrievers go
    (run,) = read("langsmith_langgraph_runs.jsonl", retrieval_steps=False)
    assert [s.tool for s in run.steps] == [t for t, _, _ in LANGGRAPH_PATH]


def test_langgraph_agent_messages_to_dict() -> None:
    # the same agent's final state through messages_to_dict: the same path and tokens
    (run,) = read("langchain_langgraph_messages.jsonl")
    assert run.case_id == "refund-A17" and run.answer == ANSWER
    assert [(s.tool, s.arguments, s.output) for s in run.steps] == LANGGRAPH_PATH
    assert [s.error for s in run.steps] == [None, None, ERROR_MESSAGE, None]
    assert [s.turn for s in run.steps] == TURNS and [s.call_id for s in run.steps] == CALL_IDS
    assert run.steps[1].metadata == {"retrieval": True}  # the artifact holds the documents
    assert [(d.id, d.score) for d in run.retrieved or ()] == [
        ("kb-refunds", 0.91),
        ("kb-payments", 0.64),
    ]
    assert run.metadata["retrievals"] == [
        {
            "tool": "search_kb",
            "call_id": "call_kb",
            "documents": [
                {"id": "kb-refunds", "score": 0.91, "rank": 1},
                {"id": "kb-payments", "score": 0.64, "rank": 2},
            ],
        }
    ]
    assert run.usage is not None and run.usage.tokens == LANGGRAPH_TOKENS


def test_traceable_run_trees() -> None:
    # read_run(load_child_runs=True): nested child_runs; wrap_openai model runs
    agent, rag = read("langsmith_traceable_trees.json")
    assert agent.case_id == "refund-A17"
    assert path_of(agent) == [
        (
            "lookup_order",
            {"order_id": "A17"},
            {"order_id": "A17", "status": "delivered"},
            None,
            0,
            "call_lookup",
        ),
        # a retriever run, no tool run: a step named by the run, ids as its output
        (
            "search_kb",
            {"query": "refund policy"},
            ["kb-returns", "kb-payments"],
            None,
            0,
            "call_kb",
        ),
    ]
    assert agent.answer == "A17 was delivered; you can return it within 30 days."  # {"answer"}
    assert agent.usage is not None and agent.usage.tokens == 323.0  # (96 + 41) + (171 + 15)
    assert rag.case_id == "kb-question"
    assert path_of(rag) == [
        # retrieval before any model call: no turn; no model asked for it: no call id
        (
            "search_kb",
            {"query": "Where do refunds go?"},
            ["kb-returns", "kb-payments"],
            None,
            None,
            None,
        )
    ]
    assert rag.answer == "Refunds go back to the original payment method."  # outputs.output
    assert rag.usage is not None and rag.usage.tokens == 97.0  # 88 + 9
    assert [(d.id, d.score) for d in rag.retrieved or ()] == [
        ("kb-returns", 0.88),
        ("kb-payments", 0.52),
    ]


def test_chat_model_as_the_root_run() -> None:
    answered, called = read("langsmith_chat_model_roots.jsonl")
    assert (answered.case_id, answered.answer) == (
        "weather-answer",
        "It is 18 degrees and sunny in Paris.",
    )
    assert answered.steps == ()  # the earlier call is history in its input, not its own
    assert answered.usage is not None and answered.usage.tokens == 75.0  # 64 + 11
    assert called.case_id == "weather-two-cities" and called.answer is None
    assert path_of(called) == [
        ("get_weather", {"city": "Paris"}, None, None, 0, "call_paris"),
        ("get_weather", {"city": "Rome"}, None, None, 0, "call_rome"),
    ]
    assert called.usage is not None and called.usage.tokens == 90.0  # 52 + 38


@pytest.mark.parametrize(
    "name", ["langsmith_langgraph_runs.jsonl", "langsmith_chat_model_roots.jsonl"]
)
def test_flat_runs_in_reverse_order_read_the_same(name: str, tmp_path: Path) -> None:
    # an export is not ordered: children before parents, traces interleaved
    lines = [x for x in (PRODUCERS / name).read_bytes().split(b"\n") if x.strip()]
    reversed_file = tmp_path / name
    reversed_file.write_bytes(b"\n".join(reversed(lines)) + b"\n")

    def by_case(runs: list[Run]) -> dict[str, Any]:
        return {r.case_id: (path_of(r), r.answer, r.usage, r.retrieved) for r in runs}

    assert by_case(list(langchain.read(reversed_file))) == by_case(read(name))
