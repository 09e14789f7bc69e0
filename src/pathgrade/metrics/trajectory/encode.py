"""Integer coding of steps for the vectorised kernels (batches: :mod:`.pair_batch`).

Every step gets three integers: its tool code, its *key* (equal keys mean "tool and arguments
match" for tools whose matching is an equivalence; -1 otherwise, and such steps are compared
pair by pair) and its *identity* (equal identities mean "the same call", used to find repeated
steps). Each distinct step object is read once per encoder, each distinct call gets a code
once; under plain ``exact`` matching a call's key is the code of its canonical JSON text
(:mod:`pathgrade.metrics.trajectory.canonical`), so keys need no walk over the arguments.

Calls are told apart by their sorted-key JSON text, so values JSON writes alike are one
call: a NaN or an infinity (written ``null``; none can come from a JSON file) is the same
argument as a null.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.arguments import MatcherSet, freeze
from pathgrade.metrics.trajectory.canonical import KEY_OPTIONS, ambiguous_json, exact_key_json

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


_EMPTY_INT = np.zeros(0, dtype=np.int64)
_EMPTY_BOOL = np.zeros(0, dtype=np.bool_)


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
    #: Index in ``steps`` of each distinct step object's first appearance (pooled steps
    #: share objects), in order of first appearance.
    first: IntArray = field(default_factory=lambda: _EMPTY_INT)

    @property
    def lengths(self) -> IntArray:
        return np.diff(self.offsets)

    def distinct_steps(self) -> list[Step]:
        """Each distinct step object of ``steps`` once (a property of step objects, such as
        "any step records an amount", reads these instead of every step)."""
        return list(map(self.steps.__getitem__, self.first.tolist()))


CallKey = tuple[str, bytes | str, str | None, int | None]

#: Keys and identities interned by value start here, above every call code.
INTERNED_BASE = 1 << 40


class StepEncoder:
    """Interns tools and calls into integer codes under one :class:`MatcherSet`.

    Work is done once per distinct step object (steps loaded through a step pool share one
    object), then once per distinct call; per step, only NumPy gathers remain.
    """

    def __init__(self, matchers: MatcherSet) -> None:
        self.matchers = matchers
        self.tool_codes: dict[str, int] = {}
        # distinct calls ``(tool, sorted-key JSON of the arguments, error, turn)`` -> code
        self._calls: dict[CallKey, int] = {}
        # per call code: tool code, key, identity, general, error, turn
        self._tool = _EMPTY_INT
        self._key = _EMPTY_INT
        self._ident = _EMPTY_INT
        self._general = _EMPTY_BOOL
        self._error = _EMPTY_BOOL
        self._turn = _EMPTY_INT
        self._interned: dict[Hashable, int] = {}
        self._plain_exact: dict[str, bool] = {}
        # steps coded so far, by address, with their call codes; kept alive
        self._seen_addresses = pa.array(_EMPTY_INT)
        self._seen_calls = _EMPTY_INT
        self._pinned: list[tuple[Step, ...]] = []

    def tool_code(self, tool: str) -> int:
        code = self.tool_codes.get(tool)
        if code is None:
            code = self.tool_codes[tool] = len(self.tool_codes)
        return code

    def _intern(self, value: Hashable) -> int:
        """A key or identity code (from ``INTERNED_BASE`` on, apart from call codes)."""
        code = self._interned.get(value)
        if code is None:
            code = self._interned[value] = len(self._interned)
        return INTERNED_BASE + code

    def _text_code(self, tool: str, text: bytes) -> int:
        """The key of calls of ``tool`` (matched by plain ``exact``) whose canonical JSON is
        ``text``: the call code of that call without error or turn, numbered now if no step
        has made it yet (its row, added by :meth:`_add_calls`, is that of a plain call)."""
        calls = self._calls
        return calls.setdefault((tool, text, None, None), len(calls))

    @staticmethod
    def _raw(arguments: Any) -> bytes | str:
        """The arguments as sorted-key JSON (``repr`` when they are not plain JSON)."""
        try:
            return orjson.dumps(arguments, option=KEY_OPTIONS)
        except TypeError:  # not plain JSON (e.g. non-string keys): a stable text instead
            return repr(arguments)

    def _is_plain_exact(self, tool: str) -> bool:
        """Calls of ``tool`` match under ``exact`` on every field (the default)."""
        plain = self._plain_exact.get(tool)
        if plain is None:
            matcher = self.matchers.for_tool(tool)
            plain = self._plain_exact[tool] = matcher.mode == "exact" and not matcher.fields
        return plain

    def _call_properties(
        self, tool: str, raw: bytes | str, arguments: Any
    ) -> tuple[int, int, int, bool]:
        """``(tool code, key, identity, general)`` of a distinct ``(tool, arguments)``.

        Under plain ``exact`` matching the key is the canonical JSON text
        (:func:`exact_key_json`), which needs no walk over the arguments; otherwise, and
        when there is no such text, it is the arguments' ``freeze`` form. The two kinds of
        key never meet: a value with a canonical text is always keyed by it.
        """
        tool_code = self.tool_code(tool)
        if self._is_plain_exact(tool):
            text = exact_key_json(raw, arguments)
            key = (
                self._text_code(tool, text)
                if text is not None
                else self._intern(("key", tool, freeze(arguments)))
            )
            return (tool_code, key, key, False)
        matcher = self.matchers.for_tool(tool)
        if matcher.keyable:
            key = self._intern(("key", tool, matcher.key(arguments)))
            # A repeat is the same call: under matching that ignores arguments (or some
            # fields), "same" still means the same arguments.
            ident = key if matcher.identifies else self._identity(tool, raw, arguments)
            return (tool_code, key, ident, False)
        return (tool_code, -1, self._identity(tool, raw, arguments), True)

    def _identity(self, tool: str, raw: bytes | str, arguments: Any) -> int:
        """The code of "the same call" (equal arguments under ``exact``) for a tool not
        matched by plain ``exact`` (whose calls' identity is their key)."""
        text = exact_key_json(raw, arguments)
        return self._intern(
            ("json", tool, text) if text is not None else ("ident", tool, freeze(arguments))
        )

    def encode(self, paths: Sequence[Sequence[Step]]) -> EncodedPaths:
        """Code every step of ``paths`` (a list of step sequences)."""
        lengths = np.fromiter(map(len, paths), dtype=np.int64, count=len(paths))
        offsets = np.zeros(len(paths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = tuple(chain.from_iterable(paths))
        # Touching scattered step objects, not computing, is the cost. Pooled steps share
        # objects, so each distinct object (found by its address: the encoder keeps the steps
        # it coded alive) is read once per encoder, in one expression: its call, error and
        # turn make the dictionary key (matching keys are by tool and arguments alone).
        addresses = pa.array(np.fromiter(map(id, flat), dtype=np.int64, count=len(flat)))
        # Hash-based, in order of first appearance (so codes never depend on addresses).
        encoded = pc.dictionary_encode(addresses)
        inverse = encoded.indices.to_numpy()
        unique = encoded.dictionary
        first = np.empty(len(unique), dtype=np.int64)
        first[inverse[::-1]] = np.arange(len(flat) - 1, -1, -1)  # first index of each
        unique_calls = np.empty(len(unique), dtype=np.int64)
        if self._seen_calls.size:
            at = pc.fill_null(pc.index_in(unique, value_set=self._seen_addresses), -1)
            at = at.to_numpy()
            seen = at >= 0
            unique_calls[seen] = self._seen_calls[at[seen]]
            unseen = np.flatnonzero(~seen)
        else:
            unseen = np.arange(len(unique))
        distinct = list(map(flat.__getitem__, first[unseen].tolist()))
        calls = self._calls
        known = len(calls)
        # One serialisation and one dictionary look-up per distinct step; ``setdefault``
        # numbers a call seen for the first time. The key keeps a compact copy of the JSON
        # bytes: orjson's result keeps the whole buffer it grew (about 4 KiB).
        add = calls.setdefault
        try:
            dumps, option = orjson.dumps, KEY_OPTIONS
            keys: list[CallKey] = [
                (s.tool, bytes(memoryview(dumps(s.arguments, option=option))), s.error, s.turn)
                for s in distinct
            ]
        except TypeError:
            raw = self._raw
            keys = [(s.tool, raw(s.arguments), s.error, s.turn) for s in distinct]
        distinct_calls = np.array([add(key, len(calls)) for key in keys], dtype=np.int64)
        unique_calls[unseen] = distinct_calls
        calls_array = unique_calls[inverse.reshape(-1)]
        if len(calls) > known:  # new codes: their properties, from each one's first step
            self._add_calls(known, keys, distinct, distinct_calls)
        if unseen.size:
            self._pinned.append(flat)
            self._seen_addresses = pa.concat_arrays(
                [self._seen_addresses, unique.take(pa.array(unseen))]
            )
            self._seen_calls = np.concatenate((self._seen_calls, distinct_calls))
        return EncodedPaths(
            offsets=offsets,
            tool=self._tool[calls_array],
            key=self._key[calls_array],
            ident=self._ident[calls_array],
            general=self._general[calls_array],
            steps=flat,
            calls=calls_array,
            error=self._error[calls_array],
            turn=self._turn[calls_array],
            first=first,
        )

    def _add_calls(
        self, known: int, keys: list[CallKey], distinct: list[Step], distinct_calls: IntArray
    ) -> None:
        """Append the properties of the call codes from ``known`` on (``keys[i]`` is the call
        of ``distinct[i]``, whose code is ``distinct_calls[i]``).

        The common case, a plain ``exact`` call whose JSON has no float, is done by C-level
        maps (its text is its key; its arguments are not read again); the rest one by one
        by :meth:`_call_properties`.
        """
        # Codes are given in order of first appearance: a new code first appears where the
        # code exceeds every code before it.
        before = np.maximum.accumulate(np.concatenate(([known - 1], distinct_calls[:-1])))
        firsts = np.flatnonzero(distinct_calls > before).tolist()
        new_keys = list(map(keys.__getitem__, firsts))
        tools, raws, errors, turns = (list(column) for column in zip(*new_keys, strict=True))
        for tool in dict.fromkeys(tools):  # in order of first appearance
            self.tool_code(tool)
            self._is_plain_exact(tool)
        tool_codes = np.array(list(map(self.tool_codes.__getitem__, tools)), dtype=np.int64)
        plain = np.array(list(map(self._plain_exact.__getitem__, tools)), dtype=np.bool_)
        search = ambiguous_json
        try:
            canonical = [search(raw) is None for raw in raws]
        except TypeError:  # some ``repr`` texts (arguments JSON cannot hold): never canonical
            canonical = [type(raw) is bytes and search(raw) is None for raw in raws]
        fast = plain & np.array(canonical, dtype=np.bool_)
        count = len(new_keys)
        # A fast call's key is the call code of its text without error or turn: its own
        # code when it has neither.
        own = np.arange(known, known + count, dtype=np.int64)
        key = own.copy()
        ident = own.copy()
        general = np.zeros(count, dtype=np.bool_)
        if errors.count(None) != count or turns.count(None) != count:
            plain_call = np.array(
                [e is None and t is None for e, t in zip(errors, turns, strict=True)],
                dtype=np.bool_,
            )
            for i in np.flatnonzero(fast & ~plain_call).tolist():
                key[i] = ident[i] = self._text_code(tools[i], raws[i])
        for i in np.flatnonzero(~fast).tolist():
            row = self._call_properties(tools[i], raws[i], distinct[firsts[i]].arguments)
            key[i], ident[i], general[i] = row[1], row[2], row[3]
        if errors.count(None) == count:
            error = np.zeros(count, dtype=np.bool_)
        else:
            error = np.array([e is not None and e != "" for e in errors], dtype=np.bool_)
        if turns.count(None) == count:
            turn = np.full(count, -1, dtype=np.int64)
        else:
            turn = np.array([-1 if t is None else t for t in turns], dtype=np.int64)
        # Keys numbered above (calls no step has made yet) get rows of their own, in order.
        made = len(self._calls) - known - count
        if made:
            texts = list(islice(reversed(self._calls), made))[::-1]
            tool_codes = np.concatenate(
                (tool_codes, np.array([self.tool_codes[k[0]] for k in texts], dtype=np.int64))
            )
            extra = np.arange(known + count, known + count + made, dtype=np.int64)
            key, ident = np.concatenate((key, extra)), np.concatenate((ident, extra))
            general = np.concatenate((general, np.zeros(made, dtype=np.bool_)))
            error = np.concatenate((error, np.zeros(made, dtype=np.bool_)))
            turn = np.concatenate((turn, np.full(made, -1, dtype=np.int64)))
        self._tool = np.concatenate((self._tool, tool_codes))
        self._key = np.concatenate((self._key, key))
        self._ident = np.concatenate((self._ident, ident))
        self._general = np.concatenate((self._general, general))
        self._error = np.concatenate((self._error, error))
        self._turn = np.concatenate((self._turn, turn))
