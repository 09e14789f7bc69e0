"""Shared by the OpenInference producer scripts: a tracer provider and an OTLP/JSON writer.

- :func:`provider` gives an OpenTelemetry SDK tracer provider with an in-memory exporter and
  counting id generators (trace ``...0001``, span ``...0001``...), so that a regenerated
  file keeps its ids.
- :func:`write_otlp_json` writes one OTLP/JSON ``TracesData`` per trace per line, encoded
  the way the OpenTelemetry file exporter writes it: the SDK's protobuf encoding
  (``opentelemetry-exporter-otlp-proto-common``) printed with ``google.protobuf.json_format``,
  then trace and span ids turned from base64 into hex (OTLP/JSON ids are hex).

Not run in CI; not imported by the package.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator


class CountingIds(IdGenerator):
    """Trace and span ids 1, 2, 3... (deterministic files)."""

    def __init__(self) -> None:
        self.trace = 0
        self.span = 0

    def generate_trace_id(self) -> int:
        self.trace += 1
        return 0x5EED0000000000000000000000000000 + self.trace

    def generate_span_id(self) -> int:
        self.span += 1
        return 0x5EED000000000000 + self.span


def provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider(id_generator=CountingIds())
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    return tracer_provider, exporter


def _hex_ids(node: Any) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                out[key] = base64.b64decode(value).hex()
            else:
                out[key] = _hex_ids(value)
        return out
    if isinstance(node, list):
        return [_hex_ids(item) for item in node]
    return node


def write_otlp_json(spans: Sequence[ReadableSpan], path: Path) -> None:
    traces: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        traces.setdefault(span.context.trace_id, []).append(span)
    with path.open("w") as handle:
        for group in traces.values():
            message = json_format.MessageToDict(encode_spans(group))
            handle.write(json.dumps(_hex_ids(message), ensure_ascii=False) + "\n")
