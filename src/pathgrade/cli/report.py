"""``pathgrade report RUN [--baseline RUN] -o report.html``: one self-contained HTML page,
over :func:`pathgrade.report`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pathgrade.cli.defaults import MIN_SLICE_CASES
from pathgrade.cli.outputs import check_output_file
from pathgrade.cli.provenance import AllowConfigChange
from pathgrade.cli.store_option import StoreOption
from pathgrade.core.errors import InputError
from pathgrade.core.limits import MAX_RESAMPLES

_ARMS = ("a", "b", "ab")


def parse_ablation(items: list[str]) -> dict[str, str]:
    """``["a=RA,b=RB", "ab=RAB"]`` -> ``{"a": "RA", "b": "RB", "ab": "RAB"}`` (all three)."""
    arms: dict[str, str] = {}
    for item in items:
        for part in item.split(","):
            arm, sep, target = part.partition("=")
            arm, target = arm.strip(), target.strip()
            if not sep or arm not in _ARMS or not target:
                raise InputError(
                    f"expected a=RA,b=RB,ab=RAB (stored names or results files), got {part!r}",
                    field="--ablation",
                )
            if arm in arms:
                raise InputError(f"arm {arm!r} given twice", field="--ablation")
            arms[arm] = target
    absent = [arm for arm in _ARMS if arm not in arms]
    if absent:
        raise InputError(
            f"missing arm(s) {', '.join(absent)}: expected a=RA,b=RB,ab=RAB", field="--ablation"
        )
    return arms


def report_command(
    runs: Annotated[
        list[str],
        typer.Argument(
            help="Stored run name (or a results file); with --history, several, in order.",
            metavar="RUN...",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")],
    baseline: Annotated[
        str | None,
        typer.Option("--baseline", help="Stored run name (or results file) to compare with."),
    ] = None,
    gates: Annotated[
        Path | None, typer.Option("--gates", help="Gates file (TOML): verdicts in the summary.")
    ] = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Slice table by a case field or metadata.KEY (e.g. group)."),
    ] = None,
    cases: Annotated[
        Path | None,
        typer.Option("--cases", help="Cases file: the slice keys of --by fields other than group."),
    ] = None,
    slice_metric: Annotated[
        list[str] | None,
        typer.Option(
            "--slice-metric", help="Metric of the slice table (repeatable; default path_score)."
        ),
    ] = None,
    min_slice_n: Annotated[
        int,
        typer.Option("--min-slice-n", min=1, help="Slices with fewer cases are shown untested."),
    ] = MIN_SLICE_CASES,
    ablation: Annotated[
        list[str] | None,
        typer.Option(
            "--ablation",
            help="Add a 2x2 ablation section: a=RA,b=RB,ab=RAB (R0 is --baseline).",
        ),
    ] = None,
    store: StoreOption = None,
    resamples: Annotated[
        int,
        typer.Option(
            "--resamples", min=1, max=MAX_RESAMPLES, help="Bootstrap resamples for the intervals."
        ),
    ] = 2000,
    confidence: Annotated[
        float, typer.Option("--confidence", min=0.5, max=0.999, help="Interval level.")
    ] = 0.95,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
    allow_config_change: AllowConfigChange = False,
    history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="Write a history page of RUN...: each primary metric over the runs with its"
            " interval.",
        ),
    ] = False,
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", help="History metric (repeatable; default the primary ones)."),
    ] = None,
) -> None:
    """Write an HTML report of a run (summary, comparison, slices, ablation, cases,
    trajectories), or with --history a page of several runs; no network."""
    from rich.console import Console

    from pathgrade.api.reports import report

    check_output_file(out, "--out")
    if history:
        if baseline or gates or by or cases or slice_metric or ablation:
            raise InputError(
                "--history takes runs only (no --baseline, --gates, --by or --ablation)",
                field="--history",
            )
        from pathgrade.reporting import history_report

        history_report(
            runs,
            store=store,
            out=out,
            metrics=tuple(metric or ()),
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
        Console(stderr=True).print(f"wrote {out} (history of {len(runs)} runs)", markup=False)
        return
    if metric:
        raise InputError("--metric needs --history", field="--metric")
    if len(runs) != 1:
        raise InputError("one RUN to report on (several only with --history)", field="RUN")
    run = runs[0]
    data = report(
        run,
        out=out,
        baseline=baseline,
        gates=gates,
        by=by,
        cases=cases,
        slice_metrics=slice_metric or (),
        min_slice_n=min_slice_n,
        ablation=parse_ablation(ablation) if ablation else None,
        store=store,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
        allow_config_change=allow_config_change,
    )
    for line in [*data.warnings, *data.notes]:
        Console(stderr=True).print(line, markup=False)
    Console(stderr=True).print(
        f"wrote {out} ({data.n_cases} cases, {len(data.cases)} runs)", markup=False
    )
