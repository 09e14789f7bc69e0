"""``pathgrade score`` explains itself: a legend for the runs table's columns, the step each
defect is on, and the next useful commands at the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.cli.main import main
from pathgrade.cli.score_text import LEGEND, RUN_COLUMNS, defect_text, next_commands
from pathgrade.core.results import Defect

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"
CONFIG = ROOT / "examples" / "pathgrade.toml"


def _table(capsys: pytest.CaptureFixture[str], *extra: str) -> list[str]:
    assert main(["score", str(CASES), str(RUNS), "--config", str(CONFIG), *extra]) == 0
    return capsys.readouterr().out.splitlines()


def test_every_column_of_the_runs_table_has_a_legend_line() -> None:
    headers = ["trial", "ref", *(header for _, header in RUN_COLUMNS), "defects"]
    assert [name for name, _ in LEGEND if name] == headers


def test_the_table_shows_the_step_of_each_defect(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _table(capsys)
    text = "\n".join(lines)
    # examples/runs.jsonl, run B: lookup_order, lookup_order, ... -> the repeat is agent step 1
    # (from 0), a wasted step of 10 points; run E: refund:B22 twice -> the second refund,
    # agent step 3, is an unexpected write of 25; run D lacks reference step 1 (refund:A17),
    # a missing step of 25 that no agent step is on.
    assert "wasted_step @1 -10" in text
    assert "unexpected_write @3" in text
    assert "missing_step ref@1" in text
    assert "over_budget -20" in text  # a defect of the whole run: no step
    # The legend follows the table: one entry per column, in order (an entry wraps under its
    # text at a narrow width: report.fit_table).
    first = next(i for i, line in enumerate(lines) if line.strip().startswith("trial "))
    starts = [line.split()[0] for line in lines[first:] if line.startswith("  ") and line[2] != " "]
    assert starts[:6] == [
        "trial",
        "ref",
        "path",
        "comp",
        "goal",
        "defects",
    ]


def test_the_output_ends_with_the_next_commands(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _table(capsys)
    at = lines.index("next:")
    after = [line.strip() for line in lines[at + 1 :]]
    assert len(after) == 3 and lines[-1] == lines[at + 3]
    config = f"--config {CONFIG}"
    assert after[0].startswith(f"pathgrade score {CASES} {RUNS} {config} --out results.jsonl")
    assert after[1].startswith(f"pathgrade score {CASES} {RUNS} {config} --save NAME")
    assert after[2].startswith("pathgrade compare BASELINE VARIANT")


def test_after_save_the_next_commands_name_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = _table(capsys, "--save", "v1", "--store", str(tmp_path))
    after = [line.strip() for line in lines[lines.index("next:") + 1 :]]
    assert after[0].startswith(f"pathgrade compare BASELINE v1 --store {tmp_path}")
    assert after[-1].startswith(f"pathgrade report v1 --store {tmp_path} -o report.html")


def test_partitioned_scoring_ends_with_the_next_commands_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "results.jsonl"
    lines = _table(capsys, "--partition-size", "3", "--out", str(out))
    after = [line.strip() for line in lines[lines.index("next:") + 1 :]]
    assert after[0].startswith(f"pathgrade compare BASELINE {out}")
    assert after[-1].startswith(f"pathgrade runs add NAME {out}")


def test_json_output_has_no_next_commands(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _table(capsys, "--json")
    assert "next:" not in lines and lines[0].startswith("{")


def test_paths_in_the_next_commands_are_quoted() -> None:
    odd = Path("my runs.jsonl")
    commands = next_commands(CASES, odd, None, None, None, None)
    assert f"{CASES} 'my runs.jsonl' --out" in commands[0][0]


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(["wasted_step", "missing_step", "over_budget"]),
    penalty=st.sampled_from([0.0, 10.0, 2.5]),
    agent_step=st.none() | st.integers(0, 500),
    reference_step=st.none() | st.integers(0, 500),
)
def test_defect_text_names_the_step_and_the_penalty(
    kind: str, penalty: float, agent_step: int | None, reference_step: int | None
) -> None:
    text = defect_text(Defect(kind, penalty, "", agent_step, reference_step))
    parts = text.split(" ")
    assert parts[0] == kind
    if agent_step is not None:
        assert parts[1] == f"@{agent_step}"  # the agent step wins over the reference step
    elif reference_step is not None:
        assert parts[1] == f"ref@{reference_step}"
    else:
        assert not any("@" in part for part in parts)
    assert (f"-{penalty:g}" in parts) == (penalty != 0)
