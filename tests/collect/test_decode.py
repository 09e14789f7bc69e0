"""Reading one OTLP/HTTP body: protobuf and JSON, gzip, limits, bad ids, split by trace."""

from __future__ import annotations

import base64
import gzip
from typing import Any

import orjson
import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.collect.decode import JSON, PROTOBUF, RequestError, decode_body
from pathgrade.collect.otlp_proto import parse_request, request_json

T1, T2 = "0af7651916cd43dd8448eb211c80319c", "4bf92f3577b34da6a3ce929d0e0e4736"
LIMIT = 1 << 20


def test_a_protobuf_body_is_split_by_trace_with_its_roots(otlp: Any) -> None:
    body = otlp.request(
        otlp.tool_trace(T1, [("a", {}, None)])
        + otlp.tool_trace(T2, [("b", {}, None), ("c", {}, "boom")])[:2]
    )
    decoded = decode_body(body, PROTOBUF, None, LIMIT)
    assert decoded.spans == 4 and decoded.rejected == 0
    assert sorted(decoded.pieces) == [T1, T2]
    assert decoded.pieces[T1].spans == 2 and decoded.pieces[T1].root  # root: no parent
    assert decoded.pieces[T2].spans == 2 and not decoded.pieces[T2].root
    span = decoded.pieces[T1].data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert span["traceId"] == T1 and span["parentSpanId"] == T1[:16]
    assert {"key": "gen_ai.tool.name", "value": {"stringValue": "a"}} in span["attributes"]


def test_json_and_gzip_bodies_read_as_the_protobuf_one(otlp: Any) -> None:
    body = otlp.request(otlp.tool_trace(T1, [("a", {"x": 1}, "late")]))
    as_json = orjson.dumps(request_json(parse_request(body)))
    want = decode_body(body, PROTOBUF, None, LIMIT).pieces[T1].data
    assert (
        decode_body(as_json, "application/json; charset=utf-8", None, LIMIT).pieces[T1].data == want
    )
    assert decode_body(gzip.compress(body), PROTOBUF, "gzip", LIMIT).pieces[T1].data == want


@pytest.mark.parametrize(
    ("body", "content_type", "encoding", "status", "words"),
    [
        (b"\xff\xff\xff", PROTOBUF, None, 400, "not an ExportTraceServiceRequest"),
        (b"{not json", JSON, None, 400, "not JSON"),
        (b'{"resourceSpans": 3}', JSON, None, 400, "resourceSpans"),
        (b"{}", "text/plain", None, 415, "Content-Type"),
        (b"{}", JSON, "br", 415, "Content-Encoding"),
        (gzip.compress(b"{}")[:-6], JSON, "gzip", 400, "truncated gzip"),
        (b"not gzip at all", JSON, "gzip", 400, "not valid gzip"),
        (b"x" * (LIMIT + 1), JSON, None, 413, "limit"),
        (gzip.compress(b" " * (LIMIT + 10)), JSON, "gzip", 413, "inflates past"),
    ],
    ids=["protobuf", "json", "shape", "type", "encoding", "torn-gzip", "not-gzip", "big", "bomb"],
)
def test_bad_bodies_get_the_status_the_specification_gives(
    body: bytes, content_type: str, encoding: str | None, status: int, words: str
) -> None:
    with pytest.raises(RequestError) as caught:
        decode_body(body, content_type, encoding, LIMIT)
    assert caught.value.status == status and words in caught.value.message
    assert "\n" not in caught.value.message


def test_spans_with_bad_ids_are_rejected_and_the_others_kept(otlp: Any) -> None:
    good = otlp.tool_trace(T1, [("a", {}, None)])
    bad_parent = (T2, "00000000000000aa", "abcd", "x", {}, None)  # a 2-byte parent id
    short_span = (T2, "00aa", "", "y", {}, None)
    decoded = decode_body(otlp.request([*good, bad_parent, short_span]), PROTOBUF, None, LIMIT)
    assert decoded.rejected == 2 and decoded.spans == 2 and list(decoded.pieces) == [T1]
    assert decoded.reason


_HEX32 = st.text("0123456789abcdef", min_size=32, max_size=32).filter(lambda s: s != "0" * 32)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(_HEX32, st.text(min_size=1, max_size=8), st.integers(-5, 5), st.booleans()),
        min_size=1,
        max_size=6,
    )
)
def test_the_json_form_is_protobufs_own_mapping_with_hex_ids(
    otlp: Any, spans: list[tuple[str, str, int, bool]]
) -> None:
    # Differential: our walk of the message against protobuf's generic JSON mapping, whose
    # only differences from OTLP/JSON are base64 ids, enum names and omitted defaults.
    specs = [
        (trace, f"{k + 1:016x}", "", name, {"n": n, "flag": flag}, None)
        for k, (trace, name, n, flag) in enumerate(spans)
    ]
    message = parse_request(otlp.request(specs))
    ours = request_json(message)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    theirs = MessageToDict(message)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for mine, generic in zip(ours, theirs, strict=True):
        assert mine["traceId"] == base64.b64decode(generic["traceId"]).hex()
        assert mine["name"] == generic["name"]
        assert mine["startTimeUnixNano"] == generic["startTimeUnixNano"]
        assert mine["attributes"] == generic["attributes"]
