"""The README is true: its Python snippet gives exactly its command's numbers, it lists every
command (one line each) and links every docs page, and it keeps its two set-up commands."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli import main as cli_main
from pathgrade.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    """The README's ``## title`` section, up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, f"no section {title!r}"
    return match.group(1)


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_set_up_keeps_exactly_two_one_line_commands() -> None:
    blocks = _blocks(_section("Set up"), "bash")
    assert [len(b.strip().splitlines()) for b in blocks] == [1, 1]
    assert blocks[1].strip() == "python3 -m pip install -e '.[test]' && python3 -m pytest"


def _readme_command() -> list[str]:
    """The ``pathgrade score ...`` of the first set-up command (after the install)."""
    install, command = _blocks(_section("Set up"), "bash")[0].strip().split(" && ")
    assert install == "python3 -m pip install -e ."
    words = shlex.split(command)
    assert words[:2] == ["pathgrade", "score"]
    return words[1:]


def test_the_python_snippet_gives_the_command_s_numbers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)  # the README's paths are relative to the checkout
    assert main([*_readme_command(), "--json"]) == 0
    command: dict[str, Any] = json.loads(capsys.readouterr().out)["summary"]
    [snippet] = _blocks(_section("Python"), "python")
    namespace: dict[str, Any] = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(snippet, "README.md", "exec"), namespace)  # our own README
    assert namespace["summary"] == command  # every number of the command's summary
    by_case, over_runs = printed.getvalue().splitlines()[0].split()
    # examples/runs.jsonl path scores, by case: refund-A17 100, 70, 100, 60 (mean 82.5),
    # refund-B22 55, mars-temp 90, report-outage 100, 60 (mean 80). Over cases:
    # (82.5 + 55 + 90 + 80) / 4 = 76.875; over the 8 runs: 635 / 8 = 79.375.
    assert (float(by_case), float(over_runs)) == (76.875, 79.375)
    assert float(by_case) == command["by_case"]["path_score"]["mean"]
    assert float(over_runs) == command["path_score"]


def _listed_commands() -> list[str]:
    lines = [line for line in _section("Commands").splitlines() if line.startswith("- `")]
    return [line.split()[2].rstrip("`") for line in lines]


def test_every_command_is_listed_once_with_one_line() -> None:
    cli_main._register()
    registered = [c.name for c in cli_main.app.registered_commands]
    registered += [g.name for g in cli_main.app.registered_groups]
    listed = _listed_commands()
    assert sorted(listed) == sorted(str(name) for name in registered)
    assert len(listed) == len(set(listed))


def test_every_docs_page_is_linked_and_every_link_exists() -> None:
    links = set(re.findall(r"\]\(([^)#]+\.md)\)", README))
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert pages <= links
    assert all((ROOT / link).is_file() for link in links)
