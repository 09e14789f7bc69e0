"""``pathgrade ingest --cases-out / --tools-out / --no-retrieval-steps / --mcp-namespace``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import pathgrade.io.ingest as ingest_cli
from pathgrade.cli.main import main
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.ingest import IngestOptions

ROOT = Path(__file__).resolve().parents[2]
COMPACT = ROOT / "examples" / "tau_bench" / "tau_bench_runs.jsonl"
PUBLISHED = ROOT / "tests" / "golden" / "ingest" / "producers" / "tau_bench" / "gpt-4o-airline.json"
MESSAGES = ROOT / "tests" / "golden" / "ingest" / "openai_messages.jsonl"


def test_cases_out_from_the_published_results(tmp_path: Path) -> None:
    runs, cases = tmp_path / "runs.jsonl", tmp_path / "cases.jsonl"
    code = main(["ingest", str(PUBLISHED), "-o", str(runs), "--cases-out", str(cases)])
    assert code == 0
    loaded = load_cases(cases).items
    assert [c.case_id for c in loaded] == [
        "tau_bench/airline/test/15",
        "tau_bench/airline/test/37",
        "tau_bench/airline/test/44",
    ]
    # Every run names a case of the cases file (score's own check).
    assert len(load_runs(runs, {c.case_id: c for c in loaded}).items) == 3


def test_files_without_gold_give_their_runs_only(tmp_path: Path) -> None:
    runs, cases = tmp_path / "runs.jsonl", tmp_path / "cases.jsonl"
    args = ["ingest", str(MESSAGES), str(PUBLISHED), "-o", str(runs), "--cases-out", str(cases)]
    assert main(args) == 0
    assert len(load_runs(runs).items) == 4 and len(load_cases(cases).items) == 3


def test_no_gold_at_all_is_one_line_before_any_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, cases = tmp_path / "runs.jsonl", tmp_path / "cases.jsonl"
    assert main(["ingest", str(MESSAGES), "-o", str(runs), "--cases-out", str(cases)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "field '--cases-out'" in err
    assert "read as openai-messages" in err and "tau-bench, tau-bench-results" in err
    assert not runs.exists() and not cases.exists()


@pytest.mark.parametrize(
    ("extra", "clash"),
    [
        (["--cases-out", "-"], "standard output"),  # runs go to stdout by default
        (["-o", "same.jsonl", "--cases-out", "same.jsonl"], "same.jsonl"),
    ],
)
def test_two_outputs_in_one_place_are_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    clash: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["ingest", str(COMPACT), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"both name {clash}" in err


def test_options_reach_the_readers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[IngestOptions] = []

    def spy(paths: Any, fmt: str, options: IngestOptions) -> Any:
        seen.append(options)
        return iter(())

    monkeypatch.setattr(ingest_cli, "ingest", spy)
    out = tmp_path / "runs.jsonl"
    assert main(["ingest", str(MESSAGES), "-o", str(out)]) == 0
    assert main(["ingest", str(MESSAGES), "-o", str(out), "--no-retrieval-steps"]) == 0
    assert main(["ingest", str(MESSAGES), "-o", str(out), "--mcp-namespace"]) == 0
    assert [(o.retrieval_steps, o.mcp_namespace) for o in seen] == [
        (True, False),
        (False, False),
        (True, True),
    ]


def test_tools_out_writes_the_tools_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Traceloop trace of a real MCP client records a tools/list result: --tools-out
    writes its two tools as a tools file that `pathgrade score --tools` reads."""
    from pathgrade.io.tools import load_tools

    trace = ROOT / "tests" / "golden" / "ingest" / "producers" / "traceloop_openai_mcp.jsonl"
    tools = tmp_path / "tools.json"
    args = ["ingest", str(trace), "-o", str(tmp_path / "r.jsonl"), "--tools-out", str(tools)]
    assert main(args) == 0
    loaded = load_tools(tools)
    assert sorted(loaded) == ["issue_refund", "lookup_order"]
    assert "2 tool(s) written" in capsys.readouterr().err
