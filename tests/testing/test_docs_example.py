"""docs/pytest.md's worked example, run as written: its files, its commands and, for each
command, the output the page quotes (found line for line in what pytest printed)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pathgrade.store import RunStore

pytest_plugins = ["pytester"]

DOC = Path(__file__).resolve().parents[2] / "docs" / "pytest.md"
FENCE = re.compile(r"```(\w+)([^\n]*)\n(.*?)```", re.DOTALL)
STRICTER = "With `pass_hat_k=(2, 0.5)` it fails with:"


def blocks() -> list[tuple[str, str, str, int]]:
    """``(language, info, text, offset)`` of every fenced block of the page, in order."""
    text = DOC.read_text(encoding="utf-8")
    return [(m.group(1), m.group(2).strip(), m.group(3), m.start()) for m in FENCE.finditer(text)]


def contains(output: list[str], quoted: list[str]) -> bool:
    """Whether ``quoted`` is a run of consecutive lines of ``output``."""
    return any(output[i : i + len(quoted)] == quoted for i in range(len(output)))


def run_command(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, command: str
) -> pytest.RunResult:
    words = shlex.split(command)
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        monkeypatch.setenv(name, value)
    assert words[0] == "pytest"
    try:
        return pytester.runpytest(*words[1:])
    finally:
        monkeypatch.delenv("AGENT_VERSION", raising=False)


def test_the_worked_example_prints_what_the_page_says(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PATHGRADE_STORE", raising=False)
    found = blocks()
    files = {
        info.removeprefix("file="): text for _, info, text, _ in found if info.startswith("file=")
    }
    assert sorted(files) == [
        "agent.py",
        "cases.jsonl",
        "gates.toml",
        "pyproject.toml",
        "test_agent.py",
    ]
    for name, text in files.items():
        (pytester.path / name).write_text(text, encoding="utf-8")
    page = DOC.read_text(encoding="utf-8")
    commands, checked = [], 0
    statuses = []
    command: str | None = None
    for language, _, text, offset in found:
        if language == "bash":
            command = text.strip()
        elif language == "text" and command is not None:
            result = run_command(pytester, monkeypatch, command)
            assert contains(result.outlines, text.splitlines()), (command, result.stdout.str())
            commands.append(command)
            statuses.append(result.ret)
            checked += 1
            command = None
        elif language == "text":
            # The stricter trials requirement: the test file edited as the page says.
            assert " ".join(page[:offset].split()).endswith(STRICTER)
            test_file = pytester.path / "test_agent.py"
            test_file.write_text(files["test_agent.py"].replace("(2, 0.25)", "(2, 0.5)"))
            result = pytester.runpytest()
            test_file.write_text(files["test_agent.py"])
            result.assert_outcomes(passed=2, failed=1)
            assert contains(result.outlines, text.splitlines()), result.stdout.str()
            checked += 1
    assert commands == [
        "pytest --pathgrade-save agent-v1",
        "AGENT_VERSION=2 pytest --pathgrade-baseline agent-v1 --pathgrade-gates gates.toml",
        "AGENT_VERSION=3 pytest",
    ]
    assert checked == 4
    # Version 1 passes; version 2 passes its tests and fails the gates; version 3 fails a test.
    assert statuses == [0, 1, 1]
    store = RunStore(pytester.path / ".pathgrade" / "runs")
    names = store.names()
    assert "agent-v1" in names and len(names) == 2  # version 2's session stored its results
    baseline = store.load("agent-v1").records
    assert len(baseline) == 7  # two cases, five trials
    assert {r["case_id"] for r in baseline} == {
        "test_agent.py::test_refund_path[refund-A17]",
        "test_agent.py::test_refund_path[refund-B22]",
        "test_agent.py::test_refund_is_reliable",
    }
