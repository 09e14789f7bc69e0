"""``pathgrade report RUN [--baseline RUN] -o report.html``: one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pathgrade.cli.outputs import check_output_file
from pathgrade.cli.provenance import AllowConfigChange
from pathgrade.core.errors import InputError
from pathgrade.core.limits import MAX_RESAMPLES
from pathgrade.io.cases import load_cases
from pathgrade.io.gates import load_gates
from pathgrade.report.html import write_html
from pathgrade.reporting import LoadedRun, SliceOptions, build_report, load_run
from pathgrade.stats.slice_keys import check_field
from pathgrade.stats.slices import MIN_SLICE_CASES

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
    run: Annotated[str, typer.Argument(help="Stored run name (or a results file).")],
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
    store: Annotated[
        Path | None,
        typer.Option(
            "--store", help="Run store folder (default: $PATHGRADE_STORE or .pathgrade/runs)."
        ),
    ] = None,
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
) -> None:
    """Write an HTML report of a run (summary, comparison, slices, ablation, cases,
    trajectories); no network."""
    check_output_file(out, "--out")
    if by is not None:
        check_field(by)
    elif cases is not None or slice_metric:
        raise InputError("--cases and --slice-metric need --by FIELD", field="--by")
    arm_names = parse_ablation(ablation) if ablation else None
    if arm_names is not None and baseline is None:
        raise InputError("an ablation needs its baseline R0: pass --baseline", field="--ablation")
    variant = load_run(run, store)
    base = load_run(baseline, store) if baseline is not None else None
    gate_set = load_gates(gates) if gates is not None else None
    slices = None
    if by is not None:
        case_map = {c.case_id: c for c in load_cases(cases).items} if cases is not None else None
        slices = SliceOptions(by, case_map, tuple(slice_metric or ()), min_slice_n)
    arms: dict[str, LoadedRun] | None = None
    if arm_names is not None:
        arms = {arm: load_run(name, store) for arm, name in arm_names.items()}
    data = build_report(
        variant,
        base,
        gate_set,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
        slices=slices,
        ablation=arms,
        allow_config_change=allow_config_change,
    )
    write_html(out, data)
    for line in [*data.warnings, *data.notes]:
        Console(stderr=True).print(line, markup=False)
    Console(stderr=True).print(
        f"wrote {out} ({data.n_cases} cases, {len(data.cases)} runs)", markup=False
    )
