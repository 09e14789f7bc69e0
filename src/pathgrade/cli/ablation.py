"""``pathgrade ablation``: the 2x2 ablation of a baseline, change A, change B and both."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathgrade.cli.provenance import AllowConfigChange, head_lines, print_head
from pathgrade.cli.store_option import StoreOption
from pathgrade.core.errors import InputError
from pathgrade.core.limits import MAX_RESAMPLES

if TYPE_CHECKING:
    from rich.console import Console

    from pathgrade.stats.ablation import Ablation

#: The option naming each arm (the arms of :data:`pathgrade.stats.ablation.ARMS`).
_FLAGS = {"baseline": "--baseline", "a": "--a", "b": "--b", "ab": "--ab"}


def render_ablation(console: Console, result: Ablation) -> None:
    """The table for people: one row per metric and effect, then each metric's reading."""
    from rich.text import Text

    from pathgrade.report.display import clip
    from pathgrade.report.fit_table import FitTable
    from pathgrade.report.number_text import format_interval, format_p, format_value
    from pathgrade.stats.ablation import EFFECT_LABELS, EFFECTS

    level = round(result.confidence * 100)
    table = FitTable(f"2x2 ablation: {result.cases} cases", box=None)
    table.add_column("metric")
    table.add_column("effect")
    table.add_column("n", "right", drop=2)
    table.add_column("estimate", "right")
    table.add_column(f"{level}% CI", "right")
    table.add_column("p", "right", drop=1)
    table.add_column("p (Holm)", "right")
    table.add_column("detected")
    for name, m in result.metrics.items():
        label = Text(clip(name) + ("" if m.primary else " (secondary)"))
        for i, key in enumerate(EFFECTS):
            e = m.effects[key]
            table.add_row(
                label if i == 0 else "",
                EFFECT_LABELS[key],
                str(m.n) + (f" (+{m.undefined} undef.)" if m.undefined and i == 0 else ""),
                format_value(e.estimate, name, True),
                format_interval(e.ci[0], e.ci[1], name, True),
                format_p(e.p_value),
                format_p(e.p_holm),
                "yes" if e.detected else "",
                end_section=i == len(EFFECTS) - 1,
            )
    console.print(table)
    for name, m in result.metrics.items():
        console.print(f"{name}: {m.reading}", markup=False)
    console.print(
        "per case: main effect of A = ((RA - R0) + (RAB - RB)) / 2, interaction = RAB - RA - RB"
        " + R0; each row is the mean over cases. CI: paired bootstrap over cases, the four arms"
        f" resampled together ({result.resamples} resamples, seed {result.seed}); p: sign-flip"
        f" permutation; Holm over the {result.family_size} family tests (main effects and"
        " interaction of each primary metric). detected = the CI excludes 0 and p (Holm in the"
        f" family, raw otherwise) is below {1 - result.confidence:.2g}.",
        markup=False,
    )


def ablation_command(
    baseline: Annotated[
        Path, typer.Option("--baseline", help="Baseline R0: results file or stored run name.")
    ],
    a: Annotated[Path, typer.Option("--a", help="R0 with change A only (RA).")],
    b: Annotated[Path, typer.Option("--b", help="R0 with change B only (RB).")],
    ab: Annotated[Path, typer.Option("--ab", help="R0 with both changes (RAB).")],
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Analyse only this metric (repeatable; primary)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document to stdout.")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap/permutation.")] = 0,
    resamples: Annotated[
        int,
        typer.Option(
            "--resamples", min=1, max=MAX_RESAMPLES, help="Bootstrap and permutation resamples."
        ),
    ] = 10_000,
    confidence: Annotated[
        float, typer.Option("--confidence", min=0.5, max=0.999, help="Interval level.")
    ] = 0.95,
    store: StoreOption = None,
    allow_config_change: AllowConfigChange = False,
) -> None:
    """Main effects and interaction of two changes A and B (2x2 ablation on the same cases)."""
    import orjson
    from rich.console import Console

    from pathgrade.core.comparability import check_records
    from pathgrade.stats.ablation import ARMS, CaseSetMismatchError, ablation_records
    from pathgrade.stats.records import MissingMetricError
    from pathgrade.store import resolve_results

    paths = dict(zip(ARMS, (baseline, a, b, ab), strict=True))
    arms = {arm: resolve_results(path, store) for arm, path in paths.items()}
    # Provenance before any statistic: each arm is checked against R0.
    checks = {
        arm: check_records(
            arms["baseline"],
            arms[arm],
            names=(str(baseline), str(paths[arm])),
            allow=allow_config_change,
        )
        for arm in ARMS[1:]
    }
    try:
        result = ablation_records(
            arms["baseline"],
            arms["a"],
            arms["b"],
            arms["ab"],
            metrics=metric or None,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
    except CaseSetMismatchError as error:
        lacks = "; ".join(
            f"{_FLAGS[arm]} {paths[arm]} lacks {', '.join(ids[:10])}"
            + (f" ... ({len(ids) - 10} more)" if len(ids) > 10 else "")
            for arm, ids in error.missing.items()
        )
        raise InputError(f"the four runs must cover the same cases: {lacks}") from None
    except MissingMetricError as error:
        side = paths.get(error.side, baseline)
        raise InputError(
            "metric is missing from the results", file=str(side), field=error.name
        ) from None
    except ValueError as error:
        raise InputError(str(error), file=", ".join(str(p) for p in paths.values())) from None
    if as_json:
        warnings = [c.warning for c in checks.values() if c.warning]
        doc: dict[str, object] = {"warning": " | ".join(warnings)} if warnings else {}
        doc |= result.to_dict()
        doc["arms"] = {arm: str(path) for arm, path in paths.items()}
        doc["provenance"] = {arm: c.to_dict() for arm, c in checks.items()}
        doc["changed_variables"] = {arm: c.changed_dict() for arm, c in checks.items()}
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
        return
    console = Console()  # tables fit any width without cutting a value (report.fit_table)
    print_head(console, head_lines(list(checks.values())))
    render_ablation(console, result)
