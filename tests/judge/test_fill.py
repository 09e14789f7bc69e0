"""Filling labels from scripted verdicts, through the answer-layer metrics, with exact values.

Fixture: tests/data/judge (2 cases, 3 runs, chunk texts). The stub scripts every verdict:

* r1 (no claims): the judge extracts 4 claims (2 supported, 1 unsupported, 1 not verifiable)
  -> faithfulness 2/3; citations 0 (entails) and 1 (does not) -> with citation 2 never shown,
  citation precision 1/3; the citations name no claim -> citation recall 0/3; rubric
  correctness 2, completeness 1 (after a 500); goal reached.
* r2 (3 given claims, relabelled): supported, not verifiable, unsupported -> faithfulness 1/2;
  citation 0 entails, citation 1 is a judge_error (502 forever), citation 2 cites a version
  never shown -> precision 1/2 (the errored one is left out, never 0), recall 2/3;
  rubric correctness malformed twice -> judge_error (no score), completeness 2.
* r3 abstained; its goal is decided by the deterministic state match: nothing is judged.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.types import Case, Run
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.judge.cache import JudgeCache, Recording
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig
from pathgrade.judge.files import load_chunks
from pathgrade.judge.fill import FillOptions, FillResult, fill_runs, plan
from pathgrade.judge.summary import metric_means
from pathgrade.metrics.answer.layer import answer_layer

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"
SYS_CLAIMS = "Split the ANSWER"
SYS_SUPPORT = "Label the CLAIM"
SYS_ENTAIL = "You check citations"
SYS_RUBRIC = "You grade one dimension"
SYS_GOAL = "reached the goal"
R1 = "svc-2 ran out of memory after deploy 41."
R2 = "Deploy 41 leaked memory; restart per runbook."


def script(stub: Any, *, failures: bool = True) -> None:
    v = stub.verdict
    claims = [
        {"text": "svc-2 ran out of memory.", "label": "supported", "key": True},
        {"text": "It happened after deploy 41.", "label": "supported", "key": True},
        {"text": "Memory was the only cause.", "label": "unsupported", "key": True},
        {"text": "This is a common issue.", "label": "not_verifiable", "key": False},
    ]
    stub.on(R1, v({"claims": claims}), system=SYS_CLAIMS)
    stub.on(
        ("OOM killer", f"<claim>\n{R1}"), v({"entails": True, "reason": "log"}), system=SYS_ENTAIL
    )
    stub.on(("roll back", f"<claim>\n{R1}"), v({"entails": False}), system=SYS_ENTAIL)
    stub.on(
        ("<dimension>\ncorrectness", R1), v({"score": 2, "reason": "matches"}), system=SYS_RUBRIC
    )
    stub.on(
        ("<dimension>\ncompleteness", R1),
        stub.reply(status=500, body="flaky"),
        v({"score": 1}),
        system=SYS_RUBRIC,
    )
    stub.on(R1, v({"reached": True, "reason": "same cause"}), system=SYS_GOAL)
    stub.on("Deploy 41 leaked memory.", v({"label": "supported"}), system=SYS_SUPPORT)
    stub.on("The runbook says to restart.", v({"label": "not_verifiable"}), system=SYS_SUPPORT)
    stub.on("Memory use doubled.", v({"label": "unsupported"}), system=SYS_SUPPORT)
    stub.on("<claim>\nDeploy 41 leaked memory.", v({"entails": True}), system=SYS_ENTAIL)
    bad_entail = stub.reply(status=502, body="down") if failures else v({"entails": True})
    stub.on("<claim>\nThe runbook says to restart.", bad_entail, system=SYS_ENTAIL)
    bad_rubric = v({"score": 5}) if failures else v({"score": 1})
    stub.on(("<dimension>\ncorrectness", R2), bad_rubric, system=SYS_RUBRIC)
    stub.on(("<dimension>\ncompleteness", R2), v({"score": 2}), system=SYS_RUBRIC)


def inputs() -> tuple[dict[str, Case], list[Run]]:
    cases = {c.case_id: c for c in load_cases(DATA / "cases.jsonl").items}
    return cases, load_runs(DATA / "runs.jsonl", cases).items


def judge(
    stub: Any, api_key: str, cache: JudgeCache | None = None, recording: Recording | None = None
) -> tuple[FillResult, JudgeClient]:
    cases, runs = inputs()
    config = JudgeConfig(
        base_url=stub.url, model="judge-model", api_key=api_key, max_retries=2,
        backoff_base=0.001, backoff_max=0.002,
    )  # fmt: skip
    client = JudgeClient(config, cache=cache, recording=recording, rng=random.Random(0))

    async def go() -> FillResult:
        async with client:
            return await fill_runs(
                cases, runs, client, options=FillOptions(label_claims=True),
                chunks=load_chunks(DATA / "chunks.jsonl"),
            )  # fmt: skip

    return asyncio.run(go()), client


def test_plan_keeps_deterministic_checks_away_from_the_judge() -> None:
    cases, runs = inputs()
    tasks, skipped = plan(
        cases, runs, FillOptions(label_claims=True), load_chunks(DATA / "chunks.jsonl")
    )
    assert [t.item for t in tasks] == [
        "c1/r1/0:claims", "c1/r1/0:citation[0]", "c1/r1/0:citation[1]",
        "c1/r1/0:rubric.correctness", "c1/r1/0:rubric.completeness", "c1/r1/0:goal",
        "c1/r2/0:claims[0]", "c1/r2/0:claims[1]", "c1/r2/0:claims[2]",
        "c1/r2/0:citation[0]", "c1/r2/0:citation[1]",
        "c1/r2/0:rubric.correctness", "c1/r2/0:rubric.completeness",
    ]  # fmt: skip
    assert {s.item: s.reason for s in skipped} == {
        "c1/r1/0:citation[2]": "cited chunk was never shown (invalid by the deterministic check)",
        "c1/r2/0:citation[2]": "cited chunk was never shown (invalid by the deterministic check)",
        "c2/r3/0:claims": "run abstained or gave no answer",
        "c2/r3/0:rubric.correctness": "run abstained or gave no answer",
        "c2/r3/0:rubric.completeness": "run abstained or gave no answer",
        "c2/r3/0:goal": "decided by the deterministic state match",
    }
    goal = next(t for t in tasks if t.item == "c1/r1/0:goal").prompt.messages[-1]["content"]
    assert "it was OOM-killed after deploy 41" in goal  # the judge reads the gold answer
    assert "[log-9] 10:20 OOM killer" in goal  # and the gold evidence


def test_scripted_verdicts_give_exact_metrics(stub: Any, api_key: str) -> None:
    script(stub)
    result, client = judge(stub, api_key)
    cases, runs = inputs()
    r1, r2, r3 = result.runs
    assert runs[0].claims is None  # inputs are not changed
    m1 = answer_layer(cases["c1"], r1).metrics
    assert m1["faithfulness"] == pytest.approx(2 / 3)
    assert (m1["claims_supported"], m1["claims_unsupported"], m1["claims_unverifiable"]) == (
        2,
        1,
        1,
    )
    assert m1["citation_precision"] == pytest.approx(1 / 3)
    assert m1["citation_recall"] == 0.0
    assert (m1["rubric.correctness"], m1["rubric.completeness"]) == (2.0, 1.0)
    assert r1.success is True
    m2 = answer_layer(cases["c1"], r2).metrics
    assert m2["faithfulness"] == 0.5
    assert m2["citation_precision"] == 0.5
    assert m2["citation_recall"] == pytest.approx(2 / 3)
    assert "rubric.correctness" not in m2 and m2["rubric.completeness"] == 2.0
    assert [c.entails for c in r2.citations or ()] == [True, None, None]
    assert r3.model_dump(exclude={"metadata"}) == runs[2].model_dump(exclude={"metadata"})

    errors = {e.item: e.error for e in result.errors}
    assert errors == {
        "c1/r2/0:citation[1]": "HTTP 502: down (after 3 attempt(s))",
        "c1/r2/0:rubric.correctness": (
            "malformed verdict after one repair: 'score' must be one of [0.0, 1.0, 2.0], got 5"
        ),
    }
    assert r2.metadata["judge"]["errors"] == [
        {"item": item, "prompt": prompt, "judge_error": errors[item]}
        for item, prompt in (
            ("c1/r2/0:citation[1]", "entailment@1"),
            ("c1/r2/0:rubric.correctness", "rubric@1"),
        )
    ]
    assert r1.metadata["judge"]["mode"] == "live"
    assert r1.metadata["judge"]["reasons"]["c1/r1/0:goal"] == "same cause"

    means = metric_means(cases, result.runs)
    assert means["faithfulness"] == {
        "mean": pytest.approx(7 / 12), "n": 2, "undefined": 0, "not_computed": 1
    }  # fmt: skip
    assert means["citation_precision"]["mean"] == pytest.approx(5 / 12)
    assert means["citation_recall"]["mean"] == pytest.approx(1 / 3)
    assert means["rubric.correctness"] == {"mean": 2.0, "n": 1, "undefined": 0, "not_computed": 0}
    assert means["rubric.completeness"]["mean"] == 1.5
    assert means["goal_success"] == {"mean": 1.0, "n": 2, "undefined": 0, "not_computed": 1}

    # 13 first tries + 1 retry (500) + 2 retries (502) + 1 repair = 17 requests
    assert client.stats.items == 13 and client.stats.errors == 2
    assert (client.stats.retries, client.stats.repairs) == (3, 1)
    assert len(stub.requests) == client.stats.requests == 13 + 1 + 2 + 1
    assert client.stats.prompt_tokens == 100 * 13  # usage of the 13 replies with status 200


def test_second_run_makes_no_request(stub: Any, api_key: str, tmp_path: Path) -> None:
    script(stub, failures=False)
    first, _ = judge(stub, api_key, JudgeCache(tmp_path / "cache"))
    assert len(stub.requests) == 14  # 13 items, one 500 retried
    stub.reset()
    cache = JudgeCache(tmp_path / "cache")
    second, _ = judge(stub, api_key, cache)
    assert stub.requests == []
    assert cache.stats() == {
        "directory": str(tmp_path / "cache"), "hits": 13, "misses": 0, "writes": 0, "hit_rate": 1.0
    }  # fmt: skip
    strip = {"metadata"}
    assert [r.model_dump(exclude=strip) for r in second.runs] == [
        r.model_dump(exclude=strip) for r in first.runs
    ]
    assert second.runs[0].metadata["judge"]["sources"] == ["cache"]


def test_errors_are_not_cached(stub: Any, api_key: str, tmp_path: Path) -> None:
    script(stub)
    judge(stub, api_key, JudgeCache(tmp_path / "cache"))
    stub.reset()
    cache = JudgeCache(tmp_path / "cache")
    result, _ = judge(stub, api_key, cache)
    assert (cache.hits, cache.misses) == (11, 2)
    assert len(stub.requests) == 3 + 2  # the 502 item (3 attempts), the malformed one (2)
    assert len(result.errors) == 2


def test_offline_replays_a_recording(stub: Any, api_key: str, tmp_path: Path) -> None:
    script(stub, failures=False)
    live, _ = judge(stub, api_key)
    stub.reset()
    recording = Recording(by_key={r["key"]: r for r in live.recording()})
    replayed, client = judge(stub, api_key, recording=recording)
    assert stub.requests == [] and client.stats.requests == 0
    assert replayed.offline and client.stats.offline == 13
    strip = {"metadata"}
    assert [r.model_dump(exclude=strip) for r in replayed.runs] == [
        r.model_dump(exclude=strip) for r in live.runs
    ]
    assert {r.metadata["judge"]["mode"] for r in replayed.runs} == {"offline"}


def test_offline_without_a_verdict_is_a_judge_error(stub: Any, api_key: str) -> None:
    recording = Recording(
        by_item={"c1/r1/0:goal": {"item": "c1/r1/0:goal", "verdict": {"reached": False}}}
    )
    result, _ = judge(stub, api_key, recording=recording)
    assert result.runs[0].success is False
    assert len(result.errors) == 12
    assert {e.error for e in result.errors} == {"offline: no recorded verdict"}
    assert stub.requests == []
