"""Small suites for the report's issue-21 checks: numbers, step marks, trials, widths, history.

Each builder writes results files or stored runs under a folder and returns what the tests
open; the expected values are worked out in the docstrings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.store import save_scored

from .conftest import result_record, write_records

#: The values of issue 21 that the old page printed wrongly, and how they must read now.
NUMBERS = {1750.001: "1,750", 999.99: "1,000", 0.000123: "0.000123", 1e9: "1,000,000,000"}


def numbers_results(folder: Path) -> str:
    """Four cases, one per value of :data:`NUMBERS`, as ``path_score`` and as latency."""
    records = []
    for i, value in enumerate(NUMBERS):
        record = result_record(f"n{i}", None, path_score=value)
        record["usage"] = {"steps": 1, "latency_ms": value}
        records.append(record)
    return write_records(folder / "numbers.jsonl", records)


def flagged_store(store: Path) -> str:
    """One run whose path has a forbidden, an unapproved, a dangerous, a failed, an
    unexpected-write and a harmless extra step, stored with traces and its summary.

    Reference: search(q=x), refund(o=1). Agent: 0 search(q=x) (match), 1 delete_account
    (forbidden tool), 2 cancel (a write: unexpected), 3 lookup (extra read: no defect),
    4 lookup(id=2) (returned an error and was never retried: failed, unrecovered_error),
    5 wire_money (dangerous, the reference
    never calls it: the tool layer's dangerous false positive), 6 transfer (needs an approval,
    none was asked: unapproved_action), 7 refund(o=1) (match).
    """
    case = Case(
        case_id="flags-1",
        reference=[
            {"tool": "search", "arguments": {"q": "x"}},
            {"tool": "refund", "arguments": {"o": 1}},
        ],
        forbidden_tools=["delete_account"],
        tool_kinds={"cancel": "write", "refund": "write"},
        requires_approval=["transfer"],
    )
    run = Run(
        case_id="flags-1",
        run_id="r",
        steps=[
            {"tool": "search", "arguments": {"q": "x"}},
            {"tool": "delete_account", "arguments": {"user": 7}},
            {"tool": "cancel", "arguments": {}},
            {"tool": "lookup", "arguments": {"id": 1}},
            {"tool": "lookup", "arguments": {"id": 2}, "error": "timeout"},
            {"tool": "wire_money", "arguments": {"to": "acct"}},
            {"tool": "transfer", "arguments": {"to": "acct"}},
            {"tool": "refund", "arguments": {"o": 1}},
        ],
    )
    config = ScoringConfig(dangerous_tools=("wire_money",))
    cases = {case.case_id: case}
    save_scored(score(cases, [run], config), name="flags", runs=[run], cases=cases, store=store)
    return "flags"


def trials_results(folder: Path) -> str:
    """Five cases of three trials with 0, 1, 2, 3 and 3 successes (``c``; ``n`` = 3).

    pass@k = mean of 1 - C(3 - c, k) / C(3, k); pass^k = mean of C(c, k) / C(3, k):

    * k = 1: both (0 + 1/3 + 2/3 + 1 + 1) / 5 = 0.6;
    * k = 2: pass@2 = (0 + 2/3 + 1 + 1 + 1) / 5 = 11/15 = 0.7333;
      pass^2 = (0 + 0 + 1/3 + 1 + 1) / 5 = 7/15 = 0.4667;
    * k = 3: pass@3 = 4/5 = 0.8; pass^3 = 2/5 = 0.4.
    """
    records = []
    for i, successes in enumerate((0, 1, 2, 3, 3)):
        for trial in range(3):
            ok = trial < successes
            records.append(result_record(f"t{i}", None, trial, goal_success=ok, path_score=50.0))
    return write_records(folder / "trials.jsonl", records)


#: A case id and a run id far wider than any window.
LONG_CASE = "case-" + "x" * 400
LONG_RUN = "run-" + "y" * 300


def wide_results(folder: Path) -> str:
    """Long ids, and a run with six unexpected writes and one missing step (aggregated on the
    page as ``unexpected_write ×6, missing_step``)."""
    defects: list[dict[str, Any]] = [
        {"kind": "unexpected_write", "penalty": 25.0, "detail": f"w{j}", "agent_step": j}
        for j in range(6)
    ]
    defects.append({"kind": "missing_step", "penalty": 25.0, "detail": "m", "reference_step": 0})
    record = result_record(LONG_CASE, "g" * 200, path_score=0.0)
    record["run_id"] = LONG_RUN
    record["defects"] = defects
    other = result_record("short", None, path_score=100.0)
    name = "wide-" + "z" * 180 + ".jsonl"  # the run's name on the page: its file name
    return write_records(folder / name, [record, other])


def history_store(store: Path) -> list[str]:
    """Three stored runs of the same four cases, the third scored with another penalty
    (so it is marked as scored differently from the one before it).

    Each case's reference is a(), b(); a run's agent path is a(), b() or only a() (a
    missing step: path_score 75 by the default penalty 25, or 50 under the changed config
    with missing_step = 50). h1: 2 of 4 cases miss a step: mean path_score (100 + 100 + 75
    + 75) / 4 = 87.5; h2: 1 of 4: (300 + 75) / 4 = 93.75; h3 (penalty 50): 1 of 4:
    (300 + 50) / 4 = 87.5.
    """
    cases = {f"h{i}": Case(case_id=f"h{i}", reference=["a", "b"]) for i in range(4)}
    names = []
    for name, misses, config in (
        ("h1", 2, ScoringConfig()),
        ("h2", 1, ScoringConfig()),
        ("h3", 1, ScoringConfig.model_validate({"penalties": {"missing_step": 50}})),
    ):
        runs = [Run(case_id=f"h{i}", steps=["a"] if i < misses else ["a", "b"]) for i in range(4)]
        result = score(cases, runs, config)
        save_scored(
            result, name=name, runs=runs, cases=cases, config=config, store=store,
            labels={"commit": name},
        )  # fmt: skip
        names.append(name)
    return names
