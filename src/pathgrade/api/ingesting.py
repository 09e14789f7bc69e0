"""``pathgrade ingest``: agent traces (OpenTelemetry GenAI, OpenInference, OpenAI messages,
LangChain / LangSmith, tau-bench, ...) read into runs, and the cases and tools files the
formats that carry them give (:mod:`pathgrade.io.ingest`, one reader per format)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.io import ingest as readers
from pathgrade.io.ingest import DEFAULT_CASE_ID_ATTRIBUTE, FORMATS, IngestOptions

__all__ = ["Ingested", "check_gold", "ingest", "ingest_cases", "ingest_tools"]

T = TypeVar("T")
Files = str | Path | Iterable[str | Path]


@dataclass(frozen=True)
class Ingested(Generic[T]):
    """Records read from trace files, read as they are iterated (once: ``list()`` them to
    keep them); ``skipped``, ``repeats`` and ``fallbacks`` fill in as they are read."""

    items: Iterator[T]
    options: IngestOptions

    def __iter__(self) -> Iterator[T]:
        return self.items

    @property
    def skipped(self) -> list[InputError]:
        """With ``skip_invalid``: the first error of each bad line or trace."""
        return self.options.skipped

    @property
    def repeats(self) -> int:
        """Further errors on the lines of ``skipped``."""
        return self.options.repeats

    @property
    def fallbacks(self) -> list[str]:
        """Runs whose case id is their trace id (no attribute, no ``case_map`` entry)."""
        return self.options.fallbacks


def _paths(files: Files) -> list[str | Path]:
    return [files] if isinstance(files, str | Path) else list(files)


def _options(
    case_id_attribute: str,
    case_map: str | Path | Mapping[str, str] | None,
    skip_invalid: bool,
    retrieval_steps: bool,
    mcp_namespace: bool,
    retrieval_tools: Iterable[str] = (),
) -> IngestOptions:
    if isinstance(case_map, str | Path):
        mapping: Mapping[str, str] = readers.load_case_map(case_map)
    else:
        mapping = case_map or {}
    return IngestOptions(
        case_id_attribute=case_id_attribute,
        case_map=dict(mapping),
        skip_invalid=skip_invalid,
        retrieval_steps=retrieval_steps,
        mcp_namespace=mcp_namespace,
        retrieval_tools=frozenset(retrieval_tools),
    )


def ingest(
    files: Files,
    fmt: str = "auto",
    *,
    case_id_attribute: str = DEFAULT_CASE_ID_ATTRIBUTE,
    case_map: str | Path | Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    retrieval_steps: bool = True,
    mcp_namespace: bool = False,
    retrieval_tools: Iterable[str] = (),
    explain: bool = False,
) -> Ingested[Run]:
    """The runs of trace ``files``, one per trace, in file order.

    Args:
        fmt: a format of :data:`pathgrade.io.ingest.FORMATS`, or ``auto`` (each file's
            format found from its first bytes).
        case_id_attribute: the span or resource attribute holding a trace's case id.
        case_map: trace id (or run id) -> case id: a mapping, or a file of one
            (:func:`pathgrade.io.ingest.load_case_map`); it wins over the attribute.
        skip_invalid: a bad line or trace is recorded in ``skipped``, not raised.
        retrieval_steps: a retrieval is a step of the path (off: it only fills
            ``retrieved``).
        mcp_namespace: MCP tool steps are named ``server/tool``.
        retrieval_tools: tools whose result is a list of documents (frameworks without
            retrieval spans): their documents fill ``retrieved``.
        explain: record what each span of the span formats became
            (``options.explain``, filled while iterating).

    After iterating, ``options.unmapped`` counts the spans (by name) that no convention
    mapped.

    Raises:
        InputError: bad input, naming file, line and field (while iterating).
    """
    options = _options(
        case_id_attribute, case_map, skip_invalid, retrieval_steps, mcp_namespace, retrieval_tools
    )
    if explain:
        options.explain = []
    return Ingested(readers.ingest(_paths(files), fmt, options), options)


def check_gold(files: Sequence[str | Path], fmt: str = "auto") -> None:
    """Some file must be of a format that carries gold cases, or an :class:`InputError`
    naming what they were read as and which formats carry gold."""
    formats = [readers.format_of(path, fmt) for path in files]
    if any(item.read_cases is not None for item in formats):
        return
    found = ", ".join(dict.fromkeys(item.name for item in formats))
    gold = ", ".join(name for name, item in FORMATS.items() if item.read_cases is not None)
    raise InputError(
        f"no file is of a format that carries gold cases (read as {found}; with gold: {gold})",
        field="--cases-out",
    )


def ingest_cases(
    files: Files,
    fmt: str = "auto",
    *,
    case_id_attribute: str = DEFAULT_CASE_ID_ATTRIBUTE,
    case_map: str | Path | Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    retrieval_steps: bool = True,
    mcp_namespace: bool = False,
    retrieval_tools: Iterable[str] = (),
) -> Ingested[Case]:
    """The cases (reference paths, outputs) of the ``files`` whose format carries gold, as
    :func:`ingest` reads runs (same options); a case read from several files is one case
    when they agree on it. Raises :class:`InputError` when no file carries gold."""
    paths = _paths(files)
    check_gold(paths, fmt)
    options = _options(
        case_id_attribute, case_map, skip_invalid, retrieval_steps, mcp_namespace, retrieval_tools
    )
    return Ingested(iter(readers.ingest_cases(paths, fmt, options)), options)


def ingest_tools(
    files: Files,
    *,
    case_id_attribute: str = DEFAULT_CASE_ID_ATTRIBUTE,
    case_map: str | Path | Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    retrieval_steps: bool = True,
    mcp_namespace: bool = False,
    retrieval_tools: Iterable[str] = (),
) -> tuple[dict[str, Any], IngestOptions]:
    """The tools file (:mod:`pathgrade.io.tools`, wrapper form) of the MCP ``tools/list``
    results recorded in ``files`` (options as :func:`ingest`'s), and the options that say
    what was skipped."""
    from pathgrade.io.ingest.mcp import tools_file  # only this output needs the MCP reader

    options = _options(
        case_id_attribute, case_map, skip_invalid, retrieval_steps, mcp_namespace, retrieval_tools
    )
    return tools_file(_paths(files), options), options
