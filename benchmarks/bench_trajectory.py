"""Trajectory scoring throughput: pathgrade vs LangChain's agentevals, side by side.

Generates N synthetic runs (about 10 steps each, 2 reference paths per case, a few repeated,
swapped and wrong steps), writes them as JSONL and loads them back with pathgrade's loaders
(as ``pathgrade score`` does: identical step records share one validated object, every other
step is its own object), then times in one process:

- ``pathgrade.score`` on the loaded runs (all trajectory metrics, both references, diagnosis
  kept), best of 3, wall and CPU time; loading is timed separately and not included;
- agentevals' trajectory match evaluators (``create_trajectory_match_evaluator``, modes
  ``strict`` and ``unordered``) on the same trajectories as OpenAI-style messages, once per
  (run, reference) pair (agentevals takes one reference per call), on a sample when N is
  large, extrapolated per run.

Run: ``python benchmarks/bench_trajectory.py [--runs 100000] [--agentevals-sample 5000]
[--calls catalogue|per-case]``. ``--calls`` draws step arguments from one catalogue of 51 ids
shared by all cases (the default, as in earlier figures: a call recurs across cases) or from
ids of each case's own (a call recurs only within its case, as in real traces).
Needs the ``bench`` extra for agentevals (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from pathgrade import Case, Run, Step, score
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.step_pool import StepPool

#: The CLI pauses the cyclic GC while it loads and scores (a process it owns); library calls
#: do so only when asked. The benchmark measures what ``pathgrade score`` does, so it asks
#: (older pathgrade versions, timed side by side, paused it unasked and take no keyword).
OPT_IN: dict[str, Any] = (
    {"gc_pause": True} if "gc_pause" in inspect.signature(score).parameters else {}
)

TOOLS = ["search", "lookup", "fetch", "calc", "refund", "notify", "cancel", "book"]


def make_data(n_runs: int, seed: int = 7, calls: str = "catalogue") -> tuple[list[Case], list[Run]]:
    rng = random.Random(seed)
    n_cases = max(1, n_runs // 4)
    cases: list[Case] = []
    for c in range(n_cases):
        length = rng.randint(8, 12)
        prefix = f"X{c}-" if calls == "per-case" else "X"
        ref = [
            Step(tool=rng.choice(TOOLS), arguments={"id": f"{prefix}{rng.randint(0, 50)}"})
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


def round_trip(cases: list[Case], runs: list[Run]) -> tuple[list[Case], list[Run], float]:
    """Write both as JSONL and load them back as ``pathgrade score`` does (one step pool for
    both files), so the objects are laid out as a user's are."""
    with tempfile.TemporaryDirectory() as tmp:
        cases_path, runs_path = Path(tmp) / "cases.jsonl", Path(tmp) / "runs.jsonl"
        for path, items in ((cases_path, cases), (runs_path, runs)):
            with path.open("wb") as out:
                for item in items:
                    out.write(orjson.dumps(item.model_dump(exclude_defaults=True)) + b"\n")
        start = time.perf_counter()
        pool = StepPool()
        loaded_cases = load_cases(cases_path, pool=pool, **OPT_IN).items
        loaded_runs = load_runs(runs_path, pool=pool, **OPT_IN).items
        return loaded_cases, loaded_runs, time.perf_counter() - start


def bench_pathgrade(cases: list[Case], runs: list[Run], repeats: int = 3) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeats`` scorings of all runs."""
    score(cases, runs[:1000], **OPT_IN)  # warm caches and imports
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = score(cases, runs, **OPT_IN)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        assert len(result) == len(runs)
    return min(walls), min(cpus)


def bench_agentevals(cases: list[Case], runs: list[Run], sample: int) -> dict[str, float] | None:
    try:
        from agentevals.trajectory.match import (  # type: ignore[import-untyped]
            create_trajectory_match_evaluator,
        )
    except ImportError:
        return None
    evaluators = {
        mode: create_trajectory_match_evaluator(trajectory_match_mode=mode)
        for mode in ("strict", "unordered")
    }
    by_id = {c.case_id: c for c in cases}
    subset = runs[:sample]
    prepared = []
    for run in subset:
        case = by_id[run.case_id]
        refs = [to_messages(p) for p in case.reference_paths()]
        prepared.append((to_messages(run.steps), refs))
    out: dict[str, float] = {}
    for name, fn in evaluators.items():
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
    parser.add_argument("--calls", choices=("catalogue", "per-case"), default="catalogue")
    args = parser.parse_args()
    cases, runs, load_seconds = round_trip(*make_data(args.runs, calls=args.calls))
    steps = sum(len(r.steps) for r in runs) / len(runs)
    print(
        f"{len(runs):,} runs, {len(cases):,} cases, 2 references each, {steps:.1f} steps/run,"
        f" step arguments: {args.calls}"
    )
    print(f"loading both files (not timed below): {load_seconds:.2f} s")
    wall, cpu = bench_pathgrade(cases, runs)
    ours = len(runs) / wall
    print(
        f"pathgrade.score: {wall:.2f} s wall -> {ours:,.0f} runs/s; {cpu:.2f} s CPU ->"
        f" {len(runs) / cpu:,.0f} runs/s (one core, all metrics, best of 3)"
    )
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
