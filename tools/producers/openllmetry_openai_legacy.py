"""Write an OpenLLMetry OpenAI-client trace of the older conventions, offline (not run in CI).

Drives ``opentelemetry-instrumentation-openai`` 0.49.8 (OpenLLMetry, before it wrote
``gen_ai.input.messages``): its ``openai.chat`` spans carry ``llm.request.type = chat``, no
``gen_ai.operation.name``, and the messages flattened into ``gen_ai.prompt.<i>.*`` /
``gen_ai.completion.<i>.*`` attributes (tool calls as ``gen_ai.completion.0.tool_calls.<j>.*``,
tool results as ``gen_ai.prompt.<i>.role = tool`` with ``tool_call_id``). The ``OpenAI``
client's ``httpx.Client`` has an ``httpx.MockTransport`` serving recorded replies: no network.
The application opens one plain span around its loop (``support-session``). Spans are written
as OTLP/JSON the way the OpenTelemetry file exporter writes them. Not imported by the package.

The conversation is ``_otel_common.REFUND_A17``.

Usage: ``python tools/producers/openllmetry_openai_legacy.py OUT_DIR`` writes
``openllmetry_openai_legacy.jsonl``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["TRACELOOP_TRACE_CONTENT"] = "true"
sys.path.insert(0, str(Path(__file__).parent))

from _oi_export import provider
from _otel_common import (
    REFUND_A17,
    REFUND_QUESTION,
    client_loop,
    openai_client,
    write_otlp,
)
from opentelemetry.instrumentation.openai import OpenAIInstrumentor


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
    tracer = tracer_provider.get_tracer("support-bot")
    session = {"pathgrade.case_id": "refund-A17"}
    with tracer.start_as_current_span("support-session", attributes=session):
        client_loop(
            openai_client(REFUND_A17),
            REFUND_QUESTION,
            [{"role": "system", "content": "You are a support agent."}],
        )
    write_otlp(exporter.get_finished_spans(), out_dir / "openllmetry_openai_legacy.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
