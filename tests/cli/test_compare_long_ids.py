"""A 100 KB case id is one short cell in the text tables (cut with an ellipsis), whole in JSON.

``compare`` used to hand such an id to rich's line wrapping, which took 153 s (quadratic in
the length of the unbroken word). No timing threshold here: the text lines are bounded
(the id is cut to :data:`pathgrade.report.display.ID_WIDTH` characters), which is what
makes the output fast, and the JSON keeps the full id.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.cli.main import main
from pathgrade.report.display import ELLIPSIS, ID_WIDTH

LONG = "X" * 100_000
#: compare prints to a 200-column console when not on a terminal; a table row adds borders.
MAX_LINE = 200


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # A wide CI log, so that each row reads on one line (tests/cli/test_table_widths.py
    # renders these tables at 60-160 columns).
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("long")
    ids = [f"c{i}" for i in range(5)] + [LONG]
    cases = [{"case_id": i, "group": LONG if i == LONG else "g", "reference": ["a:1"]} for i in ids]
    (root / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    out = []
    for name, ids_here in (("base", ids), ("var", ids[:-1])):  # the long id only in base
        runs = [{"case_id": i, "run_id": LONG, "steps": ["a:1"]} for i in ids_here]
        (root / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
        target = root / f"{name}_results.jsonl"
        argv = ["score", str(root / "cases.jsonl"), str(root / f"{name}.jsonl")]
        assert main([*argv, "--out", str(target), "--json"]) == 0
        out.append(target)
    return root / "cases.jsonl", out[0], out[1]


def test_compare_text_cuts_a_100kb_id_and_json_keeps_it(
    results: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cases, base, var = results
    capsys.readouterr()
    argv = ["compare", str(base), str(var), "--resamples", "50"]
    assert main([*argv, "--by", "group", "--slices-from", str(cases)]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= MAX_LINE
    shown = "X" * (ID_WIDTH - 1) + ELLIPSIS
    assert f"only in variant: {shown}" in text  # the unpaired list
    assert len(text) < 50_000  # the id is not in the text whole (nor folded over many lines)

    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [u["case_id"] for u in doc["unpaired"]] == [LONG]


def test_score_text_cuts_a_100kb_id(
    results: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cases, _, _ = results
    capsys.readouterr()
    assert main(["score", str(cases), str(cases.parent / "base.jsonl")]) == 0
    text = capsys.readouterr().out
    assert len(text) < 50_000 and LONG not in text
    # 6 runs, each with the long run id, one with the long case id too: 7 cut ids of
    # ID_WIDTH - 1 = 79 X's and an ellipsis each (the table folds cells over lines)
    assert text.count("X") == 7 * (ID_WIDTH - 1) and text.count(ELLIPSIS) == 7
