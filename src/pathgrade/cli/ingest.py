"""``pathgrade ingest --from FORMAT FILE... -o runs.jsonl [--cases-out cases.jsonl]
[--tools-out tools.json]``: read agent traces into runs (and cases, and a tools file), over
:func:`pathgrade.ingest`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathgrade.cli.defaults import DEFAULT_CASE_ID_ATTRIBUTE
from pathgrade.cli.ingest_explain import explain_text, unmapped_line
from pathgrade.cli.lazy_help import help_filled_by
from pathgrade.cli.outputs import check_output_file
from pathgrade.core.errors import InputError

if TYPE_CHECKING:
    from pathgrade.io.ingest import IngestOptions

_FORMAT_HELP = "Trace format: auto, or one of the formats of docs/ingest.md."


def _format_help() -> dict[str, str]:
    """``--from``'s help: the registered formats (the registry imports every reader)."""
    from pathgrade.io.ingest import FORMATS

    return {"fmt": f"Trace format: auto, {', '.join(FORMATS)}."}


IngestCommand = help_filled_by(_format_help)


def ingest_command(
    files: Annotated[list[Path], typer.Argument(help="Trace files.")],
    fmt: Annotated[str, typer.Option("--from", help=_FORMAT_HELP)] = "auto",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Runs JSONL to write (default stdout).")
    ] = None,
    cases_out: Annotated[
        Path | None,
        typer.Option(
            "--cases-out",
            help="Cases JSONL to write, from the files whose format carries gold"
            " (reference paths, outputs), for `pathgrade score CASES RUNS`.",
        ),
    ] = None,
    tools_out: Annotated[
        Path | None,
        typer.Option("--tools-out", help="Tools file to write from MCP tools/list results."),
    ] = None,
    case_id_attribute: Annotated[
        str,
        typer.Option("--case-id-attribute", help="Span/resource attribute holding the case id."),
    ] = DEFAULT_CASE_ID_ATTRIBUTE,
    case_map: Annotated[
        Path | None,
        typer.Option("--case-map", help="JSON file mapping trace id (or run id) to case id."),
    ] = None,
    no_retrieval_steps: Annotated[
        bool,
        typer.Option(
            "--no-retrieval-steps",
            help="Retrievals only fill `retrieved`; they are not steps of the path.",
        ),
    ] = False,
    mcp_namespace: Annotated[
        bool,
        typer.Option("--mcp-namespace", help="Name MCP tool steps SERVER/TOOL."),
    ] = False,
    retrieval_tool: Annotated[
        list[str] | None,
        typer.Option(
            "--retrieval-tool",
            help="A tool whose result is a list of documents: its documents fill `retrieved`"
            " (repeat for several; for frameworks without retrieval spans).",
        ),
    ] = None,
    skip_invalid: Annotated[
        bool,
        typer.Option("--skip-invalid", help="Skip bad lines and traces, report them, go on."),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="Print each span of one trace and what it became (see --trace)."
        ),
    ] = False,
    trace: Annotated[
        str | None,
        typer.Option("--trace", help="With --explain: the trace id (default: the first)."),
    ] = None,
) -> None:
    """Read agent traces (OpenTelemetry GenAI, OpenInference, OpenAI messages, LangChain /
    LangSmith, tau-bench, ...) and write one run per trace as runs JSONL."""
    from pathgrade.api.ingesting import check_gold, ingest, ingest_cases, ingest_tools
    from pathgrade.io.ingest import load_case_map, write_cases, write_runs

    _check_outputs(out, cases_out, tools_out)
    if cases_out is not None:
        check_gold(files, fmt)
    settings: dict[str, Any] = {
        "case_id_attribute": case_id_attribute,
        "case_map": load_case_map(case_map) if case_map else {},
        "skip_invalid": skip_invalid,
        "retrieval_steps": not no_retrieval_steps,
        "mcp_namespace": mcp_namespace,
        "retrieval_tools": frozenset(retrieval_tool or ()),
    }
    # One read per output: each reports its own skipped lines.
    runs = ingest(files, fmt, explain=explain, **settings)
    count = write_runs(runs, out)
    _report(runs.options, "")
    if runs.options.unmapped:
        print(f"pathgrade: note: {unmapped_line(runs.options.unmapped)}", file=sys.stderr)
    if explain:
        print(explain_text(runs.options.explain or [], trace), file=sys.stderr, end="")
    if runs.fallbacks:
        print(
            f"pathgrade: warning: {len(runs.fallbacks)} run(s) had no case id"
            f" (attribute {case_id_attribute!r}, no --case-map entry): used the trace id",
            file=sys.stderr,
        )
    print(f"pathgrade: {count} run(s) written{_skipped(runs.options)}", file=sys.stderr)
    if cases_out is not None:
        cases = ingest_cases(files, fmt, **settings)
        written = write_cases(cases, cases_out)
        _report(cases.options, " (cases)")
        print(
            f"pathgrade: {written} case(s) written to {cases_out}{_skipped(cases.options)}",
            file=sys.stderr,
        )
    if tools_out is not None:
        _write_tools(*ingest_tools(files, **settings), tools_out)


def _check_outputs(out: Path | None, cases_out: Path | None, tools_out: Path | None) -> None:
    """Each output writable, and no two of them the same file (stdout counts as one)."""
    given = {"--out": out, "--cases-out": cases_out, "--tools-out": tools_out}
    seen: dict[str, str] = {}
    for option, path in given.items():
        if path is None and option != "--out":
            continue
        check_output_file(path, option)
        key = "-" if path is None or str(path) == "-" else str(path.absolute())
        if key in seen:
            shown = "standard output" if key == "-" else str(path)
            raise InputError(f"{seen[key]} and {option} both name {shown}", field=option)
        seen[key] = option


def _write_tools(tools: dict[str, Any], options: IngestOptions, path: Path) -> None:
    """Write the tools file of the MCP ``tools/list`` results."""
    import orjson

    from pathgrade.io.ingest.writing import write_lines

    body = orjson.dumps(tools, option=orjson.OPT_INDENT_2)
    write_lines([body], path, "tools")
    _report(options, " (tools)")
    count = len(tools.get("tools") or ())
    print(f"pathgrade: {count} tool(s) written to {path}", file=sys.stderr)


def _report(options: IngestOptions, what: str) -> None:
    for error in options.skipped:
        print(f"pathgrade: skipped{what}: {error}", file=sys.stderr)


def _skipped(options: IngestOptions) -> str:
    """The summary's skip count: bad lines, each once (its first error is printed)."""
    if not options.skipped:
        return ""
    more = f"; {options.repeats} more error(s) on those lines" if options.repeats else ""
    return f", {len(options.skipped)} skipped (bad lines{more})"
