"""The command groups' class (``pathgrade``, ``pathgrade runs``): typer's own, with a help
flag that is ``False``, not ``None``, when not given.

Typer coerces a flag's ``None`` through a pydantic adapter, so without this the group's
unused ``--help`` imports pydantic (about 0.15 s) before any subcommand, even for
``pathgrade score --help``; a ``bool`` value is passed through untouched.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup, TyperOption


class LightGroup(TyperGroup):
    """:class:`typer.core.TyperGroup` whose ``--help`` defaults to ``False``."""

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.default = False
        return option
