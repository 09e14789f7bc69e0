"""Write OTel GenAI traces of the OpenAI client instrumentation, offline (not run in CI).

Drives ``opentelemetry-instrumentation-openai-v2`` (with ``opentelemetry-util-genai``) over
``openai``: an ``OpenAI`` client whose ``httpx.Client`` has an ``httpx.MockTransport`` serving
recorded chat-completions replies (no network). Spans go to the OpenTelemetry SDK's in-memory
exporter and log records (the instrumentation's events) to its in-memory log exporter; both
are written as OTLP/JSON the way the OpenTelemetry file exporter writes them (protobuf
encoding printed with ``google.protobuf.json_format``, hex ids). Not imported by the package.

The agent loop is the application's own code, as with client-level instrumentation: it sends
the conversation, runs the tools the model asks for and sends their results back.

Two modes, each run in its own process (the instrumentation reads its settings once):

1. ``spans`` (``opentelemetry-instrumentation-openai-v2`` 2.4b0 with ``opentelemetry-util-genai``
   1.1b0, latest conventions, content capture ``span_only``) writes ``otel_openai_v2_spans.jsonl``:
   the messages are the model spans' ``gen_ai.input.messages`` / ``gen_ai.output.messages``.
   Two traces:

   - ``refund-A17``: model spans only, under one plain span the application opens around its
     loop (``support-session``; without it each model call would be a trace of its own).
     Reply 1 asks for ``lookup_order`` and ``search_kb`` (one response, two calls); reply 2
     for ``issue_refund``, whose result is an error text; reply 3 for ``issue_refund`` again;
     reply 4 answers.
   - ``warranty-B2``: the application also records its own work with util-genai's handler:
     an ``invoke_agent`` span (agent ``support``) around everything; a ``retrieval`` span
     (data source ``kb``, query, top_k, documents) before the first model call; the tools
     the model asks for as ``execute_tool`` spans, ``search_kb`` wrapping a ``retrieval``
     span of data source ``policies``, ``check_warranty`` raising (a failed span).

2. ``logs`` (``opentelemetry-instrumentation-openai-v2`` 2.2b0, its default v1.30.0
   conventions, ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``) writes
   ``otel_openai_v2_logs.jsonl``: the model spans hold no content; the messages are log
   records (events ``gen_ai.system.message``, ``gen_ai.user.message``,
   ``gen_ai.assistant.message``, ``gen_ai.tool.message``, ``gen_ai.choice``) tied to their
   span by ``spanId``, written to the same file as the spans (one collector file exporter in
   both pipelines: ``resourceSpans`` and ``resourceLogs`` lines). The ``refund-A17``
   conversation.

Usage: ``python tools/producers/otel_openai_v2.py spans|logs OUT_DIR`` (with the Python of a
virtual environment holding that mode's libraries).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _otel_common import (
    KB,
    REFUND_A17,
    REFUND_QUESTION,
    TOOLS,
    call,
    client_loop,
    openai_client,
    reply,
    write_otlp,
)

WARRANTY_B2 = [
    reply(
        11,
        {
            "tool_calls": [
                call("call_kb_2", "search_kb", {"query": "warranty for order B2"}),
                call("call_warranty", "check_warranty", {"order_id": "B2"}),
            ]
        },
        90,
        25,
    ),
    reply(12, {"content": "Order B2 is under warranty until 2026."}, 150, 12),
]
POLICIES = [{"id": "policy-warranty-2y", "score": 0.88}]
MODES = {
    "spans": {
        "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
    },
    "logs": {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
}


def with_app_spans(client: Any, handler: Any, tracer: Any) -> None:
    """A loop that records an agent span, retrieval spans and tool spans (util-genai)."""
    question = "Is order B2 still under warranty?"
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    session = {"pathgrade.case_id": "warranty-B2"}
    with (
        tracer.start_as_current_span("support-session", attributes=session),
        handler.invoke_local_agent(agent_name="support", request_model="gpt-4o-mini"),
    ):
        with handler.retrieval(data_source_id="kb") as retrieval:
            retrieval.query_text = question
            retrieval.top_k = 3
            retrieval.documents = KB
        messages.insert(0, {"role": "system", "content": "Context: kb-refunds, kb-warranty"})
        for _ in range(4):
            response = client.chat.completions.create(
                model="gpt-4o-mini", messages=messages, tools=TOOLS, temperature=0
            )
            message = response.choices[0].message
            if not message.tool_calls:
                print("answer:", message.content)
                return
            messages.append(message.model_dump(exclude_none=True))
            for tool_call in message.tool_calls:
                output = _tool_span(handler, tool_call, json.loads(tool_call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": output})


def _tool_span(handler: Any, tool_call: Any, arguments: dict[str, Any]) -> str:
    tool = handler.tool(tool_call.function.name, tool_type="function")
    tool.tool_call_id = tool_call.id
    tool.arguments = arguments
    try:
        with tool:
            if tool_call.function.name == "search_kb":
                with handler.retrieval(data_source_id="policies") as retrieval:
                    retrieval.query_text = arguments["query"]
                    retrieval.top_k = 1
                    retrieval.documents = POLICIES
                output = json.dumps([doc["id"] for doc in POLICIES])
            else:
                raise RuntimeError("warranty service unavailable")
            tool.tool_result = output
    except RuntimeError as error:
        return f"Error: {error}"
    return output


def _log_exporter() -> Any:
    from opentelemetry.sdk._logs import export

    exporter = getattr(export, "InMemoryLogRecordExporter", None) or export.InMemoryLogExporter
    return exporter()


def produce(mode: str, out: Path) -> None:
    """Run one mode in this process and write its file."""
    os.environ.update(MODES[mode])
    from _oi_export import provider
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource

    tracer_provider, exporter = provider()
    logs = _log_exporter()
    logger_provider = LoggerProvider(resource=Resource.create({"service.name": "support-bot"}))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    OpenAIInstrumentor().instrument(
        tracer_provider=tracer_provider, logger_provider=logger_provider
    )
    tracer = tracer_provider.get_tracer("support-bot")
    session = {"pathgrade.case_id": "refund-A17"}
    with tracer.start_as_current_span("support-session", attributes=session):
        client_loop(
            openai_client(REFUND_A17),
            REFUND_QUESTION,
            [{"role": "system", "content": "You are a support agent."}],
        )
    if mode == "spans":
        from opentelemetry.util.genai.handler import TelemetryHandler

        handler = TelemetryHandler(tracer_provider=tracer_provider, logger_provider=logger_provider)
        with_app_spans(openai_client(WARRANTY_B2), handler, tracer)
    write_otlp(exporter.get_finished_spans(), out, logs.get_finished_logs())


if __name__ == "__main__":
    produce(sys.argv[1], Path(sys.argv[2]) / f"otel_openai_v2_{sys.argv[1]}.jsonl")
