"""Explanations: the defects list and the labelled alignment of each run, built on demand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import orjson

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import AlignedStep, Defect
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.trajectory.alignment_text import (
    CallTexts,
    Ops,
    aligned_json_column,
    aligned_steps,
)
from pathgrade.metrics.trajectory.defects_text import (
    KIND_NAMES,
    MADE,
    MISSING,
    UNEXPECTED,
    WASTED,
    WASTED_EARLY,
    defects_json_column,
    order_defect,
    run_defects,
    total_order_texts,
)
from pathgrade.metrics.trajectory.encode import EncodedPaths
from pathgrade.metrics.trajectory.pairs import (
    STEP_UNEXPECTED_WRITE,
    STEP_WASTED,
    STEP_WASTED_EARLY,
)
from pathgrade.metrics.trajectory.winners import CLEAN_RUN, RunFacts, WinnerBatch

IntArray = npt.NDArray[np.int64]


class Diagnoser:
    """Builds each run's defects and alignment from the kept winner arrays."""

    def __init__(
        self,
        config: ScoringConfig,
        runs: Sequence[Run],
        run_case: Sequence[Case],
        facts: Sequence[RunFacts],
        ref_paths: Sequence[Sequence[Step]],
        agents: EncodedPaths,
        refs: EncodedPaths,
    ) -> None:
        self._config = config
        self._agents = agents
        self._refs = refs
        self._texts = CallTexts(agents, refs)
        self._runs = runs
        self._cases = run_case
        self._facts = facts
        self._ref_paths = ref_paths
        self._ref_tools: dict[int, frozenset[str]] = {}
        self._batches: list[WinnerBatch] = []
        self._flagged: list[list[bool]] = []  # per batch row: has a path defect
        # Run r's winner is row _where_row[r] of batch _where_batch[r] (-1: not scored).
        self._where_batch = np.full(len(runs), -1, dtype=np.int64)
        self._where_row = np.full(len(runs), -1, dtype=np.int64)

    def unpenalised_required(self, run: int, ref_path: int) -> float:
        """Required tools never called whose absence the reference does not already count."""
        unused = self._facts[run].unused_required
        if not unused:
            return 0.0
        tools = self._ref_tools.get(ref_path)
        if tools is None:
            tools = self._ref_tools[ref_path] = frozenset(s.tool for s in self._ref_paths[ref_path])
        return float(sum(1 for t in unused if t not in tools))

    def add(self, batch: WinnerBatch) -> None:
        index = len(self._batches)
        self._batches.append(batch)
        # Which rows have a path defect (a missing, wasted or unexpected step, or the order).
        lengths = np.diff(self._agents.offsets)[batch.runs]
        counted = np.arange(batch.agent_status.shape[1]) < lengths[:, None]
        status = batch.agent_status
        defective = (
            (status == STEP_WASTED)
            | (status == STEP_WASTED_EARLY)
            | (status == STEP_UNEXPECTED_WRITE)
        )
        flagged = (defective & counted).any(axis=1)
        flagged |= batch.ref_missing.any(axis=1) | batch.out_of_order
        self._flagged.append(flagged.tolist())
        self._where_batch[batch.runs] = index
        self._where_row[batch.runs] = np.arange(batch.runs.size)

    def details(self, run: int) -> tuple[tuple[Defect, ...], tuple[AlignedStep, ...]]:
        """``(defects, alignment)`` of one run."""
        found = self._winner(run)
        if found is None:
            return self.defects(run), ()
        batch, row, ref_path = found
        texts, agents, refs = self._texts, self._agents, self._refs
        alignment = aligned_steps(
            _ops(batch, row),
            texts.texts(agents, run),
            _tools(agents, run),
            texts.texts(refs, ref_path),
            _tools(refs, ref_path),
        )
        return self.defects(run), alignment

    def defects(self, run: int) -> tuple[Defect, ...]:
        """The defects of one run (the first half of :meth:`details`)."""
        defects = self._run_defects(run)
        found = self._winner(run)
        if found is None:
            return tuple(defects)
        batch, row, ref_path = found
        batch_index = int(self._where_batch[run])
        if not (self._flagged[batch_index][row] or self._facts[run].unused_required):
            return tuple(defects)
        agent_text = self._texts.texts(self._agents, run)
        ref_text = self._texts.texts(self._refs, ref_path)
        path = self._step_defects(batch, row, agent_text, ref_text)
        path += self._other_path_defects(batch, row, run, agent_text, ref_text)
        return tuple(path + defects)

    def defects_json(self) -> tuple[list[bytes], Counter[str]]:
        """The JSON text of every run's defects (the bytes ``orjson.dumps`` writes for
        ``[d.to_dict() for d in defects(run)]``) and the count of each kind. Step defects
        are built column-wise over all the winners; a run's other defects are made as
        objects (see :mod:`~pathgrade.metrics.trajectory.defects_text`)."""
        agents, refs = self._agents, self._refs
        kinds: Counter[str] = Counter()
        columns: list[tuple[IntArray, IntArray, IntArray, IntArray]] = []
        for batch in self._batches:
            rows, cols = np.nonzero(batch.ref_missing)
            calls = refs.calls[refs.offsets[batch.ref_paths[rows]] + cols]
            columns.append((batch.runs[rows], np.full(rows.size, MISSING), cols, calls))
            lengths = np.diff(agents.offsets)[batch.runs]
            counted = np.arange(batch.agent_status.shape[1]) < lengths[:, None]
            wasted = (batch.agent_status == STEP_WASTED) & counted
            early = (batch.agent_status == STEP_WASTED_EARLY) & counted
            unexpected = (batch.agent_status == STEP_UNEXPECTED_WRITE) & counted
            rows, cols = np.nonzero(wasted | early | unexpected)
            at = batch.runs[rows]
            step_kind = np.where(
                wasted[rows, cols], WASTED, np.where(early[rows, cols], WASTED_EARLY, UNEXPECTED)
            )
            columns.append((at, step_kind, cols, agents.calls[agents.offsets[at] + cols]))
        made_runs: list[int] = []
        made_texts: list[bytes] = []
        order_texts = total_order_texts(
            self._batches,
            lambda run: self._cases[run].order == "total",
            agents,
            refs,
            self._texts.json_of,
            self._config.penalties.out_of_order,
        )
        for run in self._runs_with_other_defects():
            found = self._run_defects(run)
            parts: list[bytes] = []
            winner = self._winner(run)
            if winner is not None:
                order_text = order_texts.get(run)
                if order_text is None:
                    found = self._other_path_defects(winner[0], winner[1], run) + found
                else:
                    parts.append(order_text)
                    kinds["out_of_order"] += 1
                    found = self._required_tool_defects(run, winner[2]) + found
            if found:
                kinds.update(d.kind for d in found)
                parts.append(orjson.dumps([d.to_dict() for d in found])[1:-1])
            if parts:
                made_runs.append(run)
                made_texts.append(b",".join(parts))
        made = np.array(made_runs, np.int64)
        columns.append((made, np.full(made.size, MADE), np.zeros_like(made), np.arange(made.size)))
        entry_run, entry_kind, entry_pos, entry_code = (
            np.concatenate(c) for c in zip(*columns, strict=True)
        )
        step = entry_kind != MADE
        for code, name in enumerate(KIND_NAMES):
            kinds[name] += int(np.count_nonzero(entry_kind == code))
        kinds += Counter()  # drop the kinds counted zero times
        # Each distinct call's JSON text once; step entries index those texts.
        distinct, rank = np.unique(entry_code[step], return_inverse=True)
        entry_text = entry_code.copy()
        entry_text[step] = rank
        call_texts = list(map(self._texts.json_of, distinct.tolist()))
        texts = defects_json_column(
            len(self._runs),
            entry_run,
            entry_kind,
            entry_pos,
            entry_text,
            call_texts,
            made_texts,
            self._config.penalties,
        )
        return texts, kinds

    def _runs_with_other_defects(self) -> list[int]:
        """The runs that may have a defect other than a step defect, in order."""
        candidates = {r for r, f in enumerate(self._facts) if f is not CLEAN_RUN}
        for batch in self._batches:
            candidates.update(batch.runs[batch.out_of_order].tolist())
        return sorted(candidates)

    def alignments_json(self) -> list[bytes]:
        """The JSON text of every run's alignment: the bytes ``orjson.dumps`` writes for
        ``details(run)[1]``, built column-wise over all the winners (no object, no Python
        step per aligned step; each distinct call's text formatted once)."""
        n_runs = len(self._runs)
        parts = []
        for batch in self._batches:
            entries = np.arange(batch.ops.shape[1]) < batch.n_ops[:, None]
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
            return [b"[]"] * n_runs
        columns = (np.concatenate(c) for c in zip(*parts, strict=True))
        run, ref_path, ops, ref_pos, agent_pos, full = columns
        order = np.argsort(run, kind="stable")  # entries grouped by run, in op order
        run, ref_path, ops = run[order], ref_path[order], ops[order]
        ref_pos, agent_pos, full = ref_pos[order], agent_pos[order], full[order]
        agents, refs = self._agents, self._refs
        has_agent, has_ref = agent_pos >= 0, ref_pos >= 0
        agent_at = np.where(has_agent, agents.offsets[run] + agent_pos, -1)
        ref_at = np.where(has_ref, refs.offsets[ref_path] + ref_pos, -1)
        agent_call, ref_call = _at(agents.calls, agent_at), _at(refs.calls, ref_at)
        tool_match = _at(agents.tool, agent_at) == _at(refs.tool, ref_at)
        # Each distinct call's JSON text once (codes are small dense integers: mark them).
        codes = np.concatenate([agent_call[has_agent], ref_call[has_ref]])
        present = np.zeros(int(codes.max(initial=-1)) + 1, np.bool_)
        present[codes] = True
        distinct = np.flatnonzero(present)
        rank = np.full(present.size + 1, -1, np.int64)  # rank[-1] stays -1: no step
        rank[distinct] = np.arange(distinct.size)
        texts = list(map(self._texts.json_of, distinct.tolist()))
        return aligned_json_column(
            n_runs,
            run,
            ops,
            ref_pos,
            agent_pos,
            full,
            tool_match,
            rank[agent_call],
            rank[ref_call],
            texts,
        )

    def _winner(self, run: int) -> tuple[WinnerBatch, int, int] | None:
        """The batch holding run ``run``'s winning pair, its row and its reference path."""
        batch_index = int(self._where_batch[run])
        if batch_index < 0:
            return None
        batch = self._batches[batch_index]
        row = int(self._where_row[run])
        return batch, row, int(batch.ref_paths[row])

    def _run_defects(self, run: int) -> list[Defect]:
        facts = self._facts[run]
        if not (facts.budget_violations or facts.forbidden or facts.unrecovered):
            return []
        steps = self._runs[run].steps
        penalties = self._config.penalties
        return run_defects(
            facts.budget_violations, facts.forbidden, facts.unrecovered, steps, penalties
        )

    def _step_defects(
        self, batch: WinnerBatch, row: int, agent_text: list[str], ref_text: list[str]
    ) -> list[Defect]:
        """Missing reference steps, then wasted and unexpected agent steps."""
        penalties = self._config.penalties
        out = [
            Defect(
                "missing_step",
                penalties.missing_step,
                f"reference step {ref_text[i]} never happened",
                reference_step=i,
            )
            for i in np.flatnonzero(batch.ref_missing[row]).tolist()
        ]
        for j, status in enumerate(batch.agent_status[row, : len(agent_text)].tolist()):
            if status == STEP_WASTED:
                out.append(
                    Defect(
                        "wasted_step",
                        penalties.wasted_step,
                        f"{agent_text[j]} repeats an earlier call",
                        agent_step=j,
                    )
                )
            elif status == STEP_WASTED_EARLY:
                out.append(
                    Defect(
                        "wasted_step",
                        penalties.wasted_step,
                        f"{agent_text[j]} is repeated later, where the reference counts it",
                        agent_step=j,
                    )
                )
            elif status == STEP_UNEXPECTED_WRITE:
                out.append(
                    Defect(
                        "unexpected_write",
                        penalties.unexpected_write,
                        f"{agent_text[j]} is a write no reference step asked for",
                        agent_step=j,
                    )
                )
        return out

    def _other_path_defects(
        self,
        batch: WinnerBatch,
        row: int,
        run: int,
        agent_text: list[str] | None = None,
        ref_text: list[str] | None = None,
    ) -> list[Defect]:
        """The order defect, then the required tools never called (that the reference does
        not already count as missing steps)."""
        ref_path = int(batch.ref_paths[row])
        out: list[Defect] = []
        if batch.out_of_order[row]:
            if agent_text is None or ref_text is None:
                agent_text = self._texts.texts(self._agents, run)
                ref_text = self._texts.texts(self._refs, ref_path)
            out.append(
                order_defect(
                    batch.agent_partner[row, : len(agent_text)].tolist(),
                    np.flatnonzero(batch.premature[row]).tolist(),
                    agent_text,
                    ref_text,
                    self._ref_paths[ref_path],
                    self._cases[run].order == "partial",
                    self._config.penalties.out_of_order,
                )
            )
        return out + self._required_tool_defects(run, ref_path)

    def _required_tool_defects(self, run: int, ref_path: int) -> list[Defect]:
        """The required tools never called that reference ``ref_path`` does not already
        count as missing steps."""
        unused = self._facts[run].unused_required
        if not unused:
            return []
        tools = {s.tool for s in self._ref_paths[ref_path]}
        penalty = self._config.penalties.missing_required_tool
        return [
            Defect("missing_required_tool", penalty, f"required tool {t!r} was never called")
            for t in unused
            if t not in tools
        ]


def _ops(batch: WinnerBatch, row: int) -> Ops:
    """The op lists of ``batch``'s row ``row``."""
    n_ops = int(batch.n_ops[row])
    return (
        batch.ops[row, :n_ops].tolist(),
        batch.ref_pos[row, :n_ops].tolist(),
        batch.agent_pos[row, :n_ops].tolist(),
        batch.full_op[row, :n_ops].tolist(),
    )


def _at(values: IntArray, index: IntArray) -> IntArray:
    """``values[index]``, and -1 where ``index`` is -1 (no such step)."""
    if not values.size:
        return np.full(index.shape, -1, np.int64)
    return np.where(index >= 0, values[np.maximum(index, 0)], -1)


def _tools(paths: EncodedPaths, index: int) -> list[int]:
    """The tool code of each step of path ``index``."""
    tools: list[int] = paths.tool[
        int(paths.offsets[index]) : int(paths.offsets[index + 1])
    ].tolist()
    return tools
