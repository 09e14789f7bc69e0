"""The unit of work every engine maps: score one partition of a runs file.

A :class:`ScoreTask` is small and picklable (paths, config, a partition description); the
worker reads its own records, validates them (errors name file and line), scores them with
:func:`pathgrade.score`, and returns the result records as JSONL bytes plus a mergeable
:class:`~pathgrade.stats.partial.SummaryPartial`. Nothing in it depends on which engine or
which process runs it, so every engine gives the same records.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field

import orjson

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.io.cases import check_known_case, load_cases, parse_record
from pathgrade.io.partitions import Partition, read_partition
from pathgrade.io.tools import entry_point_validators, load_tools
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.stats.partial import SummaryPartial


@dataclass(frozen=True)
class ScoreTask:
    """Score ``partition`` of a runs file against the cases in ``cases_path``."""

    cases_path: str
    partition: Partition
    config: ScoringConfig = field(default_factory=ScoringConfig)
    skip_invalid: bool = False
    tools_path: str | None = None
    strict_tools: bool = False


@dataclass
class PartitionOutput:
    """What a worker sends back: records (JSONL bytes), the partial summary, and the first
    fatal input error (as its one-line text and location) when not skipping invalid records."""

    index: int
    records: bytes
    partial: SummaryPartial
    error: tuple[str, str | None, int | None, str | None] | None = None

    def raise_error(self) -> None:
        if self.error is not None:
            message, file, line, where = self.error
            raise InputError(message, file=file, line=line, field=where)


# Per-process caches: a worker loads the cases and tools once, not once per partition.
_CASES: dict[tuple[str, float], dict[str, Case]] = {}
_TOOLS: dict[tuple[str, float], ToolSet] = {}


def cached_cases(path: str) -> dict[str, Case]:
    """The cases of ``path`` (loaded once per process and file version)."""
    key = (path, os.stat(path).st_mtime)
    cases = _CASES.get(key)
    if cases is None:
        cases = _CASES[key] = {c.case_id: c for c in load_cases(path).items}
    return cases


def _cached_tools(path: str) -> ToolSet:
    key = (path, os.stat(path).st_mtime)
    tools = _TOOLS.get(key)
    if tools is None:
        tools = _TOOLS[key] = load_tools(path)
    return tools


def run_task(task: ScoreTask) -> PartitionOutput:
    """Read, validate and score one partition (see module docstring).

    The cyclic garbage collector is paused while the partition is processed (validation and
    scoring allocate many objects and create no cycles; with it running, loading is about
    three times slower) and restored afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_task(task)
    finally:
        if was_enabled:
            gc.enable()


def _run_task(task: ScoreTask) -> PartitionOutput:
    partial = SummaryPartial()
    try:
        cases = cached_cases(task.cases_path)
        runs: list[Run] = []
        name = task.partition.path
        for line, value in read_partition(task.partition):
            try:
                run = parse_record(value, Run, file=name, line=line)
                check_known_case(run, cases, file=name, line=line)
            except InputError as error:
                if not task.skip_invalid:
                    raise
                partial.add_skipped(str(error))
                continue
            runs.append(run)
        if not runs:
            return PartitionOutput(task.partition.index, b"", partial)
        tools = _cached_tools(task.tools_path) if task.tools_path else None
        result = score(
            cases,
            runs,
            task.config,
            tools=tools,
            validators=entry_point_validators(),
            strict_tools=task.strict_tools,
        )
    except InputError as error:
        detail = (error.message, error.file, error.line, error.field)
        return PartitionOutput(task.partition.index, b"", partial, detail)
    chunks: list[bytes] = []
    for run_result in result:
        record = run_result.to_dict()
        chunks.append(orjson.dumps(record))
        partial.add_run(
            run_result.case_id,
            run_result.trial,
            run_result.metrics,
            (d.kind for d in run_result.defects),
        )
    chunks.append(b"")
    return PartitionOutput(task.partition.index, b"\n".join(chunks), partial)
