"""A/B of pathgrade's core benchmarks: a base commit against this working tree, same run.

``python benchmarks/ab.py BASE_REF [--only NAME ...] [--size full|ci] [--rounds R]
[--repeat N] [--fail-below RATIO] [--json FILE]``

Checks out ``BASE_REF`` into a temporary git worktree, writes every benchmark's input once
(both trees read the same bytes), then runs each benchmark in alternating subprocesses:
base, head, head, base, ... (``--rounds`` processes a side), each process timing its work
``--repeat`` times and keeping its best. A side's figure is its best process; the ratio is
``base CPU / head CPU``, so above 1 the head is faster. CPU seconds, not wall, decide: on a
shared machine another process's load lengthens the wall time of both sides but barely the
CPU time of a single-threaded process (the wall is printed too). The table gives each side's
best, the ratio, the head's rate, the spread of the head's processes (largest over smallest,
a noise gauge) and the load average before and after.

``--fail-below 0.80`` makes the command a gate: a benchmark whose ratio is below it is run
again once (all its rounds); still below, it is named and the exit status is 1. A base commit
that this clone does not have is said in one line and the A/B is skipped (exit 0, never a
silent pass: the line says SKIPPED). Exit 2: bad usage.

The benchmarks (``--only`` takes these names; sizes ``full`` / ``ci``):

- ``catalogue``: ``score`` in memory, ``bench_trajectory.py --calls catalogue`` data (about 10
  steps, 2 references); ``per-case``: the same with ids of each case's own (``--calls
  per-case``), where calls recur only within a case, as in real traces;
- ``long``: 200 steps, 2 references, total order (``bench_growth.py``'s data);
  ``long-partial``: the same under ``order = "partial"`` (every other step after the one
  before it); ``long-none``: under ``order = "none"``;
- ``loading``: ``load_cases`` + ``load_runs`` of the per-case files (one step pool);
- ``score-out``: the whole process ``pathgrade score CASES RUNS --out FILE`` (default engine);
- ``trec``: the whole process ``pathgrade retrieval QRELS RUN`` with five measures, ``--json``;
- ``help``: the whole process ``pathgrade --help``;
- ``compare``: the whole process ``pathgrade compare`` of two results files of the same cases
  (each tree scores its own files first, untimed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))  # the data generators use the head's models
sys.path.insert(0, str(HERE))
import ab_data  # noqa: E402  (a sibling script, found through the path above)
import ab_table  # noqa: E402

CLI = "import sys; sys.argv[0] = 'pathgrade'; from pathgrade.cli.main import main; main()"
TREC_MEASURES = ("map", "ndcg", "ndcg@10", "recall@100", "p@10")


@dataclass(frozen=True)
class Bench:
    """One core benchmark: how to write its input, and what one process does."""

    name: str
    unit: str
    sizes: tuple[int, int]  # (full, ci)
    prepare: Callable[[Path, int], None]
    work: str | None = None  # ab_work.py's kind, for in-process work
    argv: Callable[[Path, Path], list[str]] | None = None  # (data, scratch) -> CLI args
    setup: Callable[[Path, Path, dict[str, str]], None] | None = None  # per tree, untimed


def _score_out(data: Path, scratch: Path) -> list[str]:
    out = scratch / f"out-{time.monotonic_ns()}.jsonl"
    return ["score", str(data / "cases.jsonl"), str(data / "runs.jsonl"), "--out", str(out)]


def _trec(data: Path, scratch: Path) -> list[str]:
    measures = [x for m in TREC_MEASURES for x in ("-m", m)]
    return ["retrieval", str(data / "qrels.txt"), str(data / "run.txt"), *measures, "--json"]


def _compare(data: Path, scratch: Path) -> list[str]:
    return ["compare", str(scratch / "base.results.jsonl"), str(scratch / "variant.results.jsonl")]


def _score_both(data: Path, scratch: Path, env: dict[str, str]) -> None:
    for name in ("base", "variant"):
        out = scratch / f"{name}.results.jsonl"
        args = ["score", str(data / "cases.jsonl"), str(data / f"{name}.jsonl"), "--out", str(out)]
        subprocess.run([sys.executable, "-c", CLI, *args], env=env, check=True, capture_output=True)


def _long(order: str) -> Callable[[Path, int], None]:
    return lambda d, n: ab_data.long_paths(d, n, order)


def _calls(calls: str) -> Callable[[Path, int], None]:
    return lambda d, n: ab_data.trajectory(d, n, calls)


BENCHMARKS: dict[str, Bench] = {
    b.name: b
    for b in (
        Bench("catalogue", "runs", (50_000, 10_000), _calls("catalogue"), "score"),
        Bench("per-case", "runs", (50_000, 10_000), _calls("per-case"), "score"),
        Bench("long", "runs", (2_000, 200), _long("total"), "score"),
        Bench("long-partial", "runs", (200, 20), _long("partial"), "score"),
        Bench("long-none", "runs", (1_000, 100), _long("none"), "score"),
        Bench("loading", "runs", (50_000, 10_000), _calls("per-case"), "load"),
        Bench("score-out", "runs", (100_000, 10_000), ab_data.scale, argv=_score_out),
        Bench("trec", "queries", (20_000, 2_000), ab_data.trec, argv=_trec),
        Bench("help", "", (1, 1), lambda d, n: None, argv=lambda d, s: ["--help"]),
        Bench("compare", "cases", (5_000, 500), ab_data.compare_pair, argv=_compare,
              setup=_score_both),
    )
}  # fmt: skip


@dataclass
class Sample:
    cpu: float
    wall: float
    items: int


def run_once(bench: Bench, tree: Path, data: Path, scratch: Path, repeat: int) -> Sample:
    """One process of ``bench`` against ``tree``: its best of ``repeat``."""
    env = tree_env(tree, scratch)
    if bench.work is not None:
        command = [sys.executable, str(HERE / "ab_work.py"), bench.work, str(data), str(repeat)]
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        got = json.loads(done.stdout.strip().splitlines()[-1])
        return Sample(got["cpu"], got["wall"], int(got["items"]))
    assert bench.argv is not None
    best: Sample | None = None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        command = [sys.executable, "-W", "ignore", "-c", CLI, *bench.argv(data, scratch)]
        subprocess.run(command, env=env, check=True, capture_output=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if best is None or cpu < best.cpu:
            best = Sample(cpu, wall, 0)
    assert best is not None
    return best


def tree_env(tree: Path, scratch: Path) -> dict[str, str]:
    """The environment of a process under test: ``tree``'s sources first, a scratch store."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), str(HERE)])
    env["PATHGRADE_STORE"] = str(scratch / "store")
    return env


def alternate(rounds: int) -> list[str]:
    """The process order: base, head, head, base, base, head, ... (``rounds`` a side)."""
    order: list[str] = []
    for r in range(rounds):
        order += ["base", "head"] if r % 2 == 0 else ["head", "base"]
    return order


def measure(
    bench: Bench,
    trees: dict[str, Path],
    data: Path,
    scratch: dict[str, Path],
    rounds: int,
    repeat: int,
    once: Callable[[Bench, Path, Path, Path, int], Sample] = run_once,
) -> dict[str, list[Sample]]:
    """Every side's samples of ``bench``, processes alternating as :func:`alternate` says."""
    samples: dict[str, list[Sample]] = {"base": [], "head": []}
    for side in alternate(rounds):
        samples[side].append(once(bench, trees[side], data, scratch[side], repeat))
    return samples


def ratio(samples: dict[str, list[Sample]]) -> float:
    """``base CPU / head CPU`` of each side's best process: above 1, the head is faster."""
    base = min(s.cpu for s in samples["base"])
    head = min(s.cpu for s in samples["head"])
    return base / head if head > 0 else float("inf")


def gate(
    names: Sequence[str],
    run: Callable[[str], dict[str, list[Sample]]],
    fail_below: float | None,
) -> tuple[dict[str, dict[str, list[Sample]]], list[str], list[str]]:
    """Run each benchmark; under a gate, one below ``fail_below`` runs once more and fails
    only if it is below again. Returns the samples kept (the re-run's where there was one),
    the names re-run and the names failed."""
    kept: dict[str, dict[str, list[Sample]]] = {}
    rerun: list[str] = []
    failed: list[str] = []
    for name in names:
        samples = run(name)
        if fail_below is not None and ratio(samples) < fail_below:
            rerun.append(name)
            samples = run(name)
            if ratio(samples) < fail_below:
                failed.append(name)
        kept[name] = samples
    return kept, rerun, failed


def repeats(bench: Bench, args: argparse.Namespace) -> int:
    """Timings a process: ``--repeat``, else 5 for in-process work (cheap to repeat, and the
    best of 5 steadies the small CI sizes) and 3 (2 at ``--size ci``) for whole processes."""
    if args.repeat is not None:
        return int(args.repeat)
    if bench.work is not None:
        return 5
    return 2 if args.size == "ci" else 3


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def describe(ref: str) -> str:
    shown = git("log", "-1", "--format=%h %s", ref).stdout.strip()
    return shown[:70] + ("..." if len(shown) > 70 else "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the base commit (e.g. the one in benchmarks/BASELINE)")
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS), default=None)
    parser.add_argument("--size", choices=("full", "ci"), default="full")
    parser.add_argument("--rounds", type=int, default=2, help="processes a side")
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="timings a process, best kept (default: 5 in-process, 3 whole-process, 2 at ci)",
    )
    parser.add_argument("--fail-below", type=float, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.rounds < 1 or (args.repeat is not None and args.repeat < 1):
        parser.error("--rounds and --repeat take a whole number from 1")
    base_sha = git("rev-parse", "--verify", "--quiet", f"{args.base}^{{commit}}").stdout.strip()
    if not base_sha:
        print(f"ab: SKIPPED: base commit {args.base!r} is not in this clone (shallow or older)")
        return 0
    names = args.only or list(BENCHMARKS)
    size = 0 if args.size == "full" else 1
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="pathgrade-ab-") as tmp:
        work = Path(tmp)
        base_tree = work / "base"
        added = git("worktree", "add", "--detach", str(base_tree), base_sha)
        if added.returncode != 0:
            print(f"ab: cannot check out {args.base}: {added.stderr.strip()}", file=sys.stderr)
            return 2
        try:
            trees = {"base": base_tree, "head": ROOT}
            for tree in trees.values():  # byte-compiled now, not in a timed lazy import
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")])

            def run(name: str) -> dict[str, list[Sample]]:
                bench = BENCHMARKS[name]
                data = work / "data" / name
                if not data.exists():
                    data.mkdir(parents=True)
                    bench.prepare(data, bench.sizes[size])
                scratch = {side: work / side / "scratch" / name for side in trees}
                for side, path in scratch.items():
                    path.mkdir(parents=True, exist_ok=True)
                    if bench.setup is not None and not (path / "set-up").exists():
                        bench.setup(data, path, tree_env(trees[side], path))
                        (path / "set-up").touch()
                return measure(bench, trees, data, scratch, args.rounds, repeats(bench, args))

            kept, rerun, failed = gate(names, run, args.fail_below)
        finally:
            git("worktree", "remove", "--force", str(base_tree))
            git("worktree", "prune")
            shutil.rmtree(base_tree, ignore_errors=True)
    head = git("log", "-1", "--format=%h", "HEAD").stdout.strip()
    dirty = " + uncommitted changes" if git("status", "--porcelain", "src").stdout.strip() else ""
    rows = [
        ab_table.Row(name, BENCHMARKS[name].unit, BENCHMARKS[name].sizes[size], kept[name])
        for name in names
    ]
    print(
        ab_table.render(
            base=describe(base_sha),
            head=f"{head}{dirty}",
            rows=rows,
            load=(load_before, os.getloadavg()),
            settings=f"size {args.size}, {args.rounds} processes a side, each its best of"
            f" {args.repeat or 'N'} timings",
            rerun=rerun,
            failed=failed,
            fail_below=args.fail_below,
        )
    )
    if args.json is not None:
        args.json.write_text(json.dumps(ab_table.as_json(rows), indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
