"""What the report computes for issue 21: step marks, defect counts, side-by-side pairs,
pass@k from records, and the history of stored runs (no browser here)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.errors import InputError
from pathgrade.report.html import render_html
from pathgrade.reporting import (
    LoadedRun,
    build_history,
    build_report,
    history_report,
    load_run,
)
from pathgrade.reporting.cases import case_rows, defect_rows, step_flags
from pathgrade.reporting.pairs import case_pairs, path_pair
from pathgrade.stats.bootstrap import case_mean_interval
from pathgrade.store import RunStore

from .conftest import CLOSE, IMG, SCRIPT, result_record, write_records
from .trust_data import flagged_store, history_store, trials_results


def _defect(kind: str, agent_step: int | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "penalty": 10.0, "detail": kind, **extra}
    if agent_step is not None:
        out["agent_step"] = agent_step
    return out


def test_step_flags_from_defects_dangerous_tools_and_failed_steps() -> None:
    record = {
        "defects": [
            _defect("unexpected_write", 2),
            _defect("forbidden_action", 2),  # one step, two flags: most severe first
            _defect("wasted_step", 3),
            _defect("missing_step", reference_step=0),  # names no agent step: no flag
        ]
    }
    tools = {0: "search", 1: "wire_money", 2: "delete", 3: "search", 4: "wire_money"}
    assert step_flags(record, tools, {"wire_money"}, failed=[3]) == {
        "1": ["dangerous"],  # a dangerous false positive is not an approval defect
        "2": ["forbidden", "write"],
        "3": ["failed", "wasted"],
        "4": ["dangerous"],
    }
    assert step_flags({"defects": []}, tools) == {}
    approvals = {
        "defects": [_defect("unapproved_action", 1), _defect("denied_action_performed", 4)]
    }
    assert step_flags(approvals, tools, {"wire_money"}) == {
        "1": ["unapproved", "dangerous"],
        "4": ["unapproved", "dangerous"],
    }


def test_flags_reach_the_case_rows_from_a_stored_run(tmp_path: Path) -> None:
    run = RunStore(tmp_path).load(flagged_store(tmp_path))
    (row,) = case_rows(run.records, run.traces, run.manifest.summary)
    # trust_data.flagged_store: 1 delete_account, 2 cancel, 4 the failed lookup, 5 wire_money
    # (dangerous), 6 transfer (no approval); 3 lookup unmarked
    assert row["flags"] == {
        "1": ["forbidden"],
        "2": ["write"],
        "4": ["error", "failed"],
        "5": ["dangerous"],
        "6": ["unapproved"],
    }
    # without the summary and the trace (a results file): the defects' marks only
    (bare,) = case_rows(run.records, [None], {})
    assert bare["flags"] == {
        "1": ["forbidden"],
        "2": ["write"],
        "4": ["error"],
        "6": ["unapproved"],
    }


def test_defect_rows_count_defects_runs_and_cases() -> None:
    records = [
        {"case_id": "a", "defects": [_defect("unexpected_write", j) for j in range(6)]},
        {"case_id": "a", "defects": [_defect("missing_step"), _defect("unexpected_write", 0)]},
        {"case_id": "b", "defects": [_defect("missing_step")]},
        {"case_id": "c", "defects": []},
    ]
    rows = defect_rows(records)
    # unexpected_write: 6 + 1 = 7 defects in 2 runs of 1 case, 7 * 10 points
    assert [(r.kind, r.count, r.runs, r.cases, r.penalty, r.flag) for r in rows] == [
        ("unexpected_write", 7, 2, 1, 70.0, "write"),
        ("missing_step", 2, 2, 2, 20.0, ""),
    ]


def _side(steps: list[dict[str, Any]], defects: list[dict[str, Any]]) -> Any:
    record = {"case_id": "c", "trial": 0, "defects": defects, "alignment": []}
    return record, {"steps": steps}, {}


def test_path_pair_aligns_the_two_paths_to_each_other() -> None:
    base = [
        {"tool": "search", "arguments": {"q": 1}},
        {"tool": "lookup", "arguments": {"id": 2}},
        {"tool": "refund", "arguments": {"o": 1}},
    ]
    var = [
        {"tool": "search", "arguments": {"q": 1}},
        {"tool": "delete", "arguments": {}},
        {"tool": "refund", "arguments": {"o": 2}},
        {"tool": "notify", "arguments": {}},
    ]
    pair = path_pair(
        _side(base, [_defect("missing_step")]),
        _side(var, [_defect("forbidden_action", 1), _defect("unexpected_write", 3)]),
    )
    # tools: search, lookup, refund vs search, delete, refund, notify: one substitution and
    # one insertion (Levenshtein 2); refund pairs with other arguments
    assert [(r["op"], r["b"], r["v"]) for r in pair["rows"]] == [
        ("same", 0, 0),
        ("replaced", 1, 1),
        ("changed", 2, 2),
        ("added", None, 3),
    ]
    assert pair["variant"]["flags"] == {"1": ["forbidden"], "3": ["write"]}
    assert pair["defects"] == [  # most added first
        {"kind": "forbidden_action", "baseline": 0, "variant": 1},
        {"kind": "unexpected_write", "baseline": 0, "variant": 1},
        {"kind": "missing_step", "baseline": 1, "variant": 0},
    ]


def test_pairs_without_traces_use_the_recorded_step_texts() -> None:
    def record(agent: list[str], trial: int) -> dict[str, Any]:
        alignment = [{"op": "insertion", "agent_step": j, "agent": a} for j, a in enumerate(agent)]
        return {
            "case_id": "c",
            "trial": trial,
            "metrics": {"path_score": 50.0},
            "alignment": alignment,
        }

    baseline = LoadedRun("b", [record(["a(x=1)"], 0), record(["a(x=1)", "b"], 1)], [None] * 2, None)
    variant = LoadedRun("v", [record(["a(x=2)", "b"], 1)], [None], None)
    pairs = case_pairs(baseline, variant, [0], "path_score")
    # the variant's trial 1 pairs with the baseline's trial 1 (row 1), not its first row
    assert [(r["op"], r["b"], r["v"]) for r in pairs["0"]["rows"]] == [
        ("changed", 0, 0),
        ("same", 1, 1),
    ]
    assert pairs["0"]["baseline"]["trial"] == 1 and pairs["0"]["baseline_value"] == 50.0


def test_pass_at_k_is_computed_from_records_when_no_summary(tmp_path: Path) -> None:
    run = load_run(trials_results(tmp_path))  # a results file: no stored summary
    records = run.records
    data = build_report(run, resamples=50)
    # worked out in trust_data.trials_results
    assert [(r.k, round(r.pass_at or 0, 4), round(r.pass_hat or 0, 4)) for r in data.trials] == [
        (1, 0.6, 0.6),
        (2, 0.7333, 0.4667),
        (3, 0.8, 0.4),
    ]
    assert data.trial_info is not None and data.trial_info["cases"] == 5
    repeated = [*records, {**records[0]}]  # a repeated (case_id, trial): not trials
    again = build_report(LoadedRun("t", repeated, [None] * len(repeated), None), resamples=50)
    assert again.trials == []


def test_history_numbers_are_the_case_summaries(tmp_path: Path) -> None:
    names = history_store(tmp_path)
    data = build_history(names, store=tmp_path, resamples=300, seed=4)
    assert [m.metric for m in data.metrics] == [
        "path_score",
        "composite",
        "tool_accuracy",
        "argument_accuracy",
    ]
    path = data.metrics[0]
    assert [p.mean for p in path.points] == [87.5, 93.75, 87.5]  # trust_data.history_store
    records = RunStore(tmp_path).load("h2").records
    expected = case_mean_interval(
        [r["metrics"]["path_score"] for r in records],
        [r["case_id"] for r in records],
        resamples=300,
        rng=4,
    )
    assert (path.points[1].low, path.points[1].high) == (expected.low, expected.high)
    assert [r.scoring_changed is not None for r in data.runs] == [False, False, True]
    assert data.runs[0].labels == {"commit": "h1"} and data.runs[0].n_cases == 4


def test_history_errors_are_one_line(tmp_path: Path) -> None:
    names = history_store(tmp_path)
    with pytest.raises(InputError, match="at least one run"):
        build_history([], store=tmp_path)
    with pytest.raises(InputError, match="named twice: h1"):
        build_history(["h1", "h1"], store=tmp_path)
    with pytest.raises(InputError, match="no run has metric"):
        build_history(names, store=tmp_path, metrics=["ndcg@10"])
    with pytest.raises(InputError):
        build_history(["nope"], store=tmp_path)


def test_history_page_escapes_names_and_is_written(tmp_path: Path) -> None:
    folder = tmp_path / IMG.replace("/", "_")
    folder.mkdir()
    a = write_records(folder / "a.jsonl", [result_record("c1", None, path_score=100.0)])
    b = write_records(folder / "b.jsonl", [result_record("c1", None, path_score=50.0)])
    out = tmp_path / "history.html"
    page = history_report([a, b], out=out, resamples=50)
    assert out.read_text("utf-8") == page
    assert "<img" not in page and "&lt;img" in page
    assert "script-src 'none'" in page and "<script" not in page
    assert re.search(r"<td class=\"num\">100.0</td>.*<td class=\"num\">50.0</td>", page, re.S)


def test_side_by_side_paths_are_escaped_on_the_page() -> None:
    def run(score: float, tool: str) -> tuple[dict[str, Any], dict[str, Any]]:
        record = {
            "case_id": IMG,
            "trial": 0,
            "metrics": {"path_score": score},
            "defects": [_defect("forbidden_action", 0)],
            "alignment": [],
        }
        return record, {"steps": [{"tool": tool, "arguments": {SCRIPT: CLOSE}}]}

    (b_rec, b_trace), (v_rec, v_trace) = run(100.0, "search"), run(50.0, CLOSE)
    data = build_report(
        LoadedRun("v", [v_rec], [v_trace], None),
        LoadedRun("b", [b_rec], [b_trace], None),
        resamples=50,
    )
    assert [c.case_id for c in data.worse] == [IMG] and list(data.pairs) == ["0"]
    page = render_html(data)
    for payload in (SCRIPT, IMG, CLOSE):
        assert payload not in page
    blob = re.search(r'id="pathgrade-data">(.*?)</script>', page)
    assert blob is not None
    pair = json.loads(blob.group(1))["pairs"]["0"]
    assert pair["variant"]["steps"][0]["tool"] == CLOSE  # intact, as text for the script
    assert [r["op"] for r in pair["rows"]] == ["replaced"]
