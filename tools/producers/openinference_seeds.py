"""Cut the OpenInference producer files down to small fuzz seeds (not run in CI).

The files the real producers write (``tests/golden/ingest/producers/openinference_*``) are
100 KB and thousands of JSON paths each, too many for the exhaustive swap test of
``tests/fuzz/test_ingest_fuzz.py``. This keeps, of the first trace of each, the spans and the
attributes the reader uses, shortened:

- kept: the spans listed in :data:`KEEP` (the LangGraph trace up to the third model call,
  the OpenAI Agents trace up to the failed refund);
- dropped: the model spans' ``output.value``, invocation parameters and tool schemas,
  descriptions, tool parameter schemas, provider and model names, prompt and completion
  token counts when a total is there, message names, output mime types, document contents,
  and of LangChain's ``metadata`` all but ``langgraph_node``;
- a model span keeps its emitted tool calls, its token counts, the tool messages that are
  new to it (those after its input's last assistant message), and of its ``input.value``
  only the tool messages with ``status: "error"``;
- a TOOL span's serialized ``ToolMessage`` keeps ``content``, ``tool_call_id``, ``status``;
- CHAIN and AGENT spans keep no input and no model messages, and only a root its output;
  a root's ``{"messages": [...]}`` output keeps its last message's type and content.

The two OTLP traces are written as flat span JSON lines (the layout of the SDK's
``span.to_json()``: one JSON path per attribute instead of four), the Phoenix one stays
Phoenix JSONL.

Usage: ``python tools/producers/openinference_seeds.py GOLDEN_DIR`` (``tests/golden/ingest``).
"""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DROP = re.compile(
    r"llm\.(invocation_parameters|tools\..*|provider|system|model_name|finish_reason"
    r"|prompt_template\..*|input_messages\.\d+\.message\.name)|tool\.(description|parameters)"
    r"|graph\.node\..*|retrieval\.documents\.\d+\.document\.content|output\.mime_type"
)
#: The spans kept of the first trace of each file (the last digits of their span ids).
KEEP = {
    "openinference_langgraph_otlp.jsonl": {1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15},
    "openinference_openai_agents_otlp.jsonl": {1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
}
INPUT = re.compile(r"llm\.input_messages\.(\d+)\.message\.(.+)")


def _value(attr: dict[str, Any]) -> Any:
    return next(iter(attr["value"].values()), None)


def _set(attr: dict[str, Any], text: str) -> dict[str, Any]:
    return {"key": attr["key"], "value": {"stringValue": text}}


def _error_tool_messages(text: str) -> str | None:
    decoded = json.loads(text)
    if not isinstance(decoded, dict):
        return None
    kept = []
    for message in decoded.get("messages", [[]])[0]:
        kwargs = message.get("kwargs", {})
        if kwargs.get("type") == "tool" and kwargs.get("status") == "error":
            fields = {k: kwargs[k] for k in ("content", "type", "tool_call_id", "status")}
            kept.append({"lc": 1, "type": "constructor", "id": message["id"], "kwargs": fields})
    return json.dumps({"messages": [kept]}) if kept else None


def _trim_attributes(span: dict[str, Any]) -> list[dict[str, Any]]:
    attrs = span.get("attributes", [])
    by_key = {a["key"]: _value(a) for a in attrs}
    kind = by_key.get("openinference.span.kind")
    roles = {
        int(m.group(1)): v
        for k, v in by_key.items()
        if (m := INPUT.fullmatch(k)) and m.group(2) == "role"
    }
    last_assistant = max((i for i, r in roles.items() if r == "assistant"), default=-1)
    out = []
    for attr in attrs:
        key, value = attr["key"], _value(attr)
        if DROP.fullmatch(key):
            continue
        if kind in ("CHAIN", "AGENT") and (
            key.startswith(("input.", "llm."))
            or (key.startswith("output.") and span.get("parentSpanId"))
        ):
            continue
        if key == "metadata":
            node = json.loads(value).get("langgraph_node")
            if kind == "AGENT" and node:
                out.append(_set(attr, json.dumps({"langgraph_node": node})))
            continue
        if kind == "LLM":
            if key in ("output.value", "output.mime_type", "input.mime_type"):
                continue
            if key == "input.value":
                if (kept := _error_tool_messages(value)) is not None:
                    out.append(_set(attr, kept))
                continue
            if (m := INPUT.fullmatch(key)) and int(m.group(1)) <= last_assistant:
                continue
            if key in ("llm.token_count.prompt", "llm.token_count.completion") and (
                "llm.token_count.total" in by_key
            ):
                continue
        if key == "output.value" and kind in ("CHAIN", "AGENT"):
            decoded = json.loads(value) if value.startswith("{") else None
            if isinstance(decoded, dict) and isinstance(decoded.get("messages"), list):
                last = decoded["messages"][-1]
                data = {k: last["data"][k] for k in ("type", "content")}
                out.append(
                    _set(attr, json.dumps({"messages": [{"type": last["type"], "data": data}]}))
                )
            elif decoded is None:
                out.append(attr)
            continue
        if key == "output.value" and kind == "TOOL" and value.startswith('{"type": "tool"'):
            data = json.loads(value)["data"]
            keep = {k: data[k] for k in ("content", "type", "tool_call_id", "status")}
            out.append(_set(attr, json.dumps({"type": "tool", "data": keep})))
            continue
        if key == "output.value" and kind in ("RETRIEVER", "LLM"):
            continue
        out.append(attr)
    return out


def _iso(nanos: str) -> str:
    """Unix nanoseconds as the SDK's ``to_json`` writes times (ISO-8601, microseconds, Z)."""
    seconds, rest = divmod(int(nanos), 10**9)
    stamp = datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=rest // 1000)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _flat(span: dict[str, Any]) -> dict[str, Any]:
    """An OTLP/JSON span in the layout of the OpenTelemetry SDK's ``span.to_json()``."""
    parent = span.get("parentSpanId")
    code = span.get("status", {}).get("code", "STATUS_CODE_UNSET").removeprefix("STATUS_CODE_")
    status = {"status_code": code}
    if span.get("status", {}).get("message"):
        status["description"] = span["status"]["message"]
    return {
        "name": span["name"],
        "context": {"trace_id": "0x" + span["traceId"], "span_id": "0x" + span["spanId"]},
        "parent_id": "0x" + parent if parent else None,
        "start_time": _iso(span["startTimeUnixNano"]),
        "end_time": _iso(span["endTimeUnixNano"]),
        "status": status,
        "attributes": {a["key"]: _value(a) for a in span["attributes"]},
    }


def trim_otlp(source: Path, target: Path) -> None:
    """The first trace of an OTLP/JSON file, trimmed, as flat span JSON lines."""
    line = json.loads(source.read_text().splitlines()[0])
    out = []
    for resource in line["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                if int(span["spanId"], 16) % 256 in KEEP[source.name]:
                    span["attributes"] = _trim_attributes(span)
                    out.append(json.dumps(_flat(span)))
    target.write_text("\n".join(out) + "\n")


def trim_phoenix(source: Path, target: Path) -> None:
    """The RETRIEVER-only trace (the last one) of Phoenix's JSONL, shortened."""
    spans = [json.loads(x) for x in source.read_text().splitlines() if x.strip()]
    trace = spans[-1]["context"]["trace_id"]
    keep = {"RunnableSequence", "KnowledgeBase", "ChatOpenAI"}
    out = []
    for span in spans:
        if span["context"]["trace_id"] != trace or span["name"] not in keep:
            continue
        attributes = span["attributes"]
        attributes.pop("metadata", None)
        llm = attributes.get("llm", {})
        for key in (
            "invocation_parameters",
            "provider",
            "system",
            "model_name",
            "input_messages",
            "prompt_template",
        ):
            llm.pop(key, None)
        if span["span_kind"] in ("LLM", "RETRIEVER"):
            attributes.pop("output", None)
            attributes.pop("input", None) if span["span_kind"] == "LLM" else None
        for document in attributes.get("retrieval", {}).get("documents", []):
            document["document"].pop("content", None)
        span.pop("events", None)
        out.append(json.dumps(span))
    target.write_text("\n".join(out) + "\n")


def main(golden: Path) -> None:
    producers = golden / "producers"
    trim_otlp(
        producers / "openinference_langgraph_otlp.jsonl", golden / "openinference_langgraph.jsonl"
    )
    trim_otlp(
        producers / "openinference_openai_agents_otlp.jsonl",
        golden / "openinference_openai_agents.jsonl",
    )
    trim_phoenix(producers / "openinference_phoenix_spans.jsonl", golden / "phoenix_spans.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
