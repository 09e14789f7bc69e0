"""A failed goal judgement leaves ``goal_success`` undefined and counted, never a fallback 0.

The stub fails the goal call of run c1/r1 (HTTP 400, not retried). Run r1's answer does not
match c1's gold answer as a string, so the old fallback (the gold-answer string match) scored
it 0: goal_success over the three runs was (0 + 1 + 0) / 3 = 0.333 while the judge summary
said 1.0.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.core.judged import judgement_failed
from pathgrade.core.types import Case, Run
from pathgrade.io.cases import load_runs
from pathgrade.metrics.answer.layer import answer_correct
from pathgrade.metrics.trajectory import runlevel
from pathgrade.metrics.trajectory.definition import checks

from .test_judge_cli import DATA, script


def test_failed_goal_judgement_is_undefined_in_judge_and_score(
    stub: Any,
    api_key: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    script(stub)
    stub.on("", stub.reply(status=400, body="bad request"), system="reached the goal")
    monkeypatch.setenv("PATHGRADE_JUDGE_API_KEY", api_key)
    judged = tmp_path / "judged.jsonl"
    args = [
        "judge", str(DATA / "cases.jsonl"), str(DATA / "runs.jsonl"), "-o", str(judged),
        "--chunks", str(DATA / "chunks.jsonl"), "--base-url", stub.url, "--model", "m",
        "--max-retries", "0", "--json",
    ]  # fmt: skip
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    goal_errors = [e for e in doc["errors"] if e["item"].endswith(":goal")]
    assert [e["item"] for e in goal_errors] == ["c1/r1/0:goal"]  # only r1 is asked (r2 says)
    assert doc["judge_errors"] == len(doc["errors"]) >= 1
    # goal_success: r2 recorded True (mean 1.0 over n=1); r1's judgement failed (undefined 1);
    # r3 is left to the state match (not computed 1).
    assert doc["metrics"]["goal_success"] == {
        "mean": 1.0, "n": 1, "undefined": 1, "not_computed": 1,
    }  # fmt: skip

    runs = load_runs(judged).items
    assert runs[0].success is None and runs[0].metadata["judge"]["failed"] == ["goal"]
    assert judgement_failed(runs[0], "goal") and not judgement_failed(runs[1], "goal")

    assert main(["score", str(DATA / "cases.jsonl"), str(judged), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    goals = [r["metrics"]["goal_success"] for r in scored["results"]]
    # r1 undefined (was False through the fallback); r2 True (recorded); r3 False (it
    # abstained on a case with a gold answer: the deterministic rule, unchanged).
    assert goals == [None, True, False]
    assert scored["summary"]["goal_success"] == pytest.approx(0.5)  # (1 + 0) / 2
    assert scored["summary"]["undefined"]["goal_success"] == 1


def _case() -> Case:
    return Case(case_id="c", gold_answer="forty-two")


def _run(failed: list[str] | None, success: bool | None = None) -> Run:
    metadata = {"judge": {"failed": failed}} if failed is not None else {}
    return Run(case_id="c", answer="something else", success=success, metadata=metadata)


@pytest.mark.parametrize("goal", [runlevel.goal_success, checks.goal_success])
def test_goal_success_kernels_do_not_fall_back_after_a_failed_judgement(goal: Any) -> None:
    case = _case()
    assert goal(_run(None), case) == 0.0  # no judgement: the gold-answer match decides
    assert goal(_run(["rubric.x"]), case) == 0.0  # another label failed: still decided
    assert math.isnan(goal(_run(["goal"]), case))  # the goal judgement failed: undefined
    assert goal(_run(["goal"], success=True), case) == 1.0  # a recorded success wins


def test_answer_correct_is_unknown_after_a_failed_goal_judgement() -> None:
    case = _case()
    assert answer_correct(case, _run(None)) is False
    assert answer_correct(case, _run(["goal"])) is None
    assert answer_correct(case, _run(["goal"], success=False)) is False


def test_malformed_failed_marks_are_ignored() -> None:
    for metadata in ({"judge": "x"}, {"judge": {"failed": "goal"}}, {"judge": {"failed": [1]}}):
        run = Run(case_id="c", answer="a", metadata=metadata)
        assert not judgement_failed(run, "goal")
