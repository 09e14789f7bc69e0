"""A winning alignment as people read it: entries with each step's text, as objects or as
columns (:class:`~pathgrade.core.explanations.AlignmentColumns`, which the record writer
turns into text).

Both forms are built from the same facts: the ops of one aligned pair (``OP_PAIR``,
``OP_INSERT``, ``OP_DELETE``), the reference and agent position of each op, whether each
pair matched in full, and each step's text and tool code. The columns of many runs are
built at once, with no Python step per entry.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pathgrade.core.explanations import AlignmentColumns
from pathgrade.core.results import AlignedStep
from pathgrade.core.types import Step, format_step
from pathgrade.metrics.trajectory.align import OP_DELETE, OP_INSERT, OP_PAIR
from pathgrade.metrics.trajectory.encode import EncodedPaths
from pathgrade.metrics.trajectory.winners import WinnerBatch

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: One op list: ``(ops, ref_pos, agent_pos, full_op)``.
Ops = tuple[list[int], list[int], list[int], list[bool]]


class StepTexts:
    """Each step object's text (:func:`~pathgrade.core.types.format_step`), made once
    across scorings: steps are shared objects (validated once, see ``StepPool``), so the same
    objects recur in batch after batch. Whoever scores owns one (an engine keeps one per
    worker process, across partitions; a scoring without one makes its own). An entry
    keeps its step alive (so its ``id`` names it while the entry lives); at most
    ``capacity`` entries are kept (all dropped when full)."""

    def __init__(self, capacity: int = 1 << 15) -> None:
        self.capacity = capacity
        self._entries: dict[int, tuple[Step, str]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"StepTexts(kept={len(self)}, capacity={self.capacity})"

    def text(self, step: Step) -> str:
        """The text of ``step``."""
        entry = self._entries.get(id(step))
        if entry is None or entry[0] is not step:
            if len(self._entries) >= self.capacity:
                self._entries.clear()
            entry = self._entries[id(step)] = (step, format_step(step))
        return entry[1]

    def clear(self) -> None:
        """Drop the kept texts (and the steps they keep alive)."""
        self._entries.clear()


class CallTexts:
    """The text of each call code, made once.

    Steps with one call code may be written differently (the same arguments in another key
    order), so a code's text is that of one chosen step: its first occurrence in the first
    of ``paths`` that has it (the runs' paths, then the references), whatever order texts
    are asked for in. A run's explanation is thus the same read alone or with the others.
    """

    def __init__(self, *paths: EncodedPaths, steps: StepTexts | None = None) -> None:
        self._paths = paths
        self._steps = StepTexts() if steps is None else steps
        self._chosen: list[Step | None] | None = None
        self._text: dict[int, str] = {}

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
            text = self._text[code] = self._steps.text(self._step(code))
        return text

    def texts(self, paths: EncodedPaths, index: int) -> list[str]:
        """The text of each step of path ``index``."""
        start, end = int(paths.offsets[index]), int(paths.offsets[index + 1])
        codes = paths.calls[start:end].tolist()
        out = list(map(self._text.get, codes))
        if None in out:
            out = list(map(self.text, codes))
        return out  # type: ignore[return-value]

    def distinct(self, codes: IntArray) -> tuple[IntArray, list[str]]:
        """``(rank, texts)``: each distinct code of ``codes`` (-1: none) once, in code order,
        with its text; ``rank[k]`` indexes the text of ``codes[k]`` (-1 where it is -1)."""
        present = np.zeros(int(codes.max(initial=-1)) + 2, np.bool_)
        present[codes] = True  # -1 marks the last slot, which is dropped below
        distinct = np.flatnonzero(present[:-1])
        rank = np.full(present.size, -1, np.int64)
        rank[distinct] = np.arange(distinct.size)
        return rank[codes], list(map(self.text, distinct.tolist()))


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


def alignment_columns(
    start: int,
    stop: int,
    batches: Sequence[WinnerBatch],
    agents: EncodedPaths,
    refs: EncodedPaths,
    texts: CallTexts,
) -> AlignmentColumns:
    """The alignment of each of runs ``start`` to ``stop - 1`` (what :func:`aligned_steps`
    gives for its winning pair), as columns over the winners of ``batches``: each distinct
    call's text made once, no Python step per entry. A run without a winner has no entry."""
    parts = []
    for batch in batches:
        kept = (batch.runs >= start) & (batch.runs < stop)
        if not kept.any():
            continue
        entries = (np.arange(batch.ops.shape[1]) < batch.n_ops[:, None]) & kept[:, None]
        rows = np.nonzero(entries)[0]
        parts.append(
            (
                batch.runs[rows],
                batch.ref_paths[rows],
                batch.ops[entries],
                batch.ref_pos[entries],
                batch.agent_pos[entries],
                batch.full_op[entries],
            )
        )
    if not parts:
        none = np.zeros(0, np.int64)
        flags = np.zeros(0, np.bool_)
        return AlignmentColumns(
            start, stop - start, none, none, none, none, flags, flags, none, none, []
        )
    columns = (np.concatenate(c) for c in zip(*parts, strict=True))
    run, ref_path, ops, ref_pos, agent_pos, full = columns
    order = np.argsort(run, kind="stable")  # entries grouped by run, in op order
    run, ref_path, ops = run[order], ref_path[order], ops[order]
    ref_pos, agent_pos, full = ref_pos[order], agent_pos[order], full[order]
    is_pair, is_insert = ops == OP_PAIR, ops == OP_INSERT
    agent_pos = np.where(ops == OP_DELETE, -1, agent_pos)
    ref_pos = np.where(is_insert, -1, ref_pos)
    has_agent, has_ref = agent_pos >= 0, ref_pos >= 0
    agent_at = np.where(has_agent, agents.offsets[run] + agent_pos, -1)
    ref_at = np.where(has_ref, refs.offsets[ref_path] + ref_pos, -1)
    agent_call, ref_call = _at(agents.calls, agent_at), _at(refs.calls, ref_at)
    tool_match = is_pair & (_at(agents.tool, agent_at) == _at(refs.tool, ref_at))
    rank, call_texts = texts.distinct(np.concatenate([agent_call, ref_call]))
    return AlignmentColumns(
        first_run=start,
        n_runs=stop - start,
        run=run.astype(np.int64),
        op=np.where(is_pair, np.where(full, 0, 1), np.where(is_insert, 2, 3)).astype(np.int64),
        agent_step=agent_pos.astype(np.int64),
        reference_step=ref_pos.astype(np.int64),
        tool_match=tool_match,
        arguments_match=is_pair & full,
        agent_text=rank[: run.size],
        reference_text=rank[run.size :],
        texts=call_texts,
    )


def _at(values: IntArray, index: IntArray) -> IntArray:
    """``values[index]``, and -1 where ``index`` is -1 (no such step)."""
    if not values.size:
        return np.full(index.shape, -1, np.int64)
    return np.where(index >= 0, values[np.maximum(index, 0)], -1)
