"""Explanations: the defects list and the labelled alignment of each run, built on demand
(as objects for one run, as columns for all of them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.explanations import AlignmentColumns, DefectColumns
from pathgrade.core.results import AlignedStep, Defect
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.trajectory import grammar, messages
from pathgrade.metrics.trajectory.alignment_text import (
    CallTexts,
    Ops,
    StepTexts,
    aligned_steps,
    alignment_columns,
)
from pathgrade.metrics.trajectory.defects_text import (
    MISSING,
    UNEXPECTED,
    WASTED,
    WASTED_EARLY,
    order_defect,
    run_defects,
    step_defect_kinds,
    total_order_entries,
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
        step_texts: StepTexts | None = None,
    ) -> None:
        """``step_texts``: the texts of step objects, kept by whoever scores (see
        :class:`~pathgrade.metrics.trajectory.alignment_text.StepTexts`)."""
        self._config = config
        self._agents = agents
        self._refs = refs
        self._texts = CallTexts(agents, refs, steps=step_texts)
        self._defect_columns: DefectColumns | None = None
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

    def defect_columns(self) -> DefectColumns:
        """Every run's defects (what :meth:`defects` gives) as columns, made once: the step
        defects and total-order defects of all the winners at once, a run's other defects
        as objects."""
        if self._defect_columns is None:
            self._defect_columns = self._make_defect_columns()
        return self._defect_columns

    def _make_defect_columns(self) -> DefectColumns:
        agents, refs = self._agents, self._refs
        # Per entry: (run, section, code, agent step, reference step, agent call, reference
        # call), -1 for none. A run lists its missing steps (section 0), then its agent-step
        # defects (1), then its total-order defect (2), each section by position.
        parts: list[tuple[IntArray, ...]] = []
        for batch in self._batches:
            rows, cols = np.nonzero(batch.ref_missing)
            calls = refs.calls[refs.offsets[batch.ref_paths[rows]] + cols]
            none, missing = np.full(rows.size, -1), np.full(rows.size, MISSING)
            parts.append((batch.runs[rows], none + 1, missing, none, cols, none, calls))
            lengths = np.diff(agents.offsets)[batch.runs]
            counted = np.arange(batch.agent_status.shape[1]) < lengths[:, None]
            status = np.where(counted, batch.agent_status, -1)
            code = np.select(
                [
                    status == STEP_WASTED,
                    status == STEP_WASTED_EARLY,
                    status == STEP_UNEXPECTED_WRITE,
                ],
                [WASTED, WASTED_EARLY, UNEXPECTED],
                -1,
            )
            rows, cols = np.nonzero(code >= 0)
            at = batch.runs[rows]
            calls = agents.calls[agents.offsets[at] + cols]
            none = np.full(rows.size, -1)
            parts.append((at, none + 2, code[rows, cols], cols, none, calls, none))
        order_run, *order = total_order_entries(
            self._batches, lambda run: self._path_order(run) == "total", agents, refs
        )
        parts.append((order_run, np.full(order_run.size, 2), *order))
        run, section, code, agent_step, ref_step, agent_call, ref_call = (
            np.concatenate(c).astype(np.int64) for c in zip(*parts, strict=True)
        )
        by_run = np.lexsort((np.maximum(agent_step, ref_step), section, run))
        run, code = run[by_run], code[by_run]
        agent_step, ref_step = agent_step[by_run], ref_step[by_run]
        rank, texts = self._texts.distinct(np.concatenate([agent_call[by_run], ref_call[by_run]]))
        made: dict[int, tuple[Defect, ...]] = {}
        coded_order = set(order_run.tolist())
        for r in self._runs_with_other_defects():
            found = self._run_defects(r)
            winner = self._winner(r)
            if winner is not None:
                if r in coded_order:
                    found = self._required_tool_defects(r, winner[2]) + found
                else:
                    found = self._other_path_defects(winner[0], winner[1], r) + found
            if found:
                made[r] = tuple(found)
        return DefectColumns(
            n_runs=len(self._runs),
            run=run,
            code=code,
            agent_step=agent_step,
            reference_step=ref_step,
            agent_text=rank[: run.size],
            reference_text=rank[run.size :],
            texts=texts,
            kinds=step_defect_kinds(self._config.penalties),
            made=made,
        )

    def _runs_with_other_defects(self) -> list[int]:
        """The runs that may have a defect other than a step defect, in order."""
        candidates = {r for r, f in enumerate(self._facts) if f is not CLEAN_RUN}
        for batch in self._batches:
            candidates.update(batch.runs[batch.out_of_order].tolist())
        return sorted(candidates)

    def alignment_columns(self, start: int, stop: int) -> AlignmentColumns:
        """The alignment of runs ``start`` to ``stop - 1`` (what :meth:`details` gives) as
        columns over the winners (no object, no Python step per aligned step)."""
        return alignment_columns(start, stop, self._batches, self._agents, self._refs, self._texts)

    def _path_order(self, run: int) -> str:
        """The order run ``run``'s winning path is scored under: a grammar instance's own
        (``partial`` for a ``total`` reference with unordered groups), else its case's."""
        found = self._winner(run)
        order = self._cases[run].order
        return order if found is None else grammar.path_order(self._ref_paths[found[2]], order)

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
            return list(facts.system)
        # The unrecovered errors' steps are shown as every defect shows a call: its first
        # occurrence (the texts are made only for a run with such an error).
        texts = self._texts.texts(self._agents, run) if facts.unrecovered else []
        penalties = self._config.penalties
        found = run_defects(
            facts.budget_violations, facts.forbidden, facts.unrecovered, texts, penalties
        )
        return found + list(facts.system)

    def _step_defects(
        self, batch: WinnerBatch, row: int, agent_text: list[str], ref_text: list[str]
    ) -> list[Defect]:
        """Missing reference steps, then wasted and unexpected agent steps."""
        penalties = self._config.penalties
        out = [
            Defect(
                "missing_step",
                penalties.missing_step,
                messages.MISSING_STEP.format(reference=ref_text[i]),
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
                        messages.WASTED_REPEAT.format(agent=agent_text[j]),
                        agent_step=j,
                    )
                )
            elif status == STEP_WASTED_EARLY:
                out.append(
                    Defect(
                        "wasted_step",
                        penalties.wasted_step,
                        messages.WASTED_EARLY.format(agent=agent_text[j]),
                        agent_step=j,
                    )
                )
            elif status == STEP_UNEXPECTED_WRITE:
                out.append(
                    Defect(
                        "unexpected_write",
                        penalties.unexpected_write,
                        messages.UNEXPECTED_WRITE.format(agent=agent_text[j]),
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
            length = len(agent_text)
            out.append(
                order_defect(
                    batch.scored_order(row, length),
                    batch.agent_partner[row, :length].tolist(),
                    batch.premature[row, :length].tolist(),
                    agent_text,
                    ref_text,
                    self._ref_paths[ref_path],
                    self._path_order(run) == "partial",
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
            Defect("missing_required_tool", penalty, messages.MISSING_REQUIRED_TOOL.format(tool=t))
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


def _tools(paths: EncodedPaths, index: int) -> list[int]:
    """The tool code of each step of path ``index``."""
    tools: list[int] = paths.tool[
        int(paths.offsets[index]) : int(paths.offsets[index + 1])
    ].tolist()
    return tools
