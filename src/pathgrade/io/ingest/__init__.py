"""Trace readers: one adapter per format, each with ``sniff(head)`` and ``read(path)``.

:data:`FORMATS` is the registry (name -> :class:`Format`); :func:`detect` picks the format of
a file from its first bytes; :func:`ingest` reads files into runs, and :func:`ingest_cases`
the cases of the formats that carry gold. See ``docs/ingest.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.io.ingest import (
    adk,
    inspect_ai,
    langchain,
    langfuse,
    openai_agents,
    openai_messages,
    openinference,
    otel_genai,
    phoenix,
    tau_bench,
    tau_bench_results,
)
from pathgrade.io.ingest._common import DEFAULT_CASE_ID_ATTRIBUTE, IngestOptions, read_head
from pathgrade.io.ingest.writing import case_record, run_record, write_cases, write_runs

__all__ = [
    "DEFAULT_CASE_ID_ATTRIBUTE",
    "FORMATS",
    "Format",
    "IngestOptions",
    "case_record",
    "detect",
    "format_of",
    "ingest",
    "ingest_cases",
    "load_case_map",
    "run_record",
    "write_cases",
    "write_runs",
]

HEAD_BYTES = 65536


@dataclass(frozen=True)
class Format:
    """One trace format: its name, a sniffer of a file's head, a reader of runs, and, for a
    format that carries gold (reference paths, targets), a reader of its cases."""

    name: str
    description: str
    sniff: Callable[[bytes | str], bool]
    read: Callable[[str | Path, IngestOptions | None], Iterator[Run]]
    read_cases: Callable[[str | Path, IngestOptions | None], list[Case]] | None = None

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
        Format(phoenix.NAME, "Arize Phoenix spans export (Parquet)", phoenix.sniff, phoenix.read),
        Format(
            tau_bench.NAME,
            "tau-bench compact runs JSONL",
            tau_bench.sniff,
            tau_bench.read,
            tau_bench.read_cases,
        ),
        Format(
            tau_bench_results.NAME,
            "tau-bench results files (historical_trajectories/*.json)",
            tau_bench_results.sniff,
            tau_bench_results.read,
            tau_bench_results.read_cases,
        ),
        Format(
            inspect_ai.NAME,
            "Inspect AI eval logs (.json, .eval zip)",
            inspect_ai.sniff,
            inspect_ai.read,
            inspect_ai.read_cases,
        ),
        Format(
            adk.NAME,
            "Google ADK sessions, eval sets and eval results",
            adk.sniff,
            adk.read,
            adk.read_cases,
        ),
        Format(
            openai_agents.NAME,
            "OpenAI Agents SDK trace export (trace / trace.span objects)",
            openai_agents.sniff,
            openai_agents.read,
        ),
        Format(
            langfuse.NAME,
            "Langfuse traces and observations (API JSON)",
            langfuse.sniff,
            langfuse.read,
        ),
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
        yield from _guarded(reader, reader.read, path, options)


def format_of(path: str | Path, fmt: str = "auto") -> Format:
    """The format named ``fmt``, or for ``auto`` the one :func:`detect` finds for ``path``."""
    return detect(path) if fmt == "auto" else resolve(fmt)


def ingest_cases(
    paths: Iterable[str | Path], fmt: str = "auto", options: IngestOptions | None = None
) -> list[Case]:
    """The cases of every file whose format carries gold (:attr:`Format.read_cases`), in
    file order; the files of other formats give none.

    A case id read from several files (two models' runs of the same tasks) is one case
    when the files agree on it and an :class:`InputError` naming both files when they do
    not. Reader bugs become one-line errors as in :func:`ingest`.
    """
    options = options or IngestOptions()
    cases: dict[str, Case] = {}
    first: dict[str, str] = {}
    for path in paths:
        reader = format_of(path, fmt)
        if reader.read_cases is None:
            continue
        for case in _guarded(reader, reader.read_cases, path, options):
            if case.case_id not in cases:
                cases[case.case_id], first[case.case_id] = case, str(path)
            elif cases[case.case_id] != case:
                raise InputError(
                    f"case {case.case_id!r} differs from the one read from {first[case.case_id]}",
                    file=str(path),
                )
    return list(cases.values())


_T = TypeVar("_T")


def _guarded(
    reader: Format,
    call: Callable[[str | Path, IngestOptions], Iterable[_T]],
    path: str | Path,
    options: IngestOptions,
) -> Iterator[_T]:
    options.line = None
    try:
        yield from call(path, options)
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
