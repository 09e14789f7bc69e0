"""Which rubric dimensions become metric columns: a bounded number per run set.

Rubric keys come from the runs (untrusted data): 200 runs with 50 distinct keys each would
make 10,000 ``rubric.<dimension>`` columns. So at most a fixed number of dimensions become
columns:

* the **declared** dimensions (``[answer] rubric_dimensions``), when any are declared: exactly
  those, whatever the cap;
* else the first ``max_dimensions`` distinct dimensions with a numeric score, in order of
  first appearance over the runs (each run's dimensions in sorted order, as the answer layer
  emits them).

Every other numeric score is counted, per run, in ``rubric_other``: the number of the run's
numeric rubric scores whose dimension is not a column. The column exists only when some
score was left out; it is 0 for a run whose scores are all columns and undefined for a run
without numeric rubric scores. (Not ``rubric.other``: that would be the column of a dimension
named ``other``.) In partitioned scoring the first-appearance rule applies per partition;
declare the dimensions for the same columns under every engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

PREFIX = "rubric."
OTHER = "rubric_other"
DEFAULT_MAX_DIMENSIONS = 20


def _numeric(score: object) -> bool:
    """A score the answer layer emits as a metric (a text score is a label)."""
    return not isinstance(score, str)


def kept_dimensions(
    rubrics: Iterable[Mapping[str, object] | None],
    *,
    declared: Sequence[str] = (),
    max_dimensions: int = DEFAULT_MAX_DIMENSIONS,
) -> tuple[frozenset[str], bool]:
    """The dimensions that become columns, and whether any numeric score is left out.

    >>> kept_dimensions([{"b": 1, "a": 2}, {"c": 0, "a": 1}], max_dimensions=2)
    (frozenset({'a', 'b'}), True)
    >>> kept_dimensions([{"b": 1, "z": "text"}], declared=["b"])
    (frozenset({'b'}), False)
    """
    if declared:
        kept = frozenset(declared)
        dropped = any(
            _numeric(score) and name not in kept
            for rubric in rubrics
            for name, score in (rubric or {}).items()
        )
        return kept, dropped
    seen: dict[str, None] = {}
    dropped = False
    for rubric in rubrics:
        if not rubric:
            continue
        for name in sorted(rubric):
            if name in seen or not _numeric(rubric[name]):
                continue
            if len(seen) < max_dimensions:
                seen[name] = None
            else:
                dropped = True
    return frozenset(seen), dropped


def fold_rubric(
    metrics: Mapping[str, float | None], kept: frozenset[str], *, count_other: bool
) -> dict[str, float | None]:
    """``metrics`` with the ``rubric.<dimension>`` values of dimensions not in ``kept`` taken
    out; with ``count_other``, ``rubric_other`` = how many were taken out (for a run with any
    rubric score).

    >>> fold_rubric({"rubric.a": 2.0, "rubric.x": 1.0, "faithfulness": 1.0},
    ...             frozenset({"a"}), count_other=True)
    {'rubric.a': 2.0, 'faithfulness': 1.0, 'rubric_other': 1.0}
    """
    out: dict[str, float | None] = {}
    other, scored = 0, False
    for name, value in metrics.items():
        if name.startswith(PREFIX):
            scored = True
            if name[len(PREFIX) :] not in kept:
                other += 1
                continue
        out[name] = value
    if count_other and scored:
        out[OTHER] = float(other)
    return out
