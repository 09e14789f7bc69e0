"""The path grammar's cost: references with ``k`` optional steps (20 at most), scored by the
engine (``pathgrade.score``) and the executable definition, in µs per run.

A reference of ``k`` optional calls and two required ones is one reference, not the 2^k
references it stands for: each run is scored against one instance, the reference with the
optional calls it does not use left out (pathgrade.metrics.trajectory.grammar). So the time
grows with ``k`` and the run's length, never with 2^k. A row per ``k`` and per number of
optional calls the runs use; best of 3.

Run: ``python benchmarks/bench_grammar.py [--runs 2000]``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from pathgrade import Case, Run, score
from pathgrade.metrics.trajectory.definition import score_runs


def make_data(k: int, used: int, n_runs: int, seed: int = 7) -> tuple[list[Case], list[Run]]:
    """One case of ``k`` optional calls between two required ones; runs use ``used`` of them
    (a random choice each), in reference order, and sometimes repeat one."""
    rng = random.Random(seed)
    optional = [{"tool": "lookup", "arguments": [f"id{j}"], "optional": True} for j in range(k)]
    reference: list[Any] = ["start", *optional, "finish"]
    case = Case.model_validate({"case_id": "c", "reference": reference})
    runs = []
    for r in range(n_runs):
        chosen = sorted(rng.sample(range(k), used))
        steps: list[Any] = ["start", *({"tool": "lookup", "arguments": [f"id{j}"]} for j in chosen)]
        if chosen and rng.random() < 0.3:
            steps.append(steps[-1])
        steps.append("finish")
        runs.append(Run.model_validate({"case_id": "c", "run_id": f"r{r}", "steps": steps}))
    return [case], runs


def plain_data(runs: list[Run]) -> tuple[list[Case], list[Run]]:
    """Each run against a plain reference of its own: the instance the grammar gives it
    (the calls it makes, a repeat left out), for the grammar's overhead."""
    cases, out = [], []
    for run in runs:
        reference = [s for j, s in enumerate(run.steps) if j == 0 or s != run.steps[j - 1]]
        cases.append(Case(case_id=f"c{run.run_id}", reference=tuple(reference)))
        out.append(run.model_copy(update={"case_id": f"c{run.run_id}"}))
    return cases, out


def best_of(repeats: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    print(
        f"{'optional':>8} {'used':>4} {'engine µs/run':>14} {'definition µs/run':>18}"
        f" {'engine, plain instance':>23}"
    )
    for k, used in ((0, 0), (5, 2), (10, 5), (20, 0), (20, 5), (20, 10), (20, 20)):
        cases, runs = make_data(k, used, args.runs)
        engine = best_of(3, lambda: list(score(cases, runs)))  # noqa: B023 (at once)
        definition = best_of(3, lambda: score_runs(cases, runs))  # noqa: B023 (at once)
        plain_cases, plain_runs = plain_data(runs)
        plain = best_of(3, lambda: list(score(plain_cases, plain_runs)))  # noqa: B023 (at once)
        n = len(runs)
        print(
            f"{k:>8} {used:>4} {engine / n * 1e6:>14.1f} {definition / n * 1e6:>18.1f}"
            f" {plain / n * 1e6:>23.1f}"
        )


if __name__ == "__main__":
    main()
