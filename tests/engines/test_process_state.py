"""Library calls leave the caller's process as they found it (issue 18, item 6).

The garbage collector stays enabled, with its thresholds, during and after every public call
unless the caller asks for a pause (``gc_pause=True``, which the ``pathgrade`` command does);
glibc's heap settings (``mallopt``) change only in worker processes pathgrade starts. The
state during a call is seen from callbacks that run inside it: a plug-in argument matcher, a
progress callback, a step pool's ``prepare``, a retrieved list's ``__iter__``.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.cli.main import main
from pathgrade.core.gc_pause import paused_gc
from pathgrade.engines import local, runner, work
from pathgrade.engines.runner import evaluate_files
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.step_pool import StepPool
from pathgrade.metrics.retrieval import score_runs
from pathgrade.plugins import register_argument_matcher, unregister_argument_matcher

MATCHER = "process_state_probe"
CONFIG = {"matching": {"tools": {"s": {"fields": {"q": {"mode": MATCHER}}}}}}
SEEN: list[bool] = []  # gc.isenabled() as seen inside the call


def _probe(reference: Any, agent: Any) -> bool:
    SEEN.append(gc.isenabled())
    return bool(reference == agent)


@pytest.fixture
def probe() -> Iterator[list[bool]]:
    """The matcher ``process_state_probe`` records the GC state each time it runs."""
    SEEN.clear()
    register_argument_matcher(MATCHER, _probe)
    threshold = gc.get_threshold()
    try:
        yield SEEN
    finally:
        unregister_argument_matcher(MATCHER)
        SEEN.clear()
    assert gc.isenabled()  # after the call
    assert gc.get_threshold() == threshold


def _inputs(tmp_path: Path, n_runs: int = 6) -> tuple[Path, Path]:
    step = {"tool": "s", "arguments": {"q": "mars"}}
    cases = [{"case_id": "c", "reference": [step], "gold_evidence": ["d1"]}]
    runs = [
        {"case_id": "c", "run_id": f"r{i}", "steps": [step], "retrieved": ["d1", "d2"]}
        for i in range(n_runs)
    ]
    cases_path, runs_path = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    cases_path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    runs_path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    return cases_path, runs_path


def _one() -> tuple[list[Case], list[Run]]:
    step = {"tool": "s", "arguments": {"q": "mars"}}
    case = Case.model_validate({"case_id": "c", "reference": [step]})
    return [case], [Run.model_validate({"case_id": "c", "steps": [step]})]


class _RecordingPool(StepPool):
    """A step pool that records the GC state each time a record is prepared."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[bool] = []

    def prepare(self, value: Any, model: Any) -> Any:
        self.seen.append(gc.isenabled())
        return super().prepare(value, model)


class _Retrieved:
    """A retrieved list (not a tuple: scored one run at a time) that records the GC state."""

    def __init__(self, ids: list[str], seen: list[bool]) -> None:
        self.ids, self.seen = ids, seen

    def __iter__(self) -> Iterator[str]:
        self.seen.append(gc.isenabled())
        return iter(self.ids)


def test_score_leaves_the_collector_running(probe: list[bool]) -> None:
    cases, runs = _one()
    progress: list[bool] = []
    score(
        cases,
        runs,
        ScoringConfig.model_validate(CONFIG),
        progress=lambda *_: progress.append(gc.isenabled()),
    )
    assert probe and all(probe)
    assert progress and all(progress)


def test_score_pauses_the_collector_when_asked(probe: list[bool]) -> None:
    cases, runs = _one()
    score(cases, runs, ScoringConfig.model_validate(CONFIG), gc_pause=True)
    assert probe and not any(probe)


def test_loaders_leave_the_collector_running(tmp_path: Path) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    threshold = gc.get_threshold()
    pool = _RecordingPool()
    by_id = {c.case_id: c for c in load_cases(cases_path, pool=pool).items}
    load_runs(runs_path, by_id, pool=pool)
    assert len(pool.seen) == 7 and all(pool.seen)  # 1 case + 6 runs
    assert gc.isenabled() and gc.get_threshold() == threshold
    asked = _RecordingPool()
    load_cases(cases_path, pool=asked, gc_pause=True)
    load_runs(runs_path, by_id, pool=asked, gc_pause=True)
    assert len(asked.seen) == 7 and not any(asked.seen)
    assert gc.isenabled() and gc.get_threshold() == threshold


def test_a_disabled_collector_stays_disabled_after_a_pause() -> None:
    gc.disable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with paused_gc(False):
        assert gc.isenabled()


def test_score_runs_leaves_the_collector_running() -> None:
    threshold = gc.get_threshold()
    seen: list[bool] = []
    result = score_runs([_Retrieved(["a", "b"], seen)], [["a"]], ["precision@1"])
    assert result.values["precision@1"][0] == 1.0
    assert seen and all(seen)
    assert gc.isenabled() and gc.get_threshold() == threshold


def test_partitioned_in_process_leaves_the_collector_running(
    tmp_path: Path, probe: list[bool]
) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    config = ScoringConfig.model_validate(CONFIG)
    # 6 matcher calls while scoring, and 6 more where the records' per-field details
    # (metrics/trajectory/field_details.py) are made: every one sees the collector as asked
    evaluate_files(cases_path, runs_path, config, partition_size=2)
    assert len(probe) == 12 and all(probe)
    probe.clear()
    evaluate_files(cases_path, runs_path, config, partition_size=2, gc_pause=True)
    assert len(probe) == 12 and not any(probe)


def test_the_score_command_pauses_the_collector(tmp_path: Path, probe: list[bool]) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    config = tmp_path / "pathgrade.toml"
    config.write_text(f'[matching.tools.s.fields.q]\nmode = "{MATCHER}"\n')
    for extra in ([], ["--partition-size", "2"]):
        probe.clear()
        args = ["score", str(cases_path), str(runs_path), "--config", str(config), "--json"]
        assert main([*args, *extra]) == 0
        # the 6 calls of scoring see the collector paused; the 6 of the records' field
        # details come after, while the records are written
        assert len(probe) == 12 and not any(probe[:6]), (extra, probe)


def test_pathgrade_workers_pause_the_collector_and_keep_their_heap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tasks for a process pool or a LocalCluster pause the GC; for this process or an
    existing cluster, only when asked. The pool's workers start with ``init_worker``."""
    cases_path, runs_path = _inputs(tmp_path)
    seen: list[tuple[str, bool]] = []

    def in_process(engine: str) -> Any:
        def fake(tasks: Any, *_: Any) -> Iterator[work.PartitionOutput]:
            for task in tasks:
                seen.append((engine, task.gc_pause))
                yield work.run_task(task)

        return fake

    monkeypatch.setattr(runner, "map_local", in_process("local"))
    monkeypatch.setattr(runner, "map_dask", in_process("dask"))
    options: list[dict[str, Any]] = [
        {"workers": 1},
        {"workers": 2},
        {"engine": "dask", "workers": 2},
        {"engine": "dask", "scheduler": "tcp://127.0.0.1:1"},
        {"engine": "dask", "scheduler": "tcp://127.0.0.1:1", "gc_pause": True},
    ]
    for option in options:
        seen.clear()
        evaluate_files(cases_path, runs_path, partition_size=3, **option)
        assert len(seen) == 2
        assert {pause for _, pause in seen} == {option != options[0] and option != options[3]}

    made: list[Any] = []

    class Pool:
        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs.get("initializer"))
            raise RuntimeError("stop here")

    monkeypatch.setattr(local, "ProcessPoolExecutor", Pool)
    with pytest.raises(RuntimeError, match="stop here"):
        list(local.map_local(iter(()), workers=2))
    assert made == [work.init_worker]


# In a fresh interpreter: every access to a C library's ``mallopt`` through ctypes is
# recorded with the process id, then every public entry point runs in this process.
MALLOPT_CHILD = """
import ctypes, json, os, sys
calls = []
class Recording(ctypes.CDLL):
    def __getattr__(self, name):
        if name == "mallopt":
            calls.append(os.getpid())
        return super().__getattr__(name)
ctypes.CDLL = Recording
from pathgrade import score
from pathgrade.engines.runner import evaluate_files
from pathgrade.io.cases import load_cases, load_runs
cases_path, runs_path, mode = sys.argv[1:]
if mode == "library":
    by_id = {c.case_id: c for c in load_cases(cases_path).items}
    runs = load_runs(runs_path, by_id).items
    score(by_id, runs)
    evaluate_files(cases_path, runs_path, partition_size=2)
    evaluate_files(cases_path, runs_path, partition_size=2, gc_pause=True)
    evaluate_files(cases_path, runs_path, partition_size=2, workers=2)
else:
    from pathgrade.engines.work import init_worker
    init_worker()
print(json.dumps({"calls": calls, "pid": os.getpid()}))
"""


def _mallopt_calls(tmp_path: Path, mode: str) -> dict[str, Any]:
    cases_path, runs_path = _inputs(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", MALLOPT_CHILD, str(cases_path), str(runs_path), mode],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, Any] = json.loads(out.splitlines()[-1])
    return result


def test_library_calls_never_call_mallopt_in_the_callers_process(tmp_path: Path) -> None:
    assert _mallopt_calls(tmp_path, "library")["calls"] == []


def test_a_worker_set_up_by_pathgrade_calls_mallopt(tmp_path: Path) -> None:
    # The probe itself works: init_worker (the pool's initializer) reaches mallopt.
    found = _mallopt_calls(tmp_path, "worker")
    assert found["calls"] == [found["pid"]]
