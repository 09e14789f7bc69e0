"""The reference-free counts of :mod:`pathgrade.metrics.system.health` for many runs at once.

The trajectory scorer has already coded every agent step (:mod:`pathgrade.metrics.trajectory
.encode`): its tool code, its *identity* (equal identities: the same call) and whether it
failed. The counts are NumPy passes over those codes, with no read of a step object, except:

- ``loops``: a Python scan of the identity codes of the runs where a cycle is possible (a
  pair of consecutive, different calls occurs twice; a cycle needs that), usually few;
- runs with a call whose tool's identity is not plain JSON equality (a ``normalized``
  matcher makes equal keys the same call): the definition, run by run;
- ``empty_retrievals``: read from the steps that set ``metadata``, only when some step does.

A differential test (tests/metrics/system/test_health_differential.py) holds every count
equal to the definition's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from pathgrade.core.results import MetricKind
from pathgrade.core.types import Step
from pathgrade.metrics import catalogue
from pathgrade.metrics.system.health import (
    HEALTH_METRICS,
    empty_retrievals,
    health_metrics,
    loop_starts,
)
from pathgrade.metrics.trajectory.arguments import MatcherSet

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

__all__ = ["HEALTH_KINDS", "StepCodes", "exact_identity_tools", "health_columns"]

#: ``{name: JSON kind}`` of the metrics (their catalogue rows: counts).
HEALTH_KINDS: dict[str, MetricKind] = {name: catalogue.json_kind(name) for name in HEALTH_METRICS}

_FIELDS_SET = attrgetter("__pydantic_fields_set__")
_METADATA = frozenset(("metadata",))


@dataclass(frozen=True)
class StepCodes:
    """Every agent step of the runs, flat: run ``r``'s steps are ``offsets[r]:offsets[r+1]``.

    ``ident[j]`` equal for two steps of a tool whose ``exact_tool`` entry is true means the
    same call (same tool, arguments equal as JSON values); ``tool[j]`` is the step's tool code
    and ``error[j]`` whether it failed.
    """

    offsets: IntArray
    tool: IntArray
    ident: IntArray
    error: BoolArray
    steps: Sequence[Step]
    exact_tool: BoolArray


def exact_identity_tools(tool_codes: Mapping[str, int], matchers: MatcherSet) -> BoolArray:
    """Per tool code: whether the encoder's identity of its calls is JSON equality of the
    arguments (every tool but those whose matcher keys calls by a coarser equivalence that
    it also takes as identity, such as ``normalized``)."""
    exact = np.ones(len(tool_codes), dtype=np.bool_)
    for tool, code in tool_codes.items():
        matcher = matchers.for_tool(tool)
        plain = matcher.mode == "exact" and not matcher.fields
        exact[code] = plain or not (matcher.keyable and matcher.identifies)
    return exact


def _count(runs: IntArray, n_runs: int) -> FloatArray:
    return np.bincount(runs, minlength=n_runs).astype(np.float64)


def health_columns(codes: StepCodes, any_metadata: bool | None = None) -> dict[str, FloatArray]:
    """One column per metric of :data:`~pathgrade.metrics.system.health.HEALTH_METRICS`,
    every run defined. ``any_metadata``: whether any step sets ``metadata`` (``None``: look)."""
    offsets, ident, error = codes.offsets, codes.ident, codes.error
    n_runs, n_steps = offsets.size - 1, ident.size
    lengths = np.diff(offsets)
    run_of = np.repeat(np.arange(n_runs), lengths)
    first = np.zeros(n_steps, dtype=np.bool_)
    first[offsets[:-1][lengths > 0]] = True
    same = np.zeros(n_steps, dtype=np.bool_)
    same[1:] = ident[1:] == ident[:-1]
    same &= ~first
    after_failure = np.zeros(n_steps, dtype=np.bool_)
    after_failure[1:] = error[:-1]
    out = {
        "repeated_calls": _count(run_of[same], n_runs),
        "retries_without_change": _count(run_of[same & after_failure], n_runs),
        "loops": _loops(offsets, ident, run_of, same, first, n_runs),
        "tool_errors": _count(run_of[error], n_runs),
        "unrecovered_errors": _unrecovered(codes.tool, error, run_of, n_runs),
        "empty_retrievals": _empty_retrievals(codes.steps, offsets, run_of, any_metadata),
    }
    inexact = ~codes.exact_tool[codes.tool]
    for r in np.unique(run_of[inexact]).tolist():  # the definition, where codes are not JSON
        values = health_metrics(codes.steps[offsets[r] : offsets[r + 1]])
        for name in HEALTH_METRICS:
            out[name][r] = values[name]
    return out


def _loops(
    offsets: IntArray,
    ident: IntArray,
    run_of: IntArray,
    same: BoolArray,
    first: BoolArray,
    n_runs: int,
) -> FloatArray:
    """``loops`` per run: the definition's scan over the identity codes of the runs where
    some pair of consecutive, different calls occurs twice. No other run has a cycle: a
    block that is not one call repeated holds such a pair, and so does its copy."""
    column = np.zeros(n_runs)
    pair = ~(same | first)  # step m differs from step m - 1 of its run
    starts = np.flatnonzero(pair) - 1  # a pair (ident[j], ident[j + 1]), j = start
    if starts.size < 2:
        return column
    runs, left, right = run_of[starts], ident[starts], ident[starts + 1]
    for r in _runs_repeating_a_pair(runs, left, right, n_runs).tolist():
        column[r] = len(loop_starts(ident[offsets[r] : offsets[r + 1]].tolist()))
    return column


def _runs_repeating_a_pair(
    runs: IntArray, left: IntArray, right: IntArray, n_runs: int
) -> IntArray:
    """The runs (sorted, distinct) in which some (left, right) pair occurs twice. One int64
    key a pair and one sort when the codes fit (a three-key ``lexsort`` is a merge sort:
    several times the instructions), else the ``lexsort``."""
    span = int(max(left.max(), right.max())) + 1
    if int(min(left.min(), right.min())) >= 0 and n_runs * span * span < 1 << 62:
        key = (runs * span + left) * span + right
        key.sort()
        return np.unique(key[1:][key[1:] == key[:-1]] // (span * span))
    order = np.lexsort((right, left, runs))
    runs, left, right = runs[order], left[order], right[order]
    twice = (runs[1:] == runs[:-1]) & (left[1:] == left[:-1]) & (right[1:] == right[:-1])
    return np.unique(runs[1:][twice])


def _unrecovered(tool: IntArray, error: BoolArray, run_of: IntArray, n_runs: int) -> FloatArray:
    """``unrecovered_errors`` per run: failed steps after the last success of their
    (run, tool), found among the steps of the runs with a failure only."""
    if not error.any():
        return np.zeros(n_runs)
    failing = np.bincount(run_of[error], minlength=n_runs) > 0
    picked = np.flatnonzero(failing[run_of])
    pair = run_of[picked] * (int(tool.max()) + 1) + tool[picked]
    _, group = np.unique(pair, return_inverse=True)
    group = group.reshape(-1)
    failed = error[picked]
    last_ok = np.full(int(group.max()) + 1, -1, dtype=np.int64)
    np.maximum.at(last_ok, group[~failed], picked[~failed])
    unrecovered = failed & (last_ok[group] < picked)
    return _count(run_of[picked[unrecovered]], n_runs)


def _empty_retrievals(
    steps: Sequence[Step], offsets: IntArray, run_of: IntArray, any_metadata: bool | None
) -> FloatArray:
    """``empty_retrievals`` per run, reading only the steps that set ``metadata`` (a
    retrieval call is marked there), each once: one slot of every step read at C speed."""
    n_runs = offsets.size - 1
    column = np.zeros(n_runs)
    if any_metadata is False or not steps:
        return column
    marked = np.fromiter(map(_METADATA.isdisjoint, map(_FIELDS_SET, steps)), np.bool_, len(steps))
    where = np.flatnonzero(~marked)
    if not where.size:
        return column
    hits = empty_retrievals(list(compress(steps, ~marked)))
    np.add.at(column, run_of[where[hits]], 1.0)
    return column
