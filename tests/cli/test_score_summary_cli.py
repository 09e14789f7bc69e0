"""``pathgrade score``'s summary over cases (intervals, ``--by`` slices), on both paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.stats.bootstrap import case_mean_interval


def extras(i: int) -> list[int]:
    """Repeated steps of case i's three trials: they add up to i (each costs 10 points)."""
    third = i // 3
    return [third, third, i - 2 * third]


def write_inputs(folder: Path) -> tuple[str, str]:
    """12 cases x 3 trials, trials interleaved (trial 0 of every case, then trial 1, ...),
    so partitions of 5 runs split every case. Case i's path_score is 100 - 10 * extra in
    each trial, so its mean is 100 - 10 * i / 3 (12 distinct per-case means)."""
    cases, runs = [], []
    for i in range(12):
        metadata = {"tags": ["all", "even"] if i % 2 == 0 else ["all"]}
        metadata["difficulty"] = "hard" if i < 4 else "easy"
        reference = [f"lookup:{i}", f"refund:{i}", f"notify:{i}"]
        cases.append({"case_id": f"c{i:02d}", "reference": reference, "metadata": metadata})
    for t in range(3):
        for i in range(12):
            steps = [f"lookup:{i}"] * (1 + extras(i)[t]) + [f"refund:{i}", f"notify:{i}"]
            runs.append({"case_id": f"c{i:02d}", "run_id": f"{i}-{t}", "trial": t, "steps": steps})
    cases_path, runs_path = folder / "cases.jsonl", folder / "runs.jsonl"
    cases_path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    runs_path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    return str(cases_path), str(runs_path)


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[str, str]:
    return write_inputs(tmp_path)


def score_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["score", *argv, "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


PATHS = [(), ("--partition-size", "5"), ("--partition-size", "5", "--workers", "2")]


@pytest.mark.parametrize("path", PATHS, ids=["in-memory", "partitioned", "two-workers"])
def test_interval_is_over_the_12_cases(
    inputs: tuple[str, str], path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = score_json(capsys, *inputs, "--seed", "7", "--resamples", "700", *path)
    row = doc["summary"]["by_case"]["path_score"]
    assert (row["n_cases"], row["runs"], row["undefined"]) == (12, 36, 0)
    # mean of per-case means: 100 - (10 / 3) * mean(0..11) = 100 - 55 / 3
    assert row["mean"] == pytest.approx(100 - 55 / 3)
    values = [r["metrics"]["path_score"] for r in doc["results"]]
    ids = [r["case_id"] for r in doc["results"]]
    expected = case_mean_interval(values, ids, resamples=700, rng=7)
    assert expected.n_cases == 12
    assert (row["low"], row["high"]) == pytest.approx((expected.low, expected.high), rel=1e-12)
    interval = {"unit": "case", "method": "percentile bootstrap", "confidence": 0.95}
    assert doc["summary"]["interval"] == {**interval, "resamples": 700, "seed": 7}
    assert doc["summary"]["path_score"] == pytest.approx(100 - 55 / 3)  # run mean, kept


def test_both_paths_give_the_same_summary(
    inputs: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*inputs, "--by", "tags", "-m", "redundant_steps", "--resamples", "300"]
    found = [score_json(capsys, *argv, *path)["summary"] for path in PATHS]
    for summary in found[1:]:
        assert summary["by_case"] == found[0]["by_case"]
        assert summary["slices"] == found[0]["slices"]
    assert list(found[0]["slices"]["metrics"]) == ["path_score", "redundant_steps"]


def test_slices_by_tags_and_small_slices(
    inputs: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = score_json(capsys, *inputs, "--by", "tags", "--resamples", "300")
    every, even = doc["summary"]["slices"]["metrics"]["path_score"]
    # all: the 12 cases, 100 - 55 / 3; even (i = 0, 2, ..., 10, mean i 5): 100 - 50 / 3
    assert (every["slice"], every["n_cases"], every["runs"]) == ("all", 12, 36)
    assert every["mean"] == pytest.approx(100 - 55 / 3) and every["tested"]
    assert (even["slice"], even["n_cases"], even["runs"]) == ("even", 6, 18)
    assert even["mean"] == pytest.approx(100 - 50 / 3) and even["tested"]
    doc = score_json(capsys, *inputs, "--by", "difficulty", "--resamples", "300")
    hard, easy = doc["summary"]["slices"]["metrics"]["path_score"]
    # hard: i < 4 (mean i 1.5): 95, 4 cases < 5: shown, untested; easy: mean i 7.5: 75
    assert (hard["slice"], hard["n_cases"], hard["mean"]) == ("hard", 4, pytest.approx(95))
    assert not hard["tested"] and hard["ci"] == [None, None]
    assert (easy["slice"], easy["n_cases"], easy["mean"], easy["tested"]) == (
        "easy",
        8,
        pytest.approx(75),
        True,
    )
    doc = score_json(capsys, *inputs, "--by", "difficulty", "--min-slice-n", "4")
    assert doc["summary"]["slices"]["metrics"]["path_score"][0]["tested"]


def test_text_output(inputs: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", *inputs, "--by", "difficulty", "--limit", "0"]) == 0
    out = capsys.readouterr().out
    assert "Summary over 12 cases (36 runs)" in out
    assert "bootstrap over cases (1000 resamples, seed 0)" in out
    assert "path_score by difficulty" in out and "n < 5" in out


def test_bad_options(
    inputs: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", *inputs, "--by", "case_id"]) == 2
    assert "cannot slice by 'case_id'" in capsys.readouterr().err
    assert main(["score", *inputs, "--by", "tagz"]) == 2
    assert "no case has the field tagz (nor metadata.tagz)" in capsys.readouterr().err
    assert main(["score", *inputs, "--by", "tagz", "--partition-size", "5"]) == 2
    assert "no case has the field tagz" in capsys.readouterr().err
    assert main(["score", *inputs, "--by", "tags", "-m", "path_scroe"]) == 2
    assert "did you mean path_score" in capsys.readouterr().err
    assert main(["score", *inputs, "-m", "path_score"]) == 2
    assert "add --by FIELD" in capsys.readouterr().err
    assert main(["score", *inputs, "--by", "tags", "-m", "recall@5"]) == 2
    assert "'recall@5' is not in the results" in capsys.readouterr().err
