"""Trace readers: one adapter per format, each with ``sniff(head)`` and ``read(path)``.

:data:`FORMATS` is the registry (name -> :class:`Format`); :func:`detect` picks the format of
a file from its first bytes; :func:`ingest` reads files into runs. See ``docs/ingest.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest import langchain, openai_messages, openinference, otel_genai, tau_bench
from pathgrade.io.ingest._common import DEFAULT_CASE_ID_ATTRIBUTE, IngestOptions, read_head

__all__ = [
    "DEFAULT_CASE_ID_ATTRIBUTE",
    "FORMATS",
    "Format",
    "IngestOptions",
    "detect",
    "ingest",
    "load_case_map",
    "run_record",
    "write_runs",
]

HEAD_BYTES = 65536


@dataclass(frozen=True)
class Format:
    """One trace format: its name, a sniffer of a file's head, and a reader of runs."""

    name: str
    description: str
    sniff: Callable[[bytes | str], bool]
    read: Callable[[str | Path, IngestOptions | None], Iterator[Run]]

    def __repr__(self) -> str:
        return f"Format({self.name!r})"


def _registry(formats: Iterable[Format]) -> dict[str, Format]:
    out: dict[str, Format] = {}
    for item in formats:
        if item.name in out:
            raise ValueError(f"duplicate trace format {item.name!r}")
        out[item.name] = item
    return out


#: Built-in formats, in the order :func:`detect` tries them (most specific first).
FORMATS: Mapping[str, Format] = _registry(
    [
        Format(tau_bench.NAME, "tau-bench compact runs JSONL", tau_bench.sniff, tau_bench.read),
        Format(
            openinference.NAME,
            "OpenInference (Phoenix) spans",
            openinference.sniff,
            openinference.read,
        ),
        Format(
            otel_genai.NAME,
            "OpenTelemetry GenAI spans, OTLP/JSON Lines",
            otel_genai.sniff,
            otel_genai.read,
        ),
        Format(
            langchain.NAME,
            "LangChain messages_to_dict / LangSmith run trees",
            langchain.sniff,
            langchain.read,
        ),
        Format(
            openai_messages.NAME,
            "OpenAI chat-completions message lists",
            openai_messages.sniff,
            openai_messages.read,
        ),
    ]
)


def resolve(name: str) -> Format:
    """The format called ``name`` (``_`` and ``-`` are the same)."""
    key = name.strip().lower().replace("_", "-")
    if key in FORMATS:
        return FORMATS[key]
    raise InputError(f"unknown trace format {name!r}: use auto or one of {', '.join(FORMATS)}")


def detect(path: str | Path) -> Format:
    """The format of a file, from its first :data:`HEAD_BYTES` bytes."""
    head = read_head(path, HEAD_BYTES)
    for item in FORMATS.values():
        if item.sniff(head):
            return item
    raise InputError(
        f"cannot tell the trace format: name it with --from ({', '.join(FORMATS)})",
        file=str(path),
    )


def ingest(
    paths: Iterable[str | Path], fmt: str = "auto", options: IngestOptions | None = None
) -> Iterator[Run]:
    """The runs of every file, in file order; ``fmt`` is a format name or ``auto``.

    Every reader type-checks what it reads, so bad input is an :class:`InputError` naming
    file, line and field. As a last resort, any other exception a reader raises is turned
    into an :class:`InputError` naming the file, the line being read and the exception type
    (no traceback): that is a reader bug to report, and it ends the file even with
    ``skip_invalid``.
    """
    options = options or IngestOptions()
    chosen = None if fmt == "auto" else resolve(fmt)
    for path in paths:
        reader = chosen or detect(path)
        yield from _guarded(reader, path, options)


def _guarded(reader: Format, path: str | Path, options: IngestOptions) -> Iterator[Run]:
    options.line = None
    try:
        yield from reader.read(path, options)
    except (InputError, MemoryError):
        raise
    except Exception as error:  # the safety net: a reader bug is still one line
        raise InputError(
            f"the {reader.name} reader failed on this input ({type(error).__name__}):"
            " please report it",
            file=str(path),
            line=options.line,
        ) from None


def load_case_map(path: str | Path) -> dict[str, str]:
    """A trace-id -> case-id mapping: a JSON object, or JSON lines / a JSON array of
    ``{"trace_id" (or "run_id"), "case_id"}``."""
    from pathgrade.io.ingest._common import json_lines  # local: keep the namespace small

    name = str(path)
    options = IngestOptions()
    out: dict[str, str] = {}
    for line, record in json_lines(path, options):
        if isinstance(record, dict) and "case_id" not in record:
            for key, value in record.items():
                if not isinstance(value, str) or not value:
                    raise InputError(
                        f"case id of {key!r} must be a non-empty string",
                        file=name,
                        line=line,
                        field=key,
                    )
                out[str(key)] = value
            continue
        for item in record if isinstance(record, list) else [record]:
            key = item.get("trace_id", item.get("run_id")) if isinstance(item, dict) else None
            case = item.get("case_id") if isinstance(item, dict) else None
            if not isinstance(key, str) or not isinstance(case, str) or not key or not case:
                raise InputError('expected {"trace_id": ..., "case_id": ...}', file=name, line=line)
            out[key] = case
    return out


def run_record(run: Run) -> dict[str, object]:
    """A run as a runs-JSONL object (fields at their defaults left out)."""
    return run.model_dump(mode="json", exclude_defaults=True)


def write_runs(runs: Iterable[Run], path: str | Path | None) -> int:
    """Write runs as JSON lines to ``path`` (``None`` or ``-``: standard output); the count.

    A file is written under a temporary name unique to this writer, in the same directory,
    and renamed when complete: an error leaves no partial file. A missing directory, a
    directory as ``path`` or an unwritable place is an :class:`InputError`, raised before
    any run is read.
    """
    import os
    import sys
    import uuid

    import orjson

    count = 0
    if path is None or str(path) == "-":
        for run in runs:
            sys.stdout.write(orjson.dumps(run_record(run)).decode() + "\n")
            count += 1
        return count
    target = Path(path)
    if target.is_dir():
        raise InputError("cannot write runs: it is a directory", file=str(path))
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        handle = tmp.open("xb")
    except OSError as error:
        raise InputError(f"cannot write runs: {error.strerror or error}", file=str(path)) from None
    try:
        with handle:
            for run in runs:
                handle.write(orjson.dumps(run_record(run)) + b"\n")
                count += 1
        tmp.replace(target)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write runs: {error.strerror or error}", file=str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count
