"""The partitioned summary's ``system`` entry equals the in-memory one (unknown costs too)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pathgrade import Case, Run, score
from pathgrade.api.scoring import summarize, summary_options
from pathgrade.core.config import Price, ScoringConfig
from pathgrade.engines.runner import evaluate_files
from pathgrade.engines.usage_parts import UsageParts
from pathgrade.stats.usage_summary import IntervalOptions

PRICES = {"m": Price(input_per_mtok=2.5, output_per_mtok=10.0)}


def _write(tmp_path: Path, runs: list[dict[str, Any]], n_cases: int) -> tuple[Path, Path]:
    cases = [{"case_id": f"c{c}", "reference": ["search", "refund"]} for c in range(n_cases)]
    cases_path, runs_path = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    cases_path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    runs_path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    return cases_path, runs_path


def _in_memory(cases_path: Path, runs_path: Path, config: ScoringConfig) -> Any:
    cases = [Case.model_validate_json(line) for line in cases_path.read_text().splitlines()]
    runs = [Run.model_validate_json(line) for line in runs_path.read_text().splitlines()]
    return score(cases, runs, config)


def _random_runs(seed: int, n: int = 60) -> list[dict[str, Any]]:
    """Runs of 7 cases: the first 9 record nothing (a partition without the layer), then a
    mix of recorded latency, step latencies, token splits, totals, costs and models with and
    without a price."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for r in range(n):
        run: dict[str, Any] = {"case_id": f"c{r % 7}", "run_id": f"r{r}", "trial": r // 7}
        run["steps"] = [{"tool": "search"}, {"tool": "refund"}]
        if r >= 9:
            kind = rng.randrange(6)
            if kind == 0:
                run["usage"] = {"latency_ms": rng.uniform(10, 5000)}
            elif kind == 1:
                run["steps"] = [
                    {"tool": "search", "latency_ms": rng.uniform(1, 900)},
                    {"tool": "refund"},
                ]
            elif kind == 2:
                run["usage"] = {"input_tokens": rng.randint(1, 5000), "output_tokens": 7}
                run["metadata"] = {"model": rng.choice(["m", "unpriced"])}
            elif kind == 3:
                run["usage"] = {"tokens": rng.randint(1, 900), "latency_ms": 3.5}
                run["metadata"] = {"model": "m"}  # no split, prices differ: unknown
            elif kind == 4:
                run["usage"] = {"cost": rng.uniform(0, 0.2)}
        out.append(run)
    return out


@pytest.mark.parametrize(("seed", "size"), [(1, 9), (2, 4), (3, 60), (4, 1)])
def test_partitioned_system_summary_is_the_in_memory_one(
    tmp_path: Path, seed: int, size: int
) -> None:
    cases_path, runs_path = _write(tmp_path, _random_runs(seed), 7)
    config = ScoringConfig(prices=PRICES)
    evaluation = evaluate_files(cases_path, runs_path, config, partition_size=size)
    result = _in_memory(cases_path, runs_path, config)
    expected = result.summary()["system"]
    assert evaluation.summary["system"] == expected
    assert expected["cost"]["unknown"] > 0 and expected["cost"]["unknown_reasons"]
    # With intervals: what ``summarize`` (the command's in-memory summary) gives.
    interval = IntervalOptions(resamples=200, seed=5)
    assert evaluation.usage is not None
    in_memory = summarize(result, summary_options(resamples=200, seed=5))["system"]
    assert evaluation.usage.system(interval) == in_memory


def test_hand_computed_partitions_of_one_run(tmp_path: Path) -> None:
    runs = [
        # priced: (1000 * 2.5 + 200 * 10) / 1e6 = 0.0045 USD; latency 100 ms
        {
            "case_id": "c0",
            "steps": ["search"],
            "metadata": {"model": "m"},
            "usage": {"latency_ms": 100, "input_tokens": 1000, "output_tokens": 200},
        },
        {"case_id": "c1", "steps": ["search"]},  # nothing recorded: cost no_tokens
        # tokens 50 of a model without a price: cost unknown_model; latency 300 ms
        {
            "case_id": "c1",
            "steps": ["search"],
            "metadata": {"model": "x"},
            "usage": {"tokens": 50, "latency_ms": 300},
        },
    ]
    cases_path, runs_path = _write(tmp_path, runs, 2)
    evaluation = evaluate_files(
        cases_path, runs_path, ScoringConfig(prices=PRICES), partition_size=1
    )
    system = evaluation.summary["system"]
    assert system["cost"]["runs"] == 1 and system["cost"]["unknown"] == 2
    assert system["cost"]["p50"] == pytest.approx(0.0045)
    assert system["cost"]["sources"] == {"priced": 1}
    assert system["cost"]["unknown_reasons"] == {"no_tokens": 1, "unknown_model": 1}
    # latency: case c0 mean 100, case c1 mean 300 (one defined run): mean of means 200;
    # p50 of [100, 300] at h = 0.5: 200
    assert system["latency_ms"]["mean"] == 200.0 and system["latency_ms"]["p50"] == 200.0
    # tokens: 1200 and 50; the unrecorded run unknown
    assert system["tokens"]["max"] == 1200.0 and system["tokens"]["unknown"] == 1


def test_nothing_recorded_gives_no_system_entry(tmp_path: Path) -> None:
    cases_path, runs_path = _write(tmp_path, [{"case_id": "c0", "steps": ["search"]}] * 3, 1)
    evaluation = evaluate_files(cases_path, runs_path, partition_size=2)
    assert "system" not in evaluation.summary
    assert evaluation.usage is not None and evaluation.usage.system() is None


def test_parts_merge_in_input_order() -> None:
    first, second = UsageParts(), UsageParts()
    first.add(np.array([0, 1]), {"latency_ms": np.array([1.0, np.nan])}, None)
    second.add(np.array([1]), {"latency_ms": np.array([5.0])}, None)
    first.absorb(second)
    columns, codes = first.columns()
    assert codes == [0, 1, 1]
    np.testing.assert_array_equal(columns["latency_ms"], [1.0, np.nan, 5.0])
    assert set(columns) == {"latency_ms"}
