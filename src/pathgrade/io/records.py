"""Read JSON records from a JSONL file or a JSON array, keeping the line of each record.

Both forms are accepted: one object per line (blank lines and lines starting with ``//``
are skipped), or one JSON array of objects (possibly spread over many lines). Each record
comes with its 1-based line number, so every later error can name file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _array_records(text: str, name: str, start: int) -> Iterator[tuple[int, Any]]:
    decoder = json.JSONDecoder()
    position = start + 1
    expect_value = True
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if position >= len(text):
            raise InputError("unterminated JSON array", file=name, line=_line_of(text, position))
        char = text[position]
        if char == "]":
            return
        if char == "," and not expect_value:
            position += 1
            expect_value = True
            continue
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise InputError(
                f"malformed JSON: {error.msg}", file=name, line=_line_of(text, error.pos)
            ) from None
        yield _line_of(text, position), value
        position = end
        expect_value = False


def iter_records(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, value)`` for every record; raise :class:`InputError` on bad JSON.

    With ``skip`` handling left to the caller, a malformed JSONL line raises an error that
    the caller may catch and continue past (the iterator itself stops at that point only
    for JSON arrays, whose remainder cannot be parsed).
    """
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=name) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", file=name) from None
    stripped = text.lstrip()
    if not stripped:
        raise InputError("file is empty", file=name)
    if stripped.startswith("["):
        yield from _array_records(text, name, len(text) - len(stripped))
        return
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.strip()
        if not body or body.startswith("//"):
            continue
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError as error:
            yield number, InputError(f"malformed JSON: {error}", file=name, line=number)
            continue
        yield number, value
