"""The options of ``pathgrade score``'s summary over cases (``--seed``, ``--resamples``,
``--by``, ``-m``, ``--min-slice-n``).

What they mean, and the summary both scoring paths add, is
:func:`pathgrade.api.scoring.summary_options` and the functions beside it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from pathgrade.core.limits import MAX_RESAMPLES

__all__ = ["By", "MinSliceN", "Resamples", "Seed", "SliceMetrics"]

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
