"""Plug-in points, loaded lazily: argument matchers (e.g. semantic similarity).

A plug-in argument matcher is a callable ``(reference_value, agent_value) -> bool``, named in
the config as a field mode (``[matching.tools.search.fields.query] mode = "semantic"``). Add one
with :func:`register_argument_matcher`, or from a package through the entry-point group
``pathgrade.argument_matchers``.

A plug-in embedder (``[matching.semantic] backend = "<name>"``) is a callable
``(texts: list[str]) -> list[list[float]]`` (one vector per text), added with
:func:`register_embedder` or through the entry-point group ``pathgrade.embedders``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points
from typing import Any

ArgumentMatcher = Callable[[Any, Any], bool]
ENTRY_POINT_GROUP = "pathgrade.argument_matchers"
_registered: dict[str, ArgumentMatcher] = {}


def register_argument_matcher(name: str, matcher: ArgumentMatcher) -> None:
    """Make ``matcher`` available as the field mode ``name`` (a duplicate name is an error)."""
    if name in _registered:
        raise ValueError(f"argument matcher {name!r} is already registered")
    _registered[name] = matcher


def unregister_argument_matcher(name: str) -> None:
    """Remove a matcher added with :func:`register_argument_matcher` (for tests)."""
    _registered.pop(name, None)


@cache
def _installed_matchers() -> dict[str, ArgumentMatcher]:
    """Matchers of installed entry points, looked up once per process (a scan of every
    installed distribution's metadata: milliseconds, paid by every ``score`` call before)."""
    return {entry.name: entry.load() for entry in entry_points(group=ENTRY_POINT_GROUP)}


def argument_matchers() -> dict[str, ArgumentMatcher]:
    """Registered matchers plus those of installed entry points (registered names win)."""
    return {**_installed_matchers(), **_registered}


Embedder = Callable[[list[str]], Any]
EMBEDDER_GROUP = "pathgrade.embedders"
_embedders: dict[str, Embedder] = {}


def register_embedder(name: str, embedder: Embedder) -> None:
    """Make ``embedder`` available as ``[matching.semantic] backend = name`` (unique names)."""
    if name in _embedders:
        raise ValueError(f"embedder {name!r} is already registered")
    _embedders[name] = embedder


def unregister_embedder(name: str) -> None:
    """Remove an embedder added with :func:`register_embedder` (for tests)."""
    _embedders.pop(name, None)


def embedders() -> dict[str, Embedder]:
    """Registered embedders plus those of installed entry points (registered names win)."""
    installed = {entry.name: entry.load() for entry in entry_points(group=EMBEDDER_GROUP)}
    return {**installed, **_embedders}
