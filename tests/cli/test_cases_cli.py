"""``pathgrade cases lint|mine`` through typer (registered on a test app, as main will)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import orjson
import pytest
import typer
from typer.testing import CliRunner

from pathgrade.cli import cases as cases_cli
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case


@pytest.fixture
def app() -> typer.Typer:
    root = typer.Typer()

    @root.callback()
    def _root() -> None:
        """Test root."""

    root.add_typer(cases_cli.app, name="cases")
    return root


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def test_lint_prints_one_line_per_finding_and_exits_1_on_an_error(
    app: typer.Typer, tmp_path: Path
) -> None:
    cases = write(
        tmp_path / "cases.jsonl",
        [
            {"case_id": "ok", "reference": ["lookup", "refund"]},
            {"case_id": "bad_after", "reference": ["a", {"tool": "b", "after": ["zz"]}]},
            {"case_id": "arg", "reference": [{"tool": "refund", "arguments": {"amount": "x"}}]},
            {"case_id": "warn", "reference": ["a"], "required_tools": ["b"]},
        ],
    )
    tools = tmp_path / "tools.json"
    tools.write_bytes(
        orjson.dumps(
            {
                "lookup": {"type": "object"},
                "a": {"type": "object"},
                "refund": {"type": "object", "properties": {"amount": {"type": "number"}}},
            }
        )
    )
    result = CliRunner().invoke(app, ["cases", "lint", str(cases), "--tools", str(tools)])
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == [
        f"{cases}:2: field 'reference[1].after': error: step 'b' is 'after' unknown"
        " id 'zz' (no step of reference path 0 has that id) [invalid]",
        f"{cases}:3: case 'arg': field 'reference[0].arguments.amount': error: refund(amount='x'):"
        " 'x' is not of type 'number' (schema of 'refund') [arguments]",
        f"{cases}:4: case 'warn': field 'required_tools[0]': warning: required tool 'b' is"
        " called by no reference path [unused_required_tool]",
    ]
    assert "4 cases: 2 errors, 1 warnings" in result.stderr


def test_lint_exits_0_with_warnings_only(app: typer.Typer, tmp_path: Path) -> None:
    cases = write(
        tmp_path / "c.jsonl", [{"case_id": "w", "reference": ["a"], "references": [["a"]]}]
    )
    result = CliRunner().invoke(app, ["cases", "lint", str(cases)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith(
        "warning: the same path as reference [duplicate_reference]"
    )


def test_lint_a_bad_tools_file_is_an_input_error(app: typer.Typer, tmp_path: Path) -> None:
    cases = write(tmp_path / "c.jsonl", [{"case_id": "w", "reference": ["a"]}])
    tools = tmp_path / "tools.json"
    tools.write_text("{not json")
    result = CliRunner().invoke(app, ["cases", "lint", str(cases), "--tools", str(tools)])
    assert isinstance(result.exception, InputError)  # main prints it on one line, exit 2


def test_mine_writes_proposed_cases(app: typer.Typer, tmp_path: Path) -> None:
    cases = write(
        tmp_path / "cases.jsonl",
        [{"case_id": "c1", "reference": ["gold"]}, {"case_id": "c2", "reference": ["gold"]}],
    )
    runs = write(
        tmp_path / "runs.jsonl",
        [
            {"case_id": "c1", "steps": ["lookup", "refund"], "success": True},
            {"case_id": "c1", "steps": ["refund"], "success": True},
            {"case_id": "c2", "steps": ["refund"], "success": False},
        ],
    )
    out = tmp_path / "proposed.jsonl"
    result = CliRunner().invoke(
        app, ["cases", "mine", str(runs), "--cases", str(cases), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "1 cases with a proposed reference; 1 without a successful run" in result.stderr
    (line,) = out.read_bytes().splitlines()
    proposed = Case.model_validate(orjson.loads(line))
    assert proposed.case_id == "c1" and proposed.metadata["status"] == "proposed"
    assert [s.tool for s in proposed.reference or ()] == ["refund"]  # the shortest path


def test_mine_choice_thresholds(app: typer.Typer, tmp_path: Path) -> None:
    from pathgrade.cases.mine import MIN_CHOICE_RUNS, MIN_CHOICE_SHARE
    from pathgrade.cli.cases import mine_command

    # The command's defaults are the library's.
    defaults = {
        name: p.default.default if hasattr(p.default, "default") else p.default
        for name, p in inspect.signature(mine_command).parameters.items()
    }
    assert (defaults["min_choice_runs"], defaults["min_choice_share"]) == (
        MIN_CHOICE_RUNS,
        MIN_CHOICE_SHARE,
    )
    # lookup by 1 run, search by 1: a choice only with --min-choice-runs 1 (1/2 >= 0.2).
    cases = write(tmp_path / "cases.jsonl", [{"case_id": "c1", "reference": ["gold"]}])
    runs = write(
        tmp_path / "runs.jsonl",
        [
            {"case_id": "c1", "steps": ["lookup", "refund"], "success": True},
            {"case_id": "c1", "steps": ["search", "refund"], "success": True},
        ],
    )
    firsts = []
    for extra in ([], ["--min-choice-runs", "1"]):
        out = tmp_path / "proposed.jsonl"
        args = ["cases", "mine", str(runs), "--cases", str(cases), "-o", str(out), *extra]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        (first, _) = Case.model_validate(orjson.loads(out.read_bytes())).reference or ()
        firsts.append([[s.tool for s in b] for b in first.one_of] if first.one_of else first.tool)
    assert firsts == ["lookup", [["lookup"], ["search"]]]
