"""The command groups' class (``pathgrade``, ``pathgrade runs``, ``pathgrade cases``): typer's
own, with two start-up savings and no change in what a command receives.

Typer (0.29) turns every option's text into its Python value through a pydantic
``TypeAdapter``: importing pydantic and building the adapters costs about 0.2 s of CPU on
every command, which is most of a small command's time and about a fifth of
``pathgrade retrieval`` on 20k queries (issue 21). So:

- the group's own ``--help`` defaults to ``False``, not ``None`` (a ``bool`` skips coercion);
- before a subcommand runs, each parameter whose annotation is plain ``str``, ``Path``,
  ``int``, ``float`` or ``bool`` (or a ``list`` of one), with no parser, bounds, choices,
  formats or path checks, is coerced by :class:`PlainValue`: ``str(v)``, ``Path(v)``, and
  ``int(v)`` or ``float(v)`` of plain decimal text only, exactly as typer's adapter would. A
  value it cannot convert, and every other annotation, goes through typer's own coercion, so
  error messages stay typer's.

``tests/cli/test_light_coercion.py`` checks both paths give the same values and errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from typer.core import TyperGroup, TyperOption

_INT = re.compile(r"[+-]?[0-9]{1,18}")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,15}(?:\.[0-9]{0,15})?|\.[0-9]{1,15})(?:[eE][+-]?[0-9]{1,2})?")


def _int(text: str) -> int:
    """Plain decimal integers only (``int()`` also takes ``1_0`` and spaces, pydantic not)."""
    if not _INT.fullmatch(text):
        raise ValueError(text)
    return int(text)


def _float(text: str) -> float:
    """Plain decimal numbers only; ``nan``, ``inf`` and the rest go to typer's coercion."""
    if not _FLOAT.fullmatch(text):
        raise ValueError(text)
    return float(text)


#: The annotations converted without typer's adapters, and how (``bool``: never from text).
_CONVERTERS: dict[Any, Any] = {str: str, Path: Path, int: _int, float: _float, bool: None}
#: ParameterInfo attributes that, when set, send a parameter to typer's own coercion.
_CONSTRAINTS = (
    "parser",
    "click_type",
    "min",
    "max",
    "clamp",
    "formats",
    "exists",
    "resolve_path",
    "path_type",
    "allow_dash",
)
#: ParameterInfo attributes that must keep typer's defaults (True) for a plain path: a
#: path's checks (``exists``, ``writable``, ...) then do nothing, as with typer.
_PATH_DEFAULTS = ("file_okay", "dir_okay", "readable")
#: ... and those that must keep their default (False).
_PATH_OFF = ("writable",)

RuntimeParam: Any
try:  # typer's runtime coercion (0.29); older typers coerce without pydantic, so no saving
    from typer._coercion import RuntimeParam
except ImportError:  # pragma: no cover - another typer version
    RuntimeParam = None


def _plain(annotation: Any, info: Any) -> tuple[Any, bool] | None:
    """``(converter, is_list)`` for a plain annotation without constraints, else None."""
    if any(getattr(info, name, None) for name in _CONSTRAINTS):
        return None
    if any(getattr(info, name, True) is not True for name in _PATH_DEFAULTS):
        return None
    if any(getattr(info, name, False) for name in _PATH_OFF):
        return None
    is_list = get_origin(annotation) is list
    if is_list:
        (annotation,) = get_args(annotation) or (None,)
    if annotation not in _CONVERTERS:
        return None
    return _CONVERTERS[annotation], is_list


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class PlainValue(RuntimeParam):  # type: ignore[misc]
        """Typer's runtime coercion for a plain annotation, without pydantic; anything it
        cannot convert is handed to ``fallback`` (typer's own), for typer's error message."""

        converter: Any
        is_list: bool
        fallback: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                if self.is_list:
                    items = value if isinstance(value, list | tuple) else [value]
                    if self.converter is not None and all(isinstance(i, str) for i in items):
                        return [self.converter(item) for item in items]
                elif isinstance(value, str) and self.converter is not None:
                    return self.converter(value)
            except (TypeError, ValueError):
                pass
            return self.fallback(param)._coerce_value(value, param=param, ctx=ctx)


def _typer_coercion(param: Any) -> Any:
    from typer._coercion import build_runtime_param

    return build_runtime_param(param.type_descriptor)


def lighten(command: Any, ctx: Any) -> None:
    """Give each plain parameter of ``command`` (its ``--help`` too) a :class:`PlainValue`
    coercion (see above). A ``bool`` is never converted here: typer passes a flag's ``bool``
    through and coerces ``None`` to ``None``, and any text goes to typer's coercion."""
    if RuntimeParam is None:  # pragma: no cover - another typer version
        return
    for param in command.get_params(ctx):
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", True) is not None:
            continue
        if descriptor.file_annotation is not None:
            continue
        plain = _plain(descriptor.annotation, descriptor.parameter_info)
        if plain is None:
            continue
        param._runtime_param = PlainValue(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            converter=plain[0],
            is_list=plain[1],
            fallback=_typer_coercion,
        )


class LightGroup(TyperGroup):
    """:class:`typer.core.TyperGroup` whose ``--help`` defaults to ``False`` and whose
    subcommands' plain parameters are coerced without pydantic (see the module docstring)."""

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.default = False
        return option

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            lighten(command, ctx)
        return name, command, rest
