"""``pathgrade judge`` end to end against the stub: output, cache, offline, and no key anywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.io.cases import load_runs

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"
CLAIMS = [
    {"text": "svc-2 ran out of memory.", "label": "supported", "key": True},
    {"text": "It was deploy 41.", "label": "unsupported", "key": True},
]


def script(stub: Any) -> None:
    v = stub.verdict
    stub.on("", v({"claims": CLAIMS}), system="Split the ANSWER")
    stub.on("", v({"label": "supported"}), system="Label the CLAIM")
    stub.on("", v({"entails": True}), system="You check citations")
    stub.on("", v({"score": 2}), system="You grade one dimension")
    stub.on("", v({"reached": True}), system="reached the goal")
    stub.on("", v({"reasoning": "fine", "accurate": False}), system="agent trajectories")


def argv(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "judge", str(DATA / "cases.jsonl"), str(DATA / "runs.jsonl"),
        "-o", str(tmp_path / "judged.jsonl"), "--chunks", str(DATA / "chunks.jsonl"),
        "--label-claims", "--backoff", "0.001", *extra,
    ]  # fmt: skip


def every_artefact(tmp_path: Path) -> list[Path]:
    return [p for p in tmp_path.rglob("*") if p.is_file()]


def test_judge_cache_offline_and_no_key_anywhere(
    stub: Any,
    api_key: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    script(stub)
    monkeypatch.setenv("PATHGRADE_JUDGE_BASE_URL", stub.url)
    monkeypatch.setenv("PATHGRADE_JUDGE_MODEL", "judge-model")
    monkeypatch.setenv("PATHGRADE_JUDGE_API_KEY", api_key)
    cache = str(tmp_path / "cache")
    outputs: list[str] = []

    first = argv(tmp_path, "--cache", cache, "--record", str(tmp_path / "rec.jsonl"), "--json")
    assert main([*first, "--log", str(tmp_path / "calls.jsonl"), "--trajectory"]) == 0
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err]
    doc = json.loads(captured.out)
    assert doc["mode"] == "live" and "notice" not in doc
    assert (doc["items"], doc["judged"], doc["judge_errors"]) == (14, 14, 0)
    assert doc["calls"]["requests"] == 14 and len(stub.requests) == 14
    assert doc["cache"]["hit_rate"] == 0.0 and doc["cache"]["writes"] == 14
    assert doc["calls"]["fingerprints"] == ["fp_stub_1"]
    assert doc["judged_trajectory"] == {"accurate_rate": 0.0, "n": 1}
    assert "trajectory" not in doc["metrics"]  # judged apart from the path metrics
    assert doc["metrics"]["rubric.correctness"]["mean"] == 2.0
    assert all(r["headers"]["Authorization"] == f"Bearer {api_key}" for r in stub.requests)
    judged = load_runs(tmp_path / "judged.jsonl").items
    assert [len(r.claims or ()) for r in judged] == [2, 3, 0]
    calls = [json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 14 and {c["system_fingerprint"] for c in calls} == {"fp_stub_1"}

    stub.reset()  # the second run is served from the cache
    assert main([*argv(tmp_path, "--cache", cache, "--trajectory"), "--json"]) == 0
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err]
    again = json.loads(captured.out)
    assert stub.requests == [] and again["calls"]["requests"] == 0
    assert again["cache"]["hit_rate"] == 1.0 and again["sources"] == {"cache": 14}

    # offline: no endpoint configured at all; recorded verdicts replace calls
    monkeypatch.delenv("PATHGRADE_JUDGE_BASE_URL")
    monkeypatch.delenv("PATHGRADE_JUDGE_MODEL")
    offline = ["--offline", str(tmp_path / "rec.jsonl"), "-o", str(tmp_path / "offline.jsonl")]
    assert main([*argv(tmp_path), *offline, "--trajectory"]) == 0
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err]
    assert captured.out.startswith("OFFLINE: recorded verdicts were replayed")
    assert "judge_error 0" in captured.out
    replayed = load_runs(tmp_path / "offline.jsonl").items
    assert {r.metadata["judge"]["mode"] for r in replayed} == {"offline"}
    assert [r.model_dump(exclude={"metadata"}) for r in replayed] == [
        r.model_dump(exclude={"metadata"}) for r in judged
    ]
    assert main([*argv(tmp_path), *offline, "--json"]) == 0
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err]
    assert json.loads(captured.out)["notice"].startswith("OFFLINE")
    assert stub.requests == []

    files = every_artefact(tmp_path)
    names = {p.name for p in files}
    assert {"judged.jsonl", "offline.jsonl", "rec.jsonl", "calls.jsonl"} <= names
    assert len([p for p in files if p.parent.parent.name == "cache"]) == 14
    for path in files:
        assert api_key.encode() not in path.read_bytes(), path
    for text in outputs:
        assert api_key not in text


def test_judge_errors_are_reported_not_scored(
    stub: Any,
    api_key: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    script(stub)
    stub.on("", stub.reply(status=503, body="overloaded"), system="You grade one dimension")
    monkeypatch.setenv("PATHGRADE_JUDGE_API_KEY", api_key)
    base = ["--base-url", stub.url, "--model", "m", "--max-retries", "1"]
    assert main([*argv(tmp_path), *base]) == 0
    text = capsys.readouterr().out
    assert "judge_error 4" in text
    assert (
        "judge_error c1/r1/0:rubric.correctness: HTTP 503: overloaded (after 2 attempt(s))" in text
    )
    judged = load_runs(tmp_path / "judged.jsonl").items
    assert [r.rubric for r in judged] == [None, None, None]  # never a 0
    assert api_key not in text


def test_missing_endpoint_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("PATHGRADE_JUDGE_BASE_URL", "PATHGRADE_JUDGE_MODEL", "PATHGRADE_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert main(argv(tmp_path)) == 2
    assert capsys.readouterr().err.strip() == (
        "pathgrade: error: field 'judge.base_url': no judge base url: pass it or set"
        " PATHGRADE_JUDGE_BASE_URL"
    )
    assert not (tmp_path / "judged.jsonl").exists()
