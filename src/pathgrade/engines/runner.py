"""Score runs files of any size: partitioned, streamed, through an engine.

:func:`evaluate_files` plans partitions of the runs file (JSONL or Parquet), maps the
scoring task over them with the chosen engine, writes each partition's result records as
soon as it arrives (in input order) and merges the partial summaries. Memory is bounded by
the partition size and the number of partitions in flight, not by the input size. On a
fatal input error, the records of the partitions before it are already written.
"""

from __future__ import annotations

import multiprocessing
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import Provenance
from pathgrade.core.record_provenance import with_agent
from pathgrade.engines.dask_engine import map_dask
from pathgrade.engines.extras import abstention_summary
from pathgrade.engines.local import map_local
from pathgrade.engines.usage_parts import UsageParts
from pathgrade.engines.work import (
    PartitionOutput,
    ScoreTask,
    cached_case_index,
    release_case_stores,
    release_job_state,
)
from pathgrade.io.case_cache import CaseStore
from pathgrade.io.partitions import plan_partitions
from pathgrade.io.provenance import scoring_provenance
from pathgrade.stats.case_sums import CaseTable
from pathgrade.stats.partial import SummaryPartial
from pathgrade.stats.slice_keys import SliceKey, missing_field

Engine = Literal["local", "dask"]
DEFAULT_PARTITION_SIZE = 1_000


@dataclass(frozen=True)
class Evaluation:
    """The merged summary of a partitioned run, and how it was split; the per-case means
    (cases in order of first appearance) and, with ``slice_by``, each case's slice keys."""

    summary: dict[str, Any]
    partitions: int
    engine: str
    workers: int
    cases: CaseTable | None = None
    slice_keys: list[tuple[SliceKey, ...]] | None = None
    #: The runs' latency, tokens and cost (``summary["system"]`` without intervals;
    #: ``usage.system(intervals)`` gives them, as in memory).
    usage: UsageParts | None = None


def evaluate_files(
    cases_path: str | Path,
    runs_path: str | Path,
    config: ScoringConfig | None = None,
    *,
    engine: Engine = "local",
    workers: int = 1,
    partition_size: int = DEFAULT_PARTITION_SIZE,
    scheduler: str | None = None,
    skip_invalid: bool = False,
    tools_path: str | Path | None = None,
    strict_tools: bool = False,
    sink: Callable[[bytes], object] | None = None,
    gc_pause: bool = False,
    provenance: Provenance | None = None,
    slice_by: str | None = None,
    agent: str | None = None,
) -> Evaluation:
    """Score every run of ``runs_path`` against the cases of ``cases_path``.

    Args:
        engine: ``local`` (this process, or a process pool when ``workers > 1``) or
            ``dask`` (a ``distributed`` cluster at ``scheduler``, or a LocalCluster of
            ``workers`` processes started for the run).
        partition_size: records per partition (the unit of memory and of parallel work).
        sink: called with each partition's result records (JSONL bytes), in input order.
        gc_pause: also pause the garbage collector while partitions are scored in processes
            pathgrade did not start: this one (``local`` with one worker) and the workers of
            a cluster at ``scheduler``. Worker processes pathgrade starts for the job (a
            process pool, a ``LocalCluster``) pause it whatever this says; the caller's
            process is left alone unless asked (the ``pathgrade`` command asks).
        provenance: what every record says it was measured with (default: the hashes of
            ``config``, the cases file and the tools file,
            :func:`pathgrade.io.provenance.scoring_provenance`); each partition's runs add
            their trace model, as :func:`pathgrade.score` does.

        slice_by: a case field (``pathgrade.stats.slice_keys``): workers send each case's
            slice keys (``Evaluation.slice_keys``).
        agent: score each run's sub-path of this agent, as :func:`pathgrade.score` does
            (:mod:`pathgrade.core.agent_scope`); added to ``provenance``
            (:func:`~pathgrade.core.record_provenance.with_agent`).

    Raises:
        InputError: bad input (file, line and field named), unless ``skip_invalid``; a
            ``slice_by`` field that no case has.
    """
    config = config or ScoringConfig()
    cases_file = str(cases_path)
    if provenance is None:
        provenance = scoring_provenance(config, cases_path, tools=tools_path)
    if agent is not None:
        provenance = with_agent(provenance, agent)
    index = cached_case_index(cases_file)  # ids unique, records well-formed
    n_cases, unanswerable = len(index), index.unanswerable
    partitions = plan_partitions(runs_path, partition_size)
    pool = engine == "local" and workers > 1
    # Local worker processes write their records to files the caller reads (one copy each
    # way through the page cache) rather than send them back through a pipe; they are
    # forked from this process after the index gets a store they share (a case validated
    # by one of them is rebuilt by the others). Workers started another way (spawn,
    # forkserver) index the cases themselves and keep stores of their own.
    spool = tempfile.mkdtemp(prefix="pathgrade-") if pool else None
    if pool and index.starts is not None and multiprocessing.get_start_method() == "fork":
        release_case_stores()
        index.store = CaseStore(len(index), shared=True)
    del index
    # Who owns the processes that run the tasks: pathgrade's own workers pause the GC while
    # scoring; the caller's process and an existing cluster's workers only on request.
    own_workers = pool or (engine == "dask" and not scheduler)
    tasks = (
        ScoreTask(
            cases_file,
            partition,
            config,
            skip_invalid,
            str(tools_path) if tools_path else None,
            strict_tools,
            spool,
            gc_pause or own_workers,
            provenance,
            slice_by=slice_by,
            agent=agent,
        )
        for partition in partitions
    )
    outputs: Iterator[PartitionOutput]
    if engine == "local":
        outputs = map_local(tasks, workers)
    elif engine == "dask":
        outputs = map_dask(tasks, workers, scheduler)
    else:
        raise InputError(f"unknown engine {engine!r}: use local or dask", field="engine")
    partial, usage = SummaryPartial(), UsageParts()
    try:
        for output in outputs:
            output.raise_error()
            records = output.take_records()
            if sink is not None and records:
                sink(records)
            partial.absorb(output.partial)
            usage.absorb(output.usage)
    finally:
        release_job_state()  # tasks scored in this process leave no steps or stores behind
        if spool is not None:
            shutil.rmtree(spool, ignore_errors=True)
    if partial.runs == 0 and not partial.skipped:
        raise InputError("no runs to score", file=str(runs_path))
    summary = partial.finalize(n_cases)
    answered, answerable, correct, confidence = partial.abstention_inputs()
    if unanswerable or not answered.all():
        summary["abstention"] = abstention_summary(answered, answerable, correct, confidence)
    system = usage.system()
    if system is not None:
        summary["system"] = system
    cases = partial.case_table()
    keys = None
    if slice_by is not None:
        if cases.codes.size and not partial.slice_field_found:
            raise missing_field(slice_by).at(file=cases_file)
        keys = [partial.slice_keys[code] for code in cases.codes.tolist()]
    return Evaluation(summary, len(partitions), engine, workers, cases, keys, usage)
