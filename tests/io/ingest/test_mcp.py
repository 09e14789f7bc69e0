"""MCP spans (the OTel MCP conventions) as steps, ``isError`` results, and tools files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, otel_genai
from pathgrade.io.ingest.mcp import result_error, tools_file
from pathgrade.io.tools import parse_tools

from .helpers import TRACE_A, TRACE_B, span, traces_line, write_lines

CALL = {"mcp.method.name": "tools/call", "jsonrpc.request.id": "3"}


def server(span_: dict[str, Any]) -> dict[str, Any]:
    return {**span_, "kind": "SPAN_KIND_SERVER"}


def test_client_span_around_server_span_is_one_step(tmp_path: Path) -> None:
    failed = json.dumps({"content": [{"type": "text", "text": "no such order"}], "isError": True})
    client = span(TRACE_A, 1, None, 0, 50, CALL, name="MCP send tools/call lookup")
    inner = server(
        span(
            TRACE_A,
            2,
            1,
            10,
            40,
            {**CALL, "gen_ai.tool.name": "lookup", "gen_ai.tool.call.result": failed},
            name="tools/call lookup",
        )
    )
    listing = span(TRACE_A, 3, None, 60, 70, {"mcp.method.name": "tools/list"})
    path = write_lines(tmp_path / "t.jsonl", [traces_line([client, inner, listing])])
    (run,) = otel_genai.read(path)
    (step,) = run.steps  # tools/list is not a step; client + server are one
    assert step.tool == "lookup"  # from the client span's name
    assert step.error == "no such order"  # the server span's isError result
    assert step.metadata["span_ids"] == [f"{1:016x}", f"{2:016x}"]
    assert step.metadata["jsonrpc_request_id"] == "3"
    # namespaced: the server span's resource names the server of the whole call
    path = write_lines(
        tmp_path / "u.jsonl", [traces_line([client, inner], {"service.name": "orders"})]
    )
    (run,) = otel_genai.read(path, IngestOptions(mcp_namespace=True))
    assert [s.tool for s in run.steps] == ["orders/lookup"]


def test_draft_attributes_and_server_address(tmp_path: Path) -> None:
    drafted = {
        **CALL,
        "mcp.tool.name": "weather",
        "mcp.request.argument.city": "Paris",
        "mcp.request.argument.days": 3,
        "server.address": "weather.example",
    }
    path = write_lines(tmp_path / "t.jsonl", [traces_line([span(TRACE_B, 1, None, 0, 5, drafted)])])
    (run,) = otel_genai.read(path, IngestOptions(mcp_namespace=True))
    assert [(s.tool, s.arguments) for s in run.steps] == [
        ("weather.example/weather", {"city": "Paris", "days": 3})
    ]


def test_execute_tool_wrapping_an_mcp_call_takes_its_namespace(tmp_path: Path) -> None:
    outer = span(
        TRACE_A,
        1,
        None,
        0,
        50,
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.id": "c1",
        },
    )
    client = span(
        TRACE_A, 2, 1, 5, 45, {**CALL, "mcp.server.name": "orders"}, name="tools/call lookup"
    )
    path = write_lines(tmp_path / "t.jsonl", [traces_line([outer, client])])
    (run,) = otel_genai.read(path, IngestOptions(mcp_namespace=True))
    assert [(s.tool, s.call_id) for s in run.steps] == [("orders/lookup", "c1")]
    (run,) = otel_genai.read(path)
    assert [(s.tool, s.call_id) for s in run.steps] == [("lookup", "c1")]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (
            {
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "isError": True,
            },
            "a\nb",
        ),
        ({"result": "gateway timeout", "is_error": True}, "gateway timeout"),  # OpenLLMetry
        ({"content": [], "isError": True}, "tool error"),
        ({"content": [{"type": "text", "text": "fine"}], "isError": False}, None),
        ({"isError": "true"}, None),  # only the JSON literal true
        ("isError: true", None),
        (None, None),
    ],
)
def test_result_error(value: Any, error: str | None) -> None:
    assert result_error(value) == error
    if isinstance(value, dict):
        assert result_error(json.dumps(value)) == error  # recorded as JSON text


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["isError", "is_error", "content", "result"]),
        st.none()
        | st.booleans()
        | st.text(max_size=4)
        | st.lists(
            st.dictionaries(st.sampled_from(["type", "text"]), st.text(max_size=3)), max_size=2
        ),
    )
)
def test_result_error_is_set_exactly_when_the_flag_is_true(value: dict[str, Any]) -> None:
    flag = value.get("isError", value.get("is_error"))
    found = result_error(value)
    assert (found is not None) == (flag is True)
    assert found is None or (isinstance(found, str) and found)


def listing(tools: list[dict[str, Any]], span_id: int, **extra: Any) -> dict[str, Any]:
    attrs = {
        "mcp.method.name": "tools/list",
        "mcp.response.value": json.dumps({"tools": tools}),
        **extra,
    }
    return span(TRACE_A, span_id, None, span_id, span_id + 1, attrs)


SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


def test_tools_file_from_tools_list_results(tmp_path: Path) -> None:
    first = listing(
        [
            {"name": "lookup", "description": "Find an order.", "inputSchema": SCHEMA},
            {"name": "refund", "inputSchema": SCHEMA, "annotations": {"destructiveHint": True}},
            {"description": "no name: left out"},
        ],
        1,
        **{"mcp.server.name": "orders"},
    )
    again = listing([{"name": "lookup", "inputSchema": {"type": "object"}}, {"name": "ping"}], 2)
    path = write_lines(tmp_path / "t.jsonl", [traces_line([first, again])])
    found = tools_file([path])
    assert found == {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "lookup",
                    "description": "Find an order.",
                    "parameters": SCHEMA,
                },
            },
            {"type": "function", "function": {"name": "refund", "parameters": SCHEMA}},
            {"type": "function", "function": {"name": "ping"}},  # first listing of lookup kept
        ],
        "dangerous": ["refund"],
    }
    tools = parse_tools(found)
    assert list(tools) == ["lookup", "refund", "ping"] and tools.dangerous() == {"refund"}
    spaced = tools_file([path, path], IngestOptions(mcp_namespace=True))
    assert [t["function"]["name"] for t in spaced["tools"]] == [
        "orders/lookup",
        "orders/refund",
        "lookup",
        "ping",
    ]


def test_tools_file_rejects_a_bad_schema_with_file_and_line(tmp_path: Path) -> None:
    bad = listing([{"name": "lookup", "inputSchema": {"type": "no-such-type"}}, {"name": "ok"}], 1)
    path = write_lines(tmp_path / "t.jsonl", [b"", traces_line([bad])])
    with pytest.raises(
        InputError, match="tools/list tool 'lookup': not a valid JSON Schema"
    ) as caught:
        tools_file([path])
    assert caught.value.file == str(path) and caught.value.line == 2
    options = IngestOptions(skip_invalid=True)
    assert tools_file([path], options) == {
        "tools": [{"type": "function", "function": {"name": "ok"}}]
    }
    assert len(options.skipped) == 1
    broken = write_lines(tmp_path / "u.jsonl", [{"resourceSpans": [{"scopeSpans": 5}]}])
    with pytest.raises(InputError, match="expected a list"):
        tools_file([broken])
