"""Write Arize Phoenix span exports (Parquet and JSONL) of OpenInference traces, offline.

Input: an OTLP/JSON Lines file written by the OpenInference instrumentation (for instance
``openinference_langgraph.py``'s ``openinference_langgraph_otlp.jsonl``). Needs
``pip install arize-phoenix`` and a Phoenix server on this machine, started with
``PHOENIX_WORKING_DIR=<empty dir> PHOENIX_HOST=127.0.0.1 phoenix serve`` (no network).
Not run in CI; not imported by the package.

1. Every trace is sent to the local Phoenix's OTLP/HTTP endpoint (``/v1/traces``, protobuf)
   as the OpenTelemetry OTLP exporter sends it.
2. ``phoenix.client.Client().spans.get_spans_dataframe()`` (Phoenix's documented export) is
   written with ``DataFrame.to_parquet`` to ``openinference_phoenix_spans.parquet``.
3. The same spans, decoded by Phoenix's own OTLP decoder (``decode_otlp_span``), are written
   with Phoenix's ``spans_to_jsonl`` (the JSONL that ``TraceDataset`` / ``json_lines_to_df``
   read) to ``openinference_phoenix_spans.jsonl``.

Usage: ``python tools/producers/openinference_phoenix_export.py OTLP.jsonl OUT_DIR [URL]``
"""

from __future__ import annotations

import base64
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from phoenix.client import Client
from phoenix.trace.otel import decode_otlp_span
from phoenix.trace.span_json_encoder import spans_to_jsonl


def _base64_ids(node: Any) -> Any:
    """OTLP/JSON file ids (hex) back to the protobuf JSON mapping's base64."""
    if isinstance(node, dict):
        return {
            key: base64.b64encode(bytes.fromhex(value)).decode()
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str)
            else _base64_ids(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_base64_ids(item) for item in node]
    return node


def main(source: Path, out_dir: Path, url: str) -> None:
    requests = [
        json_format.ParseDict(_base64_ids(json.loads(line)), ExportTraceServiceRequest())
        for line in source.read_text().splitlines()
        if line.strip()
    ]
    expected = 0
    for request in requests:
        response = httpx.post(
            f"{url}/v1/traces",
            content=request.SerializeToString(),
            headers={"content-type": "application/x-protobuf"},
        )
        response.raise_for_status()
        expected += sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)
    client = Client(base_url=url)
    for _ in range(60):  # the server inserts spans in the background
        frame = client.spans.get_spans_dataframe(project_name="default", limit=10_000)
        if len(frame) >= expected:
            break
        time.sleep(0.5)
    frame.to_parquet(out_dir / "openinference_phoenix_spans.parquet")
    spans = [
        decode_otlp_span(span)
        for request in requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    (out_dir / "openinference_phoenix_spans.jsonl").write_text(spans_to_jsonl(spans) + "\n")
    print(f"{len(frame)} spans exported; columns: {sorted(frame.columns)}")


if __name__ == "__main__":
    main(
        Path(sys.argv[1]),
        Path(sys.argv[2]),
        sys.argv[3] if len(sys.argv) > 3 else "http://127.0.0.1:6006",
    )
