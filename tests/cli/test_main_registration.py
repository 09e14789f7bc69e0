"""``main()`` registers the commands once: in-process callers do not add them again per call."""

from __future__ import annotations

import pytest

from pathgrade.cli import main as cli_main


def _counts() -> tuple[int, int]:
    return len(cli_main.app.registered_commands), len(cli_main.app.registered_groups)


def test_repeated_main_calls_keep_the_registered_commands_constant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli_main.main(["--help"]) == 0
    first = _counts()
    # 11 commands (score, compare, ablation, gate, split, retrieval, judge,
    # judge-agreement, ingest, replay, report) and one group (runs): at least that many.
    assert first[0] >= 11 and first[1] >= 1
    for _ in range(5):
        assert cli_main.main(["--help"]) == 0
    assert _counts() == first
    names = [c.name for c in cli_main.app.registered_commands]
    assert len(names) == len(set(names))  # no command registered twice
    capsys.readouterr()
