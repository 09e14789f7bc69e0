"""benchmarks/ab.py's own logic: process order, ratio, the gate's one re-run, the table, and
the one-line skip for a base commit the clone lacks (no timing is asserted anywhere)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _module(name: str):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ab = _module("ab")
ab_table = _module("ab_table")


def test_processes_alternate_base_head_head_base() -> None:
    assert ab.alternate(1) == ["base", "head"]
    assert ab.alternate(3) == ["base", "head", "head", "base", "base", "head"]


@given(st.integers(1, 20))
def test_every_side_runs_rounds_processes_and_neither_always_first(rounds: int) -> None:
    order = ab.alternate(rounds)
    assert order.count("base") == order.count("head") == rounds
    firsts = [order[2 * r] for r in range(rounds)]
    assert ("head" in firsts) == (rounds > 1)


def _samples(base: list[float], head: list[float]) -> dict[str, list[object]]:
    return {
        "base": [ab.Sample(c, c, 0) for c in base],
        "head": [ab.Sample(c, c, 0) for c in head],
    }


def test_ratio_is_best_base_over_best_head() -> None:
    assert ab.ratio(_samples([2.0, 1.0], [0.5, 4.0])) == 2.0  # 1.0 / 0.5


def test_gate_re_runs_once_and_fails_only_when_below_again() -> None:
    calls: dict[str, int] = {}
    figures = {
        "slow-twice": [_samples([1.0], [2.0]), _samples([1.0], [2.0])],  # 0.5, then 0.5
        "slow-once": [_samples([1.0], [2.0]), _samples([1.0], [1.0])],  # 0.5, then 1.0
        "fine": [_samples([1.0], [1.0])],
    }

    def run(name: str) -> dict[str, list[object]]:
        calls[name] = calls.get(name, 0) + 1
        return figures[name][calls[name] - 1]

    kept, rerun, failed = ab.gate(list(figures), run, 0.8)
    assert calls == {"slow-twice": 2, "slow-once": 2, "fine": 1}
    assert rerun == ["slow-twice", "slow-once"] and failed == ["slow-twice"]
    assert ab.ratio(kept["slow-once"]) == 1.0  # the re-run's figures are the ones shown


def test_no_gate_means_no_re_run() -> None:
    kept, rerun, failed = ab.gate(["x"], lambda name: _samples([1.0], [10.0]), None)
    assert rerun == [] and failed == [] and ab.ratio(kept["x"]) == pytest.approx(0.1)


def test_the_table_shows_every_figure_whole() -> None:
    rows = [
        ab_table.Row("per-case", "runs", 50_000, _samples([0.75, 0.8], [0.5, 0.6])),
        ab_table.Row("help", "", 1, _samples([0.2], [0.1])),
    ]
    text = ab_table.render(
        base="e07a24d x",
        head="abc1234",
        rows=rows,
        load=((1.5, 1.0, 0.5), (2.0, 1.0, 0.5)),
        settings="size ci",
        rerun=[],
        failed=["help"],
        fail_below=0.8,
    )
    assert re.search(
        r"per-case\s+50,000 runs\s+750\.0 ms\s+500\.0 ms\s+1\.50x\s+100,000 runs/s", text
    )
    assert "load average 1.50 1.00 0.50 before, 2.00 1.00 0.50 after" in text
    assert "FAILED: below 0.8 after a re-run: help" in text
    assert ab_table.as_json(rows)[0]["ratio"] == 1.5


def test_a_base_the_clone_lacks_is_skipped_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert ab.main(["0" * 40, "--size", "ci"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("ab: SKIPPED: base commit")


def test_every_benchmark_the_issue_names_is_there() -> None:
    assert set(ab.BENCHMARKS) == {
        "catalogue", "per-case", "long", "long-partial", "long-none", "loading",
        "score-out", "trec", "help", "compare",
    }  # fmt: skip
