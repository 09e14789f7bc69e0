"""A toy support agent instrumented with the OpenTelemetry SDK, exporting its traces over
OTLP/HTTP (protobuf) to ``pathgrade collect``. No model: each "conversation" follows a script
with the failure modes production traces show (repeated calls, retries after an error, a
write after an error), so the collected runs have something to score.

    pathgrade collect --save prod &            # listens on 127.0.0.1:4318
    python examples/production/toy_agent.py --endpoint http://127.0.0.1:4318/v1/traces
    pathgrade runs list                         # prod.<window>.<n>, one per saved batch

Spans follow the OpenTelemetry GenAI semantic conventions: one ``invoke_agent`` root span a
conversation, one ``execute_tool`` span a call (``gen_ai.tool.name``,
``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``; an error status on a failed
call). Recorded with opentelemetry-sdk and opentelemetry-exporter-otlp-proto-http 1.45.2.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode, Tracer

#: The scripts: (tool, arguments, error or None) a call.
SCRIPTS: dict[str, list[tuple[str, dict[str, object], str | None]]] = {
    "clean_refund": [
        ("get_order", {"order_id": "A17"}, None),
        ("refund", {"order_id": "A17", "amount": 20}, None),
    ],
    "repeated_lookup": [
        ("get_order", {"order_id": "B2"}, None),
        ("get_order", {"order_id": "B2"}, None),
        ("get_order", {"order_id": "B2"}, None),
    ],
    "retry_after_error": [
        ("search_kb", {"query": "late delivery"}, "timeout"),
        ("search_kb", {"query": "late delivery"}, "timeout"),
        ("send_email", {"to": "jane.doe@example.com", "body": "Sorry"}, None),
    ],
}


def conversation(tracer: Tracer, script: str, case_id: str) -> None:
    """One conversation: an ``invoke_agent`` root span with an ``execute_tool`` span a call."""
    with tracer.start_as_current_span("invoke_agent support-bot") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("gen_ai.agent.name", "support-bot")
        root.set_attribute("pathgrade.case_id", case_id)
        for tool, arguments, error in SCRIPTS[script]:
            with tracer.start_as_current_span(f"execute_tool {tool}") as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)
                span.set_attribute("gen_ai.tool.call.arguments", json.dumps(arguments))
                if error is None:
                    span.set_attribute("gen_ai.tool.call.result", json.dumps({"ok": True}))
                else:
                    span.set_status(Status(StatusCode.ERROR, error))


def provider(endpoint: str, headers: dict[str, str] | None = None) -> TracerProvider:
    """A tracer provider exporting to ``endpoint`` in batches (the SDK's defaults)."""
    made = TracerProvider(resource=Resource.create({"service.name": "toy-support-agent"}))
    exporter = OTLPSpanExporter(endpoint=endpoint, headers=headers or {})
    made.add_span_processor(BatchSpanProcessor(exporter))
    return made


def scripts(count: int, seed: int = 0) -> Iterator[tuple[str, str]]:
    """``count`` (script, case id) pairs, drawn with ``seed``."""
    chooser = random.Random(seed)
    names = sorted(SCRIPTS)
    for k in range(count):
        name = chooser.choice(names)
        yield name, f"{name}-{k}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint", default="http://127.0.0.1:4318/v1/traces")
    parser.add_argument("--conversations", type=int, default=30)
    args = parser.parse_args()
    made = provider(args.endpoint)
    tracer = made.get_tracer("toy-support-agent")
    for name, case_id in scripts(args.conversations):
        conversation(tracer, name, case_id)
    made.shutdown()  # flushes the exporter


if __name__ == "__main__":
    main()
