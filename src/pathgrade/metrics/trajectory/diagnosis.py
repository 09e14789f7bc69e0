"""Explanations: the defects list and the labelled alignment of each run, built on demand."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import AlignedStep, Defect
from pathgrade.core.types import Case, Run, Step, format_step
from pathgrade.metrics.trajectory.alignment_text import (
    CallTexts,
    Ops,
    aligned_json_column,
    aligned_steps,
)
from pathgrade.metrics.trajectory.encode import EncodedPaths
from pathgrade.metrics.trajectory.pairs import (
    STEP_UNEXPECTED_WRITE,
    STEP_WASTED,
    PairScores,
)

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class RunFacts:
    """Reference-independent facts about one run."""

    budget_violations: list[tuple[str, float, float]]
    forbidden: list[tuple[int, str]]
    recovery_rate: float
    unrecovered: list[int]
    required_coverage: float
    unused_required: list[str]
    fixed_penalty: float


#: The facts of a run with no budget, no errors, no required or forbidden tools.
CLEAN_RUN = RunFacts([], [], math.nan, [], math.nan, [], 0.0)


@dataclass(frozen=True)
class WinnerBatch:
    """The winning pair of each run of a batch, sliced out of :class:`PairScores`."""

    runs: IntArray
    ref_paths: IntArray
    ops: IntArray
    ref_pos: IntArray
    agent_pos: IntArray
    full_op: npt.NDArray[np.bool_]
    n_ops: IntArray
    agent_status: IntArray
    ref_missing: npt.NDArray[np.bool_]
    agent_partner: IntArray
    out_of_order: npt.NDArray[np.bool_]
    premature: npt.NDArray[np.bool_]

    @classmethod
    def take(
        cls, runs: IntArray, ref_paths: IntArray, scores: PairScores, rows: IntArray
    ) -> WinnerBatch:
        a = scores.alignment
        return cls(
            runs=runs,
            ref_paths=ref_paths,
            ops=a.ops[rows],
            ref_pos=a.ref_pos[rows],
            agent_pos=a.agent_pos[rows],
            full_op=a.full_op[rows],
            n_ops=a.n_ops[rows],
            agent_status=scores.agent_status[rows],
            ref_missing=scores.ref_missing[rows],
            agent_partner=scores.agent_partner[rows],
            out_of_order=scores.out_of_order[rows],
            premature=scores.premature[rows],
        )


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
        defective = (status == STEP_WASTED) | (status == STEP_UNEXPECTED_WRITE)
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
        batch_index = int(self._where_batch[run])
        if batch_index < 0:
            return tuple(defects)
        row = int(self._where_row[run])
        if not (self._flagged[batch_index][row] or self._facts[run].unused_required):
            return tuple(defects)
        batch = self._batches[batch_index]
        return tuple(self._path_defects(batch, row, run, int(batch.ref_paths[row])) + defects)

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
        penalties = self._config.penalties
        out: list[Defect] = []
        if facts.budget_violations:
            text = "; ".join(
                f"{name} {value:g} > budget {limit:g}"
                for name, value, limit in facts.budget_violations
            )
            out.append(
                Defect(
                    "over_budget",
                    penalties.over_budget,
                    text,
                    extra={"budgets": [v[0] for v in facts.budget_violations]},
                )
            )
        for index, reason in facts.forbidden:
            out.append(Defect("forbidden_action", penalties.forbidden_action, reason, index))
        steps = self._runs[run].steps
        for index in facts.unrecovered:
            failed, after = steps[index], steps[index + 1]
            out.append(
                Defect(
                    "unrecovered_error",
                    penalties.unrecovered_error,
                    f"{format_step(failed)} failed and the agent went on with"
                    f" {format_step(after)} (no retry, fallback or stop)",
                    index,
                )
            )
        return out

    def _path_defects(self, batch: WinnerBatch, row: int, run: int, ref_path: int) -> list[Defect]:
        unused = self._facts[run].unused_required
        offsets = self._agents.offsets
        n_agent = int(offsets[run + 1] - offsets[run])
        agent_text = self._texts.texts(self._agents, run)
        ref_text = self._texts.texts(self._refs, ref_path)
        penalties = self._config.penalties
        out = [
            Defect(
                "missing_step",
                penalties.missing,
                f"reference step {ref_text[i]} never happened",
                reference_step=i,
            )
            for i in np.flatnonzero(batch.ref_missing[row]).tolist()
        ]
        for j, status in enumerate(batch.agent_status[row, :n_agent].tolist()):
            if status == STEP_WASTED:
                out.append(
                    Defect(
                        "wasted_step",
                        penalties.wasted,
                        f"{agent_text[j]} repeats an earlier call",
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
        if batch.out_of_order[row]:
            out.append(
                self._order_defect(batch, row, agent_text, ref_text, self._ref_paths[ref_path], run)
            )
        tools = {s.tool for s in self._ref_paths[ref_path]} if unused else set()
        for tool in unused:
            if tool not in tools:
                out.append(
                    Defect(
                        "missing_required_tool",
                        penalties.missing_required_tool,
                        f"required tool {tool!r} was never called",
                    )
                )
        return out

    def _order_defect(
        self,
        batch: WinnerBatch,
        row: int,
        agent_text: Sequence[str],
        ref_text: Sequence[str],
        reference: Sequence[Step],
        run: int,
    ) -> Defect:
        """The first agent step (in agent order) that ran before a reference step it depends
        on (every earlier reference step in a total order; its ``after`` ids in a partial
        one), or whose dependency never ran; else a step made before its turn."""
        penalty = self._config.penalties.out_of_order
        partner: list[int] = batch.agent_partner[row, : len(agent_text)].tolist()
        # The agent step each reference step was paired with (-1: none).
        made_at = [-1] * len(reference)
        for j, i in enumerate(partner):
            if i >= 0:
                made_at[i] = j
        partial = self._cases[run].order == "partial"
        preds: list[list[int]] = []
        if partial:
            ids = {s.id: k for k, s in enumerate(reference) if s.id is not None}
            preds = [[ids[d] for d in s.after] for s in reference]
        for j, i in enumerate(partner):
            if i < 0:
                continue
            for p in preds[i] if partial else range(i):
                if made_at[p] < 0:
                    detail = (
                        f"{agent_text[j]} ran but {ref_text[p]}, which it depends on, never did"
                    )
                    return Defect("out_of_order", penalty, detail, j, i)
                if made_at[p] > j:
                    detail = f"{agent_text[j]} ran before {ref_text[p]}, which it depends on"
                    return Defect("out_of_order", penalty, detail, j, i)
        for j in np.flatnonzero(batch.premature[row]).tolist():
            detail = f"{agent_text[j]} ran before its turn and was made again later"
            return Defect("out_of_order", penalty, detail, j)
        return Defect("out_of_order", penalty, "the reference order was not followed")


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
