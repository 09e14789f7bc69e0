"""Scoring from files as ``pathgrade score`` does: partitioned (:func:`score_files`), the
summary over cases both scoring paths add, and the records of a pair of files
(:func:`score_records`, what ``compare --cases`` scores on the fly).

In memory, the command is :func:`pathgrade.load_cases`, :func:`pathgrade.load_runs` and
:func:`pathgrade.score` with the file's config (:func:`pathgrade.load_config`), and its
summary is :func:`summarize`'s. Partitioned, it is :func:`score_files`, whose ``summary``
has the same entries plus ``engine``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pathgrade.cases.refuse import ImpossibleReferenceError
from pathgrade.core.agent_scope import agent_summary
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import Provenance
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case
from pathgrade.engines.runner import DEFAULT_PARTITION_SIZE, Engine, Evaluation, evaluate_files
from pathgrade.evaluate import score
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config
from pathgrade.io.provenance import is_stream, scoring_provenance, with_loaded_cases
from pathgrade.io.results import jsonl_records, records_jsonl
from pathgrade.io.step_pool import StepPool
from pathgrade.metrics import catalogue
from pathgrade.stats.case_summary import SUMMARY_RESAMPLES, SummaryOptions, summary_over_cases
from pathgrade.stats.case_sums import CaseTable, case_table
from pathgrade.stats.slice_keys import SliceKey, check_field, slice_keys
from pathgrade.stats.slices import MIN_SLICE_CASES

__all__ = [
    "FilesScore",
    "case_keys",
    "check_cases_file",
    "in_memory_summary",
    "located",
    "over_cases",
    "score_files",
    "score_records",
    "summarize",
    "summary_options",
]


def summary_options(
    by: str | None = None,
    metrics: Sequence[str] | None = None,
    min_n: int = MIN_SLICE_CASES,
    resamples: int = SUMMARY_RESAMPLES,
    seed: int = 0,
) -> SummaryOptions:
    """The options of the summary over cases (``--by``, ``-m``, ``--min-slice-n``,
    ``--resamples``, ``--seed``), checked before any scoring: the field's form, the metric
    names (an unknown one fails with the closest known ones); ``metrics`` need ``by``."""
    if by is not None:
        check_field(by)
    elif metrics:
        raise InputError("-m/--metric names a metric of the slice tables: add --by FIELD")
    names = [catalogue.canonical(name) for name in metrics or ()]
    for name in names:
        catalogue.row(name)
    return SummaryOptions(
        resamples=resamples,
        seed=seed,
        by=by,
        metrics=tuple(dict.fromkeys(names)),
        min_n=min_n,
    )


def case_keys(
    opts: SummaryOptions, case_ids: Sequence[str], cases: Mapping[str, Case]
) -> dict[str, tuple[SliceKey, ...]] | None:
    """Each case's slice keys for ``opts.by`` (None without it); before scoring, so that a
    field that no case has fails first."""
    if opts.by is None:
        return None
    return slice_keys(opts.by, case_ids, cases=cases)


def over_cases(
    opts: SummaryOptions,
    table: CaseTable,
    keys: Sequence[Sequence[SliceKey]] | None = None,
) -> dict[str, Any]:
    """The summary's entries over cases (``by_case``, ``interval``, ``slices``):
    :func:`pathgrade.stats.case_summary.summary_over_cases`."""
    try:
        return summary_over_cases(table, opts, keys)
    except ValueError as error:
        raise InputError(str(error), field="--metric") from None


def in_memory_summary(
    opts: SummaryOptions,
    result: ScoreResult,
    keys: Mapping[str, tuple[SliceKey, ...]] | None = None,
) -> dict[str, Any]:
    """:func:`over_cases` of a result held in memory (cases in order of first appearance;
    ``keys`` from :func:`case_keys`)."""
    table = case_table(result.case_ids, result.metrics)
    ordered = None
    if keys is not None:
        ordered = [keys[case_id] for case_id in dict.fromkeys(result.case_ids)]
    return over_cases(opts, table, ordered)


def summarize(
    result: ScoreResult,
    options: SummaryOptions | None = None,
    *,
    cases: Mapping[str, Case] | None = None,
    keys: Mapping[str, tuple[SliceKey, ...]] | None = None,
) -> dict[str, Any]:
    """The summary ``pathgrade score`` prints and writes for ``result`` (its ``--json``
    ``summary``): ``result.summary()`` (means over runs, ``undefined``, the layers'
    extras), ``defects`` (counts by kind), then over cases ``by_case`` (what the table
    shows: mean of per-case means, bootstrap interval) and ``interval``, and ``slices``
    with ``options.by`` (each case's keys from ``keys``, else read from ``cases``)."""
    opts = options or SummaryOptions()
    if keys is None and opts.by is not None:
        if cases is None:
            raise InputError(f"a summary by {opts.by!r} needs the cases", field="cases")
        keys = case_keys(opts, result.case_ids, cases)
    summary = result.summary()
    summary["defects"] = result.defect_counts()
    summary.update(in_memory_summary(opts, result, keys))
    if "system" in summary:  # latency, tokens and cost: intervals over cases, as by_case's
        from pathgrade.stats.usage_summary import IntervalOptions, with_intervals

        interval = IntervalOptions(opts.resamples, opts.seed, opts.confidence)
        summary["system"] = with_intervals(
            summary["system"], result.metrics, result.case_ids, interval
        )
    return summary


def located(
    error: InputError,
    file: str,
    lines: Sequence[int],
    cases: tuple[str, Mapping[str, int]] | None = None,
) -> InputError:
    """An error raised while scoring, which names a run by position (``run 3 ...``), at
    that run's line of ``file``. A reference ``score`` refused names a case, not a run: at
    its line of the cases file with ``cases`` = (cases file, line by ``case_id``), else
    left as it is (never put in the runs file)."""
    if error.file is not None:
        return error
    if isinstance(error, ImpossibleReferenceError):
        if cases is None:
            return error
        return error.located(cases[0], cases[1].get(error.case_id))
    match = re.match(r"run (\d+)\b", error.message)
    if match and int(match.group(1)) < len(lines):
        return error.at(file=file, line=lines[int(match.group(1))])
    return error.at(file=file)


@dataclass(frozen=True)
class FilesScore:
    """What partitioned scoring gave: ``summary`` is the ``summary`` document of
    ``pathgrade score --json`` (the merged means, ``by_case`` and ``interval`` over cases,
    ``slices`` with ``by``, ``engine``, ``agent`` with ``agent``); ``evaluation`` is the
    engine's (:class:`pathgrade.engines.runner.Evaluation`: partitions, per-case table)."""

    summary: dict[str, Any]
    evaluation: Evaluation

    @property
    def runs(self) -> int:
        """How many runs were scored."""
        return int(self.summary.get("runs", 0))


def check_cases_file(cases: str | Path) -> None:
    """Partitioned scoring reads the cases in every worker: a pipe or a device, read once,
    is an :class:`InputError`."""
    if is_stream(cases):
        raise InputError(
            "cases from a pipe or a device are read once: partitioned scoring reads them"
            " in every worker; write them to a file, or score in memory (one worker)",
            file=str(cases),
        )


def score_files(
    cases: str | Path,
    runs: str | Path,
    config: ScoringConfig | None = None,
    *,
    engine: Engine = "local",
    workers: int = 1,
    partition_size: int = DEFAULT_PARTITION_SIZE,
    scheduler: str | None = None,
    skip_invalid: bool = False,
    tools: str | Path | None = None,
    strict_tools: bool = False,
    sink: Callable[[bytes], object] | None = None,
    labels: Mapping[str, str] | None = None,
    provenance: Provenance | None = None,
    summary: SummaryOptions | None = None,
    agent: str | None = None,
    gc_pause: bool = False,
) -> FilesScore:
    """Score a runs file (JSONL or Parquet) against a cases file in partitions, through an
    engine (:func:`pathgrade.engines.runner.evaluate_files`): memory is bounded by
    ``partition_size``, not by the input.

    Args:
        cases: the cases file; a regular file (each worker reads it), not a pipe.
        runs: the runs file.
        config: as :func:`pathgrade.score`'s (:func:`pathgrade.load_config` reads a file).
        engine: ``local`` (this process, or a pool of ``workers`` processes) or ``dask``
            (a cluster at ``scheduler``, else a LocalCluster of ``workers``).
        sink: called with each partition's result records (JSONL bytes) in input order;
            nothing is kept otherwise (write them: ``sink=handle.write``).
        labels: controlled variables (``model=...``) every record carries.
        provenance: what the records say they were measured with (default: the hashes of
            ``config``, the cases file and ``tools``, with ``labels``).
        summary: the options of the summary over cases (:func:`summary_options`).
        agent: score each run's sub-path of this agent (see :func:`pathgrade.score`).
        gc_pause: pause the garbage collector of this process too (the command does).

    Raises:
        InputError: bad input (file, line and field named) unless ``skip_invalid``; cases
            from a pipe.
    """
    check_cases_file(cases)
    config = config or ScoringConfig()
    opts = summary or SummaryOptions()
    if provenance is None:
        provenance = scoring_provenance(config, cases, tools=tools, labels=labels)
    evaluation = evaluate_files(
        cases,
        runs,
        config,
        engine=engine,
        workers=workers,
        partition_size=partition_size,
        scheduler=scheduler,
        skip_invalid=skip_invalid,
        tools_path=tools,
        strict_tools=strict_tools,
        sink=sink,
        gc_pause=gc_pause,
        provenance=provenance,
        slice_by=opts.by,
        agent=agent,
    )
    document = dict(evaluation.summary)
    if evaluation.usage is not None and "system" in document:  # with intervals, as in memory
        from pathgrade.stats.usage_summary import IntervalOptions

        intervals = IntervalOptions(opts.resamples, opts.seed, opts.confidence)
        document["system"] = evaluation.usage.system(intervals)
    if evaluation.cases is not None:
        document.update(over_cases(opts, evaluation.cases, evaluation.slice_keys))
    document["engine"] = {
        "name": evaluation.engine,
        "workers": evaluation.workers,
        "partitions": evaluation.partitions,
    }
    if agent is not None:  # over the valid cases of the cases file, as in memory
        document["agent"] = agent_summary(load_cases(cases, skip_invalid=True).items, agent)
    return FilesScore(document, evaluation)


def score_records(
    cases: str | Path, runs: str | Path, config: str | Path | None = None
) -> list[dict[str, Any]]:
    """The result records of a runs file scored in memory against a cases file with the
    config file ``config`` (none: the defaults), as ``pathgrade score --out`` writes them
    (the garbage collector paused while loading and scoring, as by the command)."""
    scoring = load_config(config)
    pool = StepPool()
    loaded_cases = load_cases(cases, pool=pool, gc_pause=True)
    by_id = {c.case_id: c for c in loaded_cases.items}
    lines = dict(zip(by_id, loaded_cases.lines, strict=True))
    loaded = load_runs(runs, by_id, pool=pool, gc_pause=True)
    provenance = with_loaded_cases(scoring_provenance(scoring, cases), by_id.values())
    try:
        result = score(by_id, loaded.items, scoring, gc_pause=True, provenance=provenance)
    except InputError as failure:
        raise located(failure, str(runs), loaded.lines, (str(cases), lines)) from None
    return jsonl_records(records_jsonl(result, loaded.items))
