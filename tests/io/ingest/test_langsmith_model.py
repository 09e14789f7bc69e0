"""LangSmith model runs and root chains: answers, a model run as the root, token sources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathgrade.io.ingest.langsmith_model import answer_of, tokens_of

from .langsmith_runs import ai, generations, read, run, usage_extra


@pytest.mark.parametrize(
    ("outputs", "answer"),
    [
        ("plain text", "plain text"),
        ({"answer": "A", "question": "Q"}, "A"),  # a known key wins over other strings
        ({"output": "O"}, "O"),  # @traceable returning a string
        ({"text": "T", "score": 3}, "T"),
        ({"result": "R"}, "R"),
        ({"summary": "S", "n": 2}, "S"),  # the only string value
        ({"a": "x", "b": "y"}, None),  # two strings, no known key: not guessed
        ({"output": ai("from a message")}, "from a message"),
        (
            {"messages": [{"type": "human", "content": "q"}, {"type": "ai", "content": "last"}]},
            "last",
        ),
        (
            {"messages": [{"type": "ai", "content": "said"}, {"type": "tool", "content": "x"}]},
            "said",
        ),
        ({"answer": ""}, None),
        ({}, None),
        (None, None),
        (7, None),
    ],
)
def test_root_answer(outputs: Any, answer: str | None) -> None:
    assert answer_of(outputs) == answer


def test_root_chain_answer_read(tmp_path: Path) -> None:
    lines = [run("root", "chain", "qa", outputs={"answer": "Paris", "question": "capital?"})]
    (read_run,) = read(tmp_path, lines)
    assert read_run.answer == "Paris" and read_run.steps == ()


def test_root_model_run(tmp_path: Path) -> None:
    # a model call with no chain around it: its text is the answer, its tokens the usage,
    # and the calls it asks for are the steps
    message = ai("Checking both.", (("weather", {"city": "Paris"}, "c1"), ("weather", {}, "c2")))
    message["kwargs"]["usage_metadata"] = {"input_tokens": 5, "output_tokens": 7}
    lines = [
        run(
            "m1",
            "llm",
            "ChatOpenAI",
            outputs=generations(message, llm_output={"token_usage": {"total_tokens": 99}}),
            extra={"metadata": {"pathgrade.case_id": "w", "usage_metadata": {"total_tokens": 12}}},
        )
    ]
    (read_run,) = read(tmp_path, lines)
    assert (read_run.case_id, read_run.answer) == ("w", "Checking both.")
    assert read_run.usage is not None and read_run.usage.tokens == 12  # extra.metadata first
    assert [(s.tool, s.arguments, s.call_id, s.turn) for s in read_run.steps] == [
        ("weather", {"city": "Paris"}, "c1", 0),
        ("weather", {}, "c2", 0),
    ]


@pytest.mark.parametrize(
    ("fields", "tokens"),
    [
        ({"total_tokens": 50, "extra": usage_extra(12)}, 50),  # read back from LangSmith
        ({"prompt_tokens": 30, "completion_tokens": 4}, 34),  # 30 + 4
        ({"extra": {"metadata": {"usage_metadata": {"input_tokens": 8, "output_tokens": 2}}}}, 10),
        ({"outputs": {"usage_metadata": {"total_tokens": 21}}}, 21),  # wrap_openai
        (
            {"outputs": generations(ai(), llm_output={"token_usage": {"prompt_tokens": 9}})},
            9,  # 9 + no completion count
        ),
        ({"outputs": {"choices": [], "usage": {"total_tokens": 17}}}, 17),
        (
            {"outputs": {"generations": [[{"message": {"usage_metadata": {"total_tokens": 6}}}]]}},
            None,
        ),
        ({"outputs": {"generations": "x"}, "total_tokens": "many"}, None),
        ({}, None),
    ],
)
def test_token_sources_in_order(fields: dict[str, Any], tokens: float | None) -> None:
    assert tokens_of(fields) == tokens


def test_token_counts_of_generations_summed() -> None:
    first = ai()
    first["kwargs"]["usage_metadata"] = {"total_tokens": 6}
    second = {
        "type": "ai",
        "content": "",
        "usage_metadata": {"input_tokens": 3, "output_tokens": 1},
    }
    outputs = {"generations": [[{"message": first}], [{"message": second}]]}
    assert tokens_of({"outputs": outputs}) == 10  # 6 + (3 + 1)


def test_older_tool_calls_in_additional_kwargs(tmp_path: Path) -> None:
    message = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {
            "content": "",
            "additional_kwargs": {
                "tool_calls": [
                    {
                        "id": "c9",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"x": 1}'},
                    }
                ]
            },
        },
    }
    (read_run,) = read(tmp_path, [run("m", "llm", "ChatOpenAI", outputs=generations(message))])
    assert [(s.tool, s.arguments, s.raw_arguments, s.call_id) for s in read_run.steps] == [
        ("f", {"x": 1}, '{"x": 1}', "c9")
    ]
