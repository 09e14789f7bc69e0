"""Two agent versions compared per turn-level metric (docs/conversations.md): the worked
example's v1 and v2 through ``compare`` and the report, each conversation metric in its
catalogue direction; verdicts that follow the direction; the Markdown summary's
conversations."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.metrics import catalogue
from pathgrade.report.markdown import summary_markdown

from .conftest import result_record, write_records

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversations"
CONVERSATION = catalogue.names("conversation")


@dataclass(frozen=True)
class Example:
    store: Path
    folder: Path


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Example:
    """The example's two agent versions simulated (scripted user, frozen tools) and stored."""
    folder = tmp_path_factory.mktemp("conversation-compare")
    store = folder / "store"
    cases = str(EXAMPLE / "cases.jsonl")
    for version in ("v1", "v2"):
        runs = str(folder / f"{version}.jsonl")
        simulate = ["simulate", cases, "--agent", f"{EXAMPLE / 'agent.py'}:{version}"]
        fixtures = ["--fixtures", str(EXAMPLE / "tools.jsonl"), "--trials", "2", "-o", runs]
        assert main([*simulate, *fixtures]) == 0
        assert main(["score", cases, runs, "--save", version, "--store", str(store)]) == 0
    return Example(store, folder)


def _compare(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["compare", *args, "--json", "--resamples", "200"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def test_compare_takes_every_conversation_metric_in_its_direction(
    example: Example, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _compare(capsys, "v1", "v2", "--store", str(example.store))["metrics"]
    shown = [name for name in CONVERSATION if name in found]
    # every conversation metric the example defines on both sides (first_off_path_turn is
    # undefined for v2: every turn is on its path)
    assert set(shown) >= {
        "turns", "user_outcome", "conversation_success", "error_recovered", "reasked_facts",
        "premature_end", "escalation_correct", "turn_path_score", "turns_on_path",
    }  # fmt: skip
    for name in shown:
        assert found[name]["direction"] == catalogue.direction(name), name
    # v2 asks for the order id once, stays on each turn's path and recovers from the failure
    assert found["reasked_facts"]["direction"] == "lower" and found["reasked_facts"]["diff"] < 0
    assert found["turn_path_score"]["direction"] == "higher"
    assert found["turn_path_score"]["diff"] > 0 and found["turns_on_path"]["diff"] > 0
    assert found["premature_end"]["direction"] == "lower" and found["premature_end"]["diff"] < 0


def test_the_report_compares_the_conversation_metrics(example: Example) -> None:
    out = example.folder / "report.html"
    args = ["report", "v2", "--baseline", "v1", "--store", str(example.store), "-o", str(out)]
    assert main([*args, "--resamples", "200"]) == 0
    html = out.read_text("utf-8")
    start = html.index('<section id="compare">')
    compared = html[start : html.index("</section>", start)]
    for name in ("reasked_facts", "turn_path_score", "turns_on_path", "conversation_success"):
        assert f'<td class="id" title="{name}">{name}</td>' in compared, name
    # the changed cases (path_score) open at their conversation view
    assert 'class="to-conversation"' in compared


def _pair(folder: Path, n: int = 12) -> tuple[str, str]:
    """12 cases: v2 stops re-asking (reasked_facts 1 -> 0) but leaves each turn's path
    (turn_path_score 100 -> 50): both changes on every case, so both are detected."""
    base = [result_record(f"c{i}", None, reasked_facts=1, turn_path_score=100.0) for i in range(n)]
    var = [result_record(f"c{i}", None, reasked_facts=0, turn_path_score=50.0) for i in range(n)]
    return write_records(folder / "v1.jsonl", base), write_records(folder / "v2.jsonl", var)


def test_verdicts_follow_the_catalogue_direction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, var = _pair(tmp_path)
    metrics = ["-m", "reasked_facts", "-m", "turn_path_score"]
    found = _compare(capsys, base, var, *metrics)["metrics"]
    assert found["reasked_facts"]["verdict"] == "improved"  # fewer is better
    assert found["turn_path_score"]["verdict"] == "regressed"
    # the terminal table and the Markdown summary say the same
    markdown = tmp_path / "compare.md"
    assert main(["compare", base, var, *metrics, "--markdown", str(markdown)]) == 0
    text = capsys.readouterr().out
    assert "reasked_facts" in text and "turn_path_score" in text
    rows = {line.split(" | ")[0].strip("| "): line for line in markdown.read_text().splitlines()}
    reasked, turn_path = rows["reasked\\_facts"], rows["turn\\_path\\_score"]
    assert reasked.endswith("| improved |") and "| lower |" in reasked
    assert turn_path.endswith("| regressed |") and "| higher |" in turn_path


def test_the_score_summary_in_markdown_has_its_conversations() -> None:
    summary = {
        "runs": 8,
        "conversations": {
            "runs": 8,
            "turns": {"mean": 2.25, "max": 3},
            "pass^k": {"1": 0.5, "2": 0.25},
            "pass@k": {"1": 0.5, "2": 0.75},
        },
    }
    text = summary_markdown(summary)
    part = text[text.index("#### Conversations") :].splitlines()
    assert part[2] == "8 conversation runs, 2.250 turns on average (max 3)"
    assert part[4:8] == [
        "| k | pass^k | pass@k |",
        "| ---: | ---: | ---: |",
        "| 1 | 0.5 | 0.5 |",
        "| 2 | 0.25 | 0.75 |",
    ]
    assert "Conversations" not in summary_markdown({"runs": 8})
