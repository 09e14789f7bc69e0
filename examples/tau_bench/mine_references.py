"""Mined references against gold actions on the 200 tau-bench airline runs (docs/tau_bench.md).

Usage::

    python examples/tau_bench/mine_references.py [RUNS_JSONL] [--json]

What it does:

1. reads the runs and the cases (each task's gold actions as its reference) with the
   ``tau-bench`` reader (:mod:`pathgrade.io.ingest.tau_bench`);
2. mines one proposed reference per task from its successful runs among trials 0 and 1
   (:func:`pathgrade.cases.mine_cases`, what ``pathgrade cases mine`` writes); a task with no
   successful run there gets no proposal;
3. scores trials 2 and 3 with the config ``pathgrade.toml`` next to this script, against the
   proposals (tasks with one) and against the gold actions (the same runs, and all of them),
   and reports how well ``path_score`` separates reward 1 from reward 0 (AUC: the probability
   that a reward-1 run scores higher than a reward-0 run, ties counting one half).

The same proposals from the command line (trials 0-1 filtered first)::

    pathgrade ingest examples/tau_bench/tau_bench_runs.jsonl -o runs.jsonl --cases-out cases.jsonl
    pathgrade cases mine runs01.jsonl --cases cases.jsonl -o proposed.jsonl
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

import pathgrade
from pathgrade.cases import mine_cases
from pathgrade.core.types import Case, Run
from pathgrade.io.config import load_config
from pathgrade.io.ingest import tau_bench
from pathgrade.io.mined import mined_cases

HERE = Path(__file__).resolve().parent
RUNS = HERE / "tau_bench_runs.jsonl"
CONFIG = HERE / "pathgrade.toml"
MINE_TRIALS = (0, 1)
SCORE_TRIALS = (2, 3)


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """P(a reward-1 run scores higher than a reward-0 run), ties counting one half."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _row(name: str, cases: Sequence[Case], runs: Sequence[Run]) -> dict[str, Any]:
    scored = list(pathgrade.score({c.case_id: c for c in cases}, runs, load_config(CONFIG)))
    scores = [r.metrics["path_score"] for r in scored]
    reward = [bool(run.success) for run in runs]
    ones = [s for s, y in zip(scores, reward, strict=True) if y]
    zeros = [s for s, y in zip(scores, reward, strict=True) if not y]
    return {
        "references": name,
        "tasks": len({r.case_id for r in runs}),
        "runs": len(runs),
        "reward_1": len(ones),
        "path_score_reward_1": round(sum(ones) / len(ones), 1),
        "path_score_reward_0": round(sum(zeros) / len(zeros), 1),
        "auc": round(auc(scores, reward), 3),
    }


def measure(cases: Sequence[Case], runs: Sequence[Run]) -> dict[str, Any]:
    """Mine from :data:`MINE_TRIALS`, score :data:`SCORE_TRIALS` (module docstring)."""
    logs = [r for r in runs if r.trial in MINE_TRIALS]
    mined = mine_cases(cases, logs)
    proposed = mined_cases(mined)
    # The same, with a choice's calls each made by one successful run (default: two).
    loose = mined_cases(mine_cases(cases, logs, min_choice_runs=1))
    covered = {c.case_id for c in proposed}
    test = [r for r in runs if r.trial in SCORE_TRIALS]
    test_covered = [r for r in test if r.case_id in covered]
    several = sum(1 for m in mined if len(m.paths) > 1)
    grammar = sum(
        1
        for c in proposed
        for s in c.reference or ()
        if s.optional or s.repeat is not None or s.one_of is not None
    )
    return {
        "tasks": len(cases),
        "tasks_mined": len(proposed),
        "tasks_with_several_paths": several,
        "partial_order_proposals": sum(1 for c in proposed if c.order == "partial"),
        "grammar_steps": grammar,
        "choices_from_one_run": sum(1 for c in loose for s in c.reference or () if s.one_of),
        "unordered_steps": sum(1 for c in proposed for s in c.reference or () if s.group),
        "rows": [
            _row("mined from trials 0-1", proposed, test_covered),
            _row("mined, min_choice_runs=1", loose, test_covered),
            _row("gold actions, same runs", cases, test_covered),
            _row("gold actions, all tasks", cases, test),
        ],
    }


def table(result: dict[str, Any]) -> str:
    """The docs table (markdown)."""
    lines = [
        "| references | tasks | runs (reward 1) | path_score, reward 1 | reward 0 | AUC |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['references']} | {row['tasks']} | {row['runs']} ({row['reward_1']}) |"
            f" {row['path_score_reward_1']} | {row['path_score_reward_0']} | {row['auc']} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    args = [a for a in argv if a != "--json"]
    path = Path(args[0]) if args else RUNS
    result = measure(tau_bench.read_cases(path), list(tau_bench.read(path)))
    if "--json" in argv:
        sys.stdout.write(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
