"""A step's text form: the shorthand ``"tool:arg"`` a step may be written in, and the compact
form every output shows a call in (:func:`format_step`)."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["format_step", "parse_step_shorthand"]


class Call(Protocol):
    """What :func:`format_step` reads of a step."""

    @property
    def tool(self) -> str: ...

    @property
    def arguments(self) -> Any: ...


def parse_step_shorthand(text: str) -> dict[str, Any]:
    """``"refund:A17"`` -> ``{"tool": "refund", "arguments": ["A17"]}``; ``"noop"`` -> no args."""
    tool, sep, arg = text.partition(":")
    tool = tool.strip()
    if not tool:
        raise ValueError(f"step shorthand {text!r} has no tool name")
    return {"tool": tool, "arguments": [arg] if sep else {}}


def format_step(step: Call) -> str:
    """A compact human form: ``refund:A17`` for one positional argument, else ``tool(k=v, ...)``."""
    args = step.arguments
    if isinstance(args, list):
        if not args:
            return step.tool
        if len(args) == 1 and isinstance(args[0], str):
            return f"{step.tool}:{args[0]}"
        return f"{step.tool}({', '.join(repr(a) for a in args)})"
    if not args:
        return step.tool
    return f"{step.tool}({', '.join(f'{k}={v!r}' for k, v in args.items())})"
