"""OpenInference reader: OTLP/JSON and flat span JSON, golden runs, what each span kind says."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, openinference
from pathgrade.io.ingest import openinference_messages as messages
from pathgrade.io.ingest._build import EmittedCall, SpanInfo, ToolResult
from pathgrade.io.ingest.spans import Span

from .helpers import TRACE_A, TRACE_B, span, traces_line, write_lines

KIND = "openinference.span.kind"


def test_golden_otlp_trace(tmp_path: Path) -> None:
    spans = [
        span(
            TRACE_A,
            1,
            None,
            0,
            900,
            {KIND: "AGENT", "output.value": "Paris", "pathgrade.case_id": "capital"},
            name="agent",
        ),
        # out of order in the file: the retriever (started at 300) comes first
        span(
            TRACE_A,
            4,
            1,
            300,
            400,
            {
                KIND: "RETRIEVER",
                "retrieval.documents.1.document.id": "d2",
                "retrieval.documents.1.document.score": 0.5,
                "retrieval.documents.0.document.id": "d1",
                "retrieval.documents.0.document.score": 0.8,
            },
        ),
        span(
            TRACE_A,
            2,
            1,
            10,
            100,
            {
                KIND: "LLM",
                "llm.token_count.prompt": 30,
                "llm.token_count.completion": 12,
                "llm.cost.total": 0.002,
            },
        ),
        span(
            TRACE_A,
            3,
            1,
            110,
            200,
            {
                KIND: "TOOL",
                "tool.name": "search",
                "tool.id": "call_9",
                "input.value": '{"q": "capital of France"}',
                "input.mime_type": "application/json",
                "output.value": "Paris is...",
            },
        ),
        # text input and a JSON-Schema tool.parameters: arguments are not recorded
        span(
            TRACE_A,
            5,
            1,
            500,
            510,
            {
                KIND: "TOOL",
                "tool.name": "note",
                "input.value": "remember Paris",
                "input.mime_type": "text/plain",
                "tool.parameters": '{"type": "object", "properties": {"text": {}}}',
            },
        ),
        # tool.parameters holding values (not a schema) are the arguments
        span(
            TRACE_A,
            6,
            1,
            520,
            530,
            {
                KIND: "TOOL",
                "tool.name": "save",
                "tool.parameters": '{"key": "capital", "value": "Paris"}',
            },
        ),
        span(TRACE_A, 7, 1, 10, 20, {KIND: "CHAIN"}),
    ]
    path = write_lines(tmp_path / "oi.jsonl", [traces_line(spans)])
    assert detect(path).name == "openinference"
    (run,) = list(openinference.read(path))
    assert run.case_id == "capital" and run.answer == "Paris"
    # The RETRIEVER span (started at 300) is a step: no name recorded, so its span name.
    assert [s.tool for s in run.steps] == ["search", "span", "note", "save"]
    search, retrieval, note, save = run.steps
    assert retrieval.output == ["d1", "d2"] and retrieval.metadata["retrieval"] is True
    assert search.arguments == {"q": "capital of France"} and search.call_id == "call_9"
    assert search.output == "Paris is..." and search.parent == f"{1:016x}"
    assert note.arguments == {} and note.metadata["arguments_recorded"] is False
    assert save.arguments == {"key": "capital", "value": "Paris"}
    assert run.usage is not None and run.usage.tokens == 42 and run.usage.cost == 0.002
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("d1", 0.8), ("d2", 0.5)]


def test_flat_span_json_with_nested_attributes(tmp_path: Path) -> None:
    lines = [
        {
            "name": "lookup",
            "context": {"trace_id": "0x" + TRACE_B, "span_id": "0x" + "ab" * 8},
            "parent_id": None,
            "start_time": "2024-05-01T10:00:00.500Z",
            "end_time": "2024-05-01T10:00:01Z",
            "status": {"status_code": "ERROR", "description": "not found"},
            "attributes": {
                "openinference": {"span": {"kind": "TOOL"}},
                "tool": {"name": "lookup"},
                "input": {"value": '{"id": 3}', "mime_type": "application/json"},
            },
        },
    ]
    path = write_lines(tmp_path / "flat.jsonl", lines)
    (run,) = list(openinference.read(path))
    (step,) = run.steps
    assert step.tool == "lookup" and step.arguments == {"id": 3} and step.error == "not found"
    assert step.latency_ms == pytest.approx(500.0)


def test_malformed_line_and_skip(tmp_path: Path) -> None:
    good = traces_line([span(TRACE_A, 1, None, 0, 5, {KIND: "TOOL", "tool.name": "t"})])
    path = write_lines(tmp_path / "oi.jsonl", [good, b"{not json"])
    with pytest.raises(InputError) as caught:
        list(openinference.read(path))
    assert caught.value.line == 2
    options = IngestOptions(skip_invalid=True)
    assert len(list(openinference.read(path, options))) == 1 and len(options.skipped) == 1


def test_flat_span_with_bad_id_names_the_line(tmp_path: Path) -> None:
    line = {
        "context": {"trace_id": "xyz", "span_id": "0x" + "ab" * 8},
        "attributes": {KIND: "TOOL"},
    }
    path = tmp_path / "flat.jsonl"
    path.write_bytes(b"\n" + orjson.dumps(line) + b"\n")
    with pytest.raises(InputError, match="trace_id") as caught:
        list(openinference.read(path))
    assert caught.value.line == 2


# --- retrieval, messages, LangChain tool messages, handoffs, LangGraph nodes, Phoenix shapes


def _span(span_id: int, parent: int | None, attributes: dict[str, object], name: str = "s") -> Span:
    return Span(
        trace_id=TRACE_A,
        span_id=f"{span_id:016x}",
        parent_id=None if parent is None else f"{parent:016x}",
        name=name,
        start_ns=span_id,
        end_ns=span_id + 1,
        attributes=attributes,
        error=None,
        line=1,
        order=span_id,
    )


def test_flat_attributes_reads_nested_and_flattened_alike() -> None:
    flat = {
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
        "llm.output_messages.0.message.tool_calls.1.tool_call.id": "c2",
        "tags": ["a", "b"],  # a list of scalars stays a list
    }
    nested = {  # Phoenix JSONL: everything nested
        "llm": {
            "output_messages": [
                {
                    "message": {
                        "role": "assistant",
                        "tool_calls": [{"tool_call": {"id": "c1"}}, {"tool_call": {"id": "c2"}}],
                    }
                }
            ]
        },
        "tags": ["a", "b"],
    }
    dataframe = {  # Phoenix's dataframe: lists of structs with dotted keys, None padding
        "llm.output_messages": [
            {
                "message.role": "assistant",
                "message.content": None,
                "message.tool_calls": [{"tool_call.id": "c1"}, {"tool_call.id": "c2"}],
            }
        ],
        "tags": ["a", "b"],
    }
    assert openinference.flat_attributes(nested) == flat
    assert openinference.flat_attributes(dataframe) == flat
    assert openinference.flat_attributes(flat) == flat


def _nest(flat: dict[str, object]) -> dict[str, object]:
    """Unflatten dotted keys: numeric parts become list positions (the Phoenix JSONL shape)."""
    root: dict[str, object] = {}
    for key, value in flat.items():
        node: dict[str, object] = root
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})  # type: ignore[assignment]
        node[parts[-1]] = value

    def lists(item: object) -> object:
        if isinstance(item, dict):
            if item and all(k.isdigit() for k in item):
                return [lists(item[k]) for k in sorted(item, key=int)]
            return {k: lists(v) for k, v in item.items()}
        return item

    return lists(root)  # type: ignore[return-value]


_texts = st.text(alphabet="abc xyz", max_size=5)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant", "tool"]), _texts, st.lists(_texts, max_size=3)
        ),
        min_size=1,
        max_size=4,
    )
)
@settings(max_examples=150, deadline=None)
def test_flat_attributes_inverts_nesting(messages: list[tuple[str, str, list[str]]]) -> None:
    # Messages i with calls j, written as flat OTLP keys, nested the way Phoenix nests them,
    # and flattened back: the same keys and values.
    flat: dict[str, object] = {}
    for i, (role, content, calls) in enumerate(messages):
        flat[f"llm.input_messages.{i}.message.role"] = role
        flat[f"llm.input_messages.{i}.message.content"] = content
        for j, name in enumerate(calls):
            flat[f"llm.input_messages.{i}.message.tool_calls.{j}.tool_call.function.name"] = name
    assert openinference.flat_attributes(_nest(flat)) == flat


def test_document_ids_from_metadata_in_documented_order() -> None:
    attrs = openinference.flat_attributes(
        {
            KIND: "RETRIEVER",
            "retrieval.documents.0.document.id": "d0",  # the id wins over the metadata
            "retrieval.documents.0.document.metadata": '{"id": "meta0"}',
            "retrieval.documents.0.document.score": 0.9,
            "retrieval.documents.1.document.metadata": '{"source": "s.md", "doc_id": "b"}',
            "retrieval.documents.2.document.metadata": {"source": "c.md"},  # an object
            "retrieval.documents.3.document.metadata": '{"id": true}',  # no usable id
            "retrieval.documents.4.document.metadata": "not json",
            "retrieval.documents.10.document.metadata": '{"chunk_id": 7}',  # 10 after 4
        }
    )
    # doc_id comes before source; an integer id is kept as text; 3 and 4 have no id
    assert openinference.documents(attrs) == [("d0", 0.9), ("b", None), ("c.md", None), ("7", None)]


def test_retriever_span_is_a_retrieval_with_its_query() -> None:
    text = _span(1, None, {KIND: "RETRIEVER", "input.value": "refund policy"}, name="kb")
    as_json = _span(
        2,
        None,
        {KIND: "RETRIEVER", "tool.name": "search", "input.value": '{"query": "q", "top_k": 3}'},
    )
    bare = _span(3, None, {KIND: "RETRIEVER"}, name="kb")
    assert openinference.classify(text) == SpanInfo(
        "retrieval", tool="kb", arguments={"query": "refund policy"}
    )
    assert openinference.classify(as_json).arguments == {"query": "q", "top_k": 3}
    assert openinference.classify(as_json).tool == "search"
    assert openinference.classify(bare).arguments is None


def test_emitted_calls_keep_the_models_order() -> None:
    prefix = "llm.output_messages.0.message.tool_calls"
    attrs = {  # written out of order; index 10 sorts after 2 (numbers, not text)
        f"{prefix}.10.tool_call.function.name": "third",
        f"{prefix}.2.tool_call.function.name": "second",
        f"{prefix}.2.tool_call.id": "c2",
        f"{prefix}.0.tool_call.function.name": "first",
        f"{prefix}.0.tool_call.function.arguments": '{"x": 1}',
        f"{prefix}.0.tool_call.id": 5,  # not a string: no call id
    }
    assert messages.emitted_calls(attrs) == (
        EmittedCall("first", '{"x": 1}', None, 0),
        EmittedCall("second", None, "c2", 1),
        EmittedCall("third", None, None, 2),
    )


def test_tool_results_take_langchains_error_status_from_the_input_value() -> None:
    lc = ["langchain", "schema", "messages", "ToolMessage"]
    input_value = orjson.dumps(
        {
            "messages": [
                [
                    {
                        "lc": 1,
                        "id": lc,
                        "kwargs": {
                            "type": "tool",
                            "tool_call_id": "c1",
                            "content": "timeout",
                            "status": "error",
                        },
                    },
                    {
                        "lc": 1,
                        "id": lc,
                        "kwargs": {
                            "type": "tool",
                            "tool_call_id": "c2",
                            "content": "Error codes: none",
                            "status": "success",
                        },
                    },
                ]
            ]
        }
    ).decode()
    attrs = {
        "input.value": input_value,
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.1.message.role": "tool",
        "llm.input_messages.1.message.tool_call_id": "c1",
        "llm.input_messages.1.message.content": "timeout",
        "llm.input_messages.2.message.role": "tool",
        "llm.input_messages.2.message.tool_call_id": "c2",
        "llm.input_messages.2.message.content": "Error codes: none",  # not a failure
        "llm.input_messages.2.message.name": "codes",
    }
    assert messages.tool_results(attrs) == (
        ToolResult("c1", "timeout", "timeout", None),
        ToolResult("c2", "Error codes: none", None, "codes"),
    )


def test_tool_span_with_a_serialized_tool_message() -> None:
    failed = orjson.dumps(
        {
            "type": "tool",
            "data": {
                "content": "gateway timeout",
                "type": "tool",
                "tool_call_id": "c9",
                "status": "error",
            },
        }
    ).decode()
    ok = orjson.dumps(
        {
            "type": "tool",
            "data": {
                "content": '{"n": 2}',
                "type": "tool",
                "tool_call_id": "c8",
                "status": "success",
            },
        }
    ).decode()
    info = openinference.classify(
        _span(1, None, {KIND: "TOOL", "tool.name": "pay", "output.value": failed})
    )
    assert (info.call_id, info.result, info.error) == ("c9", "gateway timeout", "gateway timeout")
    info = openinference.classify(
        _span(2, None, {KIND: "TOOL", "tool.id": "own", "output.value": ok})
    )
    assert (info.tool, info.call_id, info.result, info.error) == ("s", "own", '{"n": 2}', None)


def test_handoff_tools_of_a_trace_are_not_emitted_calls() -> None:
    handoff = _span(1, None, {KIND: "TOOL", "output.value": "Billing Team"}, name="handoff to x")
    by_name = _span(2, None, {KIND: "TOOL"}, name="handoff to Refunds-2")
    names = openinference.handoff_tool_names([handoff, by_name])
    assert names == {"transfer_to_billing_team", "transfer_to_refunds_2"}
    prefix = "llm.output_messages.0.message.tool_calls"
    model = _span(
        3,
        None,
        {
            KIND: "LLM",
            f"{prefix}.0.tool_call.function.name": "transfer_to_billing_team",
            f"{prefix}.1.tool_call.function.name": "lookup",
        },
    )
    classify = openinference.classifier({TRACE_A: [handoff, by_name, model]})
    assert classify(model).emitted_calls == (EmittedCall("lookup", None, None, 1),)


def test_handoff_span_is_not_a_step() -> None:
    handoff = _span(
        1,
        None,
        {KIND: "TOOL", "input.value": "Support", "output.value": "Billing"},
        name="handoff to Billing",
    )
    assert openinference.classify(handoff) == SpanInfo(None)
    named = _span(2, None, {KIND: "TOOL", "tool.name": "handoff to x"}, name="handoff to x")
    assert openinference.classify(named).kind == "tool"  # a tool that is called so


def test_repeated_langgraph_nodes_are_not_agent_scopes() -> None:
    node = {KIND: "AGENT", "metadata": '{"langgraph_node": "agent"}'}
    spans = [
        _span(1, None, {KIND: "CHAIN"}, name="LangGraph"),
        _span(2, 1, node, name="agent"),
        _span(3, 1, node, name="agent"),
        _span(
            4, 1, {KIND: "AGENT", "metadata.langgraph_node": "billing_agent"}, name="billing_agent"
        ),
        _span(5, 1, {KIND: "AGENT"}, name="helper"),  # not a LangGraph node: kept
        _span(6, 1, {KIND: "AGENT"}, name="helper"),
    ]
    assert openinference.repeated_langgraph_nodes(spans) == {f"{2:016x}", f"{3:016x}"}
    classify = openinference.classifier({TRACE_A: spans})
    assert [classify(s).kind for s in spans] == [None, None, None, "agent", "agent", "agent"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Paris", "Paris"),
        (
            '{"messages": [{"type": "human", "data": {"content": "q"}},'
            ' {"type": "ai", "data": {"content": "A."}}]}',
            "A.",
        ),
        (
            '{"messages": [{"lc": 1, "kwargs":'
            ' {"type": "ai", "content": [{"type": "text", "text": "B"}]}}]}',
            "B",
        ),
        (
            '{"messages": [{"type": "ai",'
            ' "data": {"content": "", "tool_calls": [{"name": "f"}]}}]}',
            None,
        ),
        ('{"output": "C"}', "C"),
        ('{"output": "C", "text": "D"}', None),  # two text fields: which one is the answer?
        ("[1, 2]", None),
        ("{not json", None),
        ("", None),
    ],
)
def test_output_text(value: str, text: str | None) -> None:
    assert messages.output_text(value) == text


def test_root_chain_output_is_the_answer(tmp_path: Path) -> None:
    spans = [
        span(TRACE_A, 1, None, 0, 50, {KIND: "CHAIN", "output.value": "From the chain."}),
        span(
            TRACE_A,
            2,
            1,
            10,
            20,
            {KIND: "LLM", "llm.output_messages.0.message.content": "From the model."},
        ),
    ]
    (run,) = openinference.read(write_lines(tmp_path / "oi.jsonl", [traces_line(spans)]))
    assert run.answer == "From the chain."


@pytest.mark.parametrize(
    ("head", "sniffed"),
    [
        ('{"attributes": {"openinference": {"span": {"kind": "LLM"}}}}', True),
        ('{"name": "x", "context": {"trace_id": "a"}, "span_kind": "TOOL"}', True),
        ('{"span_kind": "TOOL"}', False),  # no span context: not a Phoenix span
        ('{"openinference": 1}', False),
    ],
)
def test_sniff(head: str, sniffed: bool) -> None:
    assert openinference.sniff(head) is sniffed


def test_model_spans_only_a_tool_error_in_the_next_input(tmp_path: Path) -> None:
    # No TOOL span: the call is the model's, its output and error the tool message the next
    # model call was shown (the status only in the serialized input.value).
    calls = "llm.output_messages.0.message.tool_calls.0.tool_call"
    tool_message = {
        "type": "tool",
        "tool_call_id": "c1",
        "content": "card declined",
        "status": "error",
    }
    spans = [
        span(
            TRACE_A,
            1,
            None,
            0,
            10,
            {
                KIND: "LLM",
                f"{calls}.id": "c1",
                f"{calls}.function.name": "pay",
                f"{calls}.function.arguments": '{"amount": 5}',
                "llm.token_count.total": 30,
            },
        ),
        span(
            TRACE_A,
            2,
            None,
            20,
            30,
            {
                KIND: "LLM",
                "input.value": orjson.dumps(
                    {"messages": [[{"lc": 1, "kwargs": tool_message}]]}
                ).decode(),
                "llm.input_messages.0.message.role": "tool",
                "llm.input_messages.0.message.tool_call_id": "c1",
                "llm.input_messages.0.message.content": "card declined",
                "llm.output_messages.0.message.content": "The card was declined.",
                "llm.token_count.total": 12,
            },
        ),
    ]
    (run,) = openinference.read(write_lines(tmp_path / "oi.jsonl", [traces_line(spans)]))
    (step,) = run.steps
    assert (step.tool, step.arguments, step.call_id, step.turn) == ("pay", {"amount": 5}, "c1", 0)
    assert step.output == "card declined" and step.error == "card declined"
    assert run.answer == "The card was declined." and run.usage is not None
    assert run.usage.tokens == 42  # 30 + 12
