"""``pathgrade score``'s summary over cases: its options, and the glue of both scoring paths.

In memory the per-case means come from the result's columns; partitioned, from the sums the
partitions sent (:class:`pathgrade.engines.runner.Evaluation`). Either way
:func:`pathgrade.stats.case_summary.summary_over_cases` computes the same entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import typer

from pathgrade.core.errors import InputError
from pathgrade.core.limits import MAX_RESAMPLES
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case
from pathgrade.metrics import catalogue
from pathgrade.stats.case_summary import SummaryOptions, summary_over_cases
from pathgrade.stats.case_sums import CaseTable, case_table
from pathgrade.stats.slice_keys import SliceKey, check_field, slice_keys

__all__ = [
    "By",
    "MinSliceN",
    "Resamples",
    "Seed",
    "SliceMetrics",
    "case_keys",
    "in_memory",
    "options",
    "over_cases",
]

Seed = Annotated[int, typer.Option("--seed", help="Seed of the summary's bootstrap intervals.")]
Resamples = Annotated[
    int,
    typer.Option(
        "--resamples",
        min=1,
        max=MAX_RESAMPLES,
        help="Bootstrap resamples of the summary's intervals.",
    ),
]
By = Annotated[
    str | None,
    typer.Option("--by", help="Summary per slice of a case field or metadata.KEY (tags, ...)."),
]
SliceMetrics = Annotated[
    list[str] | None,
    typer.Option(
        "--metric", "-m", help="Also slice this metric (repeatable; path_score, goal_success)."
    ),
]
MinSliceN = Annotated[
    int, typer.Option("--min-slice-n", min=1, help="Slices with fewer cases get no interval.")
]


def options(
    by: str | None, metrics: list[str] | None, min_n: int, resamples: int, seed: int
) -> SummaryOptions:
    """The summary options, checked before any scoring (field, metric names)."""
    if by is not None:
        check_field(by)
    elif metrics:
        raise InputError("-m/--metric names a metric of the slice tables: add --by FIELD")
    for name in metrics or ():
        catalogue.row(name)  # unknown names fail now, with the closest known ones
    return SummaryOptions(
        resamples=resamples,
        seed=seed,
        by=by,
        metrics=tuple(dict.fromkeys(metrics or ())),
        min_n=min_n,
    )


def case_keys(
    opts: SummaryOptions, case_ids: Sequence[str], cases: Mapping[str, Case]
) -> dict[str, tuple[SliceKey, ...]] | None:
    """Each case's slice keys (before scoring, so that a bad field fails first)."""
    if opts.by is None:
        return None
    return slice_keys(opts.by, case_ids, cases=cases)


def over_cases(
    opts: SummaryOptions,
    table: CaseTable,
    keys: Sequence[Sequence[SliceKey]] | None = None,
) -> dict[str, Any]:
    """The summary's entries over cases (``by_case``, ``interval``, ``slices``)."""
    try:
        return summary_over_cases(table, opts, keys)
    except ValueError as error:
        raise InputError(str(error), field="--metric") from None


def in_memory(
    opts: SummaryOptions,
    result: ScoreResult,
    keys: Mapping[str, tuple[SliceKey, ...]] | None,
) -> dict[str, Any]:
    """:func:`over_cases` of a result held in memory (cases in order of first appearance)."""
    table = case_table(result.case_ids, result.metrics)
    ordered = None
    if keys is not None:
        ordered = [keys[case_id] for case_id in dict.fromkeys(result.case_ids)]
    return over_cases(opts, table, ordered)
