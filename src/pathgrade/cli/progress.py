"""Progress bars for long CLI work (rich), shown only to a person at a terminal.

Off when stderr is not a terminal or when ``CI`` is set. Long-running functions take a plain
callback ``progress(done, total)`` (see :data:`ProgressCallback`) and know nothing about
rich; this module turns such a callback into a bar.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

#: ``progress(done, total)``: called as work advances; ``total`` may grow between calls.
ProgressCallback = Callable[[int, int], None]


def progress_enabled(console: Console | None = None) -> bool:
    """Whether to draw a bar: a terminal on stderr and no ``CI`` variable."""
    if os.environ.get("CI"):
        return False
    return (console or Console(stderr=True)).is_terminal


def _ignore(done: int, total: int) -> None:
    del done, total


@contextmanager
def progress_bar(description: str, console: Console | None = None) -> Iterator[ProgressCallback]:
    """A callback drawing a bar while the ``with`` block runs (a no-op when disabled)."""
    target = console or Console(stderr=True)
    if not progress_enabled(target):
        yield _ignore
        return
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=target,
        transient=True,
    )
    task = bar.add_task(description, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    with bar:
        yield update
