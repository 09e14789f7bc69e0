"""``pathgrade ablation``: JSON document, table, mismatched case sets, missing metric."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.cli.main import main

# (r0, ra, rb, rab) per case: the hand-computed example of tests/stats/test_ablation.py
# (main A 1, main B 2, interaction -2), with goal_success constant (all cases pass).
HAND = {
    "c1": (0.0, 1.0, 3.0, 0.0),
    "c2": (1.0, 4.0, 4.0, 5.0),
    "c3": (2.0, 4.0, 4.0, 4.0),
    "c4": (1.0, 3.0, 5.0, 7.0),
}
ARMS = ("r0", "ra", "rb", "rab")


def record(case_id: str, score: float) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "case_id": case_id,
        "run_id": f"run-{case_id}",
        "trial": 0,
        "group": None,
        "reference_index": 0,
        "metrics": {"path_score": score, "goal_success": True},
        "defects": [],
        "usage": {"steps": 4, "tokens": 900, "cost": 0.02, "latency_ms": 100.0 + score},
    }


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    return [
        write(tmp_path / f"{arm}.jsonl", [record(c, v[k]) for c, v in HAND.items()])
        for k, arm in enumerate(ARMS)
    ]


def argv(files: list[Path]) -> list[str]:
    out = ["ablation"]
    for flag, path in zip(("--baseline", "--a", "--b", "--ab"), files, strict=True):
        out += [flag, str(path)]
    return out


def test_json_document(files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv(files), "-m", "path_score", "--json", "--resamples", "2000"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert set(doc) == {
        *("cases", "family_size", "metrics", "settings", "arms"),
        *("provenance", "changed_variables"),  # each arm's check against R0
    }
    assert doc["cases"] == 4 and doc["family_size"] == 3
    assert doc["arms"]["ab"] == str(files[3])
    assert doc["settings"] == {
        "confidence": 0.95,
        "resamples": 2000,
        "seed": 0,
        "ci_method": "percentile",
        "test": "sign_flip",
    }
    m = doc["metrics"]["path_score"]
    assert m["means"] == {"baseline": 1.0, "a": 3.0, "b": 4.0, "ab": 4.0}
    effects = m["effects"]
    assert [effects[k]["estimate"] for k in ("main_a", "main_b", "interaction")] == [1, 2, -2]
    assert effects["interaction"]["p_value"] == 0.25 and effects["interaction"]["p_holm"] == 0.5
    assert effects["simple_ab"]["p_holm"] is None
    assert m["primary"] is True and m["direction"] == "higher" and m["n"] == 4


def test_default_metrics_and_reproducible(
    files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv(files), "--json", "--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert main([*argv(files), "--json", "--seed", "3"]) == 0
    assert capsys.readouterr().out == first
    doc = orjson.loads(first)
    # every metric on all four sides; path_score and goal_success form the family
    assert {"path_score", "goal_success", "latency_ms"} <= set(doc["metrics"])
    assert doc["metrics"]["latency_ms"]["primary"] is False
    assert doc["family_size"] == 6
    # goal_success never changes: every effect 0, read as independent
    assert doc["metrics"]["goal_success"]["reading"] == (
        "A and B act independently (no detectable interaction)"
    )


def test_table(files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv(files), "-m", "path_score", "--resamples", "500"]) == 0
    out = capsys.readouterr().out
    assert "2x2 ablation: 4 cases" in out
    assert "main effect of A" in out and "B with A present (RAB - RA)" in out
    assert "path_score: no detectable interaction after correcting for 3 comparisons" in out


def test_case_sets_must_match(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = write(tmp_path / "short.jsonl", [record("c1", 1.0), record("c2", 1.0)])
    assert main([*argv([files[0], short, files[2], files[3]])]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == f"pathgrade: error: the four runs must cover the same cases: --a {short} lacks c3, c4"
    )


def test_missing_metric_and_missing_file(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv(files), "-m", "recall@5"]) == 2
    err = capsys.readouterr().err
    assert "recall@5" in err and str(files[0]) in err and err.count("\n") == 1
    assert main([*argv([files[0], tmp_path / "nope.jsonl", files[2], files[3]])]) == 2
    assert "nope.jsonl" in capsys.readouterr().err
