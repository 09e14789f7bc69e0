"""Hypothesis strategies that corrupt golden inputs, shared by every fuzz test.

* :func:`mutated_bytes` ``(data)``: ``data`` with one to three corruptions: bytes flipped,
  truncated, a slice deleted or duplicated, hostile bytes inserted (bad UTF-8, a byte order
  mark, NUL, ``\\r``, U+2028, brackets 300 and 2,000 deep, ``NaN``, a 5,000-digit number,
  ...).
* :func:`mutated_json_documents` ``(doc)``: the decoded document ``doc`` (a dict or list)
  with one change at a random path: a value swapped for another JSON type or a hostile value
  (``true`` for a number, ``2**63``, ``1e308``, deep nesting, a long string, ``NaN``), a key
  deleted, an unknown key added, or the whole document replaced.
* :func:`jsonl_with_one_mutated_record` ``(records)``: JSONL bytes of ``records`` with one
  record replaced by a mutation of it (written by the stdlib ``json``, which writes what
  ``orjson`` would refuse: ``NaN``, nesting beyond 254 levels).

The tests of a loader take their example count from the ``fuzz_settings`` fixture
(``tests/conftest.py``): a few dozen examples per loader in CI, many more with
``--fuzz-long``. Only :class:`~pathgrade.core.errors.InputError` may escape a loader:
:func:`only_input_errors` runs one and says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from pathgrade.core.errors import InputError

__all__ = [
    "HOSTILE_BYTES",
    "hostile_values",
    "jsonl_with_one_mutated_record",
    "mutated_bytes",
    "mutated_json_documents",
    "only_input_errors",
]

#: Byte strings that break naive readers, inserted by :func:`mutated_bytes`.
HOSTILE_BYTES: tuple[bytes, ...] = (
    b"\xff",
    b"\xc3",  # a truncated two-byte sequence
    b"\xed\xa0\x80",  # an encoded surrogate
    b"\xef\xbb\xbf",  # a byte order mark, mid-file
    b"\x00",
    b"\r",
    b"\n",
    b"\r\n",
    "\u2028".encode(),
    "\u0085".encode(),
    b"\x1c",
    b"\x0b",
    b"[" * 300,
    b"{" * 300,
    b"[" * 2000 + b"]" * 2000,  # deeper than every parser reads
    b"]",
    b"}",
    b",",
    b'"',
    b"\\",
    b"NaN",
    b"-Infinity",
    b"1e400",
    b"9223372036854775808",
    b"1" * 5000,
    b"true",
    b"null",
    b"//",
    b"#",
    b"=",
    b"[[",
    b"\t",
)


def _nested(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)


def hostile_values() -> st.SearchStrategy[Any]:
    """A JSON value of any type, biased to the ones that break loaders."""
    return st.one_of(
        st.sampled_from(
            [
                None,
                True,
                False,
                0,
                -1,
                1,
                2**63 - 1,
                2**63,
                -(2**63) - 1,
                2**64,
                10**30,
                1.5,
                -0.0,
                1e308,
                float("nan"),
                float("inf"),
                "",
                " ",
                "\u2028",
                "\x00",
                "x" * 10_000,
                [],
                {},
                [None],
                {"": None},
                _nested(130),
                _nested(300),
            ]
        ),
        st.integers(),
        st.floats(),
        _TEXT,
        st.lists(st.one_of(st.none(), st.booleans(), st.integers(), _TEXT), max_size=3),
        st.dictionaries(_TEXT, st.one_of(st.none(), st.integers(), _TEXT), max_size=3),
    )


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``value`` (``()`` is the value itself)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _paths(child, (*prefix, index))
    return out


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _replaced(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = _copy(doc)
    holder = out
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = new
    return out


def _changed(doc: Any, path: tuple[Any, ...], how: str, new: Any) -> Any:
    out = _copy(doc)
    holder = out
    for part in path:
        holder = holder[part]
    if how == "delete" and isinstance(holder, dict) and holder:
        del holder[next(iter(holder))]
    elif how == "delete" and isinstance(holder, list) and holder:
        holder.pop()
    elif how == "add" and isinstance(holder, dict):
        holder["unknown_field"] = new
    elif how == "add" and isinstance(holder, list):
        holder.append(new)
    elif how == "wrap":
        return _replaced(out, path, [holder])
    elif how == "stringify":
        return _replaced(out, path, json.dumps(holder))
    return out


def mutated_json_documents(doc: Any) -> st.SearchStrategy[Any]:
    """``doc`` (a decoded JSON document) with one change at a random path (module docstring)."""
    paths = _paths(doc)

    @st.composite
    def strategy(draw: st.DrawFn) -> Any:
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "wrap"]))
        new = draw(hostile_values())
        if how == "replace":
            return _replaced(doc, path, new)
        if draw(st.booleans()) and how == "wrap":
            how = "stringify"
        return _changed(doc, path, how, new)

    return strategy()


def _flipped(data: bytes, positions: list[int], mask: int) -> bytes:
    out = bytearray(data)
    for at in positions:
        if at < len(out):
            out[at] ^= mask
    return bytes(out)


def _one_corruption(data: bytes) -> st.SearchStrategy[bytes]:
    position = st.integers(0, len(data))
    return st.one_of(
        st.tuples(st.lists(position, min_size=1, max_size=4), st.integers(1, 255)).map(
            lambda t: _flipped(data, *t)
        ),
        position.map(lambda n: data[:n]),
        st.tuples(position, st.integers(1, 64)).map(lambda t: data[: t[0]] + data[t[0] + t[1] :]),
        st.tuples(position, st.sampled_from(HOSTILE_BYTES)).map(
            lambda t: data[: t[0]] + t[1] + data[t[0] :]
        ),
        st.tuples(position, st.integers(1, 200)).map(
            lambda t: data[: t[0]] + data[t[0] : t[0] + t[1]] * 2 + data[t[0] + t[1] :]
        ),
        st.binary(max_size=64),
    )


def mutated_bytes(data: bytes) -> st.SearchStrategy[bytes]:
    """``data`` with one to three corruptions (module docstring)."""

    @st.composite
    def strategy(draw: st.DrawFn) -> bytes:
        out = data
        for _ in range(draw(st.integers(1, 3))):
            out = draw(_one_corruption(out))
        return out

    return strategy()


def _jsonl(records: Sequence[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()


def jsonl_with_one_mutated_record(records: Sequence[Any]) -> st.SearchStrategy[bytes]:
    """JSONL bytes of ``records`` with one record replaced by a mutation of it."""

    @st.composite
    def strategy(draw: st.DrawFn) -> bytes:
        index = draw(st.integers(0, len(records) - 1))
        changed = list(records)
        changed[index] = draw(mutated_json_documents(records[index]))
        return _jsonl(changed)

    return strategy()


def only_input_errors(load: Callable[[], object]) -> InputError | None:
    """Run ``load``; the :class:`InputError` it raised (one line), or None. Any other
    exception propagates and fails the test."""
    try:
        load()
    except InputError as error:
        text = str(error)
        assert "\n" not in text and "\r" not in text, text
        return error
    return None
