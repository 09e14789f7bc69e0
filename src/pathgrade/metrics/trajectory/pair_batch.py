"""Padded batch arrays of (reference path, agent path) pairs, for the vectorised kernels.

:func:`pad_pairs` gathers each pair's step codes into padded rows; :func:`build_pair_batch`
adds the dense ``(B, R, A)`` equality matrices the short-path kernels read (the long-path
kernels, :mod:`~pathgrade.metrics.trajectory.long_pairs`, read the rows alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.encode import EncodedPaths

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

REF_PAD = -1
AGENT_PAD = -2


@dataclass(frozen=True)
class Padder:
    """Gathers rows ``flat[starts[b] : starts[b] + lengths[b]]``, padded to one width; the
    indices are computed once and serve every per-step array of the same paths."""

    index: IntArray  # (rows, width), clipped into the flat array
    valid: BoolArray  # (rows, width): inside the row's path
    padding: BoolArray  # ~valid

    @classmethod
    def build(cls, starts: IntArray, lengths: IntArray, width: int, size: int) -> Padder:
        cols = np.arange(width, dtype=np.int64)
        valid = cols[None, :] < lengths[:, None]
        index = np.minimum(starts[:, None] + cols[None, :], max(size - 1, 0))
        return cls(index=index, valid=valid, padding=~valid)

    def take(self, flat: npt.NDArray[Any], pad: Any) -> npt.NDArray[Any]:
        """The padded rows of ``flat``; ``pad`` outside each path."""
        if flat.size == 0:
            return np.full(self.valid.shape, pad, dtype=flat.dtype)
        out: npt.NDArray[Any] = flat.take(self.index)
        np.copyto(out, pad, where=self.padding)  # in place: a third of np.where's time
        return out


@dataclass(frozen=True)
class PairBatch:
    """Padded arrays for a batch of (reference path, agent path) pairs.

    ``tool_eq[b, i, j]``: reference step ``i`` and agent step ``j`` call the same tool;
    ``full_eq[b, i, j]``: they also match in arguments. Pads never match anything.
    """

    ref_len: IntArray
    agent_len: IntArray
    ref_start: IntArray
    agent_start: IntArray
    ref_tool: IntArray
    agent_tool: IntArray
    agent_ident: IntArray
    tool_eq: BoolArray
    full_eq: BoolArray
    general: BoolArray
    agent_padder: Padder  # pads further per-step arrays of the agents' paths

    @property
    def size(self) -> int:
        return int(self.ref_len.shape[0])


@dataclass(frozen=True)
class PaddedPairs:
    """The padded step codes of a batch of pairs (pads: ``REF_PAD``/``AGENT_PAD`` tools,
    keys -3/-4, identities -5), and ``general``: the pair has a step whose arguments are
    compared by a relation that is not an equivalence (no keys)."""

    ref_len: IntArray
    agent_len: IntArray
    ref_start: IntArray
    agent_start: IntArray
    ref_tool: IntArray
    agent_tool: IntArray
    ref_key: IntArray
    agent_key: IntArray
    agent_ident: IntArray
    general: BoolArray
    agent_padder: Padder

    @property
    def size(self) -> int:
        return int(self.ref_len.shape[0])


def pad_pairs(
    refs: EncodedPaths, agents: EncodedPaths, ref_index: IntArray, agent_index: IntArray
) -> PaddedPairs:
    """Pad the paths ``refs[ref_index[b]]`` and ``agents[agent_index[b]]`` into rows."""
    ref_start = refs.offsets[ref_index]
    ref_len = refs.offsets[ref_index + 1] - ref_start
    agent_start = agents.offsets[agent_index]
    agent_len = agents.offsets[agent_index + 1] - agent_start
    width_r = max(int(ref_len.max(initial=0)), 1)
    width_a = max(int(agent_len.max(initial=0)), 1)
    ref_pad = Padder.build(ref_start, ref_len, width_r, refs.tool.size)
    agent_pad = Padder.build(agent_start, agent_len, width_a, agents.tool.size)
    ref_general = ref_pad.take(refs.general, False)
    agent_general = agent_pad.take(agents.general, False)
    return PaddedPairs(
        ref_len=ref_len,
        agent_len=agent_len,
        ref_start=ref_start,
        agent_start=agent_start,
        ref_tool=ref_pad.take(refs.tool, REF_PAD),
        agent_tool=agent_pad.take(agents.tool, AGENT_PAD),
        ref_key=ref_pad.take(refs.key, -3),
        agent_key=agent_pad.take(agents.key, -4),
        agent_ident=agent_pad.take(agents.ident, -5),
        general=np.asarray(ref_general.any(axis=1) | agent_general.any(axis=1)),
        agent_padder=agent_pad,
    )


def build_pair_batch(
    refs: EncodedPaths,
    agents: EncodedPaths,
    ref_index: IntArray,
    agent_index: IntArray,
    matchers: MatcherSet,
    padded: PaddedPairs | None = None,
) -> PairBatch:
    """Pad the paths ``refs[ref_index[b]]`` and ``agents[agent_index[b]]`` into one batch
    (``padded``: their rows, when :func:`pad_pairs` has made them already)."""
    p = padded if padded is not None else pad_pairs(refs, agents, ref_index, agent_index)
    ref_key = p.ref_key
    tool_eq = p.ref_tool[:, :, None] == p.agent_tool[:, None, :]
    full_eq = (ref_key[:, :, None] == p.agent_key[:, None, :]) & (ref_key[:, :, None] >= 0)
    for b in np.flatnonzero(p.general):
        rs, ra = int(p.ref_start[b]), int(p.agent_start[b])
        for i, j in zip(*np.nonzero(tool_eq[b]), strict=True):
            ref_step, agent_step = refs.steps[rs + i], agents.steps[ra + j]
            matcher = matchers.for_tool(ref_step.tool)
            full_eq[b, i, j] = matcher.match(ref_step.arguments, agent_step.arguments)
    return PairBatch(
        ref_len=p.ref_len,
        agent_len=p.agent_len,
        ref_start=p.ref_start,
        agent_start=p.agent_start,
        ref_tool=p.ref_tool,
        agent_tool=p.agent_tool,
        agent_ident=p.agent_ident,
        tool_eq=tool_eq,
        full_eq=full_eq,
        general=p.general,
        agent_padder=p.agent_padder,
    )
