"""The unit of work every engine maps: score one partition of a runs file.

A :class:`ScoreTask` is small and picklable (paths, config, a partition description); the
worker reads its own records, validates them (errors name file and line), scores them with
:func:`pathgrade.score`, and returns the result records as JSONL bytes plus a mergeable
:class:`~pathgrade.stats.partial.SummaryPartial`. Nothing in it depends on which engine or
which process runs it, so every engine gives the same records.

A task leaves the process that runs it as it found it unless told otherwise: with
``gc_pause`` it pauses the garbage collector while it runs, which the runner asks for in
worker processes pathgrade started and, when its caller opts in (the ``pathgrade`` command
does), in the caller's process or someone else's Dask workers. Only a worker process
pathgrade started changes its heap settings (:func:`init_worker`).
"""

from __future__ import annotations

import os
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from pathgrade.cases.refuse import ImpossibleReferenceError
from pathgrade.core.agent_scope import scoped
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.gc_pause import paused_gc
from pathgrade.core.provenance import Provenance
from pathgrade.core.record_provenance import with_agent
from pathgrade.core.types import Run
from pathgrade.engines.case_parts import add_case_parts
from pathgrade.engines.extras import abstention_inputs, retrieval_parts
from pathgrade.engines.heap import keep_freed_memory
from pathgrade.engines.usage_parts import UsageParts
from pathgrade.evaluate import score
from pathgrade.io.case_cache import CaseStore
from pathgrade.io.case_index import CaseIndex, index_cases, known_ids
from pathgrade.io.cases import check_known_case, parse_record
from pathgrade.io.partitions import Partition, read_partition
from pathgrade.io.provenance import scoring_provenance
from pathgrade.io.results import records_jsonl
from pathgrade.io.step_pool import StepPool
from pathgrade.io.tools import entry_point_validators, load_tools
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.metrics.tool.validators import Validator
from pathgrade.metrics.trajectory.alignment_text import StepTexts
from pathgrade.stats.partial import SummaryPartial, outcome_codes


@dataclass(frozen=True)
class ScoreTask:
    """Score ``partition`` of a runs file against the cases in ``cases_path``."""

    cases_path: str
    partition: Partition
    config: ScoringConfig = field(default_factory=ScoringConfig)
    skip_invalid: bool = False
    tools_path: str | None = None
    strict_tools: bool = False
    #: A directory on this machine: the records are written to a file there (named in the
    #: output, read and deleted by the caller) instead of travelling back in the output.
    spool: str | None = None
    #: Pause the garbage collector while the task runs (in whatever process runs it).
    gc_pause: bool = False
    #: What the records say they were measured with (the whole file's, not this
    #: partition's cases): see :func:`pathgrade.engines.runner.evaluate_files`; ``None``:
    #: made from the task's files (:func:`task_provenance`).
    provenance: Provenance | None = None
    #: ``score --by FIELD``: send each case's slice keys for the summary's slices.
    slice_by: str | None = None
    #: ``score --agent NAME``: score each run's sub-path of this agent (``agent_scope``).
    agent: str | None = None


@dataclass
class PartitionOutput:
    """What a worker sends back: records (JSONL bytes), the partial summary, and the first
    fatal input error (as its one-line text and location) when not skipping invalid records."""

    index: int
    records: bytes
    partial: SummaryPartial
    error: tuple[str, str | None, int | None, str | None] | None = None
    records_path: str | None = None  # the records are in this file (see ``ScoreTask.spool``)
    #: The system layer's per-run amounts (:mod:`pathgrade.engines.usage_parts`).
    usage: UsageParts = field(default_factory=UsageParts)

    def take_records(self) -> bytes:
        """The records, read from their file (then deleted) when they were spooled."""
        if self.records_path is None:
            return self.records
        path, self.records_path = self.records_path, None
        with open(path, "rb") as handle:
            self.records = handle.read()
        os.unlink(path)
        return self.records

    def raise_error(self) -> None:
        if self.error is not None:
            message, file, line, where = self.error
            raise InputError(message, file=file, line=line, field=where)


# Per-process caches: a worker indexes the cases and loads the tools and the validator
# plug-ins once, not per partition.
_CASES: dict[tuple[str, float], CaseIndex] = {}
_TOOLS: dict[tuple[str, float], ToolSet] = {}


def cached_case_index(path: str) -> CaseIndex:
    """The case index of ``path`` (built once per process and file version)."""
    key = (path, os.stat(path).st_mtime)
    index = _CASES.get(key)
    if index is None:
        release_case_stores()
        _CASES.clear()
        index = _CASES[key] = index_cases(path)
    return index


def _with_store(index: CaseIndex) -> CaseIndex:
    """``index`` with a case store of this process (a worker meets a case again in later
    partitions: it rebuilds the case from the store instead of validating it again)."""
    if index.starts is not None and (index.store is None or not index.store.usable_here()):
        index.store = CaseStore(len(index))
    return index


def release_case_stores() -> None:
    """Close this process's case stores (their files are deleted on closing)."""
    for index in _CASES.values():
        if index.store is not None and index.store.pid == os.getpid():
            index.store.close()
        index.store = None


_PROVENANCE: dict[tuple[str, float, str | None, str, str | None], Provenance] = {}


def task_provenance(task: ScoreTask) -> Provenance:
    """The task's provenance, else that of its files (the cases file's hash, its tools
    file's and config's), computed once per process and file version."""
    if task.provenance is not None:
        return task.provenance
    key = (
        task.cases_path,
        os.stat(task.cases_path).st_mtime,
        task.tools_path,
        task.config.model_dump_json(),
        task.agent,
    )
    found = _PROVENANCE.get(key)
    if found is None:
        _PROVENANCE.clear()
        found = scoring_provenance(task.config, task.cases_path, tools=task.tools_path)
        if task.agent is not None:
            found = with_agent(found, task.agent)
        _PROVENANCE[key] = found
    return found


def _cached_tools(path: str) -> ToolSet:
    key = (path, os.stat(path).st_mtime)
    tools = _TOOLS.get(key)
    if tools is None:
        tools = _TOOLS[key] = load_tools(path)
    return tools


# Identical steps of the runs and their cases' references are validated once per worker
# process (see ``StepPool``), across partitions: cases of different partitions share calls,
# and runs repeat them. The pool is bounded (it is emptied when full) and holds, per step,
# only its key and the ``Step`` when records are JSON text. When a partition's cases bring
# mostly new steps, the pool is not kept for the next partition: its steps would only be
# long-lived objects for the garbage collector to scan.
WORKER_POOL_CAPACITY = 1 << 15
_POOLS: dict[bool, StepPool] = {}


def _worker_pool(*, from_json: bool) -> StepPool:
    pool = _POOLS.get(from_json)
    if pool is None:
        pool = _POOLS[from_json] = StepPool(WORKER_POOL_CAPACITY, from_json=from_json)
    return pool


# The texts of the steps explained (``StepTexts``), kept by the worker process across
# partitions: the pooled step objects recur, and each is formatted once.
_TEXTS = StepTexts()


def release_job_state() -> None:
    """Drop this process's step pools, case stores and indexes, tools, validator plug-ins
    and step texts (when a job that scored in this process ends)."""
    _POOLS.clear()
    release_case_stores()
    _CASES.clear()
    _TOOLS.clear()
    _PROVENANCE.clear()
    _cached_validators.cache_clear()
    _TEXTS.clear()


@cache
def _cached_validators() -> dict[str, Validator]:
    """The validator plug-ins of installed packages (a metadata scan), once per process."""
    return entry_point_validators()


def init_worker() -> None:
    """Set up a worker process that pathgrade started (the initializer of the local
    engine's process pool), never the caller's process: it keeps the heap memory a
    partition frees for the next one (:mod:`pathgrade.engines.heap`)."""
    keep_freed_memory()


def _case_line(index: CaseIndex, case_id: str) -> int | None:
    """The line of ``case_id``'s record (None: a cases file that is one JSON array)."""
    if index.lines is None or case_id not in index.positions:
        return None
    return int(index.lines[index.positions[case_id]])


def run_task(task: ScoreTask) -> PartitionOutput:
    """Read, validate and score one partition (see module docstring).

    With ``task.gc_pause``, the cyclic garbage collector is paused while the partition is
    processed (validation and scoring allocate many objects and create no cycles; with it
    running, loading is about three times slower) and restored afterwards.
    """
    with paused_gc(task.gc_pause):
        return _run_task(task)


def _run_task(task: ScoreTask) -> PartitionOutput:
    partial = SummaryPartial()
    pool = _worker_pool(from_json=task.partition.kind == "jsonl")  # cases are JSON too
    try:
        index = _with_store(cached_case_index(task.cases_path))
        known = known_ids(index)
        runs: list[Run] = []
        name = task.partition.path
        decoded = list(read_partition(task.partition))
        # The cases first, so that runs repeating their references' calls find those steps
        # in the pool. A case that fails here fails again below, after the runs, so errors
        # are reported in the order they always were.
        named = (v.get("case_id") for _, v in decoded if type(v) is dict)
        hits, misses = pool.hits, pool.misses
        with suppress(InputError):
            index.cases((c for c in named if type(c) is str and c in known), pool)
        if pool.misses - misses > pool.hits - hits:
            # These cases' steps were mostly new: steps do not recur across partitions, so
            # the next partition starts with an empty pool (this one's dies with it).
            _POOLS.pop(pool.from_json, None)
        for line, value in decoded:
            try:
                run = parse_record(value, Run, file=name, line=line, pool=pool)
                check_known_case(run, known, file=name, line=line)
            except InputError as error:
                if not task.skip_invalid:
                    raise
                partial.add_skipped(str(error))
                continue
            runs.append(run)
        if not runs:
            return PartitionOutput(task.partition.index, b"", partial)
        cases = index.cases((r.case_id for r in runs), pool)
        if task.agent is not None:  # scored, written and summed: the agent's views
            cases, runs = scoped(cases, runs, task.agent)
        tools = _cached_tools(task.tools_path) if task.tools_path else None
        result = score(  # the collector is already paused (or left alone) by run_task
            cases,
            runs,
            task.config,
            tools=tools,
            validators=_cached_validators(),
            strict_tools=task.strict_tools,
            step_texts=_TEXTS,
            provenance=task_provenance(task),
        )
    except InputError as error:
        if isinstance(error, ImpossibleReferenceError):  # refused by score: at the case's record
            error = error.located(index.path, _case_line(index, error.case_id))
        detail = (error.message, error.file, error.line, error.field)
        return PartitionOutput(task.partition.index, b"", partial, detail)
    tools_report = result.summary_extra.get("tools")
    if tools_report:
        partial.add_tool_report(tools_report)
    records = records_jsonl(result, runs)
    partial.add_defects(result.defect_counts())
    partial.add_metrics(result.metrics)
    codes = index.codes(result.case_ids)
    partial.add_runs(
        codes,
        np.fromiter(result.trials, np.int64, len(result)),
        outcome_codes(result.metrics["goal_success"]),
    )
    add_case_parts(partial, codes, result.case_ids, result.metrics, cases, task.slice_by)
    usage = UsageParts()
    usage.add(codes, result.metrics, result.summary_extra.get("system"))
    partial.add_abstention(*abstention_inputs(result, runs, cases))
    retrieval = retrieval_parts(result, runs, cases, task.config)
    if retrieval is not None:
        partial.add_retrieval(*retrieval)
    if task.spool is not None and records:
        path = os.path.join(task.spool, f"{task.partition.index}.jsonl")
        with open(path, "wb") as handle:
            handle.write(records)
        return PartitionOutput(task.partition.index, b"", partial, records_path=path, usage=usage)
    return PartitionOutput(task.partition.index, records, partial, usage=usage)
