"""Trajectory scoring throughput: pathgrade vs LangChain's agentevals, side by side.

Generates N synthetic runs (about 10 steps each, 2 reference paths per case, a few repeated,
swapped and wrong steps), then times in one process:

- pathgrade.score on the typed runs (all trajectory metrics, both references, diagnosis kept);
- agentevals' ``trajectory_strict_match`` and ``trajectory_unordered_match`` on the same
  trajectories as OpenAI-style messages, once per (run, reference) pair (agentevals takes one
  reference per call), on a sample when N is large, extrapolated per run.

Run: ``python benchmarks/bench_trajectory.py [--runs 100000] [--agentevals-sample 5000]``.
Needs the ``bench`` extra for agentevals (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from pathgrade import Case, Run, Step, score

TOOLS = ["search", "lookup", "fetch", "calc", "refund", "notify", "cancel", "book"]


def make_data(n_runs: int, seed: int = 7) -> tuple[list[Case], list[Run]]:
    rng = random.Random(seed)
    n_cases = max(1, n_runs // 4)
    cases: list[Case] = []
    for c in range(n_cases):
        length = rng.randint(8, 12)
        ref = [
            Step(tool=rng.choice(TOOLS), arguments={"id": f"X{rng.randint(0, 50)}"})
            for _ in range(length)
        ]
        alt = list(ref)
        i = rng.randrange(length - 1)
        alt[i], alt[i + 1] = alt[i + 1], alt[i]
        cases.append(Case(case_id=f"c{c}", reference=tuple(ref), references=(tuple(alt),)))
    runs: list[Run] = []
    for r in range(n_runs):
        case = cases[r % n_cases]
        steps = list(case.reference or ())
        roll = rng.random()
        if roll < 0.3:
            steps.insert(rng.randrange(len(steps)), steps[rng.randrange(len(steps))])
        elif roll < 0.5:
            del steps[rng.randrange(len(steps))]
        elif roll < 0.7:
            i = rng.randrange(len(steps) - 1)
            steps[i], steps[i + 1] = steps[i + 1], steps[i]
        elif roll < 0.8:
            steps[rng.randrange(len(steps))] = Step(tool=rng.choice(TOOLS), arguments={"id": "Z"})
        runs.append(
            Run(case_id=case.case_id, run_id=f"r{r}", trial=r // n_cases, steps=tuple(steps))
        )
    return cases, runs


def to_messages(steps: tuple[Step, ...]) -> list[dict[str, Any]]:
    """One assistant message per tool call, as agentevals' examples write them."""
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": s.tool, "arguments": json.dumps(s.arguments)}}],
        }
        for s in steps
    ]


def bench_pathgrade(cases: list[Case], runs: list[Run]) -> float:
    score(cases, runs[:1000])  # warm caches and imports
    start = time.perf_counter()
    result = score(cases, runs)
    elapsed = time.perf_counter() - start
    assert len(result) == len(runs)
    return elapsed


def bench_agentevals(cases: list[Case], runs: list[Run], sample: int) -> dict[str, float] | None:
    try:
        from agentevals.trajectory.strict import trajectory_strict_match
        from agentevals.trajectory.unordered import trajectory_unordered_match
    except ImportError:
        return None
    by_id = {c.case_id: c for c in cases}
    subset = runs[:sample]
    prepared = []
    for run in subset:
        case = by_id[run.case_id]
        refs = [to_messages(p) for p in case.reference_paths()]
        prepared.append((to_messages(run.steps), refs))
    out: dict[str, float] = {}
    for name, fn in (
        ("strict", trajectory_strict_match),
        ("unordered", trajectory_unordered_match),
    ):
        start = time.perf_counter()
        for outputs, refs in prepared:
            for ref in refs:
                fn(outputs=outputs, reference_outputs=ref)
        out[name] = (time.perf_counter() - start) / len(prepared)  # seconds per run
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--agentevals-sample", type=int, default=5_000)
    args = parser.parse_args()
    cases, runs = make_data(args.runs)
    steps = sum(len(r.steps) for r in runs) / len(runs)
    print(f"{len(runs):,} runs, {len(cases):,} cases, 2 references each, {steps:.1f} steps/run")
    elapsed = bench_pathgrade(cases, runs)
    ours = len(runs) / elapsed
    print(f"pathgrade.score: {elapsed:.2f} s -> {ours:,.0f} runs/s (one core, all metrics)")
    peers = bench_agentevals(cases, runs, min(args.agentevals_sample, len(runs)))
    if peers is None:
        print("agentevals not installed: pip install -e '.[bench]' to compare")
        return
    print(f"{'tool':<34}{'runs/s':>12}{'pathgrade is':>16}")
    print(f"{'pathgrade (all metrics, 2 refs)':<34}{ours:>12,.0f}{'1.0x':>16}")
    for name, per_run in peers.items():
        rate = 1 / per_run
        print(f"{'agentevals ' + name + ' (2 refs)':<34}{rate:>12,.0f}{ours / rate:>15.1f}x")


if __name__ == "__main__":
    main()
