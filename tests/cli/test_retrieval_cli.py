"""``pathgrade retrieval``: table, --json document, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.cli.main import main

GOLDEN = Path(__file__).parents[1] / "golden" / "trec_eval"


def test_json_document_shape_and_values(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "retrieval",
            str(GOLDEN / "qrels.test"),
            str(GOLDEN / "results.trunc"),
            "-m",
            "ndcg@10",
            "-m",
            "map",
            "-m",
            "ap@5(denominator=gold)",
            "--json",
        ]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)  # exactly one JSON document
    assert list(doc["summary"]) == ["ndcg@10", "map", "ap@5(denominator=gold)"]
    assert round(doc["summary"]["map"], 4) == 0.1016  # out.test.aqc
    assert doc["queries"] == 3
    assert doc["missing_in_run"] == 1
    assert set(doc["per_query"]) == {"301", "302", "303"}
    assert doc["per_query"]["302"]["map"] == 0.0
    assert "micro" in doc


def test_table_with_per_query(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["retrieval", str(GOLDEN / "qrels.test"), str(GOLDEN / "results.test"), "--per-query"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "ndcg@10" in out and "302" in out and "missing in run" in out


def test_parent_map_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "qrels").write_text("q 0 d1 1\nq 0 d2 1\n")
    (tmp_path / "run").write_text("q Q0 d1#a 1 3 t\nq Q0 d1#b 2 2 t\nq Q0 d2#a 3 1 t\n")
    (tmp_path / "parents").write_text("d1#a d1\nd1#b d1\nd2#a d2\n")
    args = ["retrieval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "precision@2"]
    assert main([*args, "--json", "--parent-map", str(tmp_path / "parents")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["precision@2"] == 1.0
    assert doc["duplicates_removed"] == 1  # d1 counted once


@pytest.mark.parametrize(
    ("qrels", "run", "metric", "message"),
    [
        ("q 0 d\n", "q Q0 d 1 1 t\n", "map", "qrels:1: expected 4 columns"),
        ("q 0 d 1\n", "q Q0 d 1 x t\n", "map", "run:1: score must be a number"),
        ("q 0 d 1\nq 0 d 1\n", "q Q0 d 1 1 t\n", "map", "qrels:2: duplicate judgment"),
        ("q 0 d 1\n", "q Q0 d 1 1 t\n", "ndcg@ten", "cannot parse metric"),
        ("q 0 d 1\n", "q Q0 d 1 1 t\n", "bogus@3", "unknown metric 'bogus'"),
        ("q 0 d 1\n", "q Q0 d 1 1 t\n", "ap@5(denominator=x)", "denominator='x'"),
    ],
)
def test_bad_input_one_line_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    qrels: str,
    run: str,
    metric: str,
    message: str,
) -> None:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    code = main(["retrieval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", metric])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1
