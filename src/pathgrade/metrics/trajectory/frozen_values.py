"""Hashable forms of JSON argument values: equal forms mean equal under ``exact`` (or, with
``normalized=True``, under ``normalized``) argument matching (docs/trajectory.md)."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Hashable
from typing import Any

_BOOL_TAG = "\x00bool"
_LIST_TAG = "\x00list"
DICT_TAG = "\x00dict"


def normalize_text(text: str) -> str:
    """NFKC, case folding, whitespace runs to one space, stripped."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def as_number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def freeze(value: Any, *, normalized: bool = False) -> Hashable:
    """A hashable form of a JSON value; equal forms mean equal under ``exact``/``normalized``.

    Python already makes ``1 == 1.0`` (with equal hashes); booleans are tagged so that
    ``true`` never equals ``1``.
    """
    if isinstance(value, bool):
        return (_BOOL_TAG, value)
    if isinstance(value, str):
        if not normalized:
            return value
        number = as_number(value)
        return number if number is not None else normalize_text(value)
    if isinstance(value, dict):
        return (
            DICT_TAG,
            tuple(sorted((k, freeze(v, normalized=normalized)) for k, v in value.items())),
        )
    if isinstance(value, list | tuple):
        return (_LIST_TAG, tuple(freeze(v, normalized=normalized) for v in value))
    if isinstance(value, float) and math.isnan(value):
        return "\x00nan"
    return value  # type: ignore[no-any-return]
