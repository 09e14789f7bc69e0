"""``pathgrade score`` on inputs of any size: partitioned, streamed, on a chosen engine.

Used when ``--engine dask``, ``--workers N`` (N > 1), ``--partition-size`` is given, or the
runs file is Parquet. Results are streamed to ``--out`` (and to stdout with ``--json``, as
one document) partition by partition; only the merged summary is kept in memory.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO

import orjson
from rich.console import Console

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.engines.runner import Engine, evaluate_files
from pathgrade.report.text import render_summary


class JsonStream:
    """Writes ``{"results": [r1, r2, ...], "summary": {...}}`` as records arrive (JSONL
    chunks, one record a line); what ``pathgrade score --json`` prints, partitioned or not."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._first = True
        stream.write(b'{"results": [')

    def records(self, chunk: bytes) -> None:
        for line in chunk.splitlines():
            if not line:
                continue
            self._stream.write(b"\n" if self._first else b",\n")
            self._stream.write(line)
            self._first = False

    def close(self, summary: dict[str, object]) -> None:
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
) -> None:
    """Score through :func:`pathgrade.engines.runner.evaluate_files` and render the summary."""
    stream = JsonStream(sys.stdout.buffer) if as_json else None
    handle = out.open("wb") if out is not None else None
    written = 0

    def sink(chunk: bytes) -> None:
        nonlocal written
        if handle is not None:
            handle.write(chunk)
            handle.flush()
        if stream is not None:
            stream.records(chunk)
        written += chunk.count(b"\n")

    try:
        evaluation = evaluate_files(
            cases,
            runs,
            scoring,
            engine=engine,
            workers=workers,
            partition_size=partition_size,
            scheduler=scheduler,
            skip_invalid=skip_invalid,
            tools_path=tools,
            strict_tools=strict,
            sink=sink,
            gc_pause=True,  # this command owns its process
        )
    except InputError as error:
        if handle is not None and written:
            raise InputError(
                f"{error.message} ({written} results before it are kept in {out})",
                file=error.file,
                line=error.line,
                field=error.field,
            ) from None
        raise
    finally:
        if handle is not None:
            handle.close()
    summary = dict(evaluation.summary)
    summary["engine"] = {
        "name": evaluation.engine,
        "workers": evaluation.workers,
        "partitions": evaluation.partitions,
    }
    if stream is not None:
        stream.close(summary)
        return
    console = Console()
    render_summary(console, summary)
    if out is not None:
        console.print(f"wrote {written} results to {out}", markup=False)
