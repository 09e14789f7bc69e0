"""OpenAI chat-completions message lists: tool_calls with JSON-string arguments, parallel turns."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

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
