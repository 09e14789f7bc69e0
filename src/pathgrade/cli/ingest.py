"""``pathgrade ingest --from FORMAT FILE... -o runs.jsonl``: read agent traces into runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pathgrade.cli.outputs import check_output_file
from pathgrade.io.ingest import (
    DEFAULT_CASE_ID_ATTRIBUTE,
    FORMATS,
    IngestOptions,
    ingest,
    load_case_map,
    write_runs,
)


def ingest_command(
    files: Annotated[list[Path], typer.Argument(help="Trace files.")],
    fmt: Annotated[
        str,
        typer.Option("--from", help=f"Trace format: auto, {', '.join(FORMATS)}."),
    ] = "auto",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Runs JSONL to write (default stdout).")
    ] = None,
    case_id_attribute: Annotated[
        str,
        typer.Option("--case-id-attribute", help="Span/resource attribute holding the case id."),
    ] = DEFAULT_CASE_ID_ATTRIBUTE,
    case_map: Annotated[
        Path | None,
        typer.Option("--case-map", help="JSON file mapping trace id (or run id) to case id."),
    ] = None,
    skip_invalid: Annotated[
        bool,
        typer.Option("--skip-invalid", help="Skip bad lines and traces, report them, go on."),
    ] = False,
) -> None:
    """Read agent traces (OpenTelemetry GenAI, OpenInference, OpenAI messages, LangChain /
    LangSmith, tau-bench) and write one run per trace as runs JSONL."""
    check_output_file(out, "--out")
    options = IngestOptions(
        case_id_attribute=case_id_attribute,
        case_map=load_case_map(case_map) if case_map else {},
        skip_invalid=skip_invalid,
    )
    count = write_runs(ingest(files, fmt, options), out)
    for error in options.skipped:
        print(f"pathgrade: skipped: {error}", file=sys.stderr)
    if options.fallbacks:
        print(
            f"pathgrade: warning: {len(options.fallbacks)} run(s) had no case id"
            f" (attribute {case_id_attribute!r}, no --case-map entry): used the trace id",
            file=sys.stderr,
        )
    print(f"pathgrade: {count} run(s) written{_skipped(options)}", file=sys.stderr)


def _skipped(options: IngestOptions) -> str:
    """The summary's skip count: bad lines, each once (its first error is printed)."""
    if not options.skipped:
        return ""
    more = f"; {options.repeats} more error(s) on those lines" if options.repeats else ""
    return f", {len(options.skipped)} skipped (bad lines{more})"
