"""Reading results files: every record checked against
:class:`~pathgrade.io.results.schema.ResultRecord`, errors on one line naming file, line and
field.

Records are returned as the JSON objects they are (dicts: extra keys kept, nothing
converted), once validated. The ``schema_version`` is checked first, so a record written by
a newer pathgrade is refused for its version, not for a field this one does not know.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson

from pathgrade.core.errors import InputError
from pathgrade.io.jsonl import (
    BOM,
    JSON_WHITESPACE,
    bounded_lines,
    check_depth,
    decode_line,
    line_limit,
)
from pathgrade.io.results.schema import SCHEMA_VERSION, ResultRecord

_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$")
_MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]+)`")


def check_version(version: Any, *, file: str, line: int) -> None:
    """A ``schema_version`` this pathgrade reads (an integer from 1 to
    :data:`~pathgrade.io.results.schema.SCHEMA_VERSION`), else a one-line error."""
    if type(version) is not int or version < 1:
        raise InputError(
            f"invalid schema_version {version!r} (expected an integer from 1 to {SCHEMA_VERSION})",
            file=file,
            line=line,
            field="schema_version",
        )
    if version > SCHEMA_VERSION:
        raise InputError(
            f"unsupported schema_version {version} (this pathgrade reads up to"
            f" {SCHEMA_VERSION}; upgrade pathgrade)",
            file=file,
            line=line,
            field="schema_version",
        )


def validate_record(record: Any, *, file: str, line: int) -> dict[str, Any]:
    """``record`` if it is a result record this pathgrade reads, else a one-line
    :class:`InputError` naming ``file``, ``line`` and the offending field."""
    if not isinstance(record, dict):
        raise InputError("expected a JSON object", file=file, line=line)
    check_version(record.get("schema_version", 1), file=file, line=line)
    try:
        msgspec.convert(record, ResultRecord)
    except msgspec.ValidationError as error:
        message, where = _explain(str(error))
        raise InputError(message, file=file, line=line, field=where) from None
    return record


def _explain(text: str) -> tuple[str, str | None]:
    """msgspec's message and the field it names (``$.defects[0].kind`` -> ``defects[0].kind``,
    ``$.metrics[...]`` -> ``metrics``)."""
    missing = _MISSING.match(text)
    if missing:
        return "missing required field", missing["field"]
    found = _AT.match(text)
    if found is None:  # not msgspec's usual form: the message as it is
        return text, None
    path = (found["path"] or "").removeprefix(".").replace("[...]", "")
    return found["message"].replace("`", "").lower(), path or None


def iter_results(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the records of a results file (JSONL), each validated; errors name the file and
    line. Lines are split on ``\n`` only and bounded (:func:`~pathgrade.io.jsonl.line_limit`),
    a leading byte order mark is skipped, blank lines are skipped; a file without records is
    an error."""
    name = str(path)
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - closed by the with below; errors first
    except OSError as error:
        raise InputError(f"cannot read results file: {error.strerror}", file=name) from None
    with handle:
        seen = False
        if handle.peek(len(BOM))[: len(BOM)] == BOM:  # peek: a pipe cannot seek back
            handle.read(len(BOM))
        for number, raw in bounded_lines(handle, name, line_limit()):
            body = raw.strip(JSON_WHITESPACE)
            if not body:
                continue
            record = decode_line(body, name, number)
            if isinstance(record, InputError):
                raise record
            check_depth(record, name, number)
            seen = True
            yield validate_record(record, file=name, line=number)
        if not seen:
            raise InputError("results file is empty", file=name)


def jsonl_records(records: bytes) -> list[dict[str, Any]]:
    """The records of JSONL bytes this pathgrade wrote (:func:`~pathgrade.io.results.writer.
    records_jsonl`), as dicts; not validated (use :func:`validate_record` for others')."""
    return [orjson.loads(line) for line in records.splitlines()]


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """All records of a results file (see :func:`iter_results`)."""
    return list(iter_results(path))
