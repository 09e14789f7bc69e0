"""When a trace becomes a run, which traces are sampled, and what the spool replays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace.sampling import Decision, TraceIdRatioBased

from pathgrade.collect.buffer import TraceBuffer, sampled
from pathgrade.collect.decode import PROTOBUF, Piece, decode_body
from pathgrade.collect.spool import Spool

T1, T2 = "0af7651916cd43dd8448eb211c80319c", "4bf92f3577b34da6a3ce929d0e0e4736"


def _piece(trace: str, spans: int = 1, root: bool = False) -> Piece:
    return Piece(trace, {"resourceSpans": []}, spans, root)


def test_a_trace_closes_after_its_roots_grace_or_when_idle() -> None:
    buffer = TraceBuffer(root_grace_s=2.0, idle_s=30.0)
    buffer.add(_piece(T1, 2), now=0.0)
    buffer.add(_piece(T1, 1, root=True), now=1.0)  # the root ended at 1 s
    buffer.add(_piece(T2, 3), now=1.0)  # no root yet
    assert buffer.close_due(now=2.9) == 0 and buffer.spans == 6
    assert buffer.close_due(now=3.0) == 1  # 2 s after T1's root
    assert [t.trace_id for t in buffer.ready] == [T1] and buffer.ready[0].spans == 3
    buffer.add(_piece(T2, 1), now=20.0)  # still arriving: idle counts from the last span
    assert buffer.close_due(now=49.9) == 0 and buffer.close_due(now=50.0) == 1
    taken = buffer.take_ready(1)
    assert [t.trace_id for t in taken] == [T1] and buffer.spans == 4
    buffer.put_back(taken)
    assert [t.trace_id for t in buffer.ready] == [T1, T2] and buffer.spans == 7


def test_everything_closes_at_a_stop() -> None:
    buffer = TraceBuffer(root_grace_s=2.0, idle_s=30.0)
    buffer.add(_piece(T1), now=0.0)
    assert buffer.close_due(now=0.0, everything=True) == 1 and buffer.open_count == 0


@settings(max_examples=300, deadline=None)
@given(st.integers(1, (1 << 128) - 1), st.sampled_from([0.0, 0.001, 0.1, 0.5, 0.9, 1.0]))
def test_sampling_decides_as_the_sdks_trace_id_ratio_sampler(trace: int, rate: float) -> None:
    sdk = TraceIdRatioBased(rate).should_sample(None, trace, "span").decision
    assert sampled(f"{trace:032x}", rate) == (sdk is Decision.RECORD_AND_SAMPLE)


def test_the_spool_replays_what_no_saved_batch_holds(tmp_path: Path, otlp: Any) -> None:
    spool = Spool(tmp_path, fsync=False)
    body = otlp.request(
        otlp.tool_trace(T1, [("a", {}, None)]) + otlp.tool_trace(T2, [("b", {}, None)])
    )
    pieces = list(decode_body(body, PROTOBUF, None, 1 << 20).pieces.values())
    spool.append(pieces)
    spool.begin_batch("prod.1", [T1])  # T1's batch is saved; T2's is not
    spool.close()
    with open(tmp_path / "wal.jsonl", "ab") as wal:
        wal.write(b'{"t": "torn')  # a crash in the middle of a write
    again, torn = Spool(tmp_path, fsync=False).replay(lambda name: name == "prod.1")
    assert torn == 1 and [p.trace_id for p in again] == [T2]
    assert again[0].data == pieces[1].data and again[0].spans == 2 and again[0].root
    none_saved, _ = Spool(tmp_path, fsync=False).replay(lambda name: False)
    assert [p.trace_id for p in none_saved] == [T1, T2]


def test_a_rewrite_keeps_exactly_what_is_held(tmp_path: Path) -> None:
    spool = Spool(tmp_path, fsync=False)
    buffer = TraceBuffer(root_grace_s=1.0, idle_s=5.0)
    for piece in (_piece(T1, 2, root=True), _piece(T2, 1), _piece(T2, 4)):
        spool.append([piece])
        buffer.add(piece, now=0.0)
    buffer.close_due(now=1.0)
    buffer.take_ready(1)  # T1 saved
    spool.begin_batch("b", [T1])
    spool.rewrite(buffer.held())
    again, torn = Spool(tmp_path, fsync=False).replay(lambda name: True)
    assert torn == 0 and [(p.trace_id, p.spans) for p in again] == [(T2, 5), (T2, 0)]
    assert (tmp_path / "ledger.jsonl").read_bytes() == b""


def test_each_trace_goes_to_the_reader_its_spans_call_for(tmp_path: Path) -> None:
    from pathgrade.collect.batches import write_batch
    from pathgrade.collect.buffer import Trace

    def line(key: str) -> dict[str, Any]:
        attribute = {"key": key, "value": {"stringValue": "TOOL"}}
        span = {"traceId": T1, "spanId": "00000000000000aa", "attributes": [attribute]}
        return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}

    traces = [
        Trace(T1, [line("openinference.span.kind")]),
        Trace(T2, [line("gen_ai.operation.name"), line("gen_ai.tool.name")]),
    ]
    files = dict(write_batch(traces, tmp_path, "b"))
    assert sorted(files) == ["openinference", "otel-genai"]
    assert len(files["openinference"].read_bytes().splitlines()) == 1
    assert len(files["otel-genai"].read_bytes().splitlines()) == 2
