"""Reading JSON inputs: one parser (orjson) and one set of limits for every form.

A file is JSONL (one record a line; blank lines and lines starting with ``//`` are skipped)
or one JSON array of records (possibly spread over many lines); the first byte that is not
whitespace decides (``[``: an array). Each record comes with its 1-based line number. In
both forms:

* a leading UTF-8 byte order mark is skipped;
* JSONL lines are split on ``\\n`` only, so ``\\r\\n`` works (the ``\\r`` is whitespace),
  U+2028, U+2029 and U+0085 (which ``str.splitlines`` breaks on, and which are legal raw
  characters inside JSON strings) stay in their record, and a line holding a raw ``\\x0b``,
  ``\\x0c`` or ``\\x1c``-``\\x1e`` (also line breaks to ``str.splitlines``; JSON must
  escape them) is one malformed record, not several lines;
* a JSONL line, or one record of an array, longer than the line limit (:func:`line_limit`:
  64 MiB unless ``PATHGRADE_MAX_LINE_BYTES`` in the environment or the caller says
  otherwise) is an error naming the file and line, found after reading at most that many
  bytes of it (``/dev/zero`` as input fails at once, in bounded memory); such an error ends
  the reading, even when invalid records are skipped. An array read from a pipe or a
  device, not a regular file, is bounded by the same number of bytes in all;
* values are decoded by orjson: ``NaN``, ``Infinity``, numbers beyond the float range,
  invalid UTF-8 and nesting deeper than orjson reads (1,024 levels; about 1,000 for the
  array reader) are errors; integers beyond 64 bits become floats (and are then refused
  where an integer is expected);
* the tighter nesting limit of 128 levels (:mod:`pathgrade.core.nesting`) is checked by the
  models for the free-form values of cases and runs, and by :func:`check_depth` for the
  whole record where a loader has no model.

A malformed JSONL line is *yielded* as an :class:`InputError` (the caller may skip it and go
on); an array stops at its first malformed record, since its remainder cannot be parsed.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from io import BufferedReader
from pathlib import Path
from typing import IO, Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.nesting import MAX_DEPTH, deep_path

__all__ = [
    "BOM",
    "DEFAULT_MAX_LINE_BYTES",
    "JSON_WHITESPACE",
    "MAX_DEPTH",
    "MAX_LINE_BYTES_ENV",
    "bounded_lines",
    "check_depth",
    "decode_line",
    "iter_records",
    "line_limit",
    "line_too_long",
    "skip_bom",
]

#: The longest JSONL line (or array record), in bytes, unless configured otherwise.
DEFAULT_MAX_LINE_BYTES = 64 << 20
#: The environment variable that sets :func:`line_limit` (a positive integer of bytes).
MAX_LINE_BYTES_ENV = "PATHGRADE_MAX_LINE_BYTES"
BOM = b"\xef\xbb\xbf"
#: JSON's whitespace (RFC 8259): what is stripped around a line's record.
JSON_WHITESPACE = b" \t\r\n"

_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels of arrays and objects"
_AT_BYTE = re.compile(r"\(byte (\d+)\)")
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def line_limit(value: int | None = None) -> int:
    """``value`` if given, else ``$PATHGRADE_MAX_LINE_BYTES``, else 64 MiB."""
    if value is None:
        text = os.environ.get(MAX_LINE_BYTES_ENV)
        if text is None:
            return DEFAULT_MAX_LINE_BYTES
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise InputError(
                f"expected a positive number of bytes, got {text!r}", field=MAX_LINE_BYTES_ENV
            )
    if value < 1:
        raise InputError(
            f"expected a positive number of bytes, got {value}", field="max_line_bytes"
        )
    return value


def line_too_long(limit: int, name: str, line: int, what: str = "line") -> InputError:
    """The error for a line (or ``what``) longer than ``limit`` bytes."""
    return InputError(
        f"{what} longer than {limit:,} bytes (set {MAX_LINE_BYTES_ENV} to allow longer ones)",
        file=name,
        line=line,
    )


def skip_bom(handle: IO[bytes]) -> int:
    """Move ``handle`` (at the start of a file) past a UTF-8 byte order mark; the bytes
    skipped (3 or 0)."""
    if handle.read(3) == BOM:
        return 3
    handle.seek(0)
    return 0


def bounded_lines(
    handle: IO[bytes], name: str, limit: int, first_line: int = 1
) -> Iterator[tuple[int, bytes]]:
    """``(line, raw)`` for every line of ``handle``, split on ``\\n`` only (``raw`` keeps its
    ``\\n``); a line longer than ``limit`` bytes raises an :class:`InputError` after at most
    ``limit + 1`` bytes of it are read."""
    readline = handle.readline
    number = first_line
    while True:
        raw = readline(limit + 1)
        if not raw:
            return
        if len(raw) > limit and raw[-1] != 10:  # 10: b"\n"
            raise line_too_long(limit, name, number)
        yield number, raw
        number += 1


def _shown_path(parts: list[int | str]) -> str:
    out = ""
    for part in parts[:6]:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out + ("..." if len(parts) > 6 else "")


def check_depth(
    value: Any, name: str | None, line: int | None, *, prefix: tuple[int | str, ...] = ()
) -> None:
    """Raise an :class:`InputError` naming the field when ``value`` (a record, or the value
    at path ``prefix`` of one: ``("steps", 0, "arguments")``) makes its record nest deeper
    than :data:`MAX_DEPTH` levels."""
    if type(value) is not dict and type(value) is not list:
        return
    path = deep_path(value, MAX_DEPTH - len(prefix))
    if path is not None:
        raise InputError(
            _TOO_DEEP,
            file=name,
            line=line,
            field=_shown_path([*prefix, *path]) or None,
        )


def decode_line(body: bytes, name: str, line: int) -> Any:
    """The value of one JSONL line (its whitespace stripped), or the :class:`InputError`
    that stands for it (malformed JSON, nested deeper than orjson reads)."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        if error.msg.startswith("depth limit exceeded"):  # orjson's own limit: 1,024 levels
            return InputError(_TOO_DEEP, file=name, line=line)
        return InputError(f"malformed JSON: {error}", file=name, line=line)
    return value


def _read_rest(handle: IO[bytes], name: str, limit: int) -> bytes:
    """The rest of the file; from a pipe or a device, at most ``limit`` bytes."""
    if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        return handle.read()
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(
            f"a JSON array read from a pipe or a device is limited to {limit:,} bytes"
            f" ({MAX_LINE_BYTES_ENV})",
            file=name,
        )
    return data


def _line_at(data: bytes, position: int, first_line: int) -> int:
    return data.count(b"\n", 0, position) + first_line


def _nesting_line(data: bytes, start: int, first_line: int) -> int:
    """The line where the array's nesting first goes deeper than :data:`MAX_DEPTH` levels
    (called only on the error path: a slow scan)."""
    depth = 0
    for token in _TOKENS.finditer(data, start):
        char = token.group()[:1]
        if char in b"[{":
            depth += 1
            if depth > MAX_DEPTH + 1:  # the array itself is one level above its records
                return _line_at(data, token.start(), first_line)
        elif char in b"]}":
            depth -= 1
    return _line_at(data, start, first_line)


def _array_records(
    data: bytes, name: str, first_line: int, limit: int
) -> Iterator[tuple[int, Any]]:
    """The records of the JSON array ``data`` (which starts at line ``first_line``)."""
    import msgspec  # only for JSON arrays: the TREC and JSONL readers never need it

    start = len(data) - len(data.lstrip(JSON_WHITESPACE))
    try:
        raws = msgspec.json.decode(data[start:] if start else data, type=list[msgspec.Raw])
    except msgspec.DecodeError as error:
        found = _AT_BYTE.search(str(error))
        at = start + int(found.group(1)) if found else len(data)
        message = str(error).removeprefix("JSON is malformed: ")
        message = _AT_BYTE.sub("", message).strip()
        if message == "Input data was truncated":
            message = "unterminated JSON array"
        line = _line_at(data, at, first_line)
        raise InputError(f"malformed JSON: {message}", file=name, line=line) from None
    except RecursionError:
        raise InputError(
            _TOO_DEEP,
            file=name,
            line=_nesting_line(data, start, first_line),
        ) from None
    position, line = start, first_line
    for raw in raws:
        chunk = bytes(raw)
        at = data.find(chunk, position)  # the gap before it is whitespace and a comma
        line += data.count(b"\n", position, at)
        position = at
        if len(chunk) > limit:
            raise line_too_long(limit, name, line, "record")
        value = decode_line(chunk, name, line)
        if isinstance(value, InputError):
            raise value
        yield line, value


def iter_records(
    path: str | Path, *, max_line_bytes: int | None = None
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, value)`` for every record of a JSONL file or JSON array (module
    docstring); a malformed JSONL record is yielded as its :class:`InputError`, any other
    problem (unreadable or empty file, a line over the limit, a bad array) raises."""
    name = str(path)
    limit = line_limit(max_line_bytes)
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - closed by the with below; error first
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=name) from None
    with handle:
        try:
            yield from _records(handle, name, limit)
        except OSError as error:  # a device or a file system that fails to read
            raise InputError(f"cannot read file: {error.strerror}", file=name) from None


def _records(handle: BufferedReader, name: str, limit: int) -> Iterator[tuple[int, Any]]:
    if handle.peek(len(BOM))[: len(BOM)] == BOM:
        handle.read(len(BOM))
    readline = handle.readline
    number = 0
    while True:  # to the first line that is not blank: its first byte tells the form
        raw = readline(limit + 1)
        if not raw:
            raise InputError("file is empty", file=name)
        number += 1
        body = raw.strip(JSON_WHITESPACE)
        if body:
            break
        if len(raw) > limit and raw[-1] != 10:  # 10: b"\n"
            raise line_too_long(limit, name, number)
    if body[:1] == b"[":
        yield from _array_records(raw + _read_rest(handle, name, limit), name, number, limit)
        return
    loads, malformed, strip = orjson.loads, orjson.JSONDecodeError, bytes.strip
    while raw:  # decode_line, inlined: this loop is the loaders' hot path
        if len(raw) > limit and raw[-1] != 10:
            raise line_too_long(limit, name, number)
        body = strip(raw, JSON_WHITESPACE)
        if body and not body.startswith(b"//"):
            try:
                value = loads(body)
            except malformed:
                value = decode_line(body, name, number)  # the error that stands for it
            yield number, value
        raw = readline(limit + 1)
        number += 1
