"""``pathgrade runs list | show NAME | rm NAME | add NAME FILE | query SQL``: the run store.

Also :func:`save_run`, what ``pathgrade score --save NAME`` calls.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pathgrade.cli.progress import progress_bar
from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.io.results import read_results
from pathgrade.store import RunStore, parse_labels, query, save_records, save_scored

app = typer.Typer(
    name="runs",
    help="Stored runs: list, show, remove, add a results file, query with SQL.",
    no_args_is_help=True,
    add_completion=False,
)

StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store", help="Run store folder (default: $PATHGRADE_STORE, else .pathgrade/runs)."
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document to stdout.")]


def _console() -> Console:
    console = Console()
    return console if console.is_terminal else Console(width=160)


def _print_json(document: object) -> None:
    sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    sys.stdout.buffer.write(b"\n")


@app.command("list")
def list_command(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Every stored run: name, time, number of scored runs, labels."""
    target = RunStore(store)
    manifests = target.manifests()
    if as_json:
        _print_json([m.to_dict() | {"summary": None} for m in manifests])
        return
    console = _console()
    if not manifests:
        console.print(f"no stored runs in {target.root}", markup=False)
        return
    table = Table(title=f"stored runs ({target.root})")
    for column in ("name", "created", "runs", "pathgrade", "labels"):
        table.add_column(column, justify="right" if column == "runs" else "left")
    for m in manifests:
        labels = ", ".join(f"{k}={v}" for k, v in m.labels.items())
        cells = (m.name, m.created, str(m.runs), m.pathgrade_version, labels)
        table.add_row(*(Text(c) for c in cells))
    console.print(table)


@app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(help="Stored run name.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """A stored run's manifest: provenance, labels and summary."""
    manifest = RunStore(store).manifest(name)
    if as_json:
        _print_json(manifest.to_dict())
        return
    console = _console()
    doc = manifest.to_dict()
    summary = doc.pop("summary")
    for key, value in doc.items():
        shown = value if isinstance(value, str | int) or value is None else orjson.dumps(value)
        text = shown.decode() if isinstance(shown, bytes) else str(shown)
        console.print(Text(f"{key}: ", style="bold") + Text(text))
    means = {k: v for k, v in summary.items() if isinstance(v, int | float) and k != "runs"}
    if means:
        table = Table(title="summary")
        table.add_column("metric")
        table.add_column("mean", justify="right")
        table.add_column("undefined", justify="right")
        undefined = summary.get("undefined") or {}
        for key, value in means.items():
            table.add_row(Text(key), Text(f"{value:.4g}"), Text(str(undefined.get(key, 0))))
        console.print(table)


@app.command("rm")
def rm_command(
    name: Annotated[str, typer.Argument(help="Stored run name.")], store: StoreOption = None
) -> None:
    """Delete a stored run."""
    target = RunStore(store)
    target.remove(name)
    _console().print(f"removed {name} from {target.root}", markup=False)


@app.command("add")
def add_command(
    name: Annotated[str, typer.Argument(help="Name to store the run under.")],
    results: Annotated[Path, typer.Argument(help="Results file (score --out).")],
    label: Annotated[
        list[str] | None, typer.Option("--label", help="A free label key=value (repeatable).")
    ] = None,
    store: StoreOption = None,
) -> None:
    """Store an existing results file (no traces: the report shows no trajectory detail)."""
    records = read_results(results)
    path = save_records(
        records, name=name, labels=parse_labels(label or []), inputs=[results], store=store
    )
    _console().print(f"stored {len(records)} results as {name} ({path})", markup=False)


@app.command("query")
def query_command(
    sql: Annotated[str, typer.Argument(help='SQL over the view "runs" (one row per scored run).')],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Query every stored run with DuckDB (view ``runs``; metric columns ``"metrics.NAME"``)."""
    result = query(sql, store)
    if as_json:
        _print_json([dict(zip(result.columns, row, strict=True)) for row in result.rows])
        return
    table = Table()
    for column in result.columns:
        table.add_column(column, overflow="fold")
    for row in result.rows:
        table.add_row(*(Text("null" if v is None else str(v)) for v in row))
    _console().print(table)


def save_run(
    name: str,
    result: ScoreResult,
    runs: Sequence[Run],
    cases: Mapping[str, Case],
    config: ScoringConfig,
    labels: list[str] | None,
    inputs: Sequence[Path | None],
    summary: Mapping[str, Any],
    store: Path | None,
) -> None:
    """``pathgrade score --save NAME``: store the scored run, with a bar on long writes."""
    parsed = parse_labels(labels or [])
    with progress_bar(f"saving {name}") as progress:
        path = save_scored(
            result,
            name=name,
            runs=runs,
            cases=cases,
            config=config,
            labels=parsed,
            inputs=[p for p in inputs if p is not None],
            summary=summary,
            store=store,
            progress=progress,
        )
    Console(stderr=True).print(f"stored run {name} ({path})", markup=False)
