"""How the scorer cuts runs into batches, and which kernels score a batch's pairs.

Runs are taken in path-length order, at most ``BATCH_RUNS`` runs and ``BATCH_CELLS``
(agent step, reference step) cells a batch. Every (run, reference path) pair of a batch is
scored at once: by the long-path kernels (:mod:`~pathgrade.metrics.trajectory.long_pairs`,
no dense matrices; compiled by numba when :func:`use_compiled`) when
:func:`~pathgrade.metrics.trajectory.long_pairs.applies`, else by the dense kernels with
parallel groups (:mod:`~pathgrade.metrics.trajectory.parallel`). All give the same scores
wherever they apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.trajectory import long_pairs
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.band_align import kernels_loaded
from pathgrade.metrics.trajectory.encode import EncodedPaths
from pathgrade.metrics.trajectory.order import Predecessors
from pathgrade.metrics.trajectory.pair_batch import PaddedPairs, build_pair_batch, pad_pairs
from pathgrade.metrics.trajectory.pairs import PairScores
from pathgrade.metrics.trajectory.parallel import score_pairs_with_groups

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

BATCH_RUNS = 4096
#: The most (agent step, reference step) cells of one batch (a single longer run is one batch).
BATCH_CELLS = 1 << 25
#: The long-path cells from which loading the numba kernels pays off: loading takes about
#: 0.7 s (3 s on first use, when numba compiles them into its cache), and saves about 8 ns a
#: cell (about 0.4 s at 50 M cells). Below, the NumPy passes run, unless numba is loaded.
COMPILE_FROM = 50_000_000


def run_cells(ref_lengths: IntArray, first_ref: IntArray, n_refs: IntArray) -> IntArray:
    """Per run, the summed length of its reference paths."""
    ends = np.concatenate(([0], np.cumsum(ref_lengths)))
    cells: IntArray = ends[first_ref + n_refs] - ends[first_ref]
    return cells


def batches(lengths: IntArray, ref_steps: IntArray) -> list[tuple[int, int]]:
    """``(start, end)`` of each batch of runs (in length order): at most ``BATCH_RUNS``
    runs, and at most ``BATCH_CELLS`` (agent step, reference step) cells unless one run
    alone has more, so the dense matrices of long paths stay in memory."""
    cells = np.cumsum(lengths * ref_steps)
    bounds: list[tuple[int, int]] = []
    start, n = 0, lengths.size
    while start < n:
        before = int(cells[start - 1]) if start else 0
        end = int(np.searchsorted(cells, before + BATCH_CELLS, side="right"))
        end = min(max(end, start + 1), start + BATCH_RUNS, n)
        bounds.append((start, end))
        start = end
    return bounds


def use_compiled(
    lengths: IntArray, ref_steps: IntArray, n_refs: IntArray, pure_kernels: bool
) -> bool:
    """Whether long batches use the numba kernels: not ``pure_kernels``, and numba is loaded
    already or the long runs' cells (``lengths * ref_steps``, runs whose path or mean
    reference is longer than ``LONG_FROM``) reach ``COMPILE_FROM``. Only time depends on it."""
    if pure_kernels:
        return False
    if kernels_loaded():
        return True
    long = (lengths > long_pairs.LONG_FROM) | (ref_steps > long_pairs.LONG_FROM * n_refs)
    return int((lengths * ref_steps)[long].sum()) >= COMPILE_FROM


def batch_pairs(
    batch_runs: IntArray, first_ref: IntArray, n_refs: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """``(pair_run, pair_slot, pair_ref)``: one pair per (run, reference) of ``batch_runs``,
    the run's references in order (``pair_slot``: the reference's index in its case)."""
    counts = n_refs[batch_runs]
    pair_run = np.repeat(batch_runs, counts)
    pair_slot = np.arange(pair_run.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return pair_run, pair_slot, first_ref[pair_run] + pair_slot


@dataclass(frozen=True)
class PairInputs:
    """What the kernels read beside the pairs: the encoded paths, the matchers, each
    reference's order code and predecessors, and the agents' per-step flags."""

    refs: EncodedPaths
    agents: EncodedPaths
    matchers: MatcherSet
    ref_order: IntArray
    ref_preds: Sequence[Predecessors | None]
    agent_error: BoolArray
    agent_write: BoolArray
    #: Long batches use the numba kernels (when numba loads; else the NumPy passes, which
    #: give the same scores).
    compiled: bool = True


def score_batch(
    inputs: PairInputs, pair_ref: IntArray, pair_run: IntArray
) -> tuple[PaddedPairs, PairScores]:
    """The padded pairs ``(refs[pair_ref[b]], agents[pair_run[b]])`` and their scores, by
    the long-path kernels when they apply (see module docstring)."""
    padded = pad_pairs(inputs.refs, inputs.agents, pair_ref, pair_run)
    error = padded.agent_padder.take(inputs.agent_error, False)
    write = padded.agent_padder.take(inputs.agent_write, False)
    turn = padded.agent_padder.take(inputs.agents.turn, -1)
    pair_order = inputs.ref_order[pair_ref]
    if long_pairs.applies(padded, pair_order, turn):
        return padded, long_pairs.score_long_pairs(padded, error, write, inputs.compiled)
    dense = build_pair_batch(
        inputs.refs, inputs.agents, pair_ref, pair_run, inputs.matchers, padded
    )
    preds = [inputs.ref_preds[r] for r in pair_ref.tolist()]
    return padded, score_pairs_with_groups(dense, pair_order, preds, error, write, turn)
