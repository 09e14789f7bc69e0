"""The collector's HTTP answers, encoded as the OTLP/HTTP specification says: a success is an
``ExportTraceServiceResponse`` (with ``partial_success`` when spans were rejected) and a
failure a ``google.rpc.Status``, in the request's encoding (protobuf, or its JSON form; a
request of another type gets JSON)."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from pathgrade.collect.decode import PROTOBUF, media_type

__all__ = ["Reply", "error_reply", "ok_reply"]

#: HTTP status -> the gRPC status code its ``Status`` carries.
_GRPC = {400: 3, 401: 16, 404: 5, 411: 3, 413: 8, 415: 3, 429: 8, 503: 14}


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, headers and body."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


def _protobuf(content_type: str | None) -> bool:
    return media_type(content_type) == PROTOBUF


def ok_reply(content_type: str | None, rejected: int = 0, message: str = "") -> Reply:
    """200, with a partial success when ``rejected`` spans were not taken."""
    if _protobuf(content_type):
        response = ExportTraceServiceResponse()
        if rejected:
            response.partial_success.rejected_spans = rejected
            response.partial_success.error_message = message
        return Reply(200, (("Content-Type", PROTOBUF),), response.SerializeToString())
    body = (
        {"partialSuccess": {"rejectedSpans": str(rejected), "errorMessage": message}}
        if rejected
        else {}
    )
    return Reply(200, (("Content-Type", "application/json"),), orjson.dumps(body))


def error_reply(content_type: str | None, status: int, message: str, retry_after: int = 0) -> Reply:
    """A failure; ``retry_after`` seconds (429, 503) go in a ``Retry-After`` header."""
    headers: list[tuple[str, str]] = []
    if retry_after:
        headers.append(("Retry-After", str(retry_after)))
    code = _GRPC.get(status, 2)
    if _protobuf(content_type):
        body = Status(code=code, message=message).SerializeToString()
        headers.append(("Content-Type", PROTOBUF))
    else:
        body = orjson.dumps({"code": code, "message": message})
        headers.append(("Content-Type", "application/json"))
    return Reply(status, tuple(headers), body)
