"""One OTLP/HTTP request body, checked and split by trace (no sockets: :mod:`.http` serves it).

A body is ``application/x-protobuf`` (an ``ExportTraceServiceRequest``) or ``application/json``
(its OTLP/JSON form), optionally ``Content-Encoding: gzip``. What cannot be read is a
:class:`RequestError` with the HTTP status the OTLP/HTTP specification gives (400 bad data, 413
too large, 415 unsupported type or encoding). A span whose trace id, span id or parent id is
not of its size is *rejected* (counted in the answer's partial success, as the specification
says), the others kept.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import orjson
from google.protobuf.message import DecodeError

from pathgrade.collect.otlp_proto import parse_request, request_json

__all__ = ["JSON", "PROTOBUF", "Decoded", "Piece", "RequestError", "decode_body", "media_type"]

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
_HEX = re.compile(r"[0-9a-f]*")


class RequestError(Exception):
    """A body that cannot be read: ``status`` and a one-line ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Piece:
    """The spans of one trace in one request, as one OTLP/JSON ``TracesData`` line."""

    trace_id: str
    data: dict[str, Any]
    spans: int = 0
    root: bool = False
    #: The request's resource and scope entries the last span came from (while decoding).
    at: tuple[int, int] = (0, 0)


@dataclass
class Decoded:
    """A request's pieces by trace, its span count, and the spans rejected (with why)."""

    pieces: dict[str, Piece] = field(default_factory=dict)
    spans: int = 0
    rejected: int = 0
    reason: str = ""


def media_type(content_type: str | None) -> str:
    """The media type of a ``Content-Type`` header, lower case, without parameters."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def _inflate(body: bytes, encoding: str, limit: int) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "gzip":
        raise RequestError(415, f"unsupported Content-Encoding {encoding[:40]!r} (use gzip)")
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, limit + 1)
    except zlib.error as error:
        raise RequestError(400, f"body is not valid gzip: {error}") from None
    if len(out) > limit:
        raise RequestError(413, f"body inflates past the {limit}-byte limit")
    if not inflater.eof:
        raise RequestError(400, "body is truncated gzip (no end of stream)")
    return out


def _traces_data(body: bytes, kind: str) -> dict[str, Any]:
    if kind == PROTOBUF:
        try:
            return request_json(parse_request(body))
        except DecodeError as error:
            raise RequestError(400, f"body is not an ExportTraceServiceRequest: {error}") from None
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise RequestError(400, f"body is not JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("resourceSpans", []), list):
        raise RequestError(400, "expected an object with a 'resourceSpans' list")
    return data


def _id(value: Any, size: int) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.lower()
    return value if len(value) == size and _HEX.fullmatch(value) else None


def decode_body(body: bytes, content_type: str | None, encoding: str | None, limit: int) -> Decoded:
    """The request's spans split by trace (module docstring); ``limit``: the largest body."""
    kind = media_type(content_type)
    if kind not in (PROTOBUF, JSON):
        wanted = f"use {PROTOBUF} or {JSON}"
        raise RequestError(415, f"unsupported Content-Type {kind[:60]!r} ({wanted})")
    if len(body) > limit:
        raise RequestError(413, f"body of {len(body)} bytes is past the {limit}-byte limit")
    data = _traces_data(_inflate(body, encoding or "", limit), kind)
    out = Decoded()
    for rs in data.get("resourceSpans") or ():
        if not isinstance(rs, dict):
            raise RequestError(400, "a resourceSpans entry is not an object")
        for ss in rs.get("scopeSpans") or ():
            if not isinstance(ss, dict) or not isinstance(ss.get("spans", []), list):
                raise RequestError(400, "a scopeSpans entry is not an object with a 'spans' list")
            for span in ss.get("spans") or ():
                _place(out, rs, ss, span)
    return out


def _place(out: Decoded, rs: dict[str, Any], ss: dict[str, Any], span: Any) -> None:
    trace = _id(span.get("traceId"), 32) if isinstance(span, dict) else None
    if trace is None or _id(span.get("spanId"), 16) is None:
        out.rejected += 1
        out.reason = "a span without a 32-hex-digit traceId or a 16-hex-digit spanId"
        return
    parent = span.get("parentSpanId") or None
    if parent is not None and _id(parent, 16) is None:
        out.rejected += 1
        out.reason = "a span whose parentSpanId is not 16 hex digits"
        return
    piece = out.pieces.get(trace)
    if piece is None:
        piece = out.pieces[trace] = Piece(trace, {"resourceSpans": []})
    resources = piece.data["resourceSpans"]
    if not resources or piece.at[0] != id(rs):
        resources.append({"resource": rs.get("resource") or {}, "scopeSpans": []})
        piece.at = (id(rs), 0)
    scopes = resources[-1]["scopeSpans"]
    if not scopes or piece.at[1] != id(ss):
        scopes.append({"scope": ss.get("scope") or {}, "spans": []})
        piece.at = (id(rs), id(ss))
    scopes[-1]["spans"].append(span)
    piece.spans += 1
    piece.root = piece.root or parent is None
    out.spans += 1
