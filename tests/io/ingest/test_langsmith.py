"""LangSmith runs: retriever runs as steps, one step per call, flat runs, scopes, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, langchain

from .helpers import write_lines
from .langsmith_runs import agent_trace, ai, generations, read, run, steps, t


def test_retriever_run_is_a_step(tmp_path: Path) -> None:
    (read_run,) = read(tmp_path, agent_trace())
    assert steps(read_run) == [
        ("lookup_order", {"order_id": "A17"}, {"status": "delivered"}, None, 0),
        # one response asked for both: one turn, in the order the model wrote them
        ("search_kb", {"query": "refunds"}, ["kb-12", "kb-3"], None, 0),
    ]
    assert read_run.steps[1].metadata["retrieval"] is True
    assert read_run.steps[1].call_id == "c2"  # from the emitted call, matched by name
    assert [(d.id, d.score) for d in read_run.retrieved or ()] == [("kb-12", 0.9), ("kb-3", None)]
    assert read_run.answer == "Refunded."
    assert read_run.usage is not None and read_run.usage.tokens == 140  # 100 + 40


def test_retrieval_steps_can_be_turned_off(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "runs.jsonl", agent_trace())
    (read_run,) = langchain.read(path, IngestOptions(retrieval_steps=False))
    assert [s.tool for s in read_run.steps] == ["lookup_order"]
    assert [d.id for d in read_run.retrieved or ()] == ["kb-12", "kb-3"]


def test_tool_run_wrapping_a_retriever_is_one_step(tmp_path: Path) -> None:
    # create_retriever_tool: a tool run "search_kb" around the retriever run (class name)
    tool_message = {
        "content": "a\n\nb",
        "type": "tool",
        "tool_call_id": "c2",
        "status": "success",
        "artifact": [{"id": "kb-12", "page_content": "a", "metadata": {}}],
    }
    lines = [
        run("root", "chain", "LangGraph", start=0, end=9),
        run(
            "m1",
            "llm",
            "ChatOpenAI",
            "root",
            1,
            2,
            outputs=generations(ai("", (("search_kb", {"query": "q"}, "c2"),))),
        ),
        run(
            "t2",
            "tool",
            "search_kb",
            "root",
            3,
            4,
            inputs={"query": "q"},
            outputs={"output": tool_message},
            extra={"tool_call_id": "c2"},
        ),
        run(
            "r2",
            "retriever",
            "VectorStoreRetriever",
            "t2",
            3.1,
            3.9,
            inputs={"query": "q"},
            outputs={"documents": [{"id": "kb-12", "page_content": "a", "metadata": {}}]},
        ),
    ]
    (read_run,) = read(tmp_path, lines)
    assert steps(read_run) == [("search_kb", {"query": "q"}, "a\n\nb", None, 0)]
    step = read_run.steps[0]
    assert step.call_id == "c2" and step.metadata["retrieval"] is True
    assert step.metadata["span_ids"] == ["t2", "r2"]
    assert [d.id for d in read_run.retrieved or ()] == ["kb-12"]


def test_flat_runs_spread_over_lines_post_then_patch(tmp_path: Path) -> None:
    # the tracer posts a run when it starts and patches it when it ends; an export may hold
    # both, children before parents, in any order: one run per id, the later fields win
    post = run("t1", "tool", "lookup", "root", 1, 2, inputs={"id": 3}, outputs=None)
    patch = {"id": "t1", "outputs": {"output": "found"}, "end_time": t(2.5), "trace_id": "trace-1"}
    root = run("root", "chain", "agent", None, 0, 3, outputs={"output": "ok"})
    other = {**run("x", "chain", "other", None, 0, 1), "trace_id": "trace-2"}
    runs = read(tmp_path, [post, other, patch, root])
    assert [r.run_id for r in runs] == ["trace-1", "trace-2"]
    assert steps(runs[0]) == [("lookup", {"id": 3}, "found", None, None)]
    assert runs[0].steps[0].latency_ms == pytest.approx(1500.0)  # 2.5 - 1 s
    assert runs[0].answer == "ok" and runs[0].steps[0].parent == "root"


def test_trace_id_from_the_parent_when_missing(tmp_path: Path) -> None:
    child = run("t1", "tool", "lookup", "root", 1, 2)
    del child["trace_id"]
    root = run("root", "chain", "agent", None, 0, 3)
    root["trace_id"] = None
    runs = read(tmp_path, [[child, root]])  # one line holding a JSON array of runs
    assert [(r.run_id, [s.tool for s in r.steps]) for r in runs] == [("root", ["lookup"])]


def test_runs_query_page(tmp_path: Path) -> None:
    page = {"runs": agent_trace(), "cursors": {"next": None}}
    path = write_lines(tmp_path / "page.json", [page])
    (read_run,) = langchain.read(path)
    assert [s.tool for s in read_run.steps] == ["lookup_order", "search_kb"]


def test_child_chains_with_a_model_and_tools_are_agents(tmp_path: Path) -> None:
    lines = [
        run("root", "chain", "supervisor", start=0, end=9),
        run("node", "chain", "tools", "root", 1, 8),  # a graph node: no model below it
        run("sub", "chain", "researcher", "node", 2, 7),
        run("m", "llm", "ChatOpenAI", "sub", 2, 3, outputs=generations(ai("", (("s", {}, "c"),)))),
        run("t", "tool", "s", "sub", 4, 5, extra={"tool_call_id": "c"}),
        run("t0", "tool", "note", "node", 7.5, 7.8),
    ]
    (read_run,) = read(tmp_path, lines)
    assert [(s.tool, s.parent, s.metadata.get("agent")) for s in read_run.steps] == [
        ("s", "sub", "researcher"),
        ("note", "root", "supervisor"),
    ]


def test_failed_tool_runs(tmp_path: Path) -> None:
    traceback = "ValueError('gateway timeout')Traceback (most recent call last):\n  File ..."
    failed_message = {"type": "tool", "content": "no such order", "status": "error"}
    lines = [
        run("root", "chain", "agent", start=0, end=9),
        run("t1", "tool", "refund", "root", 1, 2, error=traceback, outputs={}),
        run("t2", "tool", "lookup", "root", 3, 4, outputs={"output": failed_message}),
        run("t3", "tool", "ok", "root", 5, 6, inputs={"input": "plain text"}, error=" "),
    ]
    (read_run,) = read(tmp_path, lines)
    assert [(s.tool, s.output, s.error) for s in read_run.steps] == [
        ("refund", None, "ValueError('gateway timeout')"),  # cut before the traceback
        ("lookup", "no such order", "no such order"),  # a ToolMessage with status "error"
        ("ok", None, None),
    ]
    assert read_run.steps[2].raw_arguments == "plain text"


def test_duplicate_tree_line_is_one_run(tmp_path: Path) -> None:
    tree = {**run("root", "chain", "agent", None, 0, 3), "child_runs": [run("t1", "tool", "f")]}
    del tree["child_runs"][0]["parent_run_id"]
    runs = read(tmp_path, [tree, tree])
    assert [(r.run_id, [s.tool for s in r.steps]) for r in runs] == [("trace-1", ["f"])]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"extra": 5}, "extra"),
        ({"extra": {"metadata": []}}, "extra.metadata"),
        ({"child_runs": "x"}, "child_runs"),
        ({"child_runs": [5]}, "child_runs[0]"),
        ({"child_runs": [{"run_type": "tool"}]}, "child_runs[0].id"),
        ({"parent_run_id": 5}, "parent_run_id"),
        ({"trace_id": ["t"]}, "trace_id"),
        ({"start_time": "yesterday"}, "start_time"),
        ({"id": None}, "id"),
    ],
)
def test_malformed_run_is_a_one_line_error(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    bad = {**run("r", "chain", "agent"), **change}
    path = write_lines(tmp_path / "bad.jsonl", [run("ok", "chain", "fine"), bad])
    with pytest.raises(InputError) as caught:
        list(langchain.read(path))
    assert (caught.value.line, caught.value.field) == (2, field)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    options = IngestOptions(skip_invalid=True)
    assert [r.run_id for r in langchain.read(path, options)] == ["trace-1"]
    assert [e.line for e in options.skipped] == [2]


@pytest.mark.parametrize(
    "value", [None, True, 3, "text", [], [None], {}, {"lc": 1, "kwargs": None}]
)
def test_any_value_where_langchain_expects_an_object(tmp_path: Path, value: Any) -> None:
    # nulls and other JSON types in the places the reader looks into: no crash, no error
    places = ["inputs", "outputs", "extra"]
    for place in places:
        for item in agent_trace():
            broken = {**item, place: value}
            if place == "extra" and not isinstance(value, dict | type(None)):
                continue  # a wrong type there is an error (tested above)
            lines = [broken if x["id"] == item["id"] else x for x in agent_trace()]
            (read_run,) = read(tmp_path, lines)
            assert read_run.run_id == "trace-1"
    nested = agent_trace()
    nested[1]["outputs"] = {"generations": [[value]], "llm_output": value}
    nested[2]["outputs"] = {"documents": value}
    nested[3]["outputs"] = {"output": {"type": "tool", "content": value, "status": value}}
    (read_run,) = read(tmp_path, nested)
    assert read_run.steps[0].tool == "lookup_order"


def test_tool_run_returning_documents_as_its_artifact(tmp_path: Path) -> None:
    # @tool(response_format="content_and_artifact") returning Documents, no retriever run:
    # read as create_retriever_tool is (one step, its documents retrieved)
    output = {
        "type": "tool",
        "content": "two documents",
        "tool_call_id": "c1",
        "artifact": [
            {"id": "d1", "page_content": "a", "metadata": {"score": 0.5}, "type": "Document"},
            {"id": "d2", "page_content": "b", "metadata": {}, "type": "Document"},
        ],
    }
    lines = [
        run("root", "chain", "agent", start=0, end=9),
        run("t1", "tool", "find_docs", "root", 1, 2, inputs={"q": "x"}, outputs={"output": output}),
    ]
    (read_run,) = read(tmp_path, lines)
    assert steps(read_run) == [("find_docs", {"q": "x"}, "two documents", None, None)]
    step = read_run.steps[0]
    assert step.metadata["retrieval"] is True
    assert step.metadata["span_ids"] == ["t1", "t1#artifact"]
    assert [(d.id, d.score) for d in read_run.retrieved or ()] == [("d1", 0.5), ("d2", None)]
    no_documents = {**output, "artifact": {"not": "documents"}}
    lines[1]["outputs"] = {"output": no_documents}
    (plain,) = read(tmp_path, lines)
    assert "retrieval" not in plain.steps[0].metadata and plain.retrieved is None
