"""Score the 200 recorded tau-bench airline runs (gpt-4o, 50 tasks x 4 trials) by their path.

Usage::

    python examples/tau_bench/score_tau_bench.py [RUNS_JSONL] [--json]

What it does:

1. reads the runs with the ``tau-bench`` trace reader (:mod:`pathgrade.io.ingest.tau_bench`):
   each run's steps are its tool calls, ``success`` is the recorded reward (1.0);
   each task's gold actions become the case's reference path;
2. scores with the config ``pathgrade.toml`` next to this script: the database-changing
   tools are ``write`` (an extra write is a defect costing 25 points) and the rest ``read``
   (an extra read costs nothing but lowers path efficiency; a repeated read costs 10);
3. scores the runs with :func:`pathgrade.score` and reports the mean path metrics, pass^k
   over the 4 trials from the recorded reward, and how well each path criterion agrees with
   the reward, listing the runs where they disagree with the defects that explain it.

The same scores (the mean path metrics, pass^k and the defects) come from the command line::

    pathgrade ingest examples/tau_bench/tau_bench_runs.jsonl -o runs.jsonl --cases-out cases.jsonl
    pathgrade score cases.jsonl runs.jsonl --config examples/tau_bench/pathgrade.toml
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

import pathgrade
from pathgrade.core.config import MatchingConfig, ScoringConfig, ToolMatch
from pathgrade.core.results import RunResult, ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.io.config import load_config
from pathgrade.io.ingest import tau_bench
from pathgrade.stats.passk import passk_summary

HERE = Path(__file__).resolve().parent
RUNS = HERE / "tau_bench_runs.jsonl"
#: The scoring config of ``pathgrade score --config`` (tool kinds, penalties, exact matching).
CONFIG = HERE / "pathgrade.toml"
#: Tools that change the database: those the config declares ``write`` (the six airline
#: writes; ``tau_bench.WRITE_TOOLS`` also names the retail domain's).
WRITE_TOOLS = tuple(
    tool for tool, kind in load_config(CONFIG).tool_kinds.items() if kind == "write"
)
PATH_METRICS = (
    "tool_accuracy",
    "argument_accuracy",
    "step_order_accuracy",
    "path_efficiency",
    "composite",
    "path_score",
    "tool_f1",
    "missing_steps",
    "redundant_steps",
)


#: Tools whose free-text arguments no two agents word alike: with ``lenient``, the tool
#: name alone decides a match for them.
FREE_TEXT_TOOLS = ("transfer_to_human_agents", "calculate", "think")


def config(*, lenient: bool = False) -> ScoringConfig:
    """The config of :data:`CONFIG`; ``lenient`` ignores the arguments of
    :data:`FREE_TEXT_TOOLS` (exact matching otherwise)."""
    base = load_config(CONFIG)
    if not lenient:
        return base
    ignore = {tool: ToolMatch(mode="ignore") for tool in FREE_TEXT_TOOLS}
    matching = MatchingConfig.model_validate({**base.matching.model_dump(), "tools": ignore})
    return base.model_copy(update={"matching": matching})


def cases_and_runs(path: Path = RUNS) -> tuple[list[Case], list[Run]]:
    return tau_bench.read_cases(path), list(tau_bench.read(path))


def _missing_writes(result: RunResult, case: Case) -> int:
    reference = case.reference_paths()[result.reference_index or 0]
    return sum(
        1
        for d in result.defects
        if d.kind == "missing_step"
        and d.reference_step is not None
        and reference[d.reference_step].tool in WRITE_TOOLS
    )


def _kinds(result: RunResult) -> Counter[str]:
    return Counter(d.kind for d in result.defects)


def _effective_writes(result: RunResult, run: Run) -> int:
    """Unexpected writes whose call did not fail (a failed call changed nothing)."""
    return sum(
        1
        for d in result.defects
        if d.kind == "unexpected_write"
        and d.agent_step is not None
        and not run.steps[d.agent_step].error
    )


@dataclass(frozen=True)
class Criterion:
    """A yes/no reading of the path, compared with the reward."""

    name: str
    meaning: str
    passes: Callable[[RunResult, Case, Run], bool]


CRITERIA = (
    Criterion(
        "exact_path",
        "argument_accuracy == 1 (the gold path, call for call, nothing else)",
        lambda r, c, run: r.metrics["argument_accuracy"] == 1.0,
    ),
    Criterion(
        "no_defects",
        "path_score == 100 (no missing step, no repeat, no extra write, in order)",
        lambda r, c, run: r.metrics["path_score"] == 100.0,
    ),
    Criterion(
        "all_gold_calls",
        "missing_steps == 0 (every gold call made with exact arguments)",
        lambda r, c, run: r.metrics["missing_steps"] == 0,
    ),
    Criterion(
        "writes_exact",
        "no missing gold write and no unexpected write (reads ignored)",
        lambda r, c, run: _missing_writes(r, c) == 0 and _kinds(r)["unexpected_write"] == 0,
    ),
    Criterion(
        "effective_writes",
        "as writes_exact, but a write call that returned an error is not counted",
        lambda r, c, run: _missing_writes(r, c) == 0 and _effective_writes(r, run) == 0,
    ),
)


def _reason(result: RunResult, run: Run) -> str:
    parts = []
    for defect in result.defects:
        if defect.kind in ("missing_step", "unexpected_write", "out_of_order"):
            failed = defect.agent_step is not None and run.steps[defect.agent_step].error
            parts.append(
                f"{defect.kind}: {defect.detail}" + (" (the call failed)" if failed else "")
            )
    return "; ".join(parts) or "no write or missing-step defect"


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """P(a reward-1 run scores higher than a reward-0 run), ties counting one half."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def report(cases: Sequence[Case], runs: Sequence[Run], *, lenient: bool = False) -> dict[str, Any]:
    """Everything the docs table shows, as one JSON-able document."""
    by_id = {c.case_id: c for c in cases}
    scored: ScoreResult = pathgrade.score(by_id, runs, config(lenient=lenient))
    summary = scored.summary()
    results = list(scored)
    reward = [bool(run.success) for run in runs]
    passk = passk_summary(
        [r.case_id for r in runs], [r.trial for r in runs], [bool(x) for x in reward]
    )
    agreement: dict[str, Any] = {}
    for criterion in CRITERIA:
        verdicts = [
            criterion.passes(r, by_id[r.case_id], run) for r, run in zip(results, runs, strict=True)
        ]
        disagree = [
            {
                "run_id": r.run_id,
                "reward": int(ok),
                "path_says": int(v),
                "path_score": r.metrics["path_score"],
                "reason": _reason(r, run),
            }
            for r, run, v, ok in zip(results, runs, verdicts, reward, strict=True)
            if v != ok
        ]
        agreement[criterion.name] = {
            "meaning": criterion.meaning,
            "agreement": 1 - len(disagree) / len(results),
            "path_pass_reward_0": sum(1 for d in disagree if d["path_says"]),
            "path_fail_reward_1": sum(1 for d in disagree if not d["path_says"]),
            "disagreements": disagree,
        }
    means_by_reward = {
        name: {
            str(flag): _mean(
                [r.metrics[name] for r, ok in zip(results, reward, strict=True) if ok == flag]
            )
            for flag in (1, 0)
        }
        for name in PATH_METRICS
    }
    defects = Counter(d.kind for r in results for d in r.defects)
    sign = {"missing_steps": -1.0, "redundant_steps": -1.0}
    aucs = {
        name: auc([sign.get(name, 1.0) * float(r.metrics[name] or 0.0) for r in results], reward)
        for name in PATH_METRICS
    }
    return {
        "runs": len(results),
        "cases": len(by_id),
        "mean_reward": sum(reward) / len(reward),
        "pass^k": {k: round(v, 4) for k, v in passk["pass^k"].items()},
        "metrics": {name: summary[name] for name in PATH_METRICS},
        "matching": "lenient" if lenient else "exact",
        "metrics_by_reward": means_by_reward,
        "auc": aucs,
        "defects": dict(sorted(defects.items())),
        "agreement": agreement,
    }


def _mean(values: Sequence[Any]) -> float | None:
    known = [float(v) for v in values if v is not None]
    return sum(known) / len(known) if known else None


def render(doc: dict[str, Any]) -> str:
    lines = [
        f"{doc['runs']} runs, {doc['cases']} tasks; mean reward {doc['mean_reward']:.2f}",
        "pass^k (recorded reward): "
        + ", ".join(f"k={k}: {v:.4f}" for k, v in doc["pass^k"].items()),
        "",
        f"argument matching: {doc['matching']}",
        f"{'metric':22} {'all':>8} {'reward=1':>9} {'reward=0':>9} {'AUC':>6}",
    ]
    for name, value in doc["metrics"].items():
        split = doc["metrics_by_reward"][name]
        lines.append(
            f"{name:22} {value:8.3f} {split['1']:9.3f} {split['0']:9.3f} {doc['auc'][name]:6.3f}"
        )
    lines += ["", "defects: " + ", ".join(f"{k} {v}" for k, v in doc["defects"].items()), ""]
    lines.append(
        f"{'criterion':16} {'agree':>6} {'path ok, reward 0':>18} {'path bad, reward 1':>19}"
    )
    for name, row in doc["agreement"].items():
        lines.append(
            f"{name:16} {row['agreement']:6.3f} {row['path_pass_reward_0']:18d}"
            f" {row['path_fail_reward_1']:19d}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    path = Path(args[0]) if args else RUNS
    cases, runs = cases_and_runs(path)
    docs = [report(cases, runs), report(cases, runs, lenient=True)]
    if "--json" in argv:
        sys.stdout.write(orjson.dumps(docs, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print("\n\n".join(render(doc) for doc in docs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
