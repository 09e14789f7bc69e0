"""Checks of output paths (``--out``, ``-o``, ``--junit``, ...) made before any work is done.

A command that would score 100,000 runs and then fail to write its output must fail first,
with one line naming the option and the path. :func:`check_output_file` is for an option
that names a file, :func:`check_output_dir` for one that names a directory the command
creates if needed (``split --out``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from pathgrade.core.errors import InputError

__all__ = ["MarkdownOption", "check_output_dir", "check_output_file"]


def _existing_ancestor(path: Path) -> Path:
    """The nearest ancestor of ``path`` (itself excluded) that exists."""
    for parent in path.absolute().parents:
        if parent.exists():
            return parent
    return Path(path.absolute().anchor)


def check_output_file(path: Path | None, option: str) -> None:
    """A one-line :class:`InputError` unless ``path`` (None: not given) can be written as a
    file: it must not be a directory, and its directory must exist and be writable."""
    if path is None or str(path) == "-":
        return
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a file", field=option)
    parent = path.absolute().parent
    if not parent.exists():
        raise InputError(f"directory {parent} does not exist (create it first)", field=option)
    if not parent.is_dir():
        raise InputError(f"{parent} is not a directory", field=option)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in directory {parent} (permission denied)", field=option)


def check_output_dir(path: Path | None, option: str) -> None:
    """A one-line :class:`InputError` unless ``path`` (None: not given) is a directory or
    can be created as one (its nearest existing ancestor is a writable directory)."""
    if path is None:
        return
    if path.exists():
        if not path.is_dir():
            raise InputError(f"{path} exists and is not a directory", field=option)
        if not os.access(path, os.W_OK | os.X_OK):
            raise InputError(f"cannot write in directory {path} (permission denied)", field=option)
        return
    ancestor = _existing_ancestor(path)
    if not ancestor.is_dir():
        raise InputError(f"{ancestor} is not a directory", field=option)
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InputError(f"cannot create {path} (permission denied in {ancestor})", field=option)


#: ``--markdown FILE`` of ``score`` and ``compare`` (``gate`` has its own help text).
MarkdownOption = Annotated[
    Path | None,
    typer.Option(
        "--markdown",
        help="Also write a Markdown summary (appended to $GITHUB_STEP_SUMMARY under GitHub"
        " Actions).",
    ),
]
