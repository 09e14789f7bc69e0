"""The flat list of reference paths the scorer encodes, with each path's order and case.

Case ``c``'s reference paths are ``paths[case_first[c] : case_first[c] + case_count[c]]``,
in ``reference_index`` order; ``order[k]`` is path ``k``'s order code
(:data:`~pathgrade.metrics.trajectory.instances.ORDER_CODES`) and ``preds[k]`` its
predecessors under ``order = "partial"`` (``None`` otherwise). A path written with the
grammar (:mod:`~pathgrade.metrics.trajectory.grammar`) is scored as its instances
(:class:`~pathgrade.metrics.trajectory.instances.GrammarInstances`); its calls (its leaves)
stay here, never paired, so that each call is shown as the definition shows it, and it has
no predecessors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.trajectory import grammar
from pathgrade.metrics.trajectory.instances import ORDER_CODES, predecessors
from pathgrade.metrics.trajectory.order import Predecessors

__all__ = ["ReferenceLists", "reference_lists"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ReferenceLists:
    """The scorer's reference paths (module docstring)."""

    paths: list[Sequence[object]]
    order: list[int]
    preds: list[Predecessors | None]
    case_first: IntArray
    case_count: IntArray


def reference_lists(
    paths: Sequence[Sequence[Sequence[object]]],
    order: Sequence[str],
    uses_grammar: npt.NDArray[np.bool_],
) -> ReferenceLists:
    """The :class:`ReferenceLists` of cases with reference ``paths``, ``order`` and whether
    each writes a grammar reference; with none (the usual cases), built without a Python
    step per path, else by :func:`reference_lists_by_path` (tests hold the two equal)."""
    if uses_grammar.any():
        return reference_lists_by_path(paths, order, uses_grammar)
    counts = np.fromiter(map(len, paths), np.int64, len(paths))
    first = np.zeros(len(paths), dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    flat: list[Sequence[object]] = list(chain.from_iterable(paths))
    codes = np.fromiter(map(ORDER_CODES.__getitem__, order), np.int64, len(order))
    path_order: list[int] = np.repeat(codes, counts).tolist()
    partial = ORDER_CODES["partial"]
    preds: list[Predecessors | None] = (
        [predecessors(p) if c == partial else None for p, c in zip(flat, path_order, strict=True)]
        if "partial" in order
        else [None] * len(flat)
    )
    return ReferenceLists(flat, path_order, preds, first, counts)


def reference_lists_by_path(
    paths: Sequence[Sequence[Sequence[object]]],
    order: Sequence[str],
    uses_grammar: npt.NDArray[np.bool_],
) -> ReferenceLists:
    """:func:`reference_lists`, one path at a time: the definition, and the route when a
    case writes a grammar reference."""
    flat: list[Sequence[object]] = []
    path_order: list[int] = []
    preds: list[Predecessors | None] = []
    first = np.zeros(len(paths), dtype=np.int64)
    counts = np.zeros(len(paths), dtype=np.int64)
    for index, (case_paths, order_name) in enumerate(zip(paths, order, strict=True)):
        first[index], counts[index] = len(flat), len(case_paths)
        for path in case_paths:
            written = bool(uses_grammar[index]) and grammar.uses_grammar(path)  # type: ignore[arg-type]
            flat.append(grammar.leaves(path) if written else path)  # type: ignore[arg-type]
            path_order.append(ORDER_CODES[order_name])
            partial = order_name == "partial" and not written
            preds.append(predecessors(path) if partial else None)
    return ReferenceLists(flat, path_order, preds, first, counts)
