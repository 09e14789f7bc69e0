"""Throughput and peak memory of ``pathgrade collect`` fed by the real OTLP/HTTP exporter.

Spans are made with the OpenTelemetry SDK (a toy agent's conversations: an ``invoke_agent``
root and ``execute_tool`` children, GenAI conventions) into memory first, then sent with the
SDK's ``OTLPSpanExporter`` (protobuf over HTTP, batches of 512 spans: the
``BatchSpanProcessor`` default) from ``--senders`` threads, as fast as answers come. Timed:
from the first request to the last acknowledgement (spans/s acknowledged: on disk in the
spool, ``fsync``-ed), and then the stop, which makes every trace a run, scores and saves it.

The peer in the same run is a sink that reads each body and answers 200 at once (the same
``http.server`` stack, nothing decoded or kept): the ceiling of one exporter against this
machine's HTTP path. Peak memory is the summed peak resident set (``VmHWM``) of the
collector process and its worker, read every 0.2 s until the stop. Runs with the exporter
versions installed (printed).

Run: ``python benchmarks/bench_collect.py [--spans 100000] [--senders 2]``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "production"))
import toy_agent  # noqa: E402  (the example, found through the path above)

SINK = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200); self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0"); self.end_headers()
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def made_spans(count: int) -> list[Any]:
    """About ``count`` finished SDK spans of toy-agent conversations."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("bench")
    spans = 0
    for name, case_id in toy_agent.scripts(count):
        toy_agent.conversation(tracer, name, case_id)
        spans += len(toy_agent.SCRIPTS[name]) + 1
        if spans >= count:
            break
    return list(memory.get_finished_spans())


def _wait_up(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        try:
            httpx.get(f"http://127.0.0.1:{port}/stats", timeout=1)
            return
        except httpx.TransportError:
            if process.poll() is not None:
                raise SystemExit("the server did not start") from None
            time.sleep(0.1)


def send(spans: list[Any], port: int, senders: int, batch: int = 512) -> float:
    """Seconds to export every batch from ``senders`` threads; every answer must be 200."""
    batches = [spans[k : k + batch] for k in range(0, len(spans), batch)]
    failures: list[str] = []

    def work(mine: list[list[Any]]) -> None:
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")
        for item in mine:
            if exporter.export(item).name != "SUCCESS":
                failures.append("export failed")
        exporter.shutdown()

    threads = [threading.Thread(target=work, args=(batches[k::senders],)) for k in range(senders)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.perf_counter() - start
    if failures:
        raise SystemExit(f"{len(failures)} batches were not accepted")
    return took


def _peak_kib(pids: list[int]) -> int:
    """The summed ``VmHWM`` (peak resident set) of ``pids`` and their children, in KiB."""
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        total += next((int(x.split()[1]) for x in status.splitlines() if x.startswith("VmHWM")), 0)
        total += _peak_kib([int(c) for c in children])
    return total


def run(command: list[str], port: int, spans: list[Any], senders: int) -> dict[str, float]:
    """Send every span to the server ``command`` starts, then stop it with SIGTERM."""
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    _wait_up(port, process)
    peak = [0]
    done = threading.Event()

    def watch() -> None:  # the peak of the collector and its worker, until the stop
        while not done.wait(0.2):
            peak[0] = max(peak[0], _peak_kib([process.pid]))

    watcher = threading.Thread(target=watch)
    watcher.start()
    took = send(spans, port, senders)
    stop = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    process.wait(600)
    stopped = time.perf_counter() - stop
    done.set()
    watcher.join()
    return {"seconds": took, "stop": stopped, "peak_mib": peak[0] / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--senders", type=int, default=2)
    args = parser.parse_args()
    versions = {
        p: importlib.metadata.version(p)
        for p in ("opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http")
    }
    spans = made_spans(args.spans)
    print(
        f"{len(spans):,} spans, {args.senders} sender thread(s), {versions}; load {os.getloadavg()}"
    )
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        sink = run([sys.executable, "-c", SINK, str(port)], port, spans, args.senders)
        port = _free_port()
        cli = [sys.executable, "-m", "pathgrade.cli.main", "collect", "--save", "bench"]
        cli += ["--port", str(port), "--store", str(Path(folder) / "store"), "--max-rate", "1e9"]
        ours = run(cli, port, spans, args.senders)
    for label, got in (("sink (read + 200)", sink), ("pathgrade collect", ours)):
        rate = len(spans) / got["seconds"]
        print(
            f"{label:20} {rate:10,.0f} spans/s acknowledged  ({got['seconds']:.2f} s;"
            f" stop {got['stop']:.2f} s; peak {got['peak_mib']:.0f} MiB)"
        )
    print(f"collect / sink: {sink['seconds'] / ours['seconds']:.2f}x")


if __name__ == "__main__":
    main()
