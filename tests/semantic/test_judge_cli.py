"""``judge`` argument matching through ``pathgrade score``: the judge built from the
``--judge-*`` options (a scripted judge on 127.0.0.1), verdicts and judge errors in the
records' ``fields``, a judge_error reported, never a match or a mismatch, and the cache:
a re-run asks only what failed, an offline replay makes no call at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.io.results import iter_results

from .test_judge_mode import REF, SCRIPT, _Judge

CONFIG = '[matching.tools.transfer]\nmode = "judge"\n'


@pytest.fixture(autouse=True)
def _no_judge_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PATHGRADE_JUDGE_BASE_URL", "PATHGRADE_JUDGE_MODEL", "PATHGRADE_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _files(tmp_path: Path, summaries: list[str]) -> list[str]:
    step = {"tool": "transfer", "arguments": {"summary": REF, "order_id": "#W1"}}
    (tmp_path / "cases.jsonl").write_text(json.dumps({"case_id": "c", "reference": [step]}))
    runs = [
        {"case_id": "c", "run_id": f"r{k}", "steps": [
            {"tool": "transfer", "arguments": {"summary": s, "order_id": "#W1"}}]}
        for k, s in enumerate(summaries)
    ]  # fmt: skip
    (tmp_path / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in runs))
    (tmp_path / "pathgrade.toml").write_text(CONFIG)
    return [
        "score", str(tmp_path / "cases.jsonl"), str(tmp_path / "runs.jsonl"),
        "--config", str(tmp_path / "pathgrade.toml"), "--json",
    ]  # fmt: skip


def _score(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    document: dict[str, Any] = json.loads(captured.out)
    return document


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    return capsys.readouterr().err


def _summary_fields(record: dict[str, Any]) -> dict[str, Any]:
    (entry,) = record["alignment"]
    return {f["field"]: f for f in entry["fields"]}


def test_score_cli_judges_with_cache_and_offline_replay(
    judge_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summaries = list(SCRIPT)  # equivalent, not equivalent, judge_error (HTTP 400)
    base = _files(tmp_path, summaries)
    judge = ["--judge-base-url", judge_url, "--judge-model", "scripted"]
    cache = ["--judge-cache", str(tmp_path / "verdicts")]
    out = tmp_path / "results.jsonl"
    first = _score([*base, *judge, *cache, "--out", str(out)], capsys)
    assert sorted(_Judge.asked) == sorted(summaries)  # each distinct pair asked once
    assert first["summary"]["argument_judge"] | {"base_url": None} == {
        "pairs": 3, "equivalent": 1, "not_equivalent": 1, "judge_errors": 1, "requests": 3,
        "cache_hits": 0, "offline": False, "model": "scripted", "base_url": None,
    }  # fmt: skip
    assert first["summary"]["argument_match_undefined"] == {"runs": 1, "pairs": 1}
    records = first["results"]
    yes, no, error = (_summary_fields(r) for r in records)
    assert yes["summary"]["mode"] == "judge" and yes["summary"]["match"] is True
    assert yes["summary"]["verdict"] is True and len(yes["summary"]["judge_id"]) == 64
    assert no["summary"]["verdict"] is False and no["summary"]["match"] is False
    # the judge failed: undefined, reported, neither a match nor a mismatch
    assert error["summary"]["match"] is None and "verdict" not in error["summary"]
    assert "HTTP 400" in error["summary"]["judge_error"]
    assert records[2]["metrics"]["path_score"] is None  # undefined, counted above
    # run 0 matches in full: 100; run 1's summary differs: substitution, 100 - 25 = 75
    assert [r["metrics"]["path_score"] for r in records[:2]] == [100.0, 75.0]
    # the id is never judged: equal after normalisation, decided by normalized
    assert yes["order_id"] == {"field": "order_id", "mode": "normalized", "match": True}
    # the results file reads back with the same fields
    assert [r["alignment"] for r in iter_results(out)] == [r["alignment"] for r in records]

    _Judge.asked.clear()  # a re-run: the two verdicts from the cache, the error asked again
    second = _score([*base, *judge, *cache], capsys)
    assert _Judge.asked == [summaries[2]]
    assert second["summary"]["argument_judge"]["cache_hits"] == 2
    assert [r["alignment"] for r in second["results"][:2]] == [r["alignment"] for r in records[:2]]

    _Judge.asked.clear()  # offline: cached verdicts replayed, no call; a miss is an error
    third = _score([*base, *judge, *cache, "--judge-offline"], capsys)
    assert _Judge.asked == []
    assert third["summary"]["argument_judge"]["requests"] == 0
    assert third["summary"]["argument_judge"]["offline"] is True
    offline_error = _summary_fields(third["results"][2])["summary"]
    assert offline_error["match"] is None and offline_error["judge_error"].startswith("offline")
    assert [r["alignment"] for r in third["results"][:2]] == [r["alignment"] for r in records[:2]]


def test_a_second_run_of_cached_verdicts_makes_no_call(
    judge_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _files(tmp_path, list(SCRIPT)[:2])
    args = [*base, "--judge-base-url", judge_url, "--judge-model", "scripted"]
    args += ["--judge-cache", str(tmp_path / "verdicts")]
    first = _score(args, capsys)
    assert len(_Judge.asked) == 2
    _Judge.asked.clear()
    second = _score(args, capsys)
    assert _Judge.asked == []  # zero calls
    assert second["summary"]["argument_judge"]["requests"] == 0
    assert second["summary"]["argument_judge"]["cache_hits"] == 2
    assert second["results"] == first["results"]


def test_judge_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _files(tmp_path, ["x"])
    assert "--judge-cache DIR" in _error([*base, "--judge-offline", "--judge-model", "m"], capsys)
    assert "PATHGRADE_JUDGE_BASE_URL" in _error(base, capsys)  # judge mode, no endpoint
    workers = _error([*base, "--judge-model", "m", "--workers", "2"], capsys)
    assert "judge matching is scored in memory" in workers
    (tmp_path / "pathgrade.toml").write_text("")  # no judge mode
    assert "the config has no judge mode" in _error([*base, "--judge-model", "m"], capsys)
