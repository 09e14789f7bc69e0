"""``pathgrade score`` on inputs of any size: partitioned, streamed, on a chosen engine
(:func:`pathgrade.score_files`).

Used when ``--engine dask``, ``--workers N`` (N > 1), ``--partition-size`` is given, or the
runs file is Parquet. Results are streamed to ``--out`` (and to stdout with ``--json``, as
one document) partition by partition; only the merged summary is kept in memory.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

import orjson
from rich.console import Console

from pathgrade.api.scoring import score_files
from pathgrade.cli.out_file import staged_out
from pathgrade.cli.score_text import render_next
from pathgrade.core.agent_scope import agent_warning
from pathgrade.core.config import ScoringConfig
from pathgrade.core.provenance import Provenance
from pathgrade.engines.runner import Engine
from pathgrade.report.markdown import publish_summary
from pathgrade.report.text import render_summary
from pathgrade.stats.case_summary import SummaryOptions


class JsonStream:
    """Writes ``{"results": [r1, r2, ...], "summary": {...}}`` as records arrive (JSONL
    chunks, one record a line); what ``pathgrade score --json`` prints, partitioned or not.

    Nothing is written before the first record (or the summary): an error found while the
    scoring is planned leaves standard output empty, not an unterminated document.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._opened = False
        self._first = True

    def _open(self) -> None:
        if not self._opened:
            self._stream.write(b'{"results": [')
            self._opened = True

    def records(self, chunk: bytes) -> None:
        for line in chunk.splitlines():
            if not line:
                continue
            self._open()
            self._stream.write(b"\n" if self._first else b",\n")
            self._stream.write(line)
            self._first = False

    def close(self, summary: dict[str, object]) -> None:
        self._open()
        self._stream.write(b'\n], "summary": ')
        self._stream.write(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
        self._stream.write(b"}\n")
        self._stream.flush()


def score_partitioned(
    cases: Path,
    runs: Path,
    scoring: ScoringConfig,
    *,
    engine: Engine,
    workers: int,
    partition_size: int,
    scheduler: str | None,
    out: Path | None,
    as_json: bool,
    skip_invalid: bool,
    tools: Path | None,
    strict: bool,
    provenance: Provenance | None = None,
    summary_options: SummaryOptions | None = None,
    agent: str | None = None,
    next_commands: list[tuple[str, str]] | None = None,
    markdown: Path | None = None,
) -> None:
    """Score through :func:`pathgrade.api.scoring.score_files` (records to ``--out`` and,
    with ``--json``, to stdout as they arrive) and render its summary; then
    ``next_commands``."""
    # --out is written under a temporary name and renamed when complete (cli.out_file).
    staged = staged_out(out) if out is not None else contextlib.nullcontext(None)
    with staged as handle:
        stream = JsonStream(sys.stdout.buffer) if as_json else None
        written = 0

        def sink(chunk: bytes) -> None:
            nonlocal written
            if handle is not None:
                handle.write(chunk)
            if stream is not None:
                stream.records(chunk)
            written += chunk.count(b"\n")

        scored = score_files(
            cases,
            runs,
            scoring,
            engine=engine,
            workers=workers,
            partition_size=partition_size,
            scheduler=scheduler,
            skip_invalid=skip_invalid,
            tools=tools,
            strict_tools=strict,
            sink=sink,
            gc_pause=True,  # this command owns its process
            provenance=provenance,
            summary=summary_options,
            agent=agent,
        )
    summary = scored.summary
    publish_summary(summary, markdown)
    if stream is not None:
        stream.close(summary)
    else:
        console = Console()
        render_summary(console, summary)
        if out is not None:
            console.print(f"wrote {written} results to {out}", markup=False)
    if agent is not None:
        print_agent_scope(summary["agent"], as_json=as_json)
    if next_commands and not as_json:
        render_next(Console(), next_commands)


def print_agent_scope(entry: Mapping[str, Any], *, as_json: bool) -> None:
    """``score --agent``: which agent was scored (after the summary table; the JSON summary
    has its ``agent`` entry) and, on stderr, the warning line about cases that give it no
    reference (:func:`pathgrade.core.agent_scope.agent_warning`)."""
    if not as_json:
        skipped = ", ".join(entry["whole_run_only"])
        Console().print(
            f"agent scope: {entry['name']} (its sub-path only; not scored: {skipped})",
            markup=False,
            soft_wrap=True,
        )
    warning = agent_warning(entry)
    if warning is not None:
        Console(stderr=True).print(warning, markup=False, soft_wrap=True)  # one line
