"""The ``pathgrade`` entry point: one typer app; each command lives in its own module.

Exit codes: 0 ok, 1 a gate or check failed, 2 bad input or usage. Bad input is reported as
one line on stderr (``file:line: field '...': message``), never as a traceback.
"""

from __future__ import annotations

import sys

import typer

from pathgrade.core.errors import InputError

app = typer.Typer(
    name="pathgrade",
    help="Evaluate LLM agents by the whole path: trajectory, retrieval, tools, answers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    # Imported here so that `import pathgrade.cli.main` does no work at import time beyond
    # building the app; each module adds one command.
    from pathgrade.cli import score as _score

    app.command("score")(_score.score_command)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 for bad input, with a one-line message)."""
    _register()
    try:
        app(args=argv, standalone_mode=False)
    except InputError as error:
        print(f"pathgrade: error: {error}", file=sys.stderr)
        return 2
    except typer.Exit as done:
        return int(done.exit_code or 0)
    except SystemExit as done:  # click's usage errors in non-standalone paths
        return int(done.code or 0) if isinstance(done.code, int) else 2
    except Exception as error:  # click.UsageError and friends
        import click

        if isinstance(error, click.exceptions.ClickException):
            error.show()
            return 2
        if isinstance(error, click.exceptions.Abort):
            return 1
        raise
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
