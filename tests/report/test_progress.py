"""The progress bar is for people at a terminal: off in CI and when not a terminal."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from pathgrade.cli.progress import progress_bar, progress_enabled


def test_off_when_ci_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert not progress_enabled(Console(file=io.StringIO(), force_terminal=True))


def test_off_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert not progress_enabled(Console(file=io.StringIO()))


def test_drawn_at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    assert progress_enabled(console)
    with progress_bar("saving main", console) as update:
        update(5, 10)
        update(10, 10)
    assert "saving main" in out.getvalue()


def test_disabled_bar_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    out = io.StringIO()
    with progress_bar("x", Console(file=out, force_terminal=True)) as update:
        update(1, 2)
    assert out.getvalue() == ""
