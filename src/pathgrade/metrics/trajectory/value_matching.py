"""The ``fuzzy`` and ``numeric`` argument matching of one value (docs/trajectory.md): the
comparisons :mod:`pathgrade.metrics.trajectory.arguments` applies per field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rapidfuzz.utils import default_process

from pathgrade.metrics.trajectory.frozen_values import as_number, freeze


def fuzzy_equal(ref: Any, agent: Any, scorer: Callable[..., float], threshold: float) -> bool:
    """``fuzzy`` matching of one value: strings equal, or both non-empty after rapidfuzz's
    ``default_process`` with ``scorer(a, b) >= threshold``; objects and lists element by
    element; anything else as ``exact``."""
    if isinstance(ref, str) and isinstance(agent, str):
        if ref == agent:
            return True
        a, b = default_process(ref), default_process(agent)
        if not a or not b:
            return False
        return scorer(a, b) >= threshold
    if isinstance(ref, dict) and isinstance(agent, dict):
        return ref.keys() == agent.keys() and all(
            fuzzy_equal(ref[k], agent[k], scorer, threshold) for k in ref
        )
    if isinstance(ref, list | tuple) and isinstance(agent, list | tuple):
        return len(ref) == len(agent) and all(
            fuzzy_equal(r, a, scorer, threshold) for r, a in zip(ref, agent, strict=True)
        )
    return freeze(ref) == freeze(agent)


def fuzzy_ratio(ref: Any, agent: Any, scorer: Callable[..., float]) -> float | None:
    """The ratio :func:`fuzzy_equal` compares with its threshold for two strings (100 when
    equal, 0 when either is empty after ``default_process``); None for other values."""
    if not (isinstance(ref, str) and isinstance(agent, str)):
        return None
    if ref == agent:
        return 100.0
    a, b = default_process(ref), default_process(agent)
    return float(scorer(a, b)) if a and b else 0.0


def number_of(value: Any) -> float | None:
    """The number ``numeric`` matching reads from a value: an int or float (not a bool), or a
    number string (surrounding spaces ignored); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return as_number(value.strip())
    return None


def numeric_equal(ref: Any, agent: Any, abs_tol: float, rel_tol: float) -> bool:
    """``numeric`` matching of one value: ``|a - b| <= max(abs_tol, rel_tol * |reference|)``
    for numbers (and number strings, :func:`number_of`); anything else as ``exact``."""
    r, a = number_of(ref), number_of(agent)
    if r is None or a is None:
        return freeze(ref) == freeze(agent)
    return abs(r - a) <= max(abs_tol, rel_tol * abs(r))
