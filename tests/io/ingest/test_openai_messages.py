"""OpenAI chat-completions message lists: tool_calls with JSON-string arguments, parallel turns."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, openai_messages

from .helpers import write_lines


def conversation() -> dict[str, object]:
    return {
        "case_id": "weather-1",
        "run_id": "r1",
        "trial": 2,
        "usage": {"prompt_tokens": 300, "completion_tokens": 40},
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Rome"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "c2", "content": '{"temp": 21}'},
            {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 18}'},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c3", "type": "function", "function": {"name": "now", "arguments": ""}},
                ],
            },
            {"role": "tool", "tool_call_id": "c3", "content": "12:00"},
            {"role": "assistant", "content": [{"type": "text", "text": "Paris 18, Rome 21."}]},
        ],
    }


def test_golden_conversation(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "m.jsonl", [conversation()])
    assert detect(path).name == "openai-messages"
    (run,) = list(openai_messages.read(path))
    assert (run.case_id, run.run_id, run.trial) == ("weather-1", "r1", 2)
    assert [(s.tool, s.arguments, s.turn) for s in run.steps] == [
        ("weather", {"city": "Paris"}, 0),
        ("weather", {"city": "Rome"}, 0),  # same message: same turn (parallel calls)
        ("now", {}, 1),
    ]
    assert run.steps[0].raw_arguments == '{"city": "Paris"}'
    assert run.steps[0].output == {"temp": 18} and run.steps[1].output == {"temp": 21}
    assert run.steps[2].output == "12:00" and run.steps[0].call_id == "c1"
    assert run.answer == "Paris 18, Rome 21."
    assert run.usage is not None and run.usage.tokens == 340


def test_bare_message_list_and_unparsable_arguments(tmp_path: Path) -> None:
    messages = [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{oops"}}
            ],
        },
    ]
    path = tmp_path / "one.json"
    path.write_bytes(orjson.dumps(messages, option=orjson.OPT_INDENT_2))
    options = IngestOptions(case_map={"one.json:1": "case-f"})
    (run,) = list(openai_messages.read(path, options))
    (step,) = run.steps
    assert run.case_id == "case-f"
    assert step.arguments == {} and step.raw_arguments == "{oops"
    assert step.metadata["arguments_unparsed"] is True


def test_malformed_lines(tmp_path: Path) -> None:
    bad_call = {"messages": [{"role": "assistant", "tool_calls": [{"id": "a"}]}]}
    orphan = {"messages": [{"role": "tool", "tool_call_id": "zz", "content": "x"}]}
    path = write_lines(tmp_path / "m.jsonl", [conversation(), b"[{]", bad_call, orphan])
    with pytest.raises(InputError) as caught:
        list(openai_messages.read(path))
    assert caught.value.line == 2
    options = IngestOptions(skip_invalid=True)
    runs = list(openai_messages.read(path, options))
    assert [r.run_id for r in runs] == ["r1"]
    assert [(e.line, e.field) for e in options.skipped] == [
        (2, None),
        (3, "messages[0].tool_calls[0]"),
        (4, "messages[0].tool_call_id"),
    ]


def call(name: str, arguments: str, call_id: str | None = None) -> dict[str, object]:
    out: dict[str, object] = {
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    if call_id is not None:
        out["id"] = call_id
    return out


def result(content: str, call_id: object = "absent") -> dict[str, object]:
    out: dict[str, object] = {"role": "tool", "content": content}
    if call_id != "absent":
        out["tool_call_id"] = call_id
    return out


def read_one(tmp_path: Path, messages: list[dict[str, object]]) -> object:
    path = write_lines(tmp_path / "m.jsonl", [{"messages": messages}])
    (run,) = list(openai_messages.read(path))
    return run


def test_calls_without_ids_are_paired_by_position(tmp_path: Path) -> None:
    # local servers often write no ids: the k-th result without an id answers the k-th
    # unanswered call without an id
    run = read_one(
        tmp_path,
        [
            {"role": "assistant", "tool_calls": [call("a", "{}"), call("b", "{}")]},
            result("A"),
            result("B", None),  # null is no id too
            {"role": "assistant", "tool_calls": [call("c", "{}", "")]},  # "" is no id
            result("C", ""),
        ],
    )
    assert [(s.tool, s.output, s.call_id, s.turn) for s in run.steps] == [
        ("a", "A", None, 0),
        ("b", "B", None, 0),
        ("c", "C", None, 1),
    ]
    assert all(s.metadata["result_paired_by"] == "position" for s in run.steps)


def test_ids_win_over_position(tmp_path: Path) -> None:
    run = read_one(
        tmp_path,
        [
            {"role": "assistant", "tool_calls": [call("a", "{}", "x1"), call("b", "{}")]},
            result("B"),  # no id: the call without an id, although "a" comes first
            result("A", "x1"),
            {"role": "assistant", "tool_calls": [call("c", "{}", 9)]},
            result("C", 9),  # integer ids are read as their text
        ],
    )
    assert [(s.tool, s.output, s.call_id) for s in run.steps] == [
        ("a", "A", "x1"),
        ("b", "B", None),
        ("c", "C", "9"),
    ]
    assert "result_paired_by" not in run.steps[0].metadata


def test_pairing_only_when_unambiguous(tmp_path: Path) -> None:
    # a result without an id while every call has one: the one unanswered call, if one
    one_open = read_one(
        tmp_path,
        [
            {"role": "assistant", "tool_calls": [call("a", "{}", "x1"), call("b", "{}", "x2")]},
            result("A", "x1"),
            result("B"),
        ],
    )
    assert [s.output for s in one_open.steps] == ["A", "B"]
    # an unknown id: the one unanswered call, if it has no id
    unknown = read_one(
        tmp_path, [{"role": "assistant", "tool_calls": [call("a", "{}")]}, result("A", "zz")]
    )
    assert unknown.steps[0].output == "A"
    assert unknown.steps[0].metadata["result_paired_by"] == "position"


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        (
            [
                {"role": "assistant", "tool_calls": [call("a", "{}", "x1"), call("b", "{}", "x2")]},
                result("?"),
            ],
            "2 calls are unanswered",
        ),
        (
            [{"role": "assistant", "tool_calls": [call("a", "{}", "x1")]}, result("?", "zz")],
            "unknown tool_call_id 'zz'",
        ),
        (
            [
                {"role": "assistant", "tool_calls": [call("a", "{}"), call("b", "{}")]},
                result("?", "zz"),
            ],
            "unknown tool_call_id 'zz'",  # two calls without ids are open: ambiguous
        ),
        ([result("?")], "0 calls are unanswered"),
    ],
)
def test_ambiguous_results_are_errors(
    tmp_path: Path, messages: list[dict[str, object]], message: str
) -> None:
    path = write_lines(tmp_path / "m.jsonl", [{"messages": messages}])
    with pytest.raises(InputError, match=message) as caught:
        list(openai_messages.read(path))
    assert caught.value.field is not None and caught.value.field.endswith(".tool_call_id")


@settings(max_examples=150, deadline=None)
@given(
    batches=st.lists(
        st.lists(st.sampled_from(["f", "g", "h"]), min_size=1, max_size=3), min_size=1, max_size=4
    ),
    keep=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_position_pairing_equals_id_pairing_in_call_order(
    batches: list[list[str]], keep: list[bool]
) -> None:
    # results written in call order: dropping any of the ids (from a call and its result)
    # pairs every result with the same call as the ids do
    def conversation(with_ids: bool) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        n = 0
        for names in batches:
            ids = [f"c{n + k}" for k in range(len(names))]
            kept = [with_ids or keep[(n + k) % 12] for k in range(len(names))]
            out.append(
                {
                    "role": "assistant",
                    "tool_calls": [
                        call(name, f'{{"k": {n + k}}}', i if y else None)
                        for k, (name, i, y) in enumerate(zip(names, ids, kept, strict=True))
                    ],
                }
            )
            out.extend(
                result(f"out{n + k}", i if y else "absent")
                for k, (i, y) in enumerate(zip(ids, kept, strict=True))
            )
            n += len(names)
        return out

    def pairs(messages: list[dict[str, object]]) -> list[tuple[object, object]]:
        run = openai_messages.conversation_run(
            {"messages": messages}, IngestOptions(), file="m.jsonl", line=1, position=0
        )
        return [(s.arguments, s.output) for s in run.steps]

    expected = pairs(conversation(True))
    assert expected == [({"k": i}, f"out{i}") for i in range(len(expected))]
    assert pairs(conversation(False)) == expected
