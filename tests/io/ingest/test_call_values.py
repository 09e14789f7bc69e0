"""The table of wrapped arguments and results (:mod:`pathgrade.io.ingest.call_values`) and the
producer table (:mod:`pathgrade.io.ingest.producers`): each row by hand, and properties."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pathgrade.io.ingest import call_values
from pathgrade.io.ingest.producers import CONVENTIONS, handoff_name, producer_of

ARGS = {"order_id": "A17", "amount": 25.0}


def test_each_argument_wrapper_gives_what_the_tool_received() -> None:
    assert call_values.arguments({"tool_name": "t", "arguments": ARGS}) == ARGS  # MCP
    langchain = {
        "input_str": "{'order_id': 'A17', 'amount': 25.0}",
        "tags": ["seq:step:1"],
        "metadata": {"langgraph_node": "tools"},
        "inputs": ARGS,
        "kwargs": {"tool_call_id": "call_1"},
    }
    assert call_values.arguments(langchain) == ARGS  # Traceloop's LangChain instrumentation
    assert call_values.arguments({"kwargs": ARGS}) == ARGS  # DSPy, LlamaIndex
    smolagents = {"args": [], "sanitize_inputs_outputs": True, "kwargs": ARGS}
    assert call_values.arguments(smolagents) == ARGS
    assert call_values.arguments({"args": ["x"], "kwargs": {}}) == ["x"]
    assert call_values.arguments({"args": ["x"], "kwargs": {"k": 1}}) == {"args": ["x"], "k": 1}
    assert call_values.arguments(json.dumps({"kwargs": ARGS})) == ARGS  # JSON text decoded


def test_values_that_are_not_wrappers_are_kept_as_recorded() -> None:
    assert call_values.arguments(ARGS) is ARGS
    assert call_values.arguments("A17") == "A17"
    # a tool whose own parameters are called args / kwargs, with other fields besides
    mixed = {"args": [1], "kwargs": {"a": 1}, "other": 2}
    assert call_values.arguments(mixed) is mixed
    wrong = {"args": "not a list", "kwargs": {}}
    assert call_values.arguments(wrong) is wrong


def test_each_result_wrapper_gives_what_the_tool_returned_and_its_failure() -> None:
    assert call_values.result({"result": "ok", "is_error": False}) == ("ok", None, True)
    assert call_values.result({"result": "boom", "is_error": True}) == ("boom", "boom", True)
    message = {"lc": 1, "type": "constructor", "id": ["ToolMessage"],
               "kwargs": {"type": "tool", "content": "timeout", "status": "error"}}  # fmt: skip
    assert call_values.result(message) == ("timeout", "timeout", True)
    assert call_values.result({"output": message, "kwargs": {"tags": []}}) == (
        "timeout",
        "timeout",
        True,
    )
    tool_output = {"blocks": [{"text": "{...}"}], "tool_name": "lookup", "raw_input": {},
                   "raw_output": {"status": "delivered"}, "is_error": False}  # fmt: skip
    assert call_values.result(tool_output) == ({"status": "delivered"}, None, True)
    response = dict(tool_output, raw_output={"response": "Refunds in 30 days.", "source_nodes": []})
    assert call_values.result(response) == ("Refunds in 30 days.", None, True)
    blocks_only = dict(tool_output, raw_output=None, is_error=True)
    assert call_values.result(blocks_only) == ("{...}", "{...}", True)
    assert call_values.result({"status": "delivered"}) == ({"status": "delivered"}, None, False)


def test_documents_read_ids_from_the_document_or_its_metadata() -> None:
    docs = [
        {"id": "a", "score": 0.9},
        {"page_content": "...", "metadata": {"id": "b", "source": "x.md"}},
        {"content": "...", "metadata": json.dumps({"id": "c", "score": 0.5})},
        {"page_content": "no id"},
        {"metadata": {"source": "d.md"}},
        "not a document",
    ]
    expected = [("a", 0.9), ("b", None), ("c", 0.5), ("d.md", None)]
    assert call_values.documents(docs) == expected
    assert call_values.documents({"documents": docs, "count": 6}) == expected
    assert call_values.documents(json.dumps(docs)) == expected
    assert call_values.documents("plain text") == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@given(st.dictionaries(st.text(max_size=6), JSON, max_size=4))
def test_a_kwargs_binding_always_unwraps_to_the_kwargs(kwargs: dict[str, Any]) -> None:
    assert call_values.arguments({"args": [], "kwargs": kwargs}) == kwargs


@given(JSON)
def test_unwrapping_never_raises_and_a_non_wrapper_result_is_unchanged(value: Any) -> None:
    call_values.arguments(value)
    out, error, unwrapped = call_values.result(value)
    if not unwrapped:
        assert out == value and error is None


def test_the_producer_table_is_found_by_scope_prefix() -> None:
    assert producer_of("openinference.instrumentation.smolagents").answer_tools == {"final_answer"}
    assert producer_of("openinference.instrumentation.dspy").name_suffixes == (
        ".__call__",
        ".acall",
    )
    assert not producer_of("openinference.instrumentation.llama_index").chain_answers
    assert producer_of("openinference.instrumentation.langchain") is CONVENTIONS
    assert producer_of("") is CONVENTIONS


def test_handoff_names_follow_the_transfer_to_convention() -> None:
    assert handoff_name("Billing") == "transfer_to_billing"
    assert handoff_name("Refund Officer") == "transfer_to_refund_officer"
    assert handoff_name("agent-2.v1") == "transfer_to_agent_2_v1"
