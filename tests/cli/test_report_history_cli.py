"""``pathgrade report --history RUN...``: a history page over stored runs, from the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_history_of_two_stored_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    for name, runs in (("base", "runs.jsonl"), ("var", "runs_variant.jsonl")):
        cases, path = str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / runs)
        assert main(["score", cases, path, "--save", name, "--store", str(store)]) == 0
    out = tmp_path / "history.html"
    assert main(["report", "--history", "base", "var", "-o", str(out), "--store", str(store)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "base" in page and "var" in page and "path_score" in page
    assert "history of 2 runs" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["report", "a", "b", "-o", "x.html"], "RUN"),
        (["report", "a", "--metric", "path_score", "-o", "x.html"], "--metric"),
        (["report", "--history", "a", "--baseline", "b", "-o", "x.html"], "--history"),
    ],
)
def test_history_options_are_checked_in_one_line(
    tmp_path: Path, argv: list[str], field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a if a != "x.html" else str(tmp_path / a) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"field '{field}'" in err
