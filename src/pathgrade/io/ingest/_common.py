"""Shared pieces of the trace readers: options, argument decoding, per-line error handling.

Traces are untrusted text: every value is checked for its type before use, nothing is
evaluated, and a bad record becomes a one-line :class:`InputError` naming file and line.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Arguments

#: Attribute (span attribute or resource attribute) read as the case id by default.
DEFAULT_CASE_ID_ATTRIBUTE = "pathgrade.case_id"


@dataclass
class IngestOptions:
    """How traces become runs.

    ``case_id_attribute``: the span/resource attribute holding the case id (span formats).
    ``case_map``: trace id (or run id) -> case id, wins over the attribute.
    ``skip_invalid``: a bad line or trace is recorded in ``skipped`` instead of raised.
    ``fallbacks``: runs whose case id was taken from the trace id (nothing else named one).
    """

    case_id_attribute: str = DEFAULT_CASE_ID_ATTRIBUTE
    case_map: Mapping[str, str] = field(default_factory=dict)
    skip_invalid: bool = False
    skipped: list[InputError] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)

    def fail(self, error: InputError) -> None:
        """Raise ``error``, or record it when skipping invalid input."""
        if not self.skip_invalid:
            raise error
        self.skipped.append(error)

    def case_id(self, trace_id: str, found: Any) -> str:
        """The case id of a trace: the mapping file, else the attribute, else the trace id."""
        mapped = self.case_map.get(trace_id)
        if mapped:
            return mapped
        if isinstance(found, str | int) and not isinstance(found, bool) and str(found).strip():
            return str(found)
        self.fallbacks.append(trace_id)
        return trace_id


@dataclass(frozen=True)
class DecodedArguments:
    """Arguments as the model expects them, the raw text, and whether decoding failed."""

    value: Arguments
    raw: str | None
    unparsed: bool = False


def decode_arguments(raw: Any) -> DecodedArguments:
    """Decode tool arguments recorded as a JSON string, an object, a list or nothing.

    A JSON object gives a dict, a JSON array a positional list, any other JSON value a
    one-element positional list; text that is not JSON is kept as ``raw`` with empty
    arguments and ``unparsed`` set. ``None`` (not recorded) gives ``{}``.
    """
    if raw is None:
        return DecodedArguments({}, None)
    if isinstance(raw, dict):
        return DecodedArguments({str(k): v for k, v in raw.items()}, None)
    if isinstance(raw, list | tuple):
        return DecodedArguments(list(raw), None)
    if not isinstance(raw, str):
        return DecodedArguments([raw], None)
    text = raw.strip()
    if not text:
        return DecodedArguments({}, raw)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return DecodedArguments({}, raw, unparsed=True)
    if isinstance(value, dict):
        return DecodedArguments(value, raw)
    if isinstance(value, list):
        return DecodedArguments(value, raw)
    return DecodedArguments([] if value is None else [value], raw)


def maybe_json(value: Any) -> Any:
    """A JSON string decoded when it holds an object or array; anything else unchanged."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def score_of(value: Any) -> float | None:
    """A finite number (any sign) from an int, float or decimal string; else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty dict."""
    return value if isinstance(value, dict) else {}


def text_of(value: Any) -> str | None:
    """A string value, or ``None``."""
    return value if isinstance(value, str) else None


def read_text(path: str | Path) -> str:
    """The file as UTF-8 text, or an :class:`InputError` naming it."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=name) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason})", file=name) from None


def json_lines(path: str | Path, options: IngestOptions) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` of each JSON line, or of the one JSON document when the file is one.

    A file whose text parses as one JSON document (an array or an object, possibly spread
    over many lines) yields it once, at the line where it starts. Otherwise each non-blank
    line is a record; a malformed line is reported through ``options.fail`` and skipped.
    """
    name = str(path)
    text = read_text(path)
    if not text.strip():
        raise InputError("file is empty", file=name)
    try:
        whole = orjson.loads(text)
    except orjson.JSONDecodeError:
        whole = None
    else:
        start = len(text) - len(text.lstrip())
        yield text.count("\n", 0, start) + 1, whole
        return
    for number_, line in enumerate(text.splitlines(), start=1):
        body = line.strip()
        if not body:
            continue
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError as error:
            options.fail(InputError(f"malformed JSON: {error}", file=name, line=number_))
            continue
        yield number_, value


def head_text(head: bytes | str) -> str:
    """The sniffed head of a file as text (invalid UTF-8 at a cut is dropped)."""
    if isinstance(head, bytes):
        return head.decode("utf-8", errors="ignore")
    return head


def number(value: Any) -> float | None:
    """A finite non-negative number from an int, float or decimal string; else ``None``."""
    parsed = score_of(value)
    return parsed if parsed is not None and parsed >= 0 else None
