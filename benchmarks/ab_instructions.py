"""Instruction counts of the per-case scoring and loading: a base commit against this tree.

On a shared 2-core VM the same tree's timings vary by up to 48% (docs/scale.md), so a ratio
near 1 from ``ab.py`` is not a finding. Instructions do not move with load:
``valgrind --tool=callgrind`` counts each process's instructions, and each side runs its
work once and three times (after one load and a warm-up scoring on 200 runs); the difference
over 2 is the cost of one scoring, or one load, without start-up and imports.

Data: ``bench_trajectory.py --calls per-case`` through ``ab_data.trajectory`` (``--runs``
runs, 5,000 by default: about 10 steps, 2 references, ids of each case's own), the files
both sides read. The base is checked out into a temporary worktree. Needs ``valgrind``;
about 4 minutes at 5,000 runs on this machine (the four processes of a side run two at a
time).

Run: ``python benchmarks/ab_instructions.py BASE_REF [--runs 5000]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))
import ab_data  # noqa: E402  (a sibling script, found through the path above)

WORK = """
import inspect, sys
from pathlib import Path
from pathgrade import score
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.step_pool import StepPool
kind, times, data = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
def opt(f):
    return {"gc_pause": True} if "gc_pause" in inspect.signature(f).parameters else {}
def load():
    pool = StepPool()
    cases = load_cases(data / "cases.jsonl", pool=pool, **opt(load_cases)).items
    return list(cases), list(load_runs(data / "runs.jsonl", pool=pool, **opt(load_runs)).items)
cases, runs = load()
score(cases, runs[:200], None, **opt(score))
for _ in range(times):
    score(cases, runs, None, **opt(score)) if kind == "score" else load()
"""


def count(tree: Path, kind: str, times: int, data: Path) -> int:
    """The instructions callgrind counts for one process of ``WORK``."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command += [sys.executable, "-c", WORK, kind, str(times), str(data)]
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed on {tree}: {done.stderr.strip()[-300:]}")
    return int(found.group(1))


def per_unit(tree: Path, kind: str, data: Path) -> float:
    """Instructions of one scoring or one load: (3 times - once) / 2."""
    with ThreadPoolExecutor(2) as pool:
        once, thrice = pool.map(lambda n: count(tree, kind, n, data), (1, 3))
    return (thrice - once) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("--runs", type=int, default=5000)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("ab_instructions: SKIPPED: valgrind is not installed")
    git = ["git", "-C", str(ROOT)]
    sha = subprocess.run([*git, "rev-parse", "--verify", "--quiet", f"{args.base}^{{commit}}"],
                         capture_output=True, text=True).stdout.strip()  # fmt: skip
    if not sha:
        raise SystemExit(f"ab_instructions: SKIPPED: {args.base!r} is not in this clone")
    with tempfile.TemporaryDirectory(prefix="pathgrade-ai-") as tmp:
        work = Path(tmp)
        data = work / "data"
        data.mkdir()
        ab_data.trajectory(data, args.runs, "per-case")
        base = work / "base"
        subprocess.run([*git, "worktree", "add", "--detach", str(base), sha], capture_output=True)
        try:
            print(f"{args.runs:,} per-case runs; instructions of one scoring / one load")
            print(
                f"{'':8} {'base ' + args.base[:10]:>18} {'head (this tree)':>18} {'head/base':>10}"
            )
            for kind in ("score", "load"):
                b, h = per_unit(base, kind, data), per_unit(ROOT, kind, data)
                print(f"{kind:8} {b / 1e6:17,.1f}M {h / 1e6:17,.1f}M {h / b:9.3f}x")
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(base)], capture_output=True)
            subprocess.run([*git, "worktree", "prune"], capture_output=True)


if __name__ == "__main__":
    main()
