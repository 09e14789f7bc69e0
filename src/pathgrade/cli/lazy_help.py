"""Help texts that name what only a heavy module knows (the trace formats, the argument
matching modes), filled in when a command's help is shown, not when the app is built."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from typer.core import TyperCommand


def help_filled_by(fill: Callable[[], Mapping[str, str]]) -> type[TyperCommand]:
    """A command class whose parameters named by ``fill()`` get its help texts when the
    command's help is formatted (``fill`` imports what it needs then)."""

    class FilledHelp(TyperCommand):
        def format_help(self, ctx: Any, formatter: Any) -> None:
            texts = fill()
            for param in self.params:
                if param.name in texts:
                    param.help = texts[param.name]  # type: ignore[attr-defined]
            super().format_help(ctx, formatter)

    return FilledHelp
