"""LangChain ``messages_to_dict`` output and LangSmith run trees."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, langchain

from .helpers import write_lines


def messages() -> list[dict[str, object]]:
    return [
        {"type": "human", "data": {"content": "Cancel order 7"}},
        {
            "type": "ai",
            "data": {
                "content": "",
                "tool_calls": [
                    {"name": "get_order", "args": {"id": 7}, "id": "t1", "type": "tool_call"},
                    {"name": "get_user", "args": {}, "id": "t2", "type": "tool_call"},
                ],
                "usage_metadata": {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55},
            },
        },
        {"type": "tool", "data": {"content": '{"status": "pending"}', "tool_call_id": "t1"}},
        {"type": "tool", "data": {"content": "boom", "tool_call_id": "t2", "status": "error"}},
        {
            "type": "ai",
            "data": {"content": "Order 7 is cancelled.", "usage_metadata": {"total_tokens": 20}},
        },
    ]


def test_messages_to_dict(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "lc.jsonl", [{"case_id": "c7", "messages": messages()}])
    assert detect(path).name == "langchain"
    (run,) = list(langchain.read(path))
    assert run.case_id == "c7" and run.answer == "Order 7 is cancelled."
    assert [(s.tool, s.arguments, s.turn, s.error) for s in run.steps] == [
        ("get_order", {"id": 7}, 0, None),
        ("get_user", {}, 0, "boom"),
    ]
    assert run.steps[0].output == {"status": "pending"}
    assert run.usage is not None and run.usage.tokens == 75


def tree() -> dict[str, object]:
    return {
        "id": "root",
        "name": "AgentExecutor",
        "run_type": "chain",
        "start_time": "2024-05-01T10:00:00",
        "end_time": "2024-05-01T10:00:10",
        "outputs": {"output": "Done."},
        "extra": {"metadata": {"pathgrade.case_id": "task-3"}},
        "child_runs": [
            {
                "id": "llm1",
                "name": "ChatOpenAI",
                "run_type": "llm",
                "start_time": "2024-05-01T10:00:00.100",
                "end_time": "2024-05-01T10:00:01",
                "total_tokens": 120,
                "total_cost": 0.01,
            },
            # the sub-agent, listed before the earlier tool call: children are not ordered
            {
                "id": "sub",
                "name": "Refunder",
                "run_type": "chain",
                "start_time": "2024-05-01T10:00:03",
                "end_time": "2024-05-01T10:00:09",
                "child_runs": [
                    {
                        "id": "tool2",
                        "name": "refund",
                        "run_type": "tool",
                        "start_time": "2024-05-01T10:00:04",
                        "end_time": "2024-05-01T10:00:05",
                        "inputs": {"order": 7, "amount": 10.5},
                        "error": "declined",
                    },
                ],
            },
            {
                "id": "tool1",
                "name": "lookup",
                "run_type": "tool",
                "start_time": "2024-05-01T10:00:01.500",
                "end_time": "2024-05-01T10:00:02",
                "inputs": {"input": '{"order": 7}'},
                "outputs": {"output": "found"},
            },
            {
                "id": "ret",
                "name": "kb",
                "run_type": "retriever",
                "start_time": "2024-05-01T10:00:02.500",
                "end_time": "2024-05-01T10:00:02.600",
                "outputs": {
                    "documents": [{"page_content": "x", "metadata": {"id": "p1", "score": 0.7}}]
                },
            },
        ],
    }


def test_langsmith_run_tree(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "ls.jsonl", [tree()])
    assert detect(path).name == "langchain"
    (run,) = list(langchain.read(path))
    assert run.case_id == "task-3" and run.run_id == "root" and run.answer == "Done."
    assert [(s.tool, s.arguments, s.parent, s.error) for s in run.steps] == [
        ("lookup", {"order": 7}, "root", None),
        ("kb", {}, "root", None),  # the retriever run is a step
        # "Refunder" has no model run below it: not an agent scope (a graph node, a runnable)
        ("refund", {"order": 7, "amount": 10.5}, "root", "declined"),
    ]
    assert run.steps[0].output == "found" and run.steps[2].metadata["agent"] == "AgentExecutor"
    assert run.steps[1].output == ["p1"] and run.steps[1].metadata["retrieval"] is True
    assert run.usage is not None and run.usage.tokens == 120 and run.usage.cost == 0.01
    assert run.usage.latency_ms == pytest.approx(10_000.0)
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("p1", 0.7)]


def test_malformed_run_tree_and_skip(tmp_path: Path) -> None:
    broken = {"id": "r2", "run_type": "chain", "child_runs": [{"run_type": "tool"}]}
    path = write_lines(tmp_path / "ls.jsonl", [broken, tree()])
    with pytest.raises(InputError, match="'id'") as caught:
        list(langchain.read(path))
    assert caught.value.line == 1
    options = IngestOptions(skip_invalid=True)
    assert [r.run_id for r in langchain.read(path, options)] == ["root"]


def dumpd(message: dict[str, object]) -> dict[str, object]:
    """A ``messages_to_dict`` message in ``dumpd`` form (``{"lc": 1, "kwargs": ...}``)."""
    names = {"human": "HumanMessage", "ai": "AIMessage", "tool": "ToolMessage"}
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", names[str(message["type"])]],
        "kwargs": message["data"],
    }


def model_dump(message: dict[str, object]) -> dict[str, object]:
    """A ``messages_to_dict`` message as ``model_dump`` writes it (LangGraph state)."""
    data = message["data"]
    assert isinstance(data, dict)
    return {**data, "type": message["type"]}


@pytest.mark.parametrize("shape", [dumpd, model_dump])
def test_the_other_message_shapes_read_the_same(tmp_path: Path, shape: object) -> None:
    assert callable(shape)
    line = {"case_id": "c7", "messages": [shape(m) for m in messages()]}
    path = write_lines(tmp_path / "lc.jsonl", [line])
    assert detect(path).name == "langchain"
    (run,) = list(langchain.read(path))
    assert [(s.tool, s.arguments, s.output, s.error) for s in run.steps] == [
        ("get_order", {"id": 7}, {"status": "pending"}, None),
        ("get_user", {}, "boom", "boom"),
    ]
    assert run.answer == "Order 7 is cancelled." and run.usage is not None
    assert run.usage.tokens == 75  # 55 + 20


def retriever_conversation(tool_data: dict[str, object]) -> list[dict[str, object]]:
    call = {"name": "search_kb", "args": {"query": "refunds"}, "id": "k1", "type": "tool_call"}
    return [
        {"type": "human", "data": {"content": "Refund policy?"}},
        {"type": "ai", "data": {"content": "", "tool_calls": [call]}},
        {"type": "tool", "data": {"tool_call_id": "k1", "status": "success", **tool_data}},
        {"type": "ai", "data": {"content": "30 days."}},
    ]


DOCS = [
    {"id": "kb-1", "metadata": {"score": 0.5}, "page_content": "a", "type": "Document"},
    {"id": None, "metadata": {"id": "kb-2"}, "page_content": "b", "type": "Document"},
    {"id": None, "metadata": {"source": "faq.md"}, "page_content": "c", "type": "Document"},
    {"id": None, "metadata": {}, "page_content": "no id: left out", "type": "Document"},
]


@pytest.mark.parametrize(
    ("tool_data", "output"),
    [
        # create_retriever_tool(response_format="content_and_artifact")
        ({"content": "a\n\nb", "artifact": DOCS}, "a\n\nb"),
        # a tool that returns the documents themselves
        ({"content": orjson.dumps(DOCS).decode()}, DOCS),
        ({"content": "", "artifact": [{"lc": 1, "kwargs": DOCS[0]}]}, ""),
    ],
)
def test_retriever_tool_messages_give_documents(
    tmp_path: Path, tool_data: dict[str, object], output: object
) -> None:
    path = write_lines(tmp_path / "lc.jsonl", [retriever_conversation(tool_data)])
    (run,) = list(langchain.read(path))
    (step,) = run.steps
    assert (step.tool, step.arguments, step.output) == ("search_kb", {"query": "refunds"}, output)
    assert step.metadata["retrieval"] is True
    expected = ["kb-1"] if "lc" in str(tool_data.get("artifact")) else ["kb-1", "kb-2", "faq.md"]
    assert [d.id for d in run.retrieved or ()] == expected
    assert run.metadata["retrievals"][0]["call_id"] == "k1"


@pytest.mark.parametrize(
    "tool_data",
    [
        {"content": "plain text", "artifact": None},
        {"content": "[1, 2]"},  # a list, but not of documents
        {"content": [{"type": "text", "text": "parts"}]},
        {"content": "x", "artifact": [{"page_content": "a"}, 5]},  # not every item a document
    ],
)
def test_other_tool_messages_are_no_retrieval(tmp_path: Path, tool_data: dict[str, object]) -> None:
    path = write_lines(tmp_path / "lc.jsonl", [retriever_conversation(tool_data)])
    (run,) = list(langchain.read(path))
    assert "retrieval" not in run.steps[0].metadata and run.retrieved is None


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ([{"type": "ai", "data": None}], "[0].data"),
        ([{"type": "ai", "data": 5}], "[0].data"),
        ([{"type": "ai", "data": {"content": "", "tool_calls": 5}}], "[0].data.tool_calls"),
        ([{"type": "ai", "data": {"tool_calls": [None]}}], "[0].data.tool_calls[0]"),
        ([{"type": "ai", "data": {"tool_calls": [{"args": {}}]}}], "[0].data.tool_calls[0].name"),
        (
            {"messages": [{"type": "ai", "content": "", "additional_kwargs": []}]},
            "messages[0].additional_kwargs",
        ),
    ],
)
def test_malformed_messages_are_one_line_errors(tmp_path: Path, line: object, field: str) -> None:
    path = write_lines(tmp_path / "lc.jsonl", [line])
    with pytest.raises(InputError) as caught:
        list(langchain.read(path))
    assert (caught.value.line, caught.value.field) == (1, field)


def test_sniffs_model_dump_messages() -> None:
    assert langchain.sniff(b'[{"content": "hi", "type": "human"}, {"type": "ai", "content": ""}]')
    assert not langchain.sniff(b'[{"role": "user", "content": "hi", "type": "ai"}]')
