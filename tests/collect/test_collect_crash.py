"""``pathgrade collect`` as a process: killed with SIGKILL while it holds and saves traces,
it loses nothing it acknowledged and writes nothing twice or half; SIGTERM saves and exits 0."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq

from pathgrade.store.runs import RunStore

PROTOBUF = {"Content-Type": "application/x-protobuf"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(store: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "pathgrade.cli.main", "collect", "--save", "prod"]
    command += ["--port", str(port), "--store", str(store), *extra]
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/stats", timeout=1)
            return process
        except httpx.TransportError:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.1)
    process.kill()
    raise AssertionError("the collector did not start")


def _trace(k: int) -> str:
    return f"{k + 1:032x}"


def _run_ids(store: Path) -> list[str]:
    ids: list[str] = []
    for path in sorted(store.glob("*.parquet")):
        ids.extend(pq.read_table(path, columns=["run_id"]).column("run_id").to_pylist())
    return ids


def test_a_kill_9_loses_no_acknowledged_trace_and_saves_none_twice(
    tmp_path: Path, otlp: Any
) -> None:
    store, port = tmp_path / "store", _free_port()
    process = _start(store, port, "--flush", "0.2")
    acknowledged: list[str] = []
    with httpx.Client() as client:
        for k in range(30):  # batches are being saved while requests arrive
            traces = [_trace(2 * k), _trace(2 * k + 1)]
            specs = [s for t in traces for s in otlp.tool_trace(t, [("lookup", {"k": k}, None)])]
            answer = client.post(
                f"http://127.0.0.1:{port}/v1/traces", content=otlp.request(specs), headers=PROTOBUF
            )
            assert answer.status_code == 200
            acknowledged.extend(traces)
            time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    assert all(entry.problem is None for entry in RunStore(store).scan())  # nothing half-written
    again = _start(store, _free_port(), "--duration", "0.5")
    assert again.wait(60) == 0
    ids = _run_ids(store)
    assert sorted(ids) == sorted(acknowledged)  # every acknowledged trace, each once


def test_sigterm_saves_what_it_holds_and_exits_0(tmp_path: Path, otlp: Any) -> None:
    store, port = tmp_path / "store", _free_port()
    process = _start(store, port, "--flush", "600", "--idle", "600")
    body = otlp.request(otlp.tool_trace(_trace(7), [("lookup", {}, None)]))
    assert (
        httpx.post(f"http://127.0.0.1:{port}/v1/traces", content=body, headers=PROTOBUF).status_code
        == 200
    )
    process.send_signal(signal.SIGTERM)
    assert process.wait(60) == 0
    assert _run_ids(store) == [_trace(7)]
    assert b"1 run(s) saved" in (process.stderr.read() if process.stderr else b"")


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "pathgrade.cli.main", "collect", "--save", "prod"]
        done = subprocess.run(
            [*command, "--port", str(port), "--store", str(tmp_path)],
            capture_output=True,
            timeout=60,
        )
    assert done.returncode == 2
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "cannot listen" in lines[0] and "Traceback" not in lines[0]


def test_a_bad_setting_is_one_line_naming_its_option(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pathgrade.cli.main", "collect", "--save", "prod"]
    done = subprocess.run(
        [*command, "--sample", "2", "--store", str(tmp_path)], capture_output=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.decode().strip() == (
        "pathgrade: error: field '--sample': must be within [0, 1], got 2.0"
    )
