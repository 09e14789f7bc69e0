"""Integer coding of steps, and padded batch arrays for the vectorised kernels.

Every step gets three integers: its tool code, its *key* (equal keys mean "tool and arguments
match" for tools whose matching is an equivalence; -1 otherwise, and such steps are compared
pair by pair) and its *identity* (equal identities mean "the same call", used to find repeated
steps). Codes are interned once per distinct ``(tool, arguments)``, so repeated calls cost a
dictionary look-up.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.arguments import MatcherSet, freeze

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

REF_PAD = -1
AGENT_PAD = -2


@dataclass(frozen=True)
class EncodedPaths:
    """Flat codes of many paths: path ``p`` is ``offsets[p]:offsets[p + 1]``."""

    offsets: IntArray
    tool: IntArray
    key: IntArray
    ident: IntArray
    general: BoolArray
    steps: tuple[Step, ...]
    calls: IntArray  # the code of each step's distinct (tool, arguments, error, turn)
    error: BoolArray  # the step returned an error
    turn: IntArray  # the step's turn (parallel calls share one); -1 when not recorded

    @property
    def lengths(self) -> IntArray:
        return np.diff(self.offsets)


CallKey = tuple[str, bytes | str, str | None, int | None]


class _CallCodes(dict[CallKey, int]):
    """Distinct calls ``(tool, sorted-key JSON of the arguments, error, turn)`` -> code, the
    next code for a key seen the first time.

    A plain subscript is the cheapest look-up per step (no method call, no ``len``). The
    stored key gets its own copy of the JSON bytes: orjson's result keeps the whole output
    buffer it grew (about 4 KiB), and a kept key per distinct call would keep it too.
    """

    def __missing__(self, key: CallKey) -> int:
        tool, raw, error, turn = key
        compact = bytes(memoryview(raw)) if isinstance(raw, bytes) else raw
        code = self[(tool, compact, error, turn)] = len(self)
        return code


class StepEncoder:
    """Interns tools and calls into integer codes under one :class:`MatcherSet`."""

    def __init__(self, matchers: MatcherSet) -> None:
        self.matchers = matchers
        self.tool_codes: dict[str, int] = {}
        self._calls = _CallCodes()
        # per code: tool code, key, identity, general, error, turn
        self._call_table: list[tuple[int, int, int, bool, bool, int]] = []
        self._interned: dict[Hashable, int] = {}

    def tool_code(self, tool: str) -> int:
        code = self.tool_codes.get(tool)
        if code is None:
            code = self.tool_codes[tool] = len(self.tool_codes)
        return code

    def _intern(self, value: Hashable) -> int:
        code = self._interned.get(value)
        if code is None:
            code = self._interned[value] = len(self._interned)
        return code

    @staticmethod
    def _raw(arguments: Any) -> bytes | str:
        """The arguments as sorted-key JSON (``repr`` when they are not plain JSON)."""
        try:
            return orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # not plain JSON (e.g. non-string keys): a stable text instead
            return repr(arguments)

    def _call_properties(self, tool: str, arguments: Any) -> tuple[int, int, int, bool]:
        """``(tool code, key, identity, general)`` of a distinct ``(tool, arguments)``."""
        matcher = self.matchers.for_tool(tool)
        tool_code = self.tool_code(tool)
        if matcher.keyable:
            key = self._intern(("key", tool, matcher.key(arguments)))
            # A repeat is the same call: under matching that ignores arguments (or some
            # fields), "same" still means the same arguments.
            ident = key if matcher.identifies else self._intern(("ident", tool, freeze(arguments)))
            return (tool_code, key, ident, False)
        ident = self._intern(("ident", tool, freeze(arguments)))
        return (tool_code, -1, ident, True)

    def encode(self, paths: Sequence[Sequence[Step]]) -> EncodedPaths:
        """Code every step of ``paths`` (a list of step sequences)."""
        lengths = np.fromiter(map(len, paths), dtype=np.int64, count=len(paths))
        offsets = np.zeros(len(paths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = tuple(chain.from_iterable(paths))
        # Step objects are scattered in memory: touching them, not computing, is the cost,
        # so each step is read once, in one expression: its call, error and turn together
        # make the dictionary key (a call that failed, or ran in another turn, gets a code of
        # its own; matching keys and identities are still by tool and arguments alone).
        calls = self._calls
        known = len(calls)
        # One serialisation and one dictionary look-up per step (``_CallCodes`` numbers a key
        # seen for the first time).
        try:
            dumps, option = orjson.dumps, orjson.OPT_SORT_KEYS
            codes = [
                calls[(s.tool, dumps(s.arguments, option=option), s.error, s.turn)] for s in flat
            ]
        except TypeError:
            raw = self._raw
            codes = [calls[(s.tool, raw(s.arguments), s.error, s.turn)] for s in flat]
        calls_array = np.array(codes, dtype=np.int64)
        if len(calls) > known:  # new codes: their properties, from each one's first step
            new_steps = np.flatnonzero(calls_array >= known)
            _, first = np.unique(calls_array[new_steps], return_index=True)
            for index in new_steps[first].tolist():  # in code order
                step = flat[index]
                self._call_table.append(
                    (
                        *self._call_properties(step.tool, step.arguments),
                        bool(step.error),
                        -1 if step.turn is None else step.turn,
                    )
                )
        table = self._call_table
        tool = np.fromiter((t[0] for t in table), dtype=np.int64, count=len(table))
        key = np.fromiter((t[1] for t in table), dtype=np.int64, count=len(table))
        ident = np.fromiter((t[2] for t in table), dtype=np.int64, count=len(table))
        general = np.fromiter((t[3] for t in table), dtype=np.bool_, count=len(table))
        error = np.fromiter((t[4] for t in table), dtype=np.bool_, count=len(table))
        turn = np.fromiter((t[5] for t in table), dtype=np.int64, count=len(table))
        return EncodedPaths(
            offsets=offsets,
            tool=tool[calls_array],
            key=key[calls_array],
            ident=ident[calls_array],
            general=general[calls_array],
            steps=flat,
            calls=calls_array,
            error=error[calls_array],
            turn=turn[calls_array],
        )


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


def build_pair_batch(
    refs: EncodedPaths,
    agents: EncodedPaths,
    ref_index: IntArray,
    agent_index: IntArray,
    matchers: MatcherSet,
) -> PairBatch:
    """Pad the paths ``refs[ref_index[b]]`` and ``agents[agent_index[b]]`` into one batch."""
    ref_start = refs.offsets[ref_index]
    ref_len = refs.offsets[ref_index + 1] - ref_start
    agent_start = agents.offsets[agent_index]
    agent_len = agents.offsets[agent_index + 1] - agent_start
    width_r = max(int(ref_len.max(initial=0)), 1)
    width_a = max(int(agent_len.max(initial=0)), 1)
    ref_pad = Padder.build(ref_start, ref_len, width_r, refs.tool.size)
    agent_pad = Padder.build(agent_start, agent_len, width_a, agents.tool.size)
    ref_tool = ref_pad.take(refs.tool, REF_PAD)
    agent_tool = agent_pad.take(agents.tool, AGENT_PAD)
    ref_key = ref_pad.take(refs.key, -3)
    agent_key = agent_pad.take(agents.key, -4)
    agent_ident = agent_pad.take(agents.ident, -5)
    ref_general = ref_pad.take(refs.general, False)
    agent_general = agent_pad.take(agents.general, False)

    tool_eq = ref_tool[:, :, None] == agent_tool[:, None, :]
    full_eq = (ref_key[:, :, None] == agent_key[:, None, :]) & (ref_key[:, :, None] >= 0)
    general: BoolArray = np.asarray(ref_general.any(axis=1) | agent_general.any(axis=1))
    for b in np.flatnonzero(general):
        rs, ra = int(ref_start[b]), int(agent_start[b])
        for i, j in zip(*np.nonzero(tool_eq[b]), strict=True):
            ref_step, agent_step = refs.steps[rs + i], agents.steps[ra + j]
            matcher = matchers.for_tool(ref_step.tool)
            full_eq[b, i, j] = matcher.match(ref_step.arguments, agent_step.arguments)
    return PairBatch(
        ref_len=ref_len,
        agent_len=agent_len,
        ref_start=ref_start,
        agent_start=agent_start,
        ref_tool=ref_tool,
        agent_tool=agent_tool,
        agent_ident=agent_ident,
        tool_eq=tool_eq,
        full_eq=full_eq,
        general=general,
        agent_padder=agent_pad,
    )
