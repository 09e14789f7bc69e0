"""``pathgrade cases lint|mine|promote``: check reference paths; propose references from
successful runs (:mod:`pathgrade.cases`); turn failed stored runs into redacted draft cases
(:mod:`pathgrade.cli.promote`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pathgrade.cli.group import LightGroup
from pathgrade.cli.promote import promote_command

app = typer.Typer(
    name="cases",
    cls=LightGroup,
    help="Cases: check reference paths (lint), propose references from successful runs (mine),"
    " redacted draft cases from failed runs (promote).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


@app.command("lint")
def lint_command(
    cases: Annotated[Path, typer.Argument(help="Cases file (JSONL or JSON array).")],
    tools: Annotated[
        Path | None,
        typer.Option("--tools", help="Tools file: reference arguments checked against it."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="Scoring config (its budget, for cases without one)."),
    ] = None,
    allow_unreviewed: Annotated[
        bool,
        typer.Option(
            "--allow-unreviewed",
            help='An unreviewed reference (metadata.reference_status = "unreviewed", as'
            " cases promote writes) is a warning, not an error.",
        ),
    ] = False,
) -> None:
    """One line per finding (file:line, case, field, level); exit 1 when any is an error.

    A record the loader rejects (an 'after' naming an unknown id, a bad field) is an error
    finding too; the other records are still checked. A case whose reference is unreviewed
    (promoted from a run, not yet checked) is an error unless --allow-unreviewed.
    """
    from pathgrade.cases.lint import Finding, lint_cases
    from pathgrade.io.cases import load_cases
    from pathgrade.io.config import load_config
    from pathgrade.io.tools import load_tools

    toolset = load_tools(tools) if tools is not None else None
    budget = load_config(config).budget if config is not None else None
    name = str(cases)
    loaded = load_cases(cases, skip_invalid=True)
    findings = [
        Finding("", e.field or "", "error", "invalid", e.message, e.file, e.line)
        for e in loaded.skipped
    ]
    findings += lint_cases(
        loaded.items,
        toolset,
        budget=budget,
        file=name,
        lines=loaded.lines,
        allow_unreviewed=allow_unreviewed,
    )
    findings.sort(key=lambda f: (f.line or 0, f.level != "error", f.field))
    for finding in findings:
        typer.echo(str(finding))
    n_errors = sum(1 for f in findings if f.level == "error")
    typer.echo(
        f"{len(loaded.items) + len(loaded.skipped)} cases: {n_errors} errors,"
        f" {len(findings) - n_errors} warnings",
        err=True,
    )
    if n_errors:
        raise typer.Exit(1)


@app.command("mine")
def mine_command(
    runs: Annotated[Path, typer.Argument(help="Runs file (JSONL or JSON array).")],
    cases: Annotated[Path, typer.Option("--cases", help="Cases file the runs belong to.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Proposed cases JSONL (default: standard output)."),
    ] = None,
    min_choice_runs: Annotated[
        int,
        typer.Option(
            "--min-choice-runs",
            min=1,
            help="A one_of choice's calls must each be made by at least this many successful runs.",
        ),
    ] = 2,
    min_choice_share: Annotated[
        float,
        typer.Option(
            "--min-choice-share",
            min=0.0,
            max=1.0,
            help="... and by at least this share of the case's successful runs.",
        ),
    ] = 0.2,
) -> None:
    """Propose a reference per case from its successful runs (success true, or reward 1),
    written as cases JSONL with metadata.status = "proposed" and the support counts."""
    from pathgrade.cases.mine import mine_cases
    from pathgrade.io.cases import load_cases, load_runs
    from pathgrade.io.mined import write_mined

    loaded_cases = load_cases(cases)
    by_id = {case.case_id: case for case in loaded_cases.items}
    loaded_runs = load_runs(runs, by_id)
    mined = mine_cases(
        loaded_cases.items,
        loaded_runs.items,
        min_choice_runs=min_choice_runs,
        min_choice_share=min_choice_share,
    )
    written = write_mined(mined, None if out is None else str(out))
    left = len(by_id) - written
    print(
        f"{written} cases with a proposed reference; {left} without a successful run",
        file=sys.stderr,
    )


app.command("promote")(promote_command)
