"""``pathgrade matcher-agreement PAIRS... --config ...``: a semantic matcher against people's
labels: the in-sample sweep, and held-out figures (stratified k-fold, leave-one-domain-out)
with a bootstrap interval, per domain and kind, and the uncertain band.

Thin: reads the pairs (files or directories, read as one set) and the config, embeds once
through the configured backend and its cache (:func:`pathgrade.semantic.calibrate.score_pairs`)
and prints :func:`pathgrade.semantic.agreement_report.agreement_report`, as text or ``--json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def matcher_agreement_command(
    pairs: Annotated[
        list[Path], typer.Argument(help="Labelled pairs: JSONL files or directories of them.")
    ],
    config: Annotated[
        Path | None, typer.Option("--config", help="Scoring config (TOML) with [matching].")
    ] = None,
    tools: Annotated[Path | None, typer.Option("--tools", help="Tools file (schemas).")] = None,
    folds: Annotated[int, typer.Option("--folds", help="k of the stratified k-fold.", min=2)] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the folds and bootstrap.")] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", help="Bootstrap resamples of held-out kappa.", min=1)
    ] = 1000,
    band_kappa: Annotated[
        float, typer.Option("--band-kappa", help="Band rule: target kappa on decided pairs.")
    ] = 0.8,
    band_coverage: Annotated[
        float,
        typer.Option("--band-min-coverage", help="Band rule: least coverage when none reaches it."),
    ] = 0.5,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Agreement of the semantic matcher with labelled pairs, in-sample and held out."""
    from pathgrade.cli.matcher_agreement_text import render
    from pathgrade.core.config import SEMANTIC_THRESHOLD
    from pathgrade.io.config import load_config
    from pathgrade.io.tools import load_tools
    from pathgrade.semantic.agreement import grid
    from pathgrade.semantic.agreement_report import Settings, agreement_report
    from pathgrade.semantic.calibrate import load_pairs, score_pairs
    from pathgrade.semantic.crossval import BandRule

    scoring = load_config(config)
    semantic = scoring.matching.semantic
    threshold = semantic.threshold if semantic is not None else SEMANTIC_THRESHOLD
    labelled = load_pairs(*pairs)
    scored = score_pairs(labelled, scoring, load_tools(tools) if tools else None)
    settings = Settings(
        threshold=threshold,
        grid=grid(),
        folds=folds,
        seed=seed,
        resamples=resamples,
        rule=BandRule(target_kappa=band_kappa, min_coverage=band_coverage),
    )
    report = agreement_report(
        scored,
        settings,
        domains=[p.domain for p in labelled],
        kinds=[p.kind for p in labelled],
    )
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    typer.echo(render(report))
