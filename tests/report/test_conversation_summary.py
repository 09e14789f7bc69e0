"""The report's Conversations section: pass^k of conversation_success and where trials
diverge, from the stored run summary (docs/conversations.md, "Over trials"); case ids escaped."""

from __future__ import annotations

import re
from pathlib import Path

from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.report.html import render_html
from pathgrade.reporting import build_report, load_run
from pathgrade.store import save_scored

ODD = "<b>odd</b>"


def _run(case_id: str, trial: int, reply: str) -> Run:
    return Run.model_validate(
        {"case_id": case_id, "trial": trial,
         "turns": [{"user": "hi", "reply": "hello"}, {"user": "W1?", "reply": reply}]}
    )  # fmt: skip


def test_pass_hat_k_and_divergence(tmp_path: Path) -> None:
    goal = {"instructions": "x", "required_info": ["refunded"]}
    cases = [Case.model_validate({"case_id": c, "user": goal}) for c in ("same", ODD)]
    runs = [
        _run("same", 0, "refunded"),
        _run("same", 1, "refunded"),
        _run(ODD, 0, "refunded"),
        _run(ODD, 1, "sorry, no"),  # differs at turn 2 and fails
    ]
    by_id = {c.case_id: c for c in cases}
    save_scored(score(cases, runs), name="p", runs=runs, cases=by_id, store=tmp_path)
    html = render_html(build_report(load_run("p", tmp_path), resamples=20))
    section = html[html.index('id="conversations-title"') : html.index('id="divergence"') + 600]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", section))
    assert "Conversations (4 runs, 2 turns on average, at most 2)" in text
    # pass^1 = (2/2 + 1/2) / 2 = 0.75; pass^2 = (1 + 0) / 2 = 0.5 (pass@2 = 1)
    assert " k pass^k pass@k 1 0.75 0.75 2 0.5 1 " in text
    assert "Trials diverge in 1 of 2 cases; the first divergent turn: turn 2 in 1 case." in text
    assert ODD not in html and "&lt;b&gt;odd&lt;/b&gt;" in section
