"""OpenTelemetry GenAI (OTLP/JSON) reader: golden runs from small hand-written traces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, otel_genai

from .helpers import T0, TRACE_A, TRACE_B, span, traces_line, write_lines


def agent_trace() -> list[dict[str, object]]:
    """An agent: chat -> two parallel tool calls -> chat -> nested sub-agent with a tool."""
    return [
        span(
            TRACE_A,
            1,
            None,
            0,
            1000,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "planner",
                "pathgrade.case_id": "case-7",
                "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "text",'
                ' "content": "Refunded A17."}]}]',
            },
        ),
        span(
            TRACE_A,
            2,
            1,
            10,
            100,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 100,
                "gen_ai.usage.output_tokens": 20,
            },
        ),
        span(
            TRACE_A,
            3,
            1,
            110,
            150,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": '{"order": "A17"}',
                "gen_ai.tool.call.result": '{"status": "paid"}',
            },
        ),
        span(
            TRACE_A,
            4,
            1,
            110,
            140,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "policy",
                "gen_ai.tool.call.id": "call_2",
                "gen_ai.tool.call.arguments": "{}",
            },
        ),
        # old attribute names (alias table)
        span(
            TRACE_A,
            5,
            1,
            200,
            300,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.prompt_tokens": 150,
                "gen_ai.usage.completion_tokens": 10,
                "gen_ai.system": "openai",
            },
        ),
        span(
            TRACE_A,
            6,
            1,
            310,
            600,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refunder"},
        ),
        span(
            TRACE_A,
            7,
            6,
            320,
            330,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 5,
                "gen_ai.usage.output_tokens": 5,
            },
        ),
        span(
            TRACE_A,
            8,
            6,
            340,
            400,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "refund",
                "gen_ai.tool.call.arguments": '["A17"]',
            },
            error="payment gateway timeout",
        ),
        span(
            TRACE_A,
            9,
            1,
            610,
            620,
            {
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.documents": '[{"id": "kb-1", "score": 0.9}, {"id": "kb-2"}]',
            },
        ),
    ]


def test_golden_run_from_an_out_of_order_nested_trace(tmp_path: Path) -> None:
    spans = agent_trace()
    # The file is not ordered: spans are shuffled and split over two lines.
    order = [8, 0, 3, 6, 1, 5, 2, 7, 4]
    shuffled = [spans[i] for i in order]
    path = write_lines(tmp_path / "t.jsonl", [traces_line(shuffled[:4]), traces_line(shuffled[4:])])
    (run,) = list(otel_genai.read(path))
    assert run.case_id == "case-7" and run.run_id == TRACE_A
    # Start time orders the steps; lookup and policy both start at 110 ms: call order (the
    # order they appear in the file) breaks the tie -- policy (span 4) is on line 1 first.
    # The retrieval span (610 ms) is a step too, after the others.
    assert [s.tool for s in run.steps] == ["policy", "lookup", "refund", "retrieval"]
    policy, lookup, refund, retrieval = run.steps
    assert retrieval.output == ["kb-1", "kb-2"] and retrieval.metadata["retrieval"] is True
    assert lookup.arguments == {"order": "A17"} and lookup.raw_arguments == '{"order": "A17"}'
    assert lookup.output == {"status": "paid"} and lookup.call_id == "call_1"
    assert refund.arguments == ["A17"] and refund.error == "payment gateway timeout"
    # Parallel calls of the first model response share a turn; the sub-agent's call is its own.
    assert policy.turn == lookup.turn == 0 and refund.turn == 1
    assert policy.parent == lookup.parent == f"{1:016x}" and refund.parent == f"{6:016x}"
    assert refund.metadata["agent"] == "refunder"
    assert lookup.start_time == pytest.approx((T0 + 110_000_000) / 1e9)
    assert lookup.latency_ms == pytest.approx(40.0)
    # Tokens: 120 + (150 + 10 via aliases) + 10 = 290; latency = root span, 1000 ms.
    assert run.usage is not None
    assert run.usage.tokens == 290 and run.usage.latency_ms == pytest.approx(1000.0)
    assert run.answer == "Refunded A17."
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("kb-1", 0.9), ("kb-2", None)]
    assert run.metadata["retrievals"][0]["documents"][1] == {"id": "kb-2", "score": None, "rank": 2}


def test_names_and_timings_only_still_load(tmp_path: Path) -> None:
    # Content capture off: no arguments, no results, no operation name (span name only).
    spans = [
        span(TRACE_B, 1, None, 0, 50, {}, name="execute_tool search"),
        span(
            TRACE_B,
            2,
            None,
            60,
            70,
            {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch"},
        ),
    ]
    path = write_lines(tmp_path / "t.jsonl", [traces_line(spans, {"pathgrade.case_id": "c2"})])
    (run,) = list(otel_genai.read(path))
    assert run.case_id == "c2"  # from the resource attributes
    assert [(s.tool, s.arguments, s.raw_arguments) for s in run.steps] == [
        ("search", {}, None),
        ("fetch", {}, None),
    ]
    assert run.steps[0].metadata["arguments_recorded"] is False
    assert run.steps[0].turn is None  # no model spans: turns unknown
    assert run.usage is not None and run.usage.latency_ms == pytest.approx(70.0)


def test_case_id_attribute_and_mapping_file(tmp_path: Path) -> None:
    spans = [
        span(
            TRACE_B,
            1,
            None,
            0,
            5,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "t",
                "eval.task": "task-9",
            },
        )
    ]
    path = write_lines(tmp_path / "t.jsonl", [traces_line(spans)])
    (run,) = otel_genai.read(path, IngestOptions(case_id_attribute="eval.task"))
    assert run.case_id == "task-9"
    (run,) = otel_genai.read(path, IngestOptions(case_map={TRACE_B: "mapped"}))
    assert run.case_id == "mapped"
    options = IngestOptions()
    (run,) = otel_genai.read(path, options)
    assert run.case_id == TRACE_B and options.fallbacks == [TRACE_B]


def test_malformed_line_names_file_and_line_and_skip_keeps_the_rest(tmp_path: Path) -> None:
    good_a = traces_line(
        [
            span(
                TRACE_A,
                1,
                None,
                0,
                5,
                {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a"},
            )
        ]
    )
    good_b = traces_line(
        [
            span(
                TRACE_B,
                1,
                None,
                0,
                5,
                {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b"},
            )
        ]
    )
    path = write_lines(tmp_path / "t.jsonl", [good_a, b'{"resourceSpans": [', good_b])
    with pytest.raises(InputError) as caught:
        list(otel_genai.read(path))
    assert caught.value.file == str(path) and caught.value.line == 2
    assert "\n" not in str(caught.value) and "malformed JSON" in str(caught.value)
    options = IngestOptions(skip_invalid=True)
    runs = list(otel_genai.read(path, options))
    assert [r.steps[0].tool for r in runs] == ["a", "b"]
    assert [e.line for e in options.skipped] == [2]


def test_base64_ids_and_bad_int64_are_rejected(tmp_path: Path) -> None:
    bad = span(TRACE_A, 1, None, 0, 5, {"gen_ai.tool.name": "a"})
    bad["traceId"] = "W47/95gDgQPSabYzgT/GDA=="  # base64, as the protobuf JSON mapping has it
    path = write_lines(tmp_path / "t.jsonl", [traces_line([bad])])
    with pytest.raises(InputError, match="hex, not base64") as caught:
        list(otel_genai.read(path))
    assert caught.value.line == 1 and caught.value.field == "traceId"
    late = span(TRACE_A, 1, None, 0, 5, {"gen_ai.tool.name": "a"})
    late["startTimeUnixNano"] = "12.5e9"
    path = write_lines(tmp_path / "u.jsonl", [traces_line([late])])
    with pytest.raises(InputError, match="int64"):
        list(otel_genai.read(path))


def test_tool_span_without_a_name_is_an_error_for_that_trace_only(tmp_path: Path) -> None:
    nameless = traces_line(
        [span(TRACE_A, 1, None, 0, 5, {"gen_ai.operation.name": "execute_tool"})]
    )
    fine = traces_line(
        [
            span(
                TRACE_B,
                1,
                None,
                0,
                5,
                {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ok"},
            )
        ]
    )
    path = write_lines(tmp_path / "t.jsonl", [nameless, fine])
    with pytest.raises(InputError, match="no tool name"):
        list(otel_genai.read(path))
    options = IngestOptions(skip_invalid=True)
    assert [r.run_id for r in otel_genai.read(path, options)] == [TRACE_B]


def test_sniff_and_detect(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [traces_line(agent_trace())])
    assert otel_genai.sniff(path.read_bytes()[:300])
    assert detect(path).name == "otel-genai"
    assert not otel_genai.sniff('{"role": "user"}')


def test_retrieval_span_is_a_step_with_query_and_parameters(tmp_path: Path) -> None:
    spans = [
        # current conventions: span name "retrieval {data source}", gen_ai.retrieval.top_k
        span(
            TRACE_A,
            1,
            None,
            0,
            10,
            {
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.query.text": "refund policy",
                "gen_ai.retrieval.top_k": 2,
                "gen_ai.retrieval.documents": '[{"id": "d1", "score": 0.5}, {"id": "d2"}]',
            },
            name="retrieval kb",
        ),
        # older: gen_ai.data_source.id, gen_ai.request.top_k; nothing of the query recorded
        span(
            TRACE_A,
            2,
            None,
            20,
            30,
            {"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "wiki"},
        ),
        span(
            TRACE_A,
            3,
            None,
            40,
            50,
            {"gen_ai.operation.name": "retrieval", "gen_ai.request.top_k": 5.0},
        ),
    ]
    path = write_lines(tmp_path / "t.jsonl", [traces_line(spans)])
    (run,) = otel_genai.read(path)
    assert [(s.tool, s.arguments, s.output) for s in run.steps] == [
        ("kb", {"query": "refund policy", "top_k": 2}, ["d1", "d2"]),
        ("wiki", {}, []),
        ("retrieval", {"top_k": 5}, []),  # no data source, no target: the span name
    ]
    assert run.steps[1].metadata["arguments_recorded"] is False
    assert all(s.metadata["retrieval"] is True for s in run.steps)
    (off,) = otel_genai.read(path, IngestOptions(retrieval_steps=False))
    assert off.steps == () and [d.id for d in off.retrieved or ()] == ["d1", "d2"]


def test_traces_without_genai_spans_are_not_runs(tmp_path: Path) -> None:
    http = span(TRACE_A, 1, None, 0, 5, {"http.request.method": "GET"}, name="GET /health")
    handshake = span(TRACE_A, 2, 1, 1, 2, {"mcp.method.name": "initialize"}, name="initialize")
    tool = span(
        TRACE_B, 1, None, 0, 5, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"}
    )
    path = write_lines(tmp_path / "t.jsonl", [traces_line([http, handshake]), traces_line([tool])])
    assert [r.run_id for r in otel_genai.read(path)] == [TRACE_B]


def _model(span_id: int, start: int, **attributes: object) -> dict[str, object]:
    return span(
        TRACE_A, span_id, 1, start, start + 10, {"gen_ai.operation.name": "chat", **attributes}
    )


def test_model_span_events_give_the_calls_and_results(tmp_path: Path) -> None:
    # Span events with the body as JSON in gen_ai.event.content (Azure AI Inference tracing).
    asked = _model(2, 10, **{"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5})
    asked["events"] = [
        {
            "name": "gen_ai.user.message",
            "attributes": [
                {"key": "gen_ai.event.content", "value": {"stringValue": '{"content": "weather?"}'}}
            ],
        },
        {
            "name": "gen_ai.choice",
            "attributes": [
                {
                    "key": "gen_ai.event.content",
                    "value": {
                        "stringValue": json.dumps(
                            {
                                "index": 0,
                                "message": {
                                    "tool_calls": [
                                        {
                                            "id": "c1",
                                            "function": {
                                                "name": "weather",
                                                "arguments": '{"city": "Oslo"}',
                                            },
                                        }
                                    ]
                                },
                            }
                        )
                    },
                }
            ],
        },
        {"name": 7, "attributes": "not a list"},  # not an event: ignored
    ]
    answered = _model(3, 30)
    answered["events"] = [
        {
            "name": "gen_ai.tool.message",
            "attributes": [
                {
                    "key": "gen_ai.event.content",
                    "value": {"stringValue": '{"id": "c1", "content": "-3 C"}'},
                }
            ],
        },
        {
            "name": "gen_ai.choice",
            "attributes": [
                {
                    "key": "gen_ai.event.content",
                    "value": {"stringValue": '{"index": 0, "message": {"content": "It is -3 C."}}'},
                }
            ],
        },
    ]
    root = span(TRACE_A, 1, None, 0, 50, {}, name="session")
    path = write_lines(tmp_path / "t.jsonl", [traces_line([root, asked, answered])])
    (run,) = otel_genai.read(path)
    assert [(s.tool, s.arguments, s.output, s.call_id, s.turn) for s in run.steps] == [
        ("weather", {"city": "Oslo"}, "-3 C", "c1", 0)
    ]
    assert run.answer == "It is -3 C."
    assert run.usage is not None and run.usage.tokens == 15  # 10 + 5


def test_log_records_in_the_same_file(tmp_path: Path) -> None:
    root = span(TRACE_A, 1, None, 0, 50, {}, name="session")
    model = _model(2, 10)
    choice = {
        "kvlistValue": {
            "values": [
                {"key": "index", "value": {"intValue": "0"}},
                {
                    "key": "message",
                    "value": {
                        "kvlistValue": {
                            "values": [{"key": "content", "value": {"stringValue": "Hello."}}]
                        }
                    },
                },
            ]
        }
    }
    record = {
        "traceId": TRACE_A,
        "spanId": f"{2:016x}",
        "eventName": "gen_ai.choice",
        "body": choice,
    }
    unattached = {"eventName": "gen_ai.choice", "body": choice}  # no span: ignored
    older = {
        "traceId": TRACE_A,
        "spanId": f"{2:016x}",
        "attributes": [{"key": "event.name", "value": {"stringValue": "gen_ai.user.message"}}],
        "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "hi"}}]}},
    }
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [older, record, unattached]}]}]}
    path = write_lines(tmp_path / "t.jsonl", [logs, traces_line([root, model])])
    (run,) = otel_genai.read(path)
    assert run.answer == "Hello."
    bad = {"resourceLogs": [{"scopeLogs": 5}]}
    path = write_lines(tmp_path / "u.jsonl", [traces_line([root, model]), bad])
    with pytest.raises(InputError, match="expected a list, got a number") as caught:
        list(otel_genai.read(path))
    assert caught.value.line == 2 and caught.value.field == "resourceLogs[0].scopeLogs"
    options = IngestOptions(skip_invalid=True)
    assert [r.answer for r in otel_genai.read(path, options)] == [None]
    assert [e.line for e in options.skipped] == [2]


def test_execute_tool_with_an_mcp_is_error_result_failed(tmp_path: Path) -> None:
    result = '{"content": [{"type": "text", "text": "rate limited"}], "isError": true}'
    tool = span(
        TRACE_A,
        1,
        None,
        0,
        5,
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "search",
            "gen_ai.tool.call.result": result,
        },
    )
    path = write_lines(tmp_path / "t.jsonl", [traces_line([tool])])
    (run,) = otel_genai.read(path)
    assert [(s.tool, s.error) for s in run.steps] == [("search", "rate limited")]
