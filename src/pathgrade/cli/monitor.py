"""``pathgrade monitor NAME [--window 1h] [--baseline K] [--by tool|label:KEY|variable:KEY]``.

The rates of the reference-free scores of collector ``NAME``'s stored batches per time
window, each with its Wilson interval, latency and cost p50/p95, and the rates flagged as
worse than the previous windows beyond chance (:mod:`pathgrade.stats.monitor` computes,
:mod:`pathgrade.store.monitor_query` reads; docs/production.md, "Watching over time").
A table by default, ``--json`` for the same document. Exit 2: no batch of ``NAME``, a bad
option.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathgrade.cli.store_option import StoreOption

if TYPE_CHECKING:
    from pathgrade.stats.monitor import Monitor, Rate

#: Table headers of the rates, in :data:`pathgrade.stats.monitor.RATES` order, and the
#: order in which a narrow console leaves them out (highest first).
_HEADERS = ("repeated", "loops", "retries", "tool err.", "unrecov.", "budget", "forbidden")
_DROPS = (2, 3, 2, 0, 1, 3, 3)


def monitor_command(
    name: Annotated[str, typer.Argument(help="The collector's name (collect --save NAME).")],
    window: Annotated[
        str | None,
        typer.Option(
            "--window",
            help="Coarsen the windows, e.g. 30m, 1h, 6h, 1d (default: the batches' own).",
        ),
    ] = None,
    baseline: Annotated[
        int | None,
        typer.Option("--baseline", help="Previous windows pooled as the baseline (default: all)."),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="Break down by tool, label:KEY (a stored run's label) or variable:KEY (a"
            " provenance variable, e.g. variable:model).",
        ),
    ] = None,
    alpha: Annotated[
        float, typer.Option("--alpha", help="Level of the Holm-adjusted test that flags.")
    ] = 0.05,
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Rates of repeated calls, loops, retries, tool errors, unrecovered errors, over-budget
    and forbidden actions per window of a collector's runs, with 95% Wilson intervals,
    latency and cost p50/p95; a rate is flagged (*) when a one-sided Fisher exact test
    against the pooled previous windows gives a Holm-adjusted p <= --alpha."""
    import numpy as np

    from pathgrade.core.errors import InputError
    from pathgrade.stats.monitor import AMOUNTS, RATES, by_tool, monitor, parse_window
    from pathgrade.store.monitor_query import check_by, collected_runs

    check_by(by)
    try:
        width = None if window is None else parse_window(window)
    except ValueError as error:
        raise InputError(str(error), field="--window") from None
    if baseline is not None and baseline < 1:
        raise InputError(f"must be at least 1 window, got {baseline}", field="--baseline")
    if not 0.0 < alpha < 1.0:
        raise InputError(f"must be in (0, 1), got {alpha}", field="--alpha")
    runs = collected_runs(name, store, scores=(*RATES, *AMOUNTS), by=by)
    _warn(runs.warnings)
    starts: Any = np.asarray(runs.starts, dtype=np.int64)
    values: dict[str, Any] = {k: np.asarray(v) for k, v in runs.values.items()}
    groups: list[str | None] | None = list(runs.groups) if runs.groups is not None else None
    if runs.calls is not None:
        starts, values, groups = by_tool(starts, values, runs.calls)
    result = monitor(starts, values, groups=groups, width=width, baseline=baseline, alpha=alpha)
    document = {"collector": name, "by": by, "batches": runs.batches, **result.to_dict()}
    if as_json:
        import orjson

        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        return
    _print_table(name, result, by, runs.batches, window)


def _warn(lines: list[str]) -> None:
    for line in lines:
        print(f"pathgrade: warning: {line}", file=sys.stderr)


def _cell(rate: Rate) -> Any:
    from rich.text import Text

    if rate.rate is None or rate.low is None or rate.high is None:
        return Text("-", style="dim")
    text = f"{_percent(rate.rate)} [{_percent(rate.low)}, {_percent(rate.high)}]"
    return Text(text + " *", style="bold red") if rate.flagged else Text(text)


def _percent(share: float) -> str:
    """A share in whole percent (``12%``); ``<1%`` / ``>99%`` for what would round to 0 or
    100 without being it."""
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{share * 100:.0f}%"


def _print_table(
    name: str, result: Monitor, by: str | None, batches: int, window: str | None
) -> None:
    from rich.box import HEAVY_HEAD
    from rich.console import Console
    from rich.text import Text

    from pathgrade.report.fit_table import FitTable
    from pathgrade.report.number_text import format_p, format_share, format_value
    from pathgrade.stats.monitor import iso_time

    console = Console()
    title = f"monitor {name}: {batches} batches, {window or 'batch'} windows (UTC)"
    table = FitTable(title, box=HEAVY_HEAD, compact=False)
    table.add_column("window")
    if by is not None:
        table.add_column(by)
    table.add_column("runs", "right")
    for header, drop in zip(_HEADERS, _DROPS, strict=True):
        table.add_column(header, "right", drop=drop)
    for amount in ("latency_ms", "cost"):
        for level in ("p50", "p95"):
            table.add_column(f"{amount} {level}", "right", drop=2 if level == "p95" else 4)
    for row in result.rows:
        cells: list[Any] = [Text(iso_time(row.start)[:-1].replace("T", " ").removesuffix(":00"))]
        if by is not None:
            cells.append(Text(str(row.group)))
        cells.append(Text(str(row.runs)))
        cells += [_cell(rate) for rate in row.rates]
        for amount in ("latency_ms", "cost"):
            shown = row.amounts[amount]
            cells += [Text(format_value(shown.p50, amount)), Text(format_value(shown.p95, amount))]
        table.add_row(*cells)
    console.print(table)
    console.print(
        "rates: % of runs with the score > 0 [95% Wilson interval]. * flagged: one-sided"
        " Fisher exact test against the pooled previous"
        f" {'windows' if result.baseline is None else f'{result.baseline} windows'},"
        f" Holm-adjusted over the row's rates, p <= {result.alpha}.",
        markup=False,
        soft_wrap=True,
    )
    for row in result.rows:
        group = "" if by is None else f" {row.group}"
        for rate in row.rates:
            if rate.flagged:
                console.print(
                    f"flagged: {iso_time(row.start)}{group} {rate.metric}"
                    f" {rate.defects}/{rate.runs} ({format_share(rate.rate)}) vs"
                    f" {rate.baseline_defects}/{rate.baseline_runs}"
                    f" ({format_share(rate.baseline_rate)}) before: Fisher p ="
                    f" {format_p(rate.p_value)},"
                    f" Holm p = {format_p(rate.p_adjusted)}",
                    markup=False,
                    soft_wrap=True,
                    style="bold red",
                )
