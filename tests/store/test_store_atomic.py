"""Atomic writes: a writer killed mid-write leaves the store as it was; concurrent saves land."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pathgrade.store import RunStore, save_records

WRITER = r"""
import os, sys, time
from pathlib import Path
import pyarrow.parquet as pq
from pathgrade.core.errors import InputError
from pathgrade.store import save_records

store, name, mode = sys.argv[1], sys.argv[2], sys.argv[3]
records = [
    {"case_id": f"c{i}", "run_id": None, "trial": 0, "group": None, "reference_index": 0,
     "metrics": {"path_score": float(i % 100), "goal_success": i % 2 == 0},
     "defects": [{"kind": "wasted_step", "penalty": 10.0, "detail": "x" * 50}],
     "alignment": [], "usage": {"steps": 3}}
    for i in range(3000)
]

def hang(label):
    print(label, flush=True)
    time.sleep(600)

if mode == "kill-mid-write":
    original = pq.ParquetWriter.write_table
    calls = []
    def write_table(self, table, *args, **kwargs):
        original(self, table, *args, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            hang("mid-write")
    pq.ParquetWriter.write_table = write_table
elif mode == "kill-before-publish":
    def link(src, dst, *args, **kwargs):
        hang("before-publish")
    os.link = link
elif mode == "race":
    go = Path(store) / "go"
    while not go.exists():
        time.sleep(0.005)
try:
    save_records(records, name=name, store=store)
except InputError as error:
    print("error:", error, flush=True)
    sys.exit(2)
print("saved", flush=True)
"""


def _start(store: Path, name: str, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store), name, mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _snapshot(store: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in store.iterdir() if p.is_file()}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    records = [{"case_id": "a", "metrics": {"path_score": 1.0}}]
    save_records(records, name="existing", store=tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("mode", "signal_line"),
    [
        ("kill-mid-write", "mid-write"),
        ("kill-before-publish", "before-publish"),
    ],
)
def test_killed_writer_leaves_the_store_as_it_was(store: Path, mode: str, signal_line: str) -> None:
    before = _snapshot(store)
    writer = _start(store, "victim", mode)
    assert writer.stdout is not None
    line = writer.stdout.readline().strip()
    assert line == signal_line, writer.stderr.read() if writer.stderr else line
    temps = list((store / ".tmp").iterdir())
    assert len(temps) == 1 and temps[0].stat().st_size > 0  # it really was writing
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    assert _snapshot(store) == before
    runs = RunStore(store)
    assert runs.names() == ["existing"]
    assert runs.load("existing").records[0]["case_id"] == "a"
    # the next save lands and sweeps the dead writer's temporary file
    save_records([{"case_id": "b", "metrics": {"x": 1.0}}], name="victim", store=store)
    assert runs.names() == ["existing", "victim"]
    assert list((store / ".tmp").iterdir()) == []


def test_two_processes_saving_at_once_both_land(store: Path) -> None:
    writers = [_start(store, name, "race") for name in ("left", "right")]
    time.sleep(0.3)
    (store / "go").touch()
    outputs = [w.communicate(timeout=120) for w in writers]
    assert [w.returncode for w in writers] == [0, 0], outputs
    runs = RunStore(store)
    assert runs.names() == ["existing", "left", "right"]
    assert len(runs.load("left").records) == 3000
    assert len(runs.load("right").records) == 3000


def test_same_name_at_once_exactly_one_wins(store: Path) -> None:
    writers = [_start(store, "same", "race") for _ in range(2)]
    time.sleep(0.3)
    (store / "go").touch()
    outputs = [w.communicate(timeout=120) for w in writers]
    codes = sorted(w.returncode for w in writers)
    assert codes == [0, 2], outputs
    loser = next(out for (out, _), w in zip(outputs, writers, strict=True) if w.returncode == 2)
    assert "same" in loser and ("already stored" in loser or "another process" in loser)
    assert len(RunStore(store).load("same").records) == 3000
