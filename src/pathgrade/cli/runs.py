"""``pathgrade runs list | show NAME | rm NAME | add NAME FILE | query SQL``: the run store.

Also :func:`check_save` and :func:`save_run`, what ``pathgrade score --save NAME`` calls
before and after scoring. ``runs list`` and ``runs query`` name each store file they leave
out (corrupt, a copy) in one warning line on stderr. ``runs query --json`` writes values
JSON has no type for as: DECIMAL as a number, HUGEINT beyond 64 bits as a decimal string,
BLOB as a hex string, INTERVAL as seconds.
"""

from __future__ import annotations

import datetime as dt
import decimal
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathgrade.cli.group import LightGroup
from pathgrade.cli.store_option import StoreOption
from pathgrade.core.errors import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from pathgrade.core.config import ScoringConfig
    from pathgrade.core.results import ScoreResult
    from pathgrade.core.types import Case, Run

app = typer.Typer(
    name="runs",
    cls=LightGroup,
    help="Stored runs: list, show, remove, add a results file, query with SQL.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document to stdout.")]


def _console() -> Console:
    from rich.console import Console

    return Console()  # COLUMNS, the terminal, else 80: tables fit without cutting a value


def _print_json(document: object) -> None:
    import orjson

    option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    sys.stdout.buffer.write(orjson.dumps(document, option=option))
    sys.stdout.buffer.write(b"\n")


def _warn(lines: Sequence[str]) -> None:
    from rich.console import Console

    err = Console(stderr=True)
    for line in lines:
        err.print(f"pathgrade: warning: {line}", markup=False, soft_wrap=True)


def json_value(value: Any) -> Any:
    """A DuckDB result value as orjson can write it (see the module docstring)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else str(value)
    if isinstance(value, decimal.Decimal):
        return float(value) if value.is_finite() else str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, dict):
        return {json_value(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, str | float | dt.date | dt.time):
        return value
    return str(value)  # UUIDs and anything newer DuckDB returns


@app.command("list")
def list_command(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Every stored run: name, time, number of scored runs, labels; corrupt files and copies
    are shown as such (and warned about), not listed as runs."""
    from rich.box import HEAVY_HEAD
    from rich.text import Text

    from pathgrade.report.fit_table import FitTable
    from pathgrade.store import RunStore

    target = RunStore(store)
    entries = target.scan()
    _warn([e.warning() for e in entries if e.manifest is None])
    if as_json:
        _print_json(
            [
                e.manifest.to_dict() | {"summary": None}
                if e.manifest is not None
                else {"name": e.name, "file": str(e.path), "corrupt": e.problem}
                for e in entries
            ]
        )
        return
    console = _console()
    if not entries:
        console.print(f"no stored runs in {target.root}", markup=False)
        return
    table = FitTable(f"stored runs ({target.root})", box=HEAVY_HEAD, compact=False)
    table.add_column("name")
    table.add_column("created", drop=2)
    table.add_column("runs", "right")
    table.add_column("pathgrade", drop=1)
    table.add_column("labels", prose=True)
    for e in entries:
        m = e.manifest
        if m is None:
            table.add_row(Text(e.name), Text("not listed: see the warning", style="bold red"))
            continue
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
    import orjson
    from rich.text import Text

    from pathgrade.report.display import clip
    from pathgrade.report.fit_table import FitTable
    from pathgrade.report.number_text import format_value
    from pathgrade.store import RunStore

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
        table = FitTable("summary")
        table.add_column("metric")
        table.add_column("mean", "right")
        table.add_column("undefined", "right", drop=1)
        undefined = summary.get("undefined") or {}
        for key, value in means.items():
            table.add_row(
                Text(clip(key)), format_value(value, key), Text(str(undefined.get(key, 0)))
            )
        console.print(table)


@app.command("rm")
def rm_command(
    name: Annotated[str, typer.Argument(help="Stored run name.")], store: StoreOption = None
) -> None:
    """Delete a stored run."""
    from pathgrade.store import RunStore

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
    from pathgrade.io.results import read_results
    from pathgrade.store import parse_labels, save_records

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
    unsafe: Annotated[
        bool,
        typer.Option(
            "--unsafe",
            help="Allow any SQL (several statements, COPY, ATTACH, other files, extensions).",
        ),
    ] = False,
) -> None:
    """Query every stored run with DuckDB (view ``runs``; metric columns ``"metrics.NAME"``).

    Read-only by default: one query statement over the store's own files (docs/security.md).
    """
    from rich.box import HEAVY_HEAD
    from rich.text import Text

    from pathgrade.report.fit_table import FitTable
    from pathgrade.store import query

    result = query(sql, store, unsafe=unsafe)
    _warn(result.warnings)
    if as_json:
        _print_json(
            [json_value(dict(zip(result.columns, row, strict=True))) for row in result.rows]
        )
        return
    table = FitTable(box=HEAVY_HEAD, compact=False)
    for column in result.columns:
        table.add_column(column)
    for row in result.rows:
        table.add_row(*(Text("null" if v is None else str(v)) for v in row))
    _console().print(table)


def check_save(name: str, labels: list[str] | None, store: Path | None) -> None:
    """Before scoring for ``--save NAME``: the name, the labels and the store must be able
    to take the run (:meth:`RunStore.check_writable`); an :class:`InputError` otherwise."""
    from pathgrade.store import RunStore, parse_labels
    from pathgrade.store.manifest import check_name

    check_name(name)
    parse_labels(labels or [])
    RunStore(store).check_writable(name)


def _unsaved_file(name: str) -> Path:
    """A new file for results a save could not store: ``./pathgrade-unsaved-NAME.jsonl``
    (``-2``, ``-3`` ... when taken), else the same in the temporary folder."""
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        for n in range(1, 100):
            suffix = "" if n == 1 else f"-{n}"
            path = folder / f"pathgrade-unsaved-{name}{suffix}.jsonl"
            if not path.exists() and not path.is_symlink():
                return path
    return Path(tempfile.mkstemp(prefix=f"pathgrade-unsaved-{name}-", suffix=".jsonl")[1])


def _keep_unsaved(name: str, result: ScoreResult, runs: Sequence[Run]) -> Path | None:
    """Write the results to :func:`_unsaved_file`; its path, or None if that fails too."""
    from pathgrade.io.results import iter_records_jsonl
    from pathgrade.io.results.staged import StagedOutput

    try:
        output = StagedOutput(_unsaved_file(name), option="--save")
        for chunk in iter_records_jsonl(result, runs):
            output.write(chunk)
        output.commit()
    except (OSError, InputError):
        return None
    return output.target


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
    """``pathgrade score --save NAME``: store the scored run, with a bar on long writes.

    If the save fails after all (the name taken meanwhile, a full disk), the results are
    written to a file the error names, to store later with ``pathgrade runs add``.
    """
    from rich.console import Console

    from pathgrade.cli.progress import progress_bar
    from pathgrade.store import parse_labels, save_scored

    parsed = parse_labels(labels or [])
    try:
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
    except (InputError, OSError) as error:
        reason = error.message if isinstance(error, InputError) else str(error)
        kept = _keep_unsaved(name, result, runs)
        where = (
            f"the {len(result)} results were written to {kept} (store them with"
            f" `pathgrade runs add {name} {kept}`)"
            if kept is not None
            else "the results could not be written anywhere either"
        )
        file = error.file if isinstance(error, InputError) else None
        raise InputError(f"cannot save run {name!r}: {reason}; {where}", file=file) from None
    Console(stderr=True).print(f"stored run {name} ({path})", markup=False)
