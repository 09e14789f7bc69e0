"""A winning alignment as people read it: entries with each step's text, as objects or as
the JSON text a record holds.

Both forms are built from the same facts: the ops of one aligned pair (``OP_PAIR``,
``OP_INSERT``, ``OP_DELETE``), the reference and agent position of each op, whether each
pair matched in full, and each step's text and tool code. The JSON text of many runs'
alignments is built column-wise by Arrow's string kernels (:func:`aligned_json_column`),
with no Python step per entry.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pathgrade.core.results import AlignedStep
from pathgrade.core.types import Step, format_step
from pathgrade.metrics.json_text import join_per_run, text_array, text_piece
from pathgrade.metrics.trajectory.align import OP_DELETE, OP_INSERT, OP_PAIR
from pathgrade.metrics.trajectory.encode import EncodedPaths

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: One op list: ``(ops, ref_pos, agent_pos, full_op)``.
Ops = tuple[list[int], list[int], list[int], list[bool]]


class CallTexts:
    """The text of each call code and that text as a JSON string, each made once.

    Steps with one call code may be written differently (the same arguments in another key
    order), so a code's text is that of one chosen step: its first occurrence in the first
    of ``paths`` that has it (the runs' paths, then the references), whatever order texts
    are asked for in. A run's explanation is thus the same read alone or with the others.
    """

    def __init__(self, *paths: EncodedPaths) -> None:
        self._paths = paths
        self._chosen: list[Step | None] | None = None
        self._text: dict[int, str] = {}
        self._json: dict[int, bytes] = {}

    def _step(self, code: int) -> Step:
        """The chosen step of call ``code``."""
        if self._chosen is None:
            size = max(int(p.calls.max(initial=-1)) for p in self._paths) + 1
            chosen: list[Step | None] = [None] * size
            for paths in reversed(self._paths):  # the first paths' steps overwrite the later
                calls = paths.calls
                first = np.full(size, -1, np.int64)
                first[calls[::-1]] = np.arange(calls.size - 1, -1, -1)
                codes = np.flatnonzero(first >= 0)
                for at, position in zip(codes.tolist(), first[codes].tolist(), strict=True):
                    chosen[at] = paths.steps[position]
            self._chosen = chosen
        step = self._chosen[code] if code < len(self._chosen) else None
        if step is None:
            raise KeyError(code)
        return step

    def text(self, code: int) -> str:
        """The text of call ``code``."""
        text = self._text.get(code)
        if text is None:
            text = self._text[code] = _FORMATTED.text(self._step(code))
        return text

    def texts(self, paths: EncodedPaths, index: int) -> list[str]:
        """The text of each step of path ``index``."""
        start, end = int(paths.offsets[index]), int(paths.offsets[index + 1])
        codes = paths.calls[start:end].tolist()
        out = list(map(self._text.get, codes))
        if None in out:
            out = list(map(self.text, codes))
        return out  # type: ignore[return-value]

    def json_of(self, code: int) -> bytes:
        """The text of call ``code`` as a JSON string."""
        text = self._json.get(code)
        if text is None:
            text = self._json[code] = _FORMATTED.json(self._step(code))
        return text


class _FormattedSteps:
    """Each step object's text and JSON text, made once across scorings: steps are shared
    objects (validated once, see ``StepPool``), so the same objects recur in batch after
    batch. An entry keeps its step alive (so its ``id`` names it while the entry lives);
    at most ``capacity`` entries are kept (all dropped when full)."""

    def __init__(self, capacity: int = 1 << 15) -> None:
        self.capacity = capacity
        self._entries: dict[int, tuple[Step, str, bytes]] = {}

    def _entry(self, step: Step) -> tuple[Step, str, bytes]:
        entry = self._entries.get(id(step))
        if entry is None or entry[0] is not step:
            if len(self._entries) >= self.capacity:
                self._entries.clear()
            text = format_step(step)
            entry = self._entries[id(step)] = (step, text, orjson.dumps(text))
        return entry

    def text(self, step: Step) -> str:
        return self._entry(step)[1]

    def json(self, step: Step) -> bytes:
        return self._entry(step)[2]

    def clear(self) -> None:
        self._entries.clear()


_FORMATTED = _FormattedSteps()


def forget_formatted_steps() -> None:
    """Drop the kept step texts (and the steps they keep alive)."""
    _FORMATTED.clear()


def aligned_steps(
    ops: Ops,
    agent_text: list[str],
    agent_tool: list[int],
    ref_text: list[str],
    ref_tool: list[int],
) -> tuple[AlignedStep, ...]:
    """The alignment entries, one :class:`AlignedStep` per op (a pair is a ``match`` when it
    matched in full, else a ``substitution``)."""
    out: list[AlignedStep] = []
    for op, i, j, full in zip(*ops, strict=True):
        if op == OP_PAIR:
            out.append(
                AlignedStep(
                    "match" if full else "substitution",
                    j,
                    i,
                    ref_tool[i] == agent_tool[j],
                    full,
                    agent_text[j],
                    ref_text[i],
                )
            )
        elif op == OP_INSERT:
            out.append(AlignedStep("insertion", j, None, False, False, agent_text[j], None))
        elif op == OP_DELETE:
            out.append(AlignedStep("deletion", None, i, False, False, None, ref_text[i]))
    return tuple(out)


# The constant pieces of an entry's JSON (keys in ``AlignedStep`` field order). An entry is:
# _HEAD[kind + 4 * first] agent_step ',"reference_step":' reference_step _MIDDLE[flags]
# agent ',"reference":' reference _TAIL[last]; "[" opens a run's first entry and "]" closes
# its last.
_OPS = (b"match", b"substitution", b"insertion", b"deletion")
_HEAD = text_array([b'%s{"op":"%s","agent_step":' % (o, k) for o in (b"", b"[") for k in _OPS])
_MIDDLE = text_array(
    [
        b',"tool_match":%s,"arguments_match":%s,"agent":' % (t, a)
        for t in (b"false", b"true")
        for a in (b"false", b"true")
    ]
)
_TAIL = text_array([b"}", b"}]"])


def aligned_json_column(
    n_runs: int,
    entry_run: IntArray,
    ops: IntArray,
    ref_pos: IntArray,
    agent_pos: IntArray,
    full: BoolArray,
    tool_match: BoolArray,
    agent_text: IntArray,
    ref_text: IntArray,
    texts: list[bytes],
) -> list[bytes]:
    """The JSON text of the alignment of each of ``n_runs`` runs (what ``orjson.dumps``
    writes for :func:`aligned_steps`' objects), from flat entries: entry ``e`` belongs to run
    ``entry_run[e]`` (entries grouped by run, in op order); ``agent_text``/``ref_text``
    index ``texts`` (each step's text as a JSON string), -1 where the entry has no such
    step. A run with no entry is ``[]``. Every piece is taken from a small table and joined
    by Arrow's string kernels."""
    if not entry_run.size:
        return [b"[]"] * n_runs
    is_pair, is_insert, is_delete = ops == OP_PAIR, ops == OP_INSERT, ops == OP_DELETE
    kind = np.where(is_pair, np.where(full, 0, 1), np.where(is_insert, 2, 3))
    counts = np.bincount(entry_run, minlength=n_runs)
    offsets = np.zeros(n_runs + 1, np.int32)
    np.cumsum(counts, out=offsets[1:])
    first = np.zeros(entry_run.size, np.bool_)
    first[offsets[:-1][counts > 0]] = True
    last = np.zeros(entry_run.size, np.bool_)
    last[offsets[1:][counts > 0] - 1] = True
    # Positions as text: index 0 is null, index k + 1 is the digits of k.
    top = int(max(ref_pos.max(), agent_pos.max())) + 1
    digits = text_array([b"null"] + [b"%d" % k for k in range(top)])
    strings = text_array([b"null", *texts])
    flags = 2 * (tool_match & is_pair) + (full & is_pair)
    entries = pc.binary_join_element_wise(
        _HEAD.take(pa.array(kind + 4 * first)),
        digits.take(pa.array(np.where(is_delete, 0, agent_pos + 1))),
        text_piece(b',"reference_step":'),
        digits.take(pa.array(np.where(is_insert, 0, ref_pos + 1))),
        _MIDDLE.take(pa.array(flags)),
        strings.take(pa.array(agent_text + 1)),
        text_piece(b',"reference":'),
        strings.take(pa.array(ref_text + 1)),
        _TAIL.take(pa.array(last.astype(np.int8))),
        text_piece(b""),
    )
    return [text or b"[]" for text in join_per_run(entries, offsets)]
