"""Inputs of the A/B benchmarks (``benchmarks/ab.py``), written once and read by both trees.

Every generator is deterministic for its size and writes plain JSON lines that every pathgrade
version since the baseline reads (fields with their defaults left out), so the base and the
head score exactly the same bytes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_growth  # a sibling script
import bench_scale
import bench_trajectory
import bench_trec_files


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    with path.open("wb") as out:
        for record in records:
            out.write(orjson.dumps(record) + b"\n")


def _dumped(items: list[Any]) -> list[dict[str, Any]]:
    return [item.model_dump(exclude_defaults=True, mode="json") for item in items]


def trajectory(directory: Path, runs: int, calls: str) -> None:
    """``bench_trajectory.py``'s data: about 10 steps a run, 2 references a case, 4 runs a
    case; ``calls`` is ``"catalogue"`` (ids shared by all cases) or ``"per-case"``."""
    cases, made = bench_trajectory.make_data(runs, calls=calls)
    _write(directory / "cases.jsonl", _dumped(cases))
    _write(directory / "runs.jsonl", _dumped(made))


def long_paths(directory: Path, runs: int, order: str = "total") -> None:
    """``bench_growth.py``'s data at 200 steps and 2 references. ``order = "partial"``: every
    other reference step is after the one before it (the docs' figure); ``"none"``: no order."""
    cases, made = bench_growth.make_data(runs, 200, 2)
    dumped = _dumped(cases)
    if order != "total":
        for case in dumped:
            case["order"] = order
            if order == "partial":
                for path in (case["reference"], *case.get("references", [])):
                    for i, step in enumerate(path):
                        step["id"] = f"s{i}"
                        if i % 2:
                            step["after"] = [f"s{i - 1}"]
    _write(directory / "cases.jsonl", dumped)
    _write(directory / "runs.jsonl", _dumped(made))


def scale(directory: Path, runs: int) -> None:
    """``bench_scale.py``'s data (10 steps, 2 references, retrieval labels) as JSONL."""
    cases, runs_path, parquet = bench_scale.generate(directory, runs)
    parquet.unlink()
    assert cases.name == "cases.jsonl" and runs_path.name == "runs.jsonl"


def compare_pair(directory: Path, cases: int) -> None:
    """``cases`` cases of 4 trials, as two sets of runs: ``base.jsonl``, and ``variant.jsonl``
    in which every third run follows its case's reference exactly (a real difference)."""
    made_cases, made_runs = bench_trajectory.make_data(cases * 4)
    dumped_cases = _dumped(made_cases)
    reference = {case["case_id"]: case["reference"] for case in dumped_cases}
    base = _dumped(made_runs)
    variant = [
        {**run, "steps": reference[run["case_id"]]} if i % 3 == 0 else run
        for i, run in enumerate(base)
    ]
    _write(directory / "cases.jsonl", dumped_cases)
    _write(directory / "base.jsonl", base)
    _write(directory / "variant.jsonl", variant)


def trec(directory: Path, queries: int) -> None:
    """``bench_trec_files.py``'s qrels and run: ``queries`` queries of 100 results."""
    bench_trec_files.generate(directory, queries, 100)


def config(directory: Path, text: str) -> None:
    """A ``pathgrade.toml`` beside the data (read by ``ab_work.py``)."""
    (directory / "pathgrade.toml").write_text(text, encoding="utf-8")


def describe(directory: Path) -> dict[str, int]:
    """Line counts of the files written, for the table's size column."""
    return {
        path.name: sum(1 for _ in path.open("rb"))
        for path in sorted(directory.iterdir())
        if path.suffix in (".jsonl", ".txt")
    }


if __name__ == "__main__":  # a quick look: python ab_data.py DIR
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    trajectory(target, 100, "per-case")
    print(json.dumps(describe(target)))
