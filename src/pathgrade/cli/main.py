"""The ``pathgrade`` entry point: one typer app; each command lives in its own module.

Exit codes: 0 ok, 1 a gate or check failed, 2 bad input or usage. Bad input is reported as
one line on stderr (``file:line: field '...': message``), never as a traceback. An old
spelling that is still accepted (``usage.latency_ms`` for ``latency_ms``) is one line on stderr
too, once: ``pathgrade: note: metric name 'usage.latency_ms' is deprecated: ...``.

Start-up is light: each command's module declares its options and imports what the command
needs (NumPy, pyarrow, SciPy, DuckDB, httpx, rich, the API) inside its body, so ``--help``
and every command's ``--help`` load none of it (tests/cli/test_startup.py). Help texts are
plain text (no rich markup: ``[matching]`` is shown as written).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import TextIO

import typer

from pathgrade.cli.group import LightGroup
from pathgrade.core.errors import DeprecatedNameWarning, InputError

app = typer.Typer(
    name="pathgrade",
    cls=LightGroup,
    help="Evaluate LLM agents by the whole path: trajectory, retrieval, tools, answers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


_registered = False


def _register() -> None:
    """Add every command to the app, once: later calls do nothing (in-process callers of
    :func:`main` would otherwise add each command again on every call)."""
    global _registered
    if _registered:
        return
    # Imported here so that `import pathgrade.cli.main` does no work at import time beyond
    # building the app; each module declares its commands and imports nothing heavy.
    from pathgrade.cli import score as _score

    app.command("score")(_score.score_command)
    from pathgrade.cli import compare as _compare

    app.command("compare")(_compare.compare_command)
    from pathgrade.cli import ablation as _ablation

    app.command("ablation")(_ablation.ablation_command)
    from pathgrade.cli import gate as _gate

    app.command("gate")(_gate.gate_command)
    from pathgrade.cli import split as _split

    app.command("split")(_split.split_command)
    from pathgrade.cli import retrieval as _retrieval

    app.command("retrieval")(_retrieval.retrieval_command)
    from pathgrade.cli import judge as _judge

    app.command("judge")(_judge.judge_command)
    app.command("judge-agreement")(_judge.judge_agreement_command)
    from pathgrade.cli import ingest as _ingest

    app.command("ingest", cls=_ingest.IngestCommand)(_ingest.ingest_command)
    from pathgrade.cli import replay as _replay

    app.command("replay", cls=_replay.ReplayCommand)(_replay.replay_command)
    from pathgrade.cli import simulate as _simulate

    app.command("simulate")(_simulate.simulate_command)
    from pathgrade.cli import report as _report
    from pathgrade.cli import runs as _runs

    app.command("report")(_report.report_command)
    app.add_typer(_runs.app, name="runs")
    from pathgrade.cli import cases as _cases

    app.add_typer(_cases.app, name="cases")
    from pathgrade.cli import collect as _collect

    app.command("collect")(_collect.collect_command)
    from pathgrade.cli import monitor as _monitor

    app.command("monitor")(_monitor.monitor_command)
    from pathgrade.cli import matcher_agreement as _matcher_agreement

    app.command("matcher-agreement")(_matcher_agreement.matcher_agreement_command)
    _registered = True


_Show = Callable[[Warning | str, type[Warning], str, int, TextIO | None, str | None], None]


def _notes(shown: _Show) -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints a :class:`DeprecatedNameWarning` as one line on
    stderr and leaves every other warning to ``shown`` (the one it replaces)."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, DeprecatedNameWarning):
            print(f"pathgrade: note: {message}", file=sys.stderr)
            return
        shown(message, category, filename, lineno, file, line)

    return show


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 for bad input, with a one-line message)."""
    _register()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _notes(warnings.showwarning)
            app(args=argv, prog_name="pathgrade")
    except InputError as error:
        print(f"pathgrade: error: {error}", file=sys.stderr)
        return 2
    except SystemExit as done:  # typer/click end every command with SystemExit
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    return 0


@app.callback()
def _root() -> None:
    """Evaluate LLM agents by the whole path: trajectory, retrieval, tools, answers."""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
