"""TREC files end to end: pathgrade vs pytrec_eval vs ranx vs trec_eval's C binary.

Writes a qrels and a run file (``--queries`` queries x ``--depth`` results, 5 judged documents a
query with gains 1..3, 3 of them retrieved; scores with 6 decimals, rank order, one run tag),
then times, on the same files and five measures (nDCG@10 with linear gain, MAP, MRR, P@10,
R@100):

* ``process``: one whole process a tool, as a user runs it: ``pathgrade retrieval QRELS RUN
  -m ... --json``; ``pathgrade columns``, the same command's start-up and output around the
  column readers and ``from_columns`` (what ``pathgrade retrieval`` does once
  ``cli/retrieval.py`` calls them); ``python -c`` scripts reading the files with
  ``pytrec_eval.parse_qrel`` / ``parse_run`` (its documented readers) or
  ``ranx.Qrels.from_file`` / ``Run.from_file`` (``kind="trec"``) and evaluating;
  ``trec_eval -c -m ...`` (the C binary, path in
  ``$TREC_EVAL_BIN``; skipped when unset). Start-up is included; every tool runs once before
  timing (page cache, numba's cache).
* ``work``: the same reading and evaluation inside a fresh interpreter after its imports
  (what each library's own code costs, start-up excluded); for pathgrade the column readers
  (``read_qrels_columns``, ``read_run_columns``), ``from_columns`` and ``evaluate_batch``, and
  separately the dict readers with ``evaluate`` (``dicts``).

Every figure is the minimum over ``--repeat`` rounds, tools interleaved within a round; CPU is
the child's user + system time, wall the elapsed time. The five means of every tool are checked
against pathgrade's (trec_eval prints 4 decimals).

Run: ``TREC_EVAL_BIN=/path/to/trec_eval python benchmarks/bench_trec_files.py [--queries 20000]
[--depth 100] [--repeat 5] [--dir DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

PATHGRADE = ["ndcg@10(gain=linear)", "map", "mrr", "precision@10", "recall@100"]
TREC = ["ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100"]
TREC_OPTIONS = ["-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "P.10"]
TREC_OPTIONS += ["-m", "recall.100"]
RANX = ["ndcg@10", "map", "mrr", "precision@10", "recall@100"]

PYTREC_WORK = """
import json, sys, time
import pytrec_eval
start, cpu = time.perf_counter(), time.process_time()
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}
per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = ["ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100"]
means = [sum(q[m] for q in per_query.values()) / len(qrels) for m in names]
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"means": means, "wall": wall, "cpu": cpu}))
"""
RANX_WORK = """
import json, sys, time
from ranx import Qrels, Run, evaluate
start, cpu = time.perf_counter(), time.process_time()
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
out = evaluate(qrels, run, ["ndcg@10", "map", "mrr", "precision@10", "recall@100"])
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"means": [float(v) for v in out.values()], "wall": wall, "cpu": cpu}))
"""
PATHGRADE_WORK = """
import json, sys, time
from pathgrade.io.trec import read_qrels_columns, read_run_columns
from pathgrade.metrics.retrieval.batch_columns import from_columns
from pathgrade.metrics.retrieval.evaluate import evaluate_batch, resolve_all
specs = resolve_all(sys.argv[3:])
start, cpu = time.perf_counter(), time.process_time()
qrels = read_qrels_columns(sys.argv[1])
run = read_run_columns(sys.argv[2])
result = evaluate_batch(from_columns(qrels, run.columns), specs)
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"means": list(result.summary().values()), "wall": wall, "cpu": cpu}))
"""
PATHGRADE_DICTS = """
import json, sys, time
from pathgrade.io.trec import read_qrels, read_run
from pathgrade.metrics.retrieval.evaluate import evaluate, resolve_all
specs = resolve_all(sys.argv[3:])
start, cpu = time.perf_counter(), time.process_time()
result = evaluate(read_qrels(sys.argv[1]), read_run(sys.argv[2]).run, specs)
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"means": list(result.summary().values()), "wall": wall, "cpu": cpu}))
"""
#: pathgrade's column readers behind the CLI's start-up: the work of ``pathgrade retrieval``
#: once it reads columns (the change proposed for cli/retrieval.py), with its JSON output.
PATHGRADE_CLI_COLUMNS = """
import sys
import pathgrade.cli.main
from pathgrade.io.trec import read_qrels_columns, read_run_columns
from pathgrade.metrics.retrieval.batch_columns import from_columns
from pathgrade.metrics.retrieval.evaluate import evaluate_batch
import orjson
specs = sys.argv[3:]
run = read_run_columns(sys.argv[2])
result = evaluate_batch(from_columns(read_qrels_columns(sys.argv[1]), run.columns), specs)
document = result.to_dict()
document["duplicates_removed"] = run.duplicates + result.duplicates_removed
sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\\n")
"""


def generate(directory: Path, queries: int, depth: int, seed: int = 0) -> tuple[Path, Path]:
    """Write ``qrels.txt`` and ``run.txt`` (deterministic for a seed) and return their paths."""
    rng = np.random.default_rng(seed)
    qrels_path, run_path = directory / "qrels.txt", directory / "run.txt"
    with qrels_path.open("w") as qrels, run_path.open("w") as run:
        for q in range(queries):
            docs = rng.choice(8_000_000, depth, replace=False)
            scores = np.sort(rng.random(depth) * 30)[::-1]
            gold = rng.choice(8_000_000, 5, replace=False)
            gold[:3] = docs[rng.choice(depth, 3, replace=False)]
            gains = rng.integers(1, 4, 5)
            qrels.writelines(f"{q} 0 D{d} {g}\n" for d, g in zip(gold, gains, strict=True))
            run.writelines(
                f"{q} Q0 D{d} {rank} {s:.6f} bench\n"
                for rank, (d, s) in enumerate(zip(docs, scores, strict=True), 1)
            )
    return qrels_path, run_path


def timed(command: list[str]) -> tuple[float, float, str]:
    """(wall s, child CPU s, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def trec_eval_means(text: str) -> list[float]:
    values = {line.split()[0]: float(line.split()[2]) for line in text.splitlines() if line}
    return [values[m] for m in TREC]


def pathgrade_means(text: str) -> list[float]:
    summary = json.loads(text)["summary"]
    return [summary[m] for m in PATHGRADE]


def commands(qrels: Path, run: Path) -> dict[str, tuple[list[str], Any]]:
    """Tool name -> (process command, how to read its five means)."""
    python = [sys.executable, "-W", "ignore"]
    script = str(Path(sys.executable).with_name("pathgrade"))
    metric_options = [x for m in PATHGRADE for x in ("-m", m)]
    out: dict[str, tuple[list[str], Any]] = {
        "pathgrade": (
            [script, "retrieval", str(qrels), str(run), *metric_options, "--json"],
            pathgrade_means,
        ),
        "pathgrade columns": (
            [*python, "-c", PATHGRADE_CLI_COLUMNS, str(qrels), str(run), *PATHGRADE],
            pathgrade_means,
        ),
        "pytrec_eval": ([*python, "-c", PYTREC_WORK, str(qrels), str(run)], _means),
        "ranx": ([*python, "-c", RANX_WORK, str(qrels), str(run)], _means),
    }
    binary = os.environ.get("TREC_EVAL_BIN")
    if binary:
        out["trec_eval"] = ([binary, "-c", *TREC_OPTIONS, str(qrels), str(run)], trec_eval_means)
    return out


def _means(text: str) -> list[float]:
    return [float(v) for v in json.loads(text)["means"]]


def work_commands(qrels: Path, run: Path) -> dict[str, list[str]]:
    python = [sys.executable, "-W", "ignore", "-c"]
    files = [str(qrels), str(run)]
    return {
        "pathgrade": [*python, PATHGRADE_WORK, *files, *PATHGRADE],
        "pathgrade dicts": [*python, PATHGRADE_DICTS, *files, *PATHGRADE],
        "pytrec_eval": [*python, PYTREC_WORK, *files],
        "ranx": [*python, RANX_WORK, *files],
    }


def bench(qrels: Path, run: Path, repeat: int, tools: list[str] | None = None) -> None:
    process = commands(qrels, run)
    work = work_commands(qrels, run)
    if tools:
        process = {k: v for k, v in process.items() if k.split()[0] in tools}
        work = {k: v for k, v in work.items() if k.split()[0] in tools}
    reference: list[float] | None = None
    for name, (command, means) in process.items():  # warm-up and cross-check
        values = means(timed(command)[2])
        reference = reference or values
        worst = max(abs(a - b) for a, b in zip(values, reference, strict=True))
        if worst > 1e-4:
            raise SystemExit(f"{name} disagrees with pathgrade: {values} vs {reference}")
    best: dict[str, list[float]] = {}
    for _ in range(repeat):
        for name, (command, _means_of) in process.items():
            wall, cpu, _ = timed(command)
            row = best.setdefault(f"process {name}", [wall, cpu])
            row[0], row[1] = min(row[0], wall), min(row[1], cpu)
        for name, command in work.items():
            inner = json.loads(timed(command)[2])
            row = best.setdefault(f"work {name}", [inner["wall"], inner["cpu"]])
            row[0], row[1] = min(row[0], inner["wall"]), min(row[1], inner["cpu"])
    for kind in ("process", "work"):
        # pathgrade's fastest row of the kind (``retrieval`` once it reads columns, see above)
        ours = min((v for k, v in best.items() if k.startswith(f"{kind} pathgrade")), key=min)
        print(f"{kind:<8} {'tool':<16} {'wall s':>8} {'CPU s':>8} {'wall x':>8} {'CPU x':>8}")
        for key, (wall, cpu) in best.items():
            if key.startswith(kind):
                name = key.split(" ", 1)[1]
                print(
                    f"{'':<8} {name:<16} {wall:>8.3f} {cpu:>8.3f} {wall / ours[0]:>7.2f}x "
                    f"{cpu / ours[1]:>7.2f}x"
                )
    print("x: the tool's time / pathgrade's fastest (above 1: pathgrade is faster)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None, help="keep the files here")
    parser.add_argument("--tools", nargs="+", help="only these (pathgrade is always timed)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.dir or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        qrels, run = generate(directory, args.queries, args.depth)
        size = run.stat().st_size / 2**20
        print(
            f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.2f}; {args.queries:,} queries x {args.depth} "
            f"results ({size:.0f} MiB run); best of {args.repeat}"
        )
        bench(qrels, run, args.repeat, args.tools and ["pathgrade", *args.tools])


if __name__ == "__main__":
    main()
