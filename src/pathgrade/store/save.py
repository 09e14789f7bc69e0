"""Saving scored runs into the store, and reading results by run name or file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import (
    AGENT_VARIABLE,
    common_variables,
    records_provenance,
    short_hash,
)
from pathgrade.core.record_provenance import config_hash, sha256_of
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.io.results import read_results, records_jsonl
from pathgrade.io.results.reader import jsonl_records
from pathgrade.store.manifest import Manifest, check_name, file_hash, now_utc
from pathgrade.store.runs import Progress, RunStore
from pathgrade.store.table import kinds_of, trace_of


def save_scored(
    result: ScoreResult,
    *,
    name: str,
    runs: Sequence[Run] | None = None,
    cases: Mapping[str, Case] | None = None,
    config: ScoringConfig | None = None,
    labels: Mapping[str, str] | None = None,
    inputs: Iterable[str | Path] = (),
    summary: Mapping[str, Any] | None = None,
    store: str | Path | RunStore | None = None,
    progress: Progress | None = None,
) -> Path:
    """Store a scored run under ``name`` with its provenance; returns the file written.

    Args:
        result: what :func:`pathgrade.score` returned.
        name: the run's name in the store (letters, digits, ``.``, ``_``, ``-``).
        runs: the runs that were scored, in the same order, to keep the trace excerpts
            (steps, arguments, answers, retrieved lists) the HTML report shows.
        cases: the cases by id, for the chosen reference path, gold answers and evidence.
        config: the scoring configuration, hashed into the manifest
            (:func:`pathgrade.core.record_provenance.config_hash`, as the records'
            provenance); for a ``score --agent NAME`` scoring (the records' ``agent_scope``
            variable) scoped to the agent as the records' is
            (:func:`scoped_config_hash`), so that runs of different scopes never share one.
        labels: free labels (git commit, model, prompt version, ...); the controlled
            variables the manifest keeps are the records' (their ``provenance``).
        inputs: input files whose hashes go into the manifest (cases, runs, config, tools).
        summary: the run summary to keep (default: ``result.summary()``).
        store: the store folder or a :class:`RunStore` (default: see :func:`store_path`).
        progress: called as ``progress(done, total)`` while the file is written.

    Raises:
        InputError: an invalid or already stored name, an unreadable input file, or
            ``runs`` that do not line up with ``result``.
    """
    check_name(name)
    target = store if isinstance(store, RunStore) else RunStore(store)
    if runs is not None and len(runs) != len(result):
        raise InputError(
            f"{len(runs)} runs given for {len(result)} results: they must line up", field="runs"
        )
    records = jsonl_records(records_jsonl(result, runs))  # what ``score --out`` writes
    traces: list[dict[str, Any] | None] | None = None
    if runs is not None:
        by_id = cases or {}
        traces = [
            trace_of(
                run,
                by_id.get(run.case_id),
                record["reference_index"],
                record.get("reference_branch"),
            )
            for run, record in zip(runs, records, strict=True)
        ]
    variables = _variables(records)
    manifest = Manifest(
        name=name,
        runs=len(records),
        metrics=dict(result.kinds),
        created=now_utc(),
        config_hash=scoped_config_hash(config or ScoringConfig(), variables.get(AGENT_VARIABLE)),
        inputs={str(p): file_hash(p) for p in inputs},
        labels=dict(labels or {}),
        summary=dict(summary if summary is not None else result.summary()),
        variables=variables,
    )
    return target.save(manifest, records, traces, progress=progress)


def save_records(
    records: Sequence[Mapping[str, Any]],
    *,
    name: str,
    labels: Mapping[str, str] | None = None,
    inputs: Iterable[str | Path] = (),
    store: str | Path | RunStore | None = None,
) -> Path:
    """Store result records read from a results file (``score --out``); no traces."""
    check_name(name)
    target = store if isinstance(store, RunStore) else RunStore(store)
    manifest = Manifest(
        name=name,
        runs=len(records),
        metrics=kinds_of(records),
        created=now_utc(),
        inputs={str(p): file_hash(p) for p in inputs},
        labels=dict(labels or {}),
        variables=_variables(records),
    )
    return target.save(manifest, records)


def _distinct_provenance(records: Sequence[Mapping[str, Any]]) -> list[object]:
    distinct: list[object] = []  # records of one scoring have one, or one per model
    for record in records:
        raw = record.get("provenance")
        if raw not in distinct:
            distinct.append(raw)
    return distinct


def scoped_config_hash(config: ScoringConfig, agent: str | None = None) -> str:
    """The manifest's config hash: :func:`~pathgrade.core.record_provenance.config_hash`;
    for ``agent``'s scope ``sha256_of(f"{short}\\nagent={agent}")`` of its short form, the
    full hash whose short form is what the records' provenance says
    (:func:`~pathgrade.core.record_provenance.with_agent`)."""
    full = config_hash(config)
    if agent is None:
        return full
    return sha256_of(f"{short_hash(full)}\nagent={agent}")


def _variables(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The controlled variables every record's ``provenance`` shares (the manifest's)."""
    distinct = _distinct_provenance(records)
    return common_variables(records_provenance([{"provenance": raw}]) for raw in distinct)


def resolve_results(
    name_or_path: str | Path, store: str | Path | RunStore | None = None
) -> list[dict[str, Any]]:
    """Result records from a results file, or from the stored run of that name.

    A path to an existing file wins; otherwise the name is looked up in the store. The error
    for neither says both were tried.
    """
    path = Path(name_or_path)
    if path.is_file():
        return read_results(path)
    target = store if isinstance(store, RunStore) else RunStore(store)
    text = str(name_or_path)
    if "/" not in text and "\\" not in text and not text.endswith(".jsonl"):
        try:
            exists = target.exists(text)
        except InputError:  # not a valid run name: report the error below
            exists = False
        if exists:
            return target.load(text).records
    raise InputError(
        f"no results file and no stored run named {text!r} (store: {target.root})", file=text
    )
