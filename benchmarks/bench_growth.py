"""Trajectory scoring cost against path length: pathgrade beside agentevals, 10 to 1,000 steps.

For every path length ``L`` and number of reference paths per case ``K``, generates runs as an
agent would make them (a reference path of about ``L`` calls over a vocabulary of 20 tools, each
call with an argument; the agent's path is one of the case's references with random
insertions, deletions, wrong tools, wrong arguments and immediate repeats, about 5% each; the
other references are variants of the first with adjacent swaps) and times, in one process:

- ``pathgrade.score`` (all trajectory metrics, all references, diagnosis kept), CPU time on
  one core, best of ``--repeats``; the number of runs per point is calibrated so one scoring
  takes about ``--target`` seconds;
- agentevals' trajectory match evaluators (modes ``strict`` and ``unordered``, one call per
  (run, reference) pair, as ``bench_trajectory.py`` calls them) on a sample of the same runs.

Printed per point: µs per run, ns per DP cell (a cell is one (reference step, agent step) pair
of one reference: ``sum over references of len(ref) * len(agent)``), agentevals' µs per run
and how many times faster pathgrade is; then, per ``K``, the log-log slope of µs per run
against ``L`` (``numpy.polyfit`` on ``log L``; 2 means cost grows as the DP table, 1 as the
path) and the ratio of ns per cell at the longest length to that at ``L = 20``.

Long paths use pathgrade's numba kernels; they are loaded (and on first use compiled into
numba's cache) once before any timing, and that load time is printed. ``--pure`` times the
NumPy passes instead (the fallback when numba is missing).

Run: ``python benchmarks/bench_growth.py [--quick] [--pure] [--lengths 10,20,50] [--refs 1,2]``.
Needs the ``bench`` extra for agentevals (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from pathgrade import Case, Run, Step, score
from pathgrade.metrics.trajectory import batching
from pathgrade.metrics.trajectory.band_align import compiled_kernels

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_trajectory import OPT_IN, bench_agentevals  # a sibling script

TOOLS = [
    "search", "open_file", "read_file", "grep", "edit", "run_tests", "lookup", "fetch",
    "list_dir", "write_file", "calc", "browse", "summarise", "ask_user", "plan", "commit",
    "diff", "install", "query_db", "notify",
]  # fmt: skip
LENGTHS = (10, 20, 50, 100, 200, 500, 1000)
REFS = (1, 2, 4, 8)
MAX_RUNS = 50_000


def _call(rng: random.Random, length: int) -> Step:
    """A call over a vocabulary of 20 tools; arguments recur (about ``length / 3`` ids)."""
    return Step(tool=rng.choice(TOOLS), arguments={"id": f"x{rng.randrange(max(3, length // 3))}"})


def _variant(rng: random.Random, path: list[Step]) -> list[Step]:
    """Another acceptable order: about one adjacent swap per 10 steps."""
    out = list(path)
    for _ in range(max(1, len(out) // 10)):
        if len(out) > 1:
            i = rng.randrange(len(out) - 1)
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _agent(rng: random.Random, ref: list[Step], length: int) -> list[Step]:
    """The reference with about 5% each of deletions, insertions, wrong tools, wrong
    arguments and immediate repeats."""
    out: list[Step] = []
    for step in ref:
        roll = rng.random()
        if roll < 0.05:
            continue  # deleted
        if roll < 0.10:
            out.append(_call(rng, length))  # inserted before
        elif roll < 0.15:
            step = Step(tool=rng.choice(TOOLS), arguments=step.arguments)  # wrong tool
        elif roll < 0.20:
            step = Step(tool=step.tool, arguments={"id": "wrong"})  # wrong argument
        out.append(step)
        if 0.20 <= roll < 0.25:
            out.append(step)  # repeated
    return out


def make_data(
    n_runs: int, length: int, n_refs: int, seed: int = 11
) -> tuple[list[Case], list[Run]]:
    """``n_runs`` runs, 4 per case, each case with ``n_refs`` references of ``length`` calls."""
    rng = random.Random(seed * 1_000_003 + length * 101 + n_refs)
    n_cases = max(1, n_runs // 4)
    cases: list[Case] = []
    paths: list[list[list[Step]]] = []
    for c in range(n_cases):
        base = [_call(rng, length) for _ in range(length)]
        refs = [base] + [_variant(rng, base) for _ in range(n_refs - 1)]
        paths.append(refs)
        cases.append(
            Case(
                case_id=f"c{c}",
                reference=tuple(refs[0]),
                references=tuple(tuple(r) for r in refs[1:]),
            )
        )
    runs = [
        Run(
            case_id=f"c{r % n_cases}",
            run_id=f"r{r}",
            trial=r // n_cases,
            steps=tuple(_agent(rng, rng.choice(paths[r % n_cases]), length)),
        )
        for r in range(n_runs)
    ]
    return cases, runs


def cells(cases: list[Case], runs: list[Run]) -> int:
    """DP cells of all runs: per run, the sum over its references of ``len(ref) * len(agent)``."""
    ref_steps = {c.case_id: sum(len(p) for p in c.reference_paths()) for c in cases}
    return sum(ref_steps[r.case_id] * len(r.steps) for r in runs)


def load_kernels(pure: bool) -> str:
    """Load the compiled kernels now (or, ``pure``, make every scoring use the NumPy passes);
    a line saying which, and the load time."""
    if pure:
        batching.use_compiled = lambda *_: False  # type: ignore[assignment]  # the fallback
        return "NumPy passes (--pure)"
    start, cpu = time.perf_counter(), time.process_time()
    loaded = compiled_kernels() is not None
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if not loaded:
        return "NumPy passes (numba is not installed)"
    return f"numba kernels, loaded in {wall:.2f} s ({cpu:.2f} s CPU) before timing"


def cpu_seconds(cases: list[Case], runs: list[Run]) -> float:
    start = time.process_time()
    result = score(cases, runs, **OPT_IN)
    spent = time.process_time() - start
    assert len(result) == len(runs)
    return spent


def time_point(length: int, n_refs: int, target: float, repeats: int) -> tuple[int, float, float]:
    """``(runs, µs per run, ns per cell)``: best CPU time of ``repeats`` scorings of a number
    of runs calibrated to take about ``target`` seconds."""
    n_runs, spent = 4, 0.0
    cpu_seconds(*make_data(n_runs, length, n_refs))  # imports and caches
    while spent < target / 4 and n_runs < MAX_RUNS:  # until fixed costs are amortised
        n_runs = min(MAX_RUNS, n_runs * 4)
        spent = cpu_seconds(*make_data(n_runs, length, n_refs))
    n_runs = int(min(MAX_RUNS, max(4, n_runs * target / max(spent, 1e-6))))
    cases, runs = make_data(n_runs, length, n_refs)
    best = min(cpu_seconds(cases, runs) for _ in range(repeats))
    return n_runs, 1e6 * best / n_runs, 1e9 * best / cells(cases, runs)


def agentevals_point(length: int, n_refs: int, budget: float) -> dict[str, float] | None:
    """agentevals' µs per run (``strict``, ``unordered``) on a sample sized to ``budget`` s."""
    cases, runs = make_data(4, length, n_refs)
    probe = bench_agentevals(cases, runs, 4)
    if probe is None:
        return None
    sample = int(min(2_000, max(4, budget / max(sum(probe.values()), 1e-7))))
    cases, runs = make_data(sample, length, n_refs)
    measured = bench_agentevals(cases, runs, sample) or {}
    return {mode: 1e6 * seconds for mode, seconds in measured.items()}


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=_ints, default=LENGTHS)
    parser.add_argument("--refs", type=_ints, default=REFS)
    parser.add_argument("--target", type=float, default=None, help="seconds per scoring")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="shorter: about a minute")
    parser.add_argument("--pure", action="store_true", help="time the NumPy fallback")
    args = parser.parse_args()
    kernels = load_kernels(args.pure)
    target = args.target or (0.15 if args.quick else 0.6)
    repeats = args.repeats or (2 if args.quick else 3)
    peer_budget = 0.1 if args.quick else 0.4
    print(
        f"pathgrade.score, CPU time on one core, best of {repeats}, ~{target} s per scoring;"
        " agentevals on a sample (strict / unordered, one call per reference)"
    )
    print(f"long paths: {kernels}")
    header = (
        f"{'L':>5} {'refs':>4} {'runs':>6} {'µs/run':>10} {'ns/cell':>8}"
        f" {'ae strict µs':>13} {'ae unord µs':>12} {'pg faster':>10}"
    )
    print(header)
    table: dict[tuple[int, int], float] = {}
    per_cell: dict[tuple[int, int], float] = {}
    peers: dict[tuple[int, int], float] = {}
    for n_refs in args.refs:
        for length in args.lengths:
            n_runs, us, ns = time_point(length, n_refs, target, repeats)
            table[length, n_refs], per_cell[length, n_refs] = us, ns
            theirs = agentevals_point(length, n_refs, peer_budget)
            strict = theirs["strict"] if theirs else float("nan")
            unordered = theirs["unordered"] if theirs else float("nan")
            peers[length, n_refs] = strict
            print(
                f"{length:>5} {n_refs:>4} {n_runs:>6} {us:>10,.1f} {ns:>8.1f}"
                f" {strict:>13,.1f} {unordered:>12,.1f} {strict / us:>9.1f}x",
                flush=True,
            )
    print("\nlog-log slope of µs per run against L (2: as the DP table; 1: as the path)")
    for n_refs in args.refs:
        xs = np.log(np.array(args.lengths, dtype=np.float64))
        ours = np.polyfit(xs, np.log([table[L, n_refs] for L in args.lengths]), 1)[0]
        theirs = np.polyfit(xs, np.log([peers[L, n_refs] for L in args.lengths]), 1)[0]
        line = f"  refs={n_refs}: pathgrade {ours:.2f}, agentevals strict {theirs:.2f}"
        if 20 in args.lengths:
            longest = max(L for L in args.lengths if L <= 500)
            ratio = per_cell[longest, n_refs] / per_cell[20, n_refs]
            line += f"; ns/cell at L={longest} / at L=20: {ratio:.2f}"
        print(line)


if __name__ == "__main__":
    main()
