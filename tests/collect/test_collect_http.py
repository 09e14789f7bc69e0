"""The collector over HTTP on a free 127.0.0.1 port: the real OTLP/HTTP exporter of the
OpenTelemetry SDK sends an instrumented toy agent's traces; faults get the right status."""

from __future__ import annotations

import importlib.util
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq
import pytest
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from pathgrade.collect import CollectConfig, Collector
from pathgrade.collect.http import CollectorServer

ROOT = Path(__file__).resolve().parents[2]
T1, T2 = "0af7651916cd43dd8448eb211c80319c", "4bf92f3577b34da6a3ce929d0e0e4736"
PROTOBUF = {"Content-Type": "application/x-protobuf"}


def _toy_agent() -> Any:
    spec = importlib.util.spec_from_file_location(
        "toy_agent", ROOT / "examples/production/toy_agent.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stored_rows(store: Path) -> list[dict[str, Any]]:
    """Every stored run's per-run rows (case id, run id, trace excerpt)."""
    rows: list[dict[str, Any]] = []
    for path in sorted(store.glob("*.parquet")):
        rows.extend(pq.read_table(path, columns=["case_id", "run_id", "trace"]).to_pylist())
    return rows


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    servers: list[CollectorServer] = []

    def start(**settings: Any) -> CollectorServer:
        settings = {"flush_s": 0.3, "root_grace_s": 0.1, "fsync": False, **settings}
        store = tmp_path / ("store" if not servers else f"store{len(servers)}")
        config = CollectConfig(name="prod", store=store, port=0, **settings)
        server = CollectorServer(Collector(config))
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        if server.collector._thread is not None and not server.collector._stop.is_set():
            server.stop()


def _url(server: CollectorServer, path: str = "/v1/traces") -> str:
    return f"http://127.0.0.1:{server.port}{path}"


def test_a_toy_agents_real_exporter_lands_as_scored_runs(serve: Any, tmp_path: Path) -> None:
    toy = _toy_agent()
    server = serve()
    provider = toy.provider(_url(server))
    tracer = provider.get_tracer("toy")
    chosen = list(toy.scripts(9))
    for name, case_id in chosen:
        toy.conversation(tracer, name, case_id)
    provider.shutdown()
    server.stop()
    rows = stored_rows(tmp_path / "store")
    assert sorted(r["case_id"] for r in rows) == sorted(case for _, case in chosen)
    by_case = {r["case_id"]: json.loads(r["trace"]) for r in rows}
    for name, case_id in chosen:
        tools = [step["tool"] for step in by_case[case_id]["steps"]]
        assert tools == [tool for tool, _, _ in toy.SCRIPTS[name]]
    assert server.collector.counters.spans == sum(len(toy.SCRIPTS[n]) + 1 for n, _ in chosen)


def test_a_bearer_token_is_required_when_set(serve: Any, otlp: Any) -> None:
    server = serve(token="s3cret")
    body = otlp.request(otlp.tool_trace(T1, [("a", {}, None)]))
    refused = httpx.post(_url(server), content=body, headers=PROTOBUF)
    assert refused.status_code == 401
    assert "bearer token" in Status.FromString(refused.content).message
    headers = {**PROTOBUF, "Authorization": "Bearer s3cret"}
    assert httpx.post(_url(server), content=body, headers=headers).status_code == 200


def test_bad_requests_get_their_status(serve: Any, otlp: Any) -> None:
    server = serve(max_body=1000)
    url = _url(server)
    assert httpx.post(url, content=b"\x01\x02", headers=PROTOBUF).status_code == 400
    assert httpx.post(url, content=b"{}", headers={"Content-Type": "text/csv"}).status_code == 415
    assert httpx.post(url, content=b"x" * 1001, headers=PROTOBUF).status_code == 413
    assert httpx.post(_url(server, "/v1/metrics"), content=b"", headers=PROTOBUF).status_code == 404
    with socket.create_connection(("127.0.0.1", server.port)) as raw:  # no Content-Length
        raw.sendall(
            b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n"
        )
        assert raw.recv(100).startswith(b"HTTP/1.1 411")
    body = otlp.request(
        [*otlp.tool_trace(T1, [("a", {}, None)]), (T2, "00aa", "", "bad", {}, None)]
    )
    answer = httpx.post(url, content=body, headers=PROTOBUF)
    partial = ExportTraceServiceResponse.FromString(answer.content).partial_success
    assert answer.status_code == 200 and partial.rejected_spans == 1 and partial.error_message
    stats = httpx.get(_url(server, "/stats")).json()
    assert stats["bad_requests"] == 3 and stats["rejected_spans"] == 1 and stats["spans"] == 2


def test_a_flood_gets_429_then_503_with_retry_after(serve: Any, otlp: Any) -> None:
    server = serve(max_spans_per_s=3, flush_s=60, root_grace_s=60, idle_s=60)
    three = otlp.request(otlp.tool_trace(T1, [("a", {}, None), ("b", {}, None)]))
    assert httpx.post(_url(server), content=three, headers=PROTOBUF).status_code == 200
    flood = httpx.post(_url(server), content=three, headers=PROTOBUF)
    assert flood.status_code == 429 and int(flood.headers["Retry-After"]) >= 1
    busy = serve(max_pending_spans=4, flush_s=60, root_grace_s=60, idle_s=60)
    assert httpx.post(_url(busy), content=three, headers=PROTOBUF).status_code == 200
    full = httpx.post(_url(busy), content=three, headers=PROTOBUF)
    assert full.status_code == 503 and full.headers["Retry-After"] == "2"
    assert busy.collector.counters.busy == 1 and busy.collector.buffer.spans == 3


def test_spans_of_a_trace_already_saved_are_counted_not_saved_again(
    serve: Any, otlp: Any, tmp_path: Path
) -> None:
    server = serve(flush_s=60)
    body = otlp.request(otlp.tool_trace(T1, [("a", {}, None)]))
    assert httpx.post(_url(server), content=body, headers=PROTOBUF).status_code == 200
    time.sleep(0.2)
    assert server.collector.flush() == 1
    late = otlp.request([(T1, "00000000000000ff", T1[:16], "execute_tool late", {}, None)])
    assert httpx.post(_url(server), content=late, headers=PROTOBUF).status_code == 200
    server.stop()
    assert server.collector.counters.late_spans == 1
    assert len(stored_rows(tmp_path / "store")) == 1


def test_a_dead_worker_is_replaced_and_its_batch_saved_later(
    serve: Any, otlp: Any, tmp_path: Path
) -> None:
    import os
    import signal
    from concurrent.futures.process import BrokenProcessPool

    server = serve(flush_s=600)
    collector = server.collector
    first = otlp.request(otlp.tool_trace(T1, [("a", {}, None)]))
    assert httpx.post(_url(server), content=first, headers=PROTOBUF).status_code == 200
    time.sleep(0.2)
    assert collector.flush() == 1  # the worker process is up
    assert collector._pool is not None
    for pid in list(collector._pool._processes):  # kill -9 the worker
        os.kill(pid, signal.SIGKILL)
    second = otlp.request(otlp.tool_trace(T2, [("b", {}, None)]))
    assert httpx.post(_url(server), content=second, headers=PROTOBUF).status_code == 200
    time.sleep(0.2)
    with pytest.raises(BrokenProcessPool):
        collector.flush()
    assert collector.buffer.spans == 2  # the batch is held again, not lost
    assert collector.flush() == 1  # a new worker saves it
    server.stop()
    assert sorted(r["run_id"] for r in stored_rows(tmp_path / "store")) == sorted([T1, T2])
