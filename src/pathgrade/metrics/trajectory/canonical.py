"""Canonical JSON texts of call arguments: equal texts exactly when ``exact`` matching says
the arguments are equal.

The encoder serialises every distinct call's arguments as sorted-key JSON anyway; under
``exact`` matching that text is the call's key as it is unless it holds a float (``1.0``
equals ``1``), and then the arguments are written again with integral floats as ints. So the
key of a call needs no walk over its arguments (see
:func:`~pathgrade.metrics.trajectory.arguments.freeze`, the definition it must agree with).
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

#: A JSON string token (orjson escapes ``"`` and ``\\`` inside strings), and what makes a
#: call's sorted-key JSON ambiguous as an ``exact`` key once strings are removed: a float
#: (``1.0`` equals ``1``; orjson writes every float with ``.`` or ``e`` after a digit).
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_AMBIGUOUS = re.compile(rb"[0-9][.eE]")
_INT64_MIN, _UINT64_END = -(1 << 63), 1 << 64


class _NoCanonicalFormError(Exception):
    """The value holds an integral float beyond 64 bits."""


def _integral_floats_as_ints(value: Any) -> Any:
    """``value`` with every integral float as the equal int (``1.0`` -> ``1``, ``-0.0`` ->
    ``0``), so that values equal under ``exact`` serialise alike, and NaN and the
    infinities as None (as orjson writes them, and as the encoder's call codes take them);
    raises :class:`_NoCanonicalFormError` for an integral float beyond 64 bits."""
    kind = type(value)
    if kind is float:
        if not math.isfinite(value):
            return None
        if value.is_integer():
            if not _INT64_MIN <= value < _UINT64_END:
                raise _NoCanonicalFormError
            return int(value)
        return value
    if kind is dict:
        return {k: _integral_floats_as_ints(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_integral_floats_as_ints(v) for v in value]
    return value


def exact_key_json(raw: bytes | str, arguments: Any) -> bytes | None:
    """A canonical JSON text of ``arguments`` for ``exact`` matching: two calls' texts are
    equal exactly when :func:`~pathgrade.metrics.trajectory.arguments.freeze` makes their
    arguments equal (NaN and the infinities aside: they are null, as in the encoder's call
    codes, see :mod:`pathgrade.metrics.trajectory.encode`);
    None when there is none (a value JSON cannot hold, such as an integer past 64 bits), and
    the caller keys by ``freeze`` instead.

    ``raw`` is the sorted-key JSON the encoder already made (or its ``repr`` fallback).
    Without floats it is canonical as it is; otherwise the arguments are serialised again
    with integral floats as ints.
    """
    if type(raw) is not bytes:
        return None
    if _AMBIGUOUS.search(raw) is None or _AMBIGUOUS.search(_JSON_STRING.sub(b"", raw)) is None:
        return raw
    try:
        return orjson.dumps(_integral_floats_as_ints(arguments), option=KEY_OPTIONS)
    except (_NoCanonicalFormError, TypeError):
        return None


#: Sorted keys; datetimes, dataclasses and subclasses of JSON types are not serialised
#: (orjson would write a datetime as a string equal to some plain string's): they raise,
#: and such arguments are coded by their ``repr`` or keyed by ``freeze``.
KEY_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


#: ``ambiguous_json(raw)``: a float token in sorted-key JSON, or None. It looks inside strings
#: too: a cheap first test (a C call); :func:`exact_key_json` looks again outside strings.
ambiguous_json = _AMBIGUOUS.search
