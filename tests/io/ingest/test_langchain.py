"""LangChain ``messages_to_dict`` output and LangSmith run trees."""

from __future__ import annotations

from pathlib import Path

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
        ("refund", {"order": 7, "amount": 10.5}, "sub", "declined"),
    ]
    assert run.steps[0].output == "found" and run.steps[1].metadata["agent"] == "Refunder"
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
