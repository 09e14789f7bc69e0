"""Model Context Protocol spans (the OTel MCP conventions): tool calls as steps, tools files.

A span with ``mcp.method.name`` is an MCP request. Only ``tools/call`` requests are steps:

========================  ===============================================================
tool                      ``gen_ai.tool.name`` (older drafts: ``mcp.tool.name``), else the
                          span name's target (``tools/call {tool}``, also ``MCP send
                          tools/call {tool}`` as the ``mcp`` SDK names its client spans)
arguments / result        ``gen_ai.tool.call.arguments`` / ``...call.result`` (opt-in);
                          older drafts: ``mcp.request.argument.<key>``
call id                   ``gen_ai.tool.call.id`` (the model's id, when recorded)
error                     span status; else a result with ``isError: true`` (a failed tool
                          inside a successful JSON-RPC reply): its text content
server (``server/tool``)  ``mcp.server.name``, else for a server span its resource
                          ``service.name``, else ``server.address``
========================  ===============================================================

Client and server spans of one call are nested (the client sends its trace context in
``_meta``), so the builder makes them one step, named by the client span; a server span is
a step alone only when the trace holds no client span around it. Other methods
(``initialize``, ``tools/list``, notifications) are not steps.

:func:`tools_file` turns the recorded results of ``tools/list`` requests into a tools file
(:mod:`pathgrade.io.tools`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.io.ingest._common import MAX_NESTING, IngestOptions, maybe_json, nesting, text_of
from pathgrade.io.ingest._info import SpanInfo
from pathgrade.io.ingest.spans import Span
from pathgrade.metrics.tool.schemas import schema_problem

TOOLS_CALL = "tools/call"
TOOLS_LIST = "tools/list"
_ARGUMENT = "mcp.request.argument."
#: Attributes holding a recorded ``tools/list`` result (first present wins): the
#: OpenLLMetry MCP instrumentation's ``traceloop.entity.output`` / ``mcp.response.value``.
LIST_RESULT_KEYS = ("mcp.response.value", "traceloop.entity.output", "gen_ai.tool.call.result")


def method(attributes: Mapping[str, Any]) -> str | None:
    """The MCP method of a span (``mcp.method.name``), ``None`` for a span that is not MCP."""
    return text_of(attributes.get("mcp.method.name"))


def _target(span_name: str, method_name: str) -> str | None:
    """The ``{target}`` of a span named ``... {method} {target}``."""
    _, found, rest = span_name.partition(method_name + " ")
    return (rest.strip() or None) if found else None


def result_error(value: Any) -> str | None:
    """The failure a tool result reports: an MCP ``CallToolResult`` (or OpenLLMetry's record
    of one) with ``isError``/``is_error`` true gives its text content (``"tool error"``
    without text); any other value ``None``."""
    value = maybe_json(value)
    if not isinstance(value, dict) or (value.get("isError", value.get("is_error")) is not True):
        return None
    content = value.get("content")
    texts = [
        part["text"]
        for part in (content if isinstance(content, list) else ())
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    if not texts and isinstance(value.get("result"), str):
        texts = [value["result"]]
    return "\n".join(texts).strip() or "tool error"


def server_name(span: Span, span_kind: str | None) -> str | None:
    """The MCP server of a span (see module docstring)."""
    attrs = span.attributes
    found = text_of(attrs.get("mcp.server.name"))
    if not found and span_kind == "server":
        found = text_of(span.resource.get("service.name"))
    return found or text_of(attrs.get("server.address")) or None


def _arguments(attributes: Mapping[str, Any]) -> Any:
    recorded = attributes.get("gen_ai.tool.call.arguments")
    if recorded is not None:
        return recorded
    drafted = {
        key[len(_ARGUMENT) :]: value
        for key, value in attributes.items()
        if key.startswith(_ARGUMENT) and len(key) > len(_ARGUMENT)
    }
    return drafted or None


def classify(
    span: Span, span_kind: str | None, *, namespace: bool, server: str | None = None
) -> SpanInfo:
    """The role of one MCP span: a ``tools/call`` is a tool step, anything else nothing.
    ``server`` is the call's server when the span does not say (an inner span knows it)."""
    attrs = span.attributes
    if method(attrs) != TOOLS_CALL:
        return SpanInfo(None)
    tool = (
        text_of(attrs.get("gen_ai.tool.name"))
        or text_of(attrs.get("mcp.tool.name"))
        or _target(span.name, TOOLS_CALL)
    )
    server = server_name(span, span_kind) or server
    if namespace and server and tool:
        tool = f"{server}/{tool}"
    result = attrs.get("gen_ai.tool.call.result")
    extra: dict[str, Any] = {"mcp_method": TOOLS_CALL}
    for key, name in (
        ("mcp_server", server),
        ("mcp_session_id", text_of(attrs.get("mcp.session.id"))),
        ("jsonrpc_request_id", text_of(attrs.get("jsonrpc.request.id"))),
    ):
        if name:
            extra[key] = name
    return SpanInfo(
        "tool",
        tool=tool,
        call_id=text_of(attrs.get("gen_ai.tool.call.id")),
        arguments=_arguments(attrs),
        result=result,
        error=result_error(result),
        extra=extra,
    )


def is_tools_list(span: Span) -> bool:
    """A ``tools/list`` request span (OTel MCP conventions, or OpenLLMetry's ``tools/list.mcp``)."""
    return method(span.attributes) == TOOLS_LIST or span.name == "tools/list.mcp"


def listed_tools(value: Any) -> list[Mapping[str, Any]]:
    """The tool objects of a ``tools/list`` result (``{"tools": [...]}`` or a bare list)."""
    value = maybe_json(value)
    if isinstance(value, dict):
        value = value.get("tools")
    return [t for t in value if isinstance(t, dict)] if isinstance(value, list) else []


def _entry(tool: Mapping[str, Any]) -> tuple[dict[str, Any], bool] | None:
    name = text_of(tool.get("name"))
    if not name:
        return None
    schema = tool.get("inputSchema", tool.get("input_schema", tool.get("parameters")))
    function: dict[str, Any] = {"name": name}
    if isinstance(tool.get("description"), str):
        function["description"] = tool["description"]
    if isinstance(schema, dict):
        function["parameters"] = schema
    annotations = tool.get("annotations")
    destructive = isinstance(annotations, dict) and annotations.get("destructiveHint") is True
    return {"type": "function", "function": function}, destructive


def _problem(schema: Any) -> str | None:
    if nesting(schema) > MAX_NESTING:
        return f"nested deeper than {MAX_NESTING} levels"
    try:
        return schema_problem(schema)
    except RecursionError:
        return "nested too deeply to check"


def tools_of_spans(
    spans: Iterable[tuple[Span, str | None]], options: IngestOptions, *, file: str
) -> list[tuple[dict[str, Any], bool]]:
    """The tools listed by the ``tools/list`` spans (each with its span kind), in order, as
    ``(OpenAI function tool, destructive)``; the first listing of a name is kept."""
    out: dict[str, tuple[dict[str, Any], bool]] = {}
    for span, span_kind in spans:
        if not is_tools_list(span):
            continue
        result = next((span.attributes[k] for k in LIST_RESULT_KEYS if k in span.attributes), None)
        server = server_name(span, span_kind)
        for tool in listed_tools(result):
            entry = _entry(tool)
            if entry is None:
                continue
            item, destructive = entry
            if options.mcp_namespace and server:
                item["function"]["name"] = f"{server}/{item['function']['name']}"
            name = item["function"]["name"]
            if name in out:
                continue
            problem = _problem(item["function"].get("parameters", {"type": "object"}))
            if problem is not None:
                options.fail(
                    InputError(
                        f"tools/list tool {name!r}: not a valid JSON Schema: {problem}",
                        file=file,
                        line=span.line,
                        field=f"span {span.span_id}",
                    )
                )
                continue
            out[name] = (item, destructive)
    return list(out.values())


def tools_file(paths: Iterable[str | Path], options: IngestOptions | None = None) -> dict[str, Any]:
    """A tools file (:mod:`pathgrade.io.tools`, wrapper form) of the tools that the recorded
    ``tools/list`` results of OTLP/JSON trace files list.

    ``{"tools": [OpenAI function tools, in first-listed order], "dangerous": [...]}``: a tool's
    ``inputSchema`` becomes its ``parameters``; a tool listed again (another request, another
    file) keeps its first listing; ``options.mcp_namespace`` names tools ``server/tool``; a
    tool whose annotations say ``destructiveHint: true`` is dangerous (``dangerous`` is left
    out when none is). A listed schema that is not a valid JSON Schema is an
    :class:`InputError` naming the file and line (skipped with ``skip_invalid``).
    """
    from pathgrade.io.ingest.otel_events import read_otlp  # local: otel_events reads spans

    options = options or IngestOptions()
    kept: dict[str, tuple[dict[str, Any], bool]] = {}
    for path in paths:
        spans, extras = read_otlp(path, options)
        for item, destructive in tools_of_spans(
            ((s, extras.kind(s)) for s in spans), options, file=str(path)
        ):
            kept.setdefault(item["function"]["name"], (item, destructive))
    out: dict[str, Any] = {"tools": [item for item, _ in kept.values()]}
    dangerous = [name for name, (_, destructive) in kept.items() if destructive]
    if dangerous:
        out["dangerous"] = dangerous
    return out
