"""Shared pieces of the trace readers: options, typed access, argument decoding, lines.

Traces are untrusted text: every value is checked for its type before use (through the
accessors :func:`obj`, :func:`arr`, :func:`text` and :func:`bounded`, which name the field
path of a wrong value), nothing is evaluated, and a bad record becomes a one-line
:class:`InputError` naming file, line and field.
"""

from __future__ import annotations

import math
import os
import stat
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Arguments
from pathgrade.io.jsonl import MAX_DEPTH, MAX_LINE_BYTES_ENV, line_limit

#: Attribute (span attribute or resource attribute) read as the case id by default.
DEFAULT_CASE_ID_ATTRIBUTE = "pathgrade.case_id"
_T = TypeVar("_T")


@dataclass(frozen=True)
class SpanFate:
    """What one span of a run became: ``what`` is ``step N <tool>``, ``agent <name>``,
    ``model call``, ``retrieval``, ``structure`` or ``not mapped``."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    what: str


@dataclass
class IngestOptions:
    """How traces become runs.

    ``case_id_attribute``: the span/resource attribute holding the case id (span formats).
    ``case_map``: trace id (or run id) -> case id, wins over the attribute.
    ``skip_invalid``: a bad line or trace is recorded instead of raised.
    ``skipped``: the first error of each bad line (a line with several bad records or
    traces is one entry); ``repeats`` counts the further errors folded into those entries.
    ``fallbacks``: runs whose case id was taken from the trace id (nothing else named one).
    ``line``: the line being read (set by :func:`json_lines`), for errors raised elsewhere.
    ``retrieval_steps``: a retrieval operation is a step of the path (on by default: for
    agentic RAG the retrieval is part of the path); off, it only fills ``retrieved``.
    ``mcp_namespace``: MCP tool steps are named ``server/tool`` instead of ``tool``.
    ``unmapped``: span name -> count of the spans that no convention mapped (a producer
    pathgrade has no table for), over all runs read.
    ``explain``: when a list, each run's spans and what each became are appended to it
    (:class:`SpanFate`, for ``ingest --explain``).
    ``retrieval_tools``: tools whose result is a list of documents (a framework with no
    retrieval spans of its own, e.g. pydantic-ai): their steps are retrievals too, their
    documents (:func:`pathgrade.io.ingest.call_values.documents`) fill ``retrieved``.
    """

    case_id_attribute: str = DEFAULT_CASE_ID_ATTRIBUTE
    case_map: Mapping[str, str] = field(default_factory=dict)
    skip_invalid: bool = False
    retrieval_steps: bool = True
    mcp_namespace: bool = False
    retrieval_tools: frozenset[str] = frozenset()
    unmapped: Counter[str] = field(default_factory=Counter)
    explain: list[SpanFate] | None = None
    skipped: list[InputError] = field(default_factory=list)
    repeats: int = 0
    fallbacks: list[str] = field(default_factory=list)
    line: int | None = None
    _bad_lines: set[tuple[str | None, int]] = field(default_factory=set, repr=False)

    def fail(self, error: InputError) -> None:
        """Raise ``error``, or record it when skipping invalid input (once per bad line)."""
        if not self.skip_invalid:
            raise error
        if error.line is not None:
            key = (error.file, error.line)
            if key in self._bad_lines:
                self.repeats += 1
                return
            self._bad_lines.add(key)
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


#: Deepest nesting of lists and objects kept in a run's values (arguments, outputs, metadata):
#: deeper values are an error, so that every run read can be written back as JSON (the
#: project-wide limit of :mod:`pathgrade.io.jsonl`).
MAX_NESTING = MAX_DEPTH
#: Trial numbers must be below this (a signed 64-bit integer, as stored and written back).
TRIAL_LIMIT = 2**63


@dataclass(frozen=True)
class At:
    """Where a value is: file, 1-based line and field path (``resourceSpans[0].resource``)."""

    file: str
    line: int
    path: str = ""

    def key(self, name: str) -> At:
        """The location of member ``name`` of the object here."""
        return At(self.file, self.line, f"{self.path}.{name}" if self.path else name)

    def item(self, index: int) -> At:
        """The location of element ``index`` of the list here."""
        return At(self.file, self.line, f"{self.path}[{index}]")

    def error(self, message: str) -> InputError:
        """A one-line :class:`InputError` naming this file, line and field."""
        return InputError(message, file=self.file, line=self.line, field=self.path or None)


def kind(value: Any) -> str:
    """The JSON type of a value, as an error message says it (``a number``, ``null`` ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _expected(what: str, value: Any, at: At) -> InputError:
    return at.error(f"expected {what}, got {kind(value)}")


def obj(value: Any, at: At, *, optional: bool = True) -> Mapping[str, Any]:
    """``value`` when it is a JSON object; ``{}`` for null when ``optional``; else an error."""
    if isinstance(value, dict):
        return value
    if value is None and optional:
        return {}
    raise _expected("an object", value, at)


def arr(value: Any, at: At, *, optional: bool = True) -> list[Any]:
    """``value`` when it is a JSON array; ``[]`` for null when ``optional``; else an error."""
    if isinstance(value, list):
        return value
    if value is None and optional:
        return []
    raise _expected("a list", value, at)


def text(value: Any, at: At, *, optional: bool = True) -> str | None:
    """``value`` when it is a string; ``None`` for null when ``optional``; else an error."""
    if isinstance(value, str):
        return value
    if value is None and optional:
        return None
    raise _expected("a string", value, at)


def text_of(value: Any) -> str | None:
    """A string value, or ``None`` (for free-form values such as span attributes)."""
    return value if isinstance(value, str) else None


def nesting(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0, ``[]`` is 1)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            break
        stack.extend((child, depth) for child in children)
    return deepest


def bounded(value: _T, at: At) -> _T:
    """``value`` when it nests at most :data:`MAX_NESTING` levels, else an error."""
    if isinstance(value, dict | list) and nesting(value) > MAX_NESTING:
        raise at.error(f"nested deeper than {MAX_NESTING} levels")
    return value


def _read_bounded(path: str | Path) -> bytes:
    """The bytes of a regular file; of a pipe or a device, at most :func:`line_limit` bytes."""
    with Path(path).open("rb") as handle:
        if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return handle.read()
        limit = line_limit()
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(
            f"a trace read from a pipe or a device is limited to {limit:,} bytes"
            f" (set {MAX_LINE_BYTES_ENV} to allow more)",
            file=str(path),
        )
    return data


def read_text(path: str | Path) -> str:
    """The file as UTF-8 text (a leading byte order mark dropped), or an :class:`InputError`.

    A missing file, a directory, a symlink loop, an unreadable file, more than
    :func:`~pathgrade.io.jsonl.line_limit` bytes from a pipe or device (``/dev/zero``), and
    bytes that are not UTF-8 are each a one-line error naming the file.
    """
    name = str(path)
    try:
        raw = _read_bounded(path)
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror or error}", file=name) from None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise InputError(f"not UTF-8 text ({error.reason})", file=name, line=line) from None


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of a file, or an :class:`InputError` naming it."""
    try:
        with Path(path).open("rb") as handle:
            return handle.read(size)
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror or error}", file=str(path)) from None


def json_lines(path: str | Path, options: IngestOptions) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` of each JSON line, or of the one JSON document when the file is one.

    A file whose text parses as one JSON document (an array or an object, possibly spread
    over many lines) yields it once, at the line where it starts. Otherwise each non-blank
    line is a record; a malformed line is reported through ``options.fail`` and skipped.
    Lines end at ``\\n`` only (``\\r\\n`` too): the other characters that
    ``str.splitlines`` breaks at (U+2028, ``\\x1c`` ...) may stand raw inside JSON strings.
    """
    name = str(path)
    text_ = read_text(path)
    if not text_.strip():
        raise InputError("file is empty", file=name)
    try:
        whole = orjson.loads(text_)
    except orjson.JSONDecodeError:
        whole = None
    else:
        start = len(text_) - len(text_.lstrip())
        options.line = text_.count("\n", 0, start) + 1
        yield options.line, whole
        return
    for number_, line in enumerate(text_.split("\n"), start=1):
        body = line.strip(" \t\r")
        if not body:
            continue
        options.line = number_
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
