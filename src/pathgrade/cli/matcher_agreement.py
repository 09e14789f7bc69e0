"""``pathgrade matcher-agreement PAIRS.jsonl --config ...``: a semantic matcher against
people's labels (Cohen's kappa, precision/recall of "equivalent", the threshold sweep).

Thin: reads the pairs and the config, embeds through the configured backend
(:func:`pathgrade.semantic.calibrate.score_pairs`) and prints
:mod:`pathgrade.semantic.agreement`'s figures, as text or ``--json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def matcher_agreement_command(
    pairs: Annotated[Path, typer.Argument(help="Labelled pairs (JSONL).")],
    config: Annotated[
        Path | None, typer.Option("--config", help="Scoring config (TOML) with [matching].")
    ] = None,
    tools: Annotated[Path | None, typer.Option("--tools", help="Tools file (schemas).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Agreement of the semantic matcher with labelled pairs, and the best-kappa threshold."""
    from pathgrade.core.config import SEMANTIC_THRESHOLD
    from pathgrade.io.config import load_config
    from pathgrade.io.tools import load_tools
    from pathgrade.semantic.agreement import agreement, grid, sweep
    from pathgrade.semantic.calibrate import load_pairs, score_pairs

    scoring = load_config(config)
    semantic = scoring.matching.semantic
    threshold = semantic.threshold if semantic is not None else SEMANTIC_THRESHOLD
    scored = score_pairs(load_pairs(pairs), scoring, load_tools(tools) if tools else None)
    at = agreement(scored, threshold)
    rows, best = sweep(scored, grid())
    report = {
        "pairs": len(scored),
        "equivalent": sum(1 for s in scored if s.equivalent),
        "at_threshold": at.to_dict(),
        "sweep": [row.to_dict() for row in rows],
        "best_kappa_threshold": best,
    }
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    typer.echo(
        f"{report['pairs']} pairs ({report['equivalent']} equivalent); at threshold"
        f" {threshold:g}: kappa {at.kappa:.3f}, precision {at.precision:.3f},"
        f" recall {at.recall:.3f}"
    )
    typer.echo("threshold  kappa  precision  recall  accuracy")
    for row in rows:
        mark = "  <- best kappa" if row.threshold == best else ""
        typer.echo(
            f"{row.threshold:9.2f}  {row.kappa:5.3f}  {row.precision:9.3f}  {row.recall:6.3f}"
            f"  {row.accuracy:8.3f}{mark}"
        )
