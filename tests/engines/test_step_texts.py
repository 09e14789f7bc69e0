"""The texts of explained steps are kept by the engine (one ``StepTexts`` per worker
process, across partitions), not at module level in ``metrics/``; a job that ends in this
process drops them."""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

import pathgrade.metrics
from pathgrade.engines import work
from pathgrade.engines.runner import evaluate_files
from pathgrade.io.partitions import plan_partitions
from pathgrade.metrics.trajectory.alignment_text import CallTexts, StepTexts


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    cases_path, runs_path = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    # 20 cases and runs of the same two calls: a wasted search:a in every run
    cases_path.write_text(
        "".join(
            json.dumps({"case_id": f"c{c}", "reference": ["search:a", "fetch:b"]}) + "\n"
            for c in range(20)
        )
    )
    runs_path.write_text(
        "".join(
            json.dumps({"case_id": f"c{c}", "steps": ["search:a", "search:a", "fetch:b"]}) + "\n"
            for c in range(20)
        )
    )
    return cases_path, runs_path


def test_a_worker_formats_each_pooled_step_once_across_partitions(tmp_path: Path) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    partitions = plan_partitions(runs_path, 10)
    work.release_job_state()
    first = work.run_task(work.ScoreTask(str(cases_path), partitions[0]))
    kept = dict(work._TEXTS._entries)
    assert len(kept) == 2  # search:a and fetch:b, one pooled object each
    second = work.run_task(work.ScoreTask(str(cases_path), partitions[1]))
    assert work._TEXTS._entries == kept  # the second partition found them all
    assert b"search:a repeats an earlier call" in first.records
    explained = [
        [(r["defects"], r["alignment"]) for r in map(json.loads, part.records.splitlines())]
        for part in (first, second)
    ]
    assert explained[0] == explained[1]  # each run of either partition is the same run
    work.release_job_state()
    assert len(work._TEXTS) == 0


def test_a_job_scored_in_this_process_leaves_no_step_texts(tmp_path: Path) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    evaluate_files(cases_path, runs_path, partition_size=10)
    assert len(work._TEXTS) == 0


def test_no_module_of_metrics_keeps_step_texts() -> None:
    held = []
    for info in pkgutil.walk_packages(pathgrade.metrics.__path__, "pathgrade.metrics."):
        module = importlib.import_module(info.name)
        held += [
            f"{info.name}.{name}"
            for name, value in vars(module).items()
            if isinstance(value, StepTexts | CallTexts)
        ]
    assert held == []
