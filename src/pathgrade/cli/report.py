"""``pathgrade report RUN [--baseline RUN] -o report.html``: one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pathgrade.io.gates import load_gates
from pathgrade.report.html import write_html
from pathgrade.reporting import build_report, load_run


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
    store: Annotated[
        Path | None,
        typer.Option(
            "--store", help="Run store folder (default: $PATHGRADE_STORE or .pathgrade/runs)."
        ),
    ] = None,
    resamples: Annotated[
        int, typer.Option("--resamples", min=1, help="Bootstrap resamples for the intervals.")
    ] = 2000,
    confidence: Annotated[
        float, typer.Option("--confidence", min=0.5, max=0.999, help="Interval level.")
    ] = 0.95,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
) -> None:
    """Write an HTML report of a run (summary, comparison, cases, trajectories); no network."""
    variant = load_run(run, store)
    base = load_run(baseline, store) if baseline is not None else None
    gate_set = load_gates(gates) if gates is not None else None
    data = build_report(
        variant, base, gate_set, resamples=resamples, confidence=confidence, seed=seed
    )
    write_html(out, data)
    Console(stderr=True).print(f"wrote {out} ({len(data.cases)} runs)", markup=False)
