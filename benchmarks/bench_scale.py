"""Scoring at scale: 1,000,000 runs from JSONL and Parquet, local and Dask engines.

Generates synthetic runs (10 steps, 2 reference paths per case, retrieved lists of 20 ids with
3 gold), then for each input format times ``pathgrade.engines.runner.evaluate_files`` with:
local 1 worker, local 2 workers, dask 2 workers (LocalCluster). Each configuration runs in a
fresh subprocess whose whole process tree is sampled for resident memory (psutil), so the
peak RSS includes worker processes. Results are written to /dev/null (the cost of producing
them is included).

Run: ``python benchmarks/bench_scale.py [--runs 1000000] [--partition-size 1000]
[--formats jsonl,parquet] [--configs local:1,local:2,dask:2] [--data-dir DIR]
[--calls catalogue|per-case]``. With ``--data-dir``, the generated inputs are kept there and
reused by later runs. ``--calls`` draws step arguments from one catalogue of ids shared by all
cases (the default, as in earlier figures: a step recurs across cases) or from ids of each
case's own (a step recurs only within its case: references and trials, as in real traces). The
"yardstick" column is the CPU time of a fixed pure-Python loop taken just before each
configuration: lower is a faster machine at that moment.
Needs ``psutil`` and the ``dask`` extra (``pip install -e '.[bench,dask]'``).
"""

from __future__ import annotations

import argparse
import compileall
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pathgrade

TOOLS = ["search", "lookup", "fetch", "calc", "refund", "notify", "cancel", "book"]

# The child does what ``pathgrade score`` does in the process it owns: it pauses the cyclic GC
# (library calls do so only when asked; versions that paused it unasked take no keyword).
CHILD = """
import inspect, sys
from pathgrade.engines.runner import evaluate_files
opt_in = {"gc_pause": True} if "gc_pause" in inspect.signature(evaluate_files).parameters else {}
sink = open("/dev/null", "wb")
evaluation = evaluate_files(sys.argv[1], sys.argv[2], engine=sys.argv[3],
                            workers=int(sys.argv[4]), partition_size=int(sys.argv[5]),
                            sink=sink.write, **opt_in)
print(evaluation.summary["runs"])
"""


def generate(
    directory: Path, n_runs: int, seed: int = 11, calls: str = "catalogue"
) -> tuple[Path, Path, Path]:
    """``calls="catalogue"``: arguments drawn from 100 ids shared by all cases (so a step
    recurs across cases); ``"per-case"``: ids of the case's own (``X<case>-<k>``), so a step
    recurs only within its case (references, trials), as in real traces."""
    rng = random.Random(seed)
    n_cases = max(1, n_runs // 4)
    cases_path = directory / "cases.jsonl"
    references = []
    with cases_path.open("w") as handle:
        for c in range(n_cases):
            prefix = f"X{c}-" if calls == "per-case" else "X"
            ref = [
                {"tool": rng.choice(TOOLS), "arguments": {"id": f"{prefix}{rng.randint(0, 99)}"}}
                for _ in range(10)
            ]
            alt = list(ref)
            alt[3], alt[4] = alt[4], alt[3]
            references.append(ref)
            gold = [f"d{c}-{g}" for g in range(3)]
            case = {
                "case_id": f"c{c}",
                "reference": ref,
                "references": [alt],
                "gold_evidence": gold,
            }
            handle.write(json.dumps(case) + "\n")
    runs_path = directory / "runs.jsonl"
    rows = []
    with runs_path.open("w") as handle:
        for r in range(n_runs):
            c = r % n_cases
            steps = list(references[c])
            roll = rng.random()
            if roll < 0.3:
                steps.insert(rng.randrange(10), steps[rng.randrange(10)])
                steps.pop()
            elif roll < 0.5:
                i = rng.randrange(9)
                steps[i], steps[i + 1] = steps[i + 1], steps[i]
            retrieved = [f"d{c}-{rng.randint(0, 40)}" for _ in range(20)]
            run = {
                "case_id": f"c{c}",
                "run_id": f"r{r}",
                "trial": r // n_cases,
                "steps": steps,
                "retrieved": retrieved,
            }
            handle.write(json.dumps(run) + "\n")
            rows.append(run)
    parquet_path = directory / "runs.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([{**row, "steps": json.dumps(row["steps"])} for row in rows])
    pq.write_table(table, parquet_path, row_group_size=20_000)
    return cases_path, runs_path, parquet_path


def yardstick() -> float:
    """CPU seconds of a fixed pure-Python loop (best of 3): how fast the machine is right
    now. On a shared VM it drifts by tens of percent within a day; printed next to each
    configuration so that figures taken at different times can be compared."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        total = 0
        for i in range(5_000_000):
            total += i
        best = min(best, time.process_time() - start)
    return best


def measure(args: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, peak RSS and peak PSS of the process tree in MiB, the child's output.

    RSS summed over processes counts pages that forked workers share with their parent
    once per process; PSS (proportional set size) divides shared pages among their users, so
    its sum is the tree's real footprint. RSS is sampled every 0.2 s, PSS every second
    (reading it walks the processes' page tables: about 3% of a core when read every 0.2 s).
    """
    import psutil

    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, *args], stdout=subprocess.PIPE, text=True
    )
    process = psutil.Process(child.pid)
    peak = peak_pss = polls = 0
    while child.poll() is None:
        try:
            tree = [process, *process.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
            if polls % 5 == 0:  # PSS walks every page table: read it once a second
                peak_pss = max(peak_pss, sum(p.memory_full_info().pss for p in tree))
        except psutil.Error:
            pass
        polls += 1
        time.sleep(0.2)
    elapsed = time.perf_counter() - start
    output = child.stdout.read().strip() if child.stdout else ""
    if child.returncode != 0:
        raise SystemExit(f"run failed: {args}")
    return elapsed, peak / 2**20, peak_pss / 2**20, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--partition-size", type=int, default=1_000)
    parser.add_argument("--formats", default="jsonl,parquet")
    parser.add_argument("--configs", default="local:1,local:2,dask:2", help="engine:workers,...")
    parser.add_argument("--data-dir", help="keep the generated inputs here and reuse them")
    parser.add_argument(
        "--calls",
        choices=("catalogue", "per-case"),
        default="catalogue",
        help="step arguments from one catalogue of 100 ids, or ids of each case's own",
    )
    args = parser.parse_args()
    # An installed package has its bytecode compiled; a checkout run with
    # PYTHONDONTWRITEBYTECODE set would compile every module again in every child.
    compileall.compile_dir(str(Path(pathgrade.__file__).parent), quiet=1)
    configs = [(e, int(w)) for e, w in (c.split(":") for c in args.configs.split(","))]
    with tempfile.TemporaryDirectory() as tmp:
        suffix = "" if args.calls == "catalogue" else f"-{args.calls}"
        directory = Path(args.data_dir) / f"runs{args.runs}{suffix}" if args.data_dir else Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        cases, jsonl, parquet = (
            directory / n for n in ("cases.jsonl", "runs.jsonl", "runs.parquet")
        )
        if not parquet.exists():
            start = time.perf_counter()
            cases, jsonl, parquet = generate(directory, args.runs, calls=args.calls)
            print(f"generated {args.runs:,} runs in {time.perf_counter() - start:.0f} s")
        print(
            f"{'input':<8}{'engine':<16}{'wall s':>9}{'runs/s':>11}"
            f"{'peak RSS MiB':>14}{'peak PSS MiB':>14}{'yardstick s':>13}"
        )
        for fmt in args.formats.split(","):
            path = jsonl if fmt == "jsonl" else parquet
            walls = {}
            for engine, workers in configs:
                speed = yardstick()
                wall, rss, pss, _out = measure(
                    [str(cases), str(path), engine, str(workers), str(args.partition_size)]
                )
                walls[(engine, workers)] = wall
                label = f"{engine} x{workers}"
                print(
                    f"{fmt:<8}{label:<16}{wall:>9.1f}{args.runs / wall:>11,.0f}"
                    f"{rss:>14,.0f}{pss:>14,.0f}{speed:>13.3f}"
                )
            if ("local", 1) in walls and ("local", 2) in walls:
                speedup = walls[("local", 1)] / walls[("local", 2)]
                print(f"{fmt:<8}speedup 1 -> 2 local workers: {speedup:.2f}x")


if __name__ == "__main__":
    main()
