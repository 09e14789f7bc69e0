"""``score --out``: an interrupted score (Ctrl-C, a killed worker, a bad record) never leaves
a partial file under the target name; what was computed is kept as ``<out>.partial``."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import stat
import threading
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pathgrade.api.scoring as partitioned  # the module that calls evaluate_files
from pathgrade.cli.main import main
from pathgrade.core.errors import InputError
from pathgrade.engines.runner import evaluate_files
from pathgrade.engines.work import PartitionOutput, ScoreTask, run_task
from pathgrade.io.results import read_results
from pathgrade.io.results.staged import StagedOutput

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"  # 8 runs
CONFIG = ROOT / "examples" / "pathgrade.toml"


def _partitioned(out: Path, *extra: str) -> list[str]:
    args = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--out", str(out)]
    return [*args, "--partition-size", "2", *extra]  # 4 partitions of 2 runs


def _fail_after(monkeypatch: pytest.MonkeyPatch, chunks: int, error: BaseException) -> None:
    """Let ``chunks`` partitions reach the sink, then raise ``error`` (Ctrl-C, a dead worker)."""

    def evaluate(*args: Any, sink: Callable[[bytes], object], **kwargs: Any) -> Any:
        seen = 0

        def failing_sink(chunk: bytes) -> None:
            nonlocal seen
            if seen == chunks:
                raise error
            seen += 1
            sink(chunk)

        return evaluate_files(*args, sink=failing_sink, **kwargs)

    monkeypatch.setattr(partitioned, "evaluate_files", evaluate)


def _complete(tmp_path: Path) -> tuple[Path, bytes]:
    out = tmp_path / "results.jsonl"
    assert main(_partitioned(out)) == 0
    return out, out.read_bytes()


def test_ctrl_c_keeps_the_computed_results_as_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, complete = _complete(tmp_path)
    capsys.readouterr()
    _fail_after(monkeypatch, 2, KeyboardInterrupt())
    assert main(_partitioned(out)) != 0
    err = capsys.readouterr().err
    assert out.read_bytes() == complete  # the previous complete file, untouched
    partial = tmp_path / "results.jsonl.partial"
    kept = read_results(partial)
    # 2 partitions of 2 runs reached the sink before Ctrl-C: 4 records, the first 4 runs
    assert [r["run_id"] for r in kept] == [r["run_id"] for r in read_results(out)][:4]
    assert "interrupted" in err and "4 computed result(s)" in err and str(partial) in err
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_killed_worker_leaves_no_out_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    _fail_after(monkeypatch, 1, BrokenProcessPool("a worker died"))
    with pytest.raises(BrokenProcessPool):
        main(_partitioned(out, "--workers", "2"))
    assert not out.exists()
    assert len(read_results(tmp_path / "results.jsonl.partial")) == 2
    assert "scoring failed: 2 computed result(s)" in capsys.readouterr().err


def _killed_on_the_third_partition(task: ScoreTask) -> PartitionOutput:
    if task.partition.index == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # the worker process dies mid-job
    return run_task(task)


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="needs fork")
def test_a_worker_killed_by_sigkill_leaves_no_out_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, complete = _complete(tmp_path)
    monkeypatch.setattr("pathgrade.engines.local.run_task", _killed_on_the_third_partition)
    with pytest.raises(BrokenProcessPool):
        main(_partitioned(out, "--workers", "2"))
    assert out.read_bytes() == complete
    partial = tmp_path / "results.jsonl.partial"
    kept = read_results(partial) if partial.exists() else []  # 0 to 4 records: a race
    assert len(kept) <= 4 and kept == read_results(out)[: len(kept)]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_an_input_error_says_where_the_results_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    _fail_after(monkeypatch, 3, InputError("bad record", file="runs.jsonl", line=7))
    assert main(_partitioned(out)) == 2
    err = capsys.readouterr().err.strip()
    assert not out.exists()
    assert err.count("\n") == 0 and "runs.jsonl:7" in err
    assert "6 computed result(s) kept in" in err and "results.jsonl.partial" in err


def test_nothing_computed_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    _fail_after(monkeypatch, 0, KeyboardInterrupt())
    assert main(_partitioned(out)) != 0
    assert "no result was written" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_in_memory_out_interrupted_while_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    args = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--out", str(out)]
    assert main(args) == 0
    complete = out.read_bytes()
    capsys.readouterr()
    original = StagedOutput.write

    def write(self: StagedOutput, chunk: bytes) -> None:
        lines = chunk.splitlines(keepends=True)
        original(self, b"".join(lines[:3]))  # three records land, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(StagedOutput, "write", write)
    assert main(args) != 0
    assert out.read_bytes() == complete
    assert len(read_results(tmp_path / "results.jsonl.partial")) == 3
    assert "3 computed result(s)" in capsys.readouterr().err


@pytest.mark.parametrize("partition", [False, True])
@pytest.mark.parametrize("where", ["missing/results.jsonl", "folder"])
def test_a_bad_out_fails_before_scoring(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    where: str,
    partition: bool,
) -> None:
    (tmp_path / "folder").mkdir()

    def no_scoring(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored before checking --out")

    monkeypatch.setattr("pathgrade.cli.score.score", no_scoring)
    monkeypatch.setattr(partitioned, "evaluate_files", no_scoring)
    args = ["score", str(CASES), str(RUNS), "--out", str(tmp_path / where)]
    assert main(args + (["--partition-size", "2"] if partition else [])) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--out" in err
    assert ("is a folder" if where == "folder" else "does not exist") in err


def test_temp_names_are_unique_per_writer(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    writers = [StagedOutput(out) for _ in range(50)]
    assert len({w.tmp for w in writers}) == 50
    assert all(w.tmp.parent == tmp_path and w.tmp.name.startswith(".") for w in writers)
    for i, writer in enumerate(writers):
        writer.write(json.dumps({"i": i}).encode() + b"\n")
    writers[-1].commit()
    for writer in writers[:-1]:
        writer.abandon()
    assert json.loads(out.read_text()) == {"i": 49}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl", "results.jsonl.partial"]


@settings(max_examples=100, deadline=None)
@given(
    chunks=st.lists(st.integers(min_value=0, max_value=5), min_size=0, max_size=8),
    stop=st.integers(min_value=0, max_value=8),
)
def test_abandoned_output_keeps_exactly_what_was_written(
    tmp_path_factory: pytest.TempPathFactory, chunks: list[int], stop: int
) -> None:
    folder = tmp_path_factory.mktemp("staged")
    out = folder / "r.jsonl"
    output = StagedOutput(out)
    lines = [b"%d\n" % i for i in range(sum(chunks))]
    written, at = 0, 0
    for size in chunks[:stop]:
        output.write(b"".join(lines[at : at + size]))
        written, at = written + size, at + size
    kept = output.abandon()
    assert not out.exists()
    if written == 0:
        assert kept is None and list(folder.iterdir()) == []
    else:
        assert kept == folder / "r.jsonl.partial"
        assert kept.read_bytes() == b"".join(lines[:written])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("partition", [False, True])
def test_a_stream_target_is_written_in_place(tmp_path: Path, partition: bool) -> None:
    """``--out /dev/stdout`` or a named pipe is a stream: written directly, never replaced."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    args = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--out", str(fifo)]
    assert main(args + (["--partition-size", "2"] if partition else [])) == 0
    reader.join(timeout=60)
    assert len(received[0].splitlines()) == 8  # every run of examples/runs.jsonl
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
