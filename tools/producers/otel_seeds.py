"""Cut the OTel GenAI / MCP / OpenLLMetry producer files down to small fuzz seeds (not run in CI).

The files the real producers write (``tests/golden/ingest/producers/otel_*``,
``traceloop_*``, ``openllmetry_*``) hold about a thousand JSON paths each, too many for the
exhaustive swap test of ``tests/fuzz/test_ingest_fuzz.py``. This keeps the spans listed in
:data:`KEEP` (by position in the file) and, of them, what the reader uses:

- resource attributes: only ``service.name`` and ``pathgrade.case_id``; no ``schemaUrl``,
  ``flags``, scope versions;
- span attributes: those matching :data:`DROP` are left out (request parameters, response
  ids and models, provider names, tool definitions, protocol versions, total tokens);
- a model span's input messages (``gen_ai.input.messages``, flattened ``gen_ai.prompt.<i>``)
  keep only what follows the last assistant message (the results new to that call), or the
  last message when there is no assistant message;
- a ``tools/list`` result keeps its first tool, without ``outputSchema`` and nulls;
- log records: those of the kept spans, without the repeated history (system, user and
  assistant messages).

Usage: ``python tools/producers/otel_seeds.py GOLDEN_DIR`` (``tests/golden/ingest``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

DROP = re.compile(
    r"gen_ai\.(request\.(?!top_k$).*|response\..*|provider\.name|system|openai\..*"
    r"|is_streaming|tool\.definitions|tool\.type|usage\.total_tokens)"
    r"|llm\.(?!request\.type$).*|telemetry\..*"
    r"|traceloop\.workflow\.name|mcp\.protocol\.version"
)
#: producer file -> (seed file, positions of the spans kept, in file order).
KEEP: dict[str, tuple[str, set[int]]] = {
    "otel_openai_v2_spans.jsonl": (
        "otel_openai_v2_seed.jsonl",
        {0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12},
    ),
    "otel_openai_v2_logs.jsonl": ("otel_openai_v2_logs_seed.jsonl", {0, 1, 4}),
    "otel_mcp.jsonl": ("otel_mcp_seed.jsonl", {1, 5, 6, 11, 15, 17, 18, 19, 20, 21}),
    "traceloop_openai_mcp.jsonl": ("traceloop_seed.jsonl", {1, 2, 3, 5, 6, 9, 11, 12}),
    "openllmetry_openai_legacy.jsonl": ("openllmetry_legacy_seed.jsonl", {0, 1, 4}),
}
_FLAT = re.compile(r"gen_ai\.prompt\.(\d+)\.(.+)")


def _value(attr: dict[str, Any]) -> Any:
    return next(iter(attr["value"].values()))


def _new_messages(text: str) -> str:
    messages = json.loads(text)
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return json.dumps(messages[last + 1 :] if last >= 0 else messages[-1:], separators=(",", ":"))


def _first_tool(text: str) -> str:
    result = json.loads(text)
    tool = {k: v for k, v in result["tools"][0].items() if v is not None and k != "outputSchema"}
    return json.dumps({"tools": [tool]}, separators=(",", ":"))


def _attributes(span: dict[str, Any]) -> list[dict[str, Any]]:
    attrs = [a for a in span.get("attributes", []) if not DROP.fullmatch(a["key"])]
    flat = [int(m.group(1)) for a in attrs if (m := _FLAT.fullmatch(a["key"]))]
    roles = {
        int(m.group(1)): _value(a)
        for a in attrs
        if (m := _FLAT.fullmatch(a["key"])) and m.group(2) == "role"
    }
    last = max((i for i, role in roles.items() if role == "assistant"), default=-1)
    out = []
    for attr in attrs:
        match = _FLAT.fullmatch(attr["key"])
        if match and flat and int(match.group(1)) < (last + 1 if last >= 0 else max(flat)):
            continue
        if attr["key"] == "gen_ai.input.messages":
            attr = {"key": attr["key"], "value": {"stringValue": _new_messages(_value(attr))}}
        if attr["key"] == "traceloop.entity.output" and span["name"] == "tools/list.mcp":
            attr = {"key": attr["key"], "value": {"stringValue": _first_tool(_value(attr))}}
        if attr["key"] == "traceloop.entity.input" and span["name"].endswith(".mcp"):
            continue
        out.append(attr)
    return out


def _resource(resource: dict[str, Any]) -> dict[str, Any]:
    keep = ("service.name", "pathgrade.case_id")
    return {"attributes": [a for a in resource.get("attributes", []) if a["key"] in keep]}


def cut(source: Path, target: Path, keep: set[int]) -> None:
    lines = [json.loads(line) for line in source.read_text().splitlines() if line]
    position = 0
    kept_ids: set[str] = set()
    out: list[dict[str, Any]] = []
    for line in lines:
        if "resourceLogs" in line:
            continue
        resource_spans = []
        for rs in line["resourceSpans"]:
            scopes = []
            for scope in rs["scopeSpans"]:
                spans = []
                for span in scope["spans"]:
                    if position in keep:
                        span = {k: v for k, v in span.items() if k != "flags"}
                        span["attributes"] = _attributes(span)
                        spans.append(span)
                        kept_ids.add(span["spanId"])
                    position += 1
                if spans:
                    scopes.append({"scope": {"name": scope["scope"]["name"]}, "spans": spans})
            if scopes:
                resource_spans.append({"resource": _resource(rs["resource"]), "scopeSpans": scopes})
        if resource_spans:
            out.append({"resourceSpans": resource_spans})
    for line in lines:
        if "resourceLogs" not in line:
            continue
        for rl in line["resourceLogs"]:
            for scope in rl["scopeLogs"]:
                records = [
                    {k: v for k, v in r.items() if k not in ("flags", "observedTimeUnixNano")}
                    for r in scope["logRecords"]
                    if r.get("spanId") in kept_ids
                    and r.get("eventName") in ("gen_ai.tool.message", "gen_ai.choice")
                ]
                scope["logRecords"] = records
            rl["resource"] = _resource(rl["resource"])
        out.append(line)
    target.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in out))


def main(golden: Path) -> None:
    for source, (seed, keep) in KEEP.items():
        cut(golden / "producers" / source, golden / seed, keep)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
