"""Unicode direction controls in ids are shown escaped (``\\u202e``), never applied.

A case id ``case-\\u202e7`` renders in a browser or a terminal with the text after the
override reversed ("Trojan Source"). Every renderer shows it through
:func:`pathgrade.report.display.visible`: the HTML report (page and script data), the text
tables of ``score``, ``compare`` and ``gate``, and the GitHub summary and annotations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.cli.main import main
from pathgrade.report.display import DIRECTION_CONTROLS, ELLIPSIS, clip, visible

RLO, LRI, RLM = "\u202e", "\u2066", "\u200f"
CASE = f"case-{RLO}7"
GROUP = f"grp{LRI}a"
RUN = f"run{RLM}"
DIM = f"dim{RLO}x"


def _raw_controls(text: str) -> set[str]:
    return {c for c in text if c in DIRECTION_CONTROLS}


def test_the_escape_list_is_the_bidi_controls() -> None:
    # U+202A-U+202E, U+2066-U+2069, U+200E/U+200F and U+061C: 5 + 4 + 3 = 12 characters
    assert len(DIRECTION_CONTROLS) == 12
    assert visible(f"a{RLO}b{LRI}c{RLM}d") == "a\\u202eb\\u2066c\\u200fd"
    assert visible("plain ünïcode") == "plain ünïcode"


@settings(max_examples=200, deadline=None)
@given(text=st.text(), width=st.integers(1, 120))
def test_clip_shows_no_control_and_stays_within_width(text: str, width: int) -> None:
    shown = clip(text, width)
    assert not _raw_controls(shown) and not _raw_controls(visible(text))
    assert len(shown) <= width
    if len(visible(text)) <= width:
        assert shown == visible(text)  # short enough: unchanged but for the escapes
    else:
        assert shown.endswith(ELLIPSIS) and visible(text).startswith(shown[:-1])


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two results files (baseline, variant) whose ids carry direction controls."""
    root = tmp_path_factory.mktemp("bidi")
    cases = [
        {"case_id": f"{CASE}-{i}", "group": f"{GROUP}{i % 2}", "reference": ["a:1", "b:2"]}
        for i in range(6)
    ]
    (root / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    for name, short in (("base", False), ("var", True)):
        runs = [
            {
                "case_id": c["case_id"],
                "run_id": RUN,
                "steps": ["a:1"] if short and i % 2 else ["a:1", "b:2"],
                "answer": "ok",
                "rubric": {DIM: 1},
            }
            for i, c in enumerate(cases)
        ]
        (root / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
        argv = ["score", str(root / "cases.jsonl"), str(root / f"{name}.jsonl")]
        assert main([*argv, "--out", str(root / f"{name}_results.jsonl"), "--json"]) == 0
    return root


def test_html_report_shows_the_controls_escaped(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    out = scored / "report.html"
    argv = ["report", str(scored / "var_results.jsonl"), "--baseline"]
    argv += [str(scored / "base_results.jsonl"), "-o", str(out), "--resamples", "100"]
    assert main([*argv, "--by", "group"]) == 0
    page = out.read_text("utf-8")
    assert not _raw_controls(page)
    assert "rubric.dim\\u202ex" in page  # summary, forest plot and slice tables
    assert "grp\\u2066a" in page  # the slice keys
    blob = re.search(r'<script type="application/json" id="pathgrade-data">(.*?)</script>', page)
    assert blob is not None
    data = json.loads(blob.group(1))
    # the script shows these strings as text nodes: the escape is in the text itself
    assert {c["case_id"] for c in data["cases"]} == {f"case-\\u202e7-{i}" for i in range(6)}
    assert {c["run_id"] for c in data["cases"]} == {"run\\u200f"}


def test_text_tables_show_the_controls_escaped(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["score", str(scored / "cases.jsonl"), str(scored / "var.jsonl")]) == 0
    score_text = capsys.readouterr().out
    # the run table folds its cells at the test console's width: look for the escapes
    assert "case-\\u202e7" in score_text and "\\u200f" in score_text
    assert "rubric.dim\\u202ex" in score_text

    argv = ["compare", str(scored / "base_results.jsonl"), str(scored / "var_results.jsonl")]
    assert main([*argv, "--resamples", "100", "--by", "group"]) == 0
    compare_text = capsys.readouterr().out
    assert "grp\\u2066a" in compare_text and "rubric.dim\\u202ex" in compare_text

    gates = scored / "gates.toml"
    gates.write_text(
        f'[[gate]]\nname = "steps {RLO}elbat"\nmetric = "path_score"\n'
        'rule = "min"\nthreshold = 101.0\n'
    )
    base, var = str(scored / "base_results.jsonl"), str(scored / "var_results.jsonl")
    assert main(["gate", str(gates), "--baseline", base, "--variant", var]) == 1
    gate_text = capsys.readouterr().out
    assert "steps \\u202eelbat" in gate_text
    for text in (score_text, compare_text, gate_text):
        assert not _raw_controls(text)


def test_github_summary_and_annotations_show_the_controls_escaped(
    scored: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    gates = scored / "gates_gh.toml"
    gates.write_text(
        f'[[gate]]\nname = "steps {RLO}elbat"\nmetric = "path_score"\n'
        'rule = "min"\nthreshold = 101.0\n'
    )
    summary = scored / "step_summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    base, var = str(scored / "base_results.jsonl"), str(scored / "var_results.jsonl")
    capsys.readouterr()
    assert main(["gate", str(gates), "--baseline", base, "--variant", var]) == 1
    out = capsys.readouterr().out
    markdown = summary.read_text("utf-8")
    annotations = [line for line in out.splitlines() if line.startswith("::error")]
    assert annotations and all("\\u202e" in a for a in annotations)
    assert "\\u202e" in markdown  # Markdown-escaped backslash: shown as \u202e
    assert not _raw_controls(markdown) and not _raw_controls(out)
