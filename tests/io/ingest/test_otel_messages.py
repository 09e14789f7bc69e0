"""A model call's recorded messages: parts-form, OpenAI-shaped, events and flattened attributes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.io.ingest._info import EmittedCall, ToolResult
from pathgrade.io.ingest.otel_events import Event, event_messages
from pathgrade.io.ingest.otel_messages import emitted_calls, normalized, output_text, tool_results
from pathgrade.io.ingest.traceloop import flat_messages

PARTS_OUTPUT = [
    {
        "role": "assistant",
        "parts": [
            {"type": "text", "content": "Let me look."},
            {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"id": 7}},
            {"type": "tool_call", "id": "c2", "name": "policy", "arguments": None},
        ],
        "finish_reason": "tool_calls",
    },
    # a second choice (n=2): not read for calls
    {"role": "assistant", "parts": [{"type": "tool_call", "id": "c9", "name": "other"}]},
]


def test_emitted_calls_of_the_first_choice_in_order() -> None:
    assert emitted_calls(normalized(json.dumps(PARTS_OUTPUT))) == [
        EmittedCall("lookup", {"id": 7}, "c1", 0),
        EmittedCall("policy", None, "c2", 1),
    ]


def test_openai_shaped_messages_read_as_parts() -> None:
    history = [
        {"role": "system", "content": "Be brief."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
        {"role": "tool", "id": "c2", "content": "plain"},  # the v1.30 tool event body
    ]
    messages = normalized(history)
    assert [m["role"] for m in messages] == ["system", "assistant", "tool", "tool"]
    assert tool_results(messages) == [
        ToolResult("c1", '{"ok": true}', None, None),
        ToolResult("c2", "plain", None, None),
    ]
    # the calls of the first assistant message (the system message is not one)
    assert emitted_calls(messages) == [EmittedCall("f", "{}", "c1", 0)]


def test_an_mcp_is_error_result_is_a_failed_result() -> None:
    failed = json.dumps({"content": [{"type": "text", "text": "quota exceeded"}], "isError": True})
    messages = [
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": failed}]}
    ]
    assert tool_results(normalized(messages)) == [ToolResult("c1", failed, "quota exceeded", None)]


def test_output_text_is_the_last_assistant_text() -> None:
    messages = normalized(
        [
            {"role": "assistant", "parts": [{"type": "text", "content": "first"}]},
            {
                "role": "assistant",
                "parts": [{"type": "text", "content": "Par"}, {"type": "text", "text": "is"}],
            },
            {"role": "assistant", "parts": [{"type": "tool_call", "name": "f"}]},
        ]
    )
    assert output_text(messages) == "Paris"  # "Par" + "is"; the call-only message has no text
    assert output_text(normalized("[]")) is None


names = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)
call_lists = st.lists(
    st.tuples(names, st.none() | names, st.dictionaries(names, st.integers(), max_size=2)),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(call_lists)
def test_openai_shaped_and_parts_form_calls_agree(calls: list[tuple[str, Any, Any]]) -> None:
    # differential: the same calls written the two ways read to the same emitted calls
    openai = {
        "role": "assistant",
        "tool_calls": [
            {"id": i, "function": {"name": n, "arguments": json.dumps(a)}} for n, i, a in calls
        ],
    }
    parts = {
        "role": "assistant",
        "parts": [
            {"type": "tool_call", "id": i, "name": n, "arguments": json.dumps(a)}
            for n, i, a in calls
        ],
    }
    assert emitted_calls(normalized([openai])) == emitted_calls(normalized([parts]))
    assert [c.index for c in emitted_calls(normalized([parts]))] == list(range(len(calls)))


@settings(max_examples=200, deadline=None)
@given(call_lists)
def test_flattened_attributes_agree_with_the_messages(calls: list[tuple[str, Any, Any]]) -> None:
    # differential: OpenLLMetry's flattened gen_ai.completion.0.tool_calls.<j>.* attributes
    attributes: dict[str, Any] = {"gen_ai.completion.0.role": "assistant"}
    for j, (name, call_id, arguments) in enumerate(calls):
        attributes[f"gen_ai.completion.0.tool_calls.{j}.name"] = name
        attributes[f"gen_ai.completion.0.tool_calls.{j}.arguments"] = json.dumps(arguments)
        if call_id is not None:
            attributes[f"gen_ai.completion.0.tool_calls.{j}.id"] = call_id
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": i, "function": {"name": n, "arguments": json.dumps(a)}} for n, i, a in calls
        ],
    }
    flat = normalized(flat_messages(attributes, "completion"))
    assert emitted_calls(flat) == emitted_calls(normalized([message]))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "role",
                    "parts",
                    "type",
                    "content",
                    "tool_calls",
                    "id",
                    "name",
                    "arguments",
                    "response",
                    "function",
                    "tool_call_id",
                    "text",
                    "isError",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_reads_without_error(value: Any) -> None:
    for given_value in (value, json.dumps(value)):
        messages = normalized(given_value)
        emitted_calls(messages)
        tool_results(messages)
        output_text(messages)
        event_messages([Event("gen_ai.choice", {}, value), Event("gen_ai.tool.message", {}, value)])


def test_span_events_of_the_conventions() -> None:
    # Span events: the body as JSON in gen_ai.event.content (Azure AI Inference tracing), the
    # v1.27 content events, the current operation-details event; choice 1 is not read.
    choice = {
        "index": 0,
        "message": {"tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}]},
    }
    events = [
        Event("gen_ai.user.message", {"gen_ai.event.content": json.dumps({"content": "hi"})}),
        Event(
            "gen_ai.tool.message",
            {"gen_ai.event.content": json.dumps({"id": "c0", "content": "r0"})},
        ),
        Event("gen_ai.choice", {"gen_ai.event.content": json.dumps(choice)}),
        Event("gen_ai.choice", {}, {"index": 1, "message": {"content": "other choice"}}),
        Event(
            "gen_ai.content.prompt",
            {
                "gen_ai.prompt": json.dumps(
                    [{"role": "tool", "tool_call_id": "c5", "content": "r5"}]
                )
            },
        ),
        Event(
            "gen_ai.client.inference.operation.details",
            {
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]
                )
            },
        ),
    ]
    inputs, outputs = event_messages(events)
    assert [r.call_id for r in tool_results(inputs)] == ["c0", "c5"]
    assert emitted_calls(outputs) == [EmittedCall("f", "{}", "c1", 0)]
    assert output_text(outputs) == "done"
