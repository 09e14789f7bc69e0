"""A pytest session's results with pathgrade's plug-in (:mod:`pathgrade.pytest_plugin`):
what each test checked, and what the session does with it at the end.

Each :func:`pathgrade.testing.assert_path` call in a test is one result. Its **case id** is
the test's node id (``tests/test_agent.py::test_refund[refund-A17]``); a test that checks
several distinct cases records each as ``<node id>::<case_id>``. Its **trial** is the number
of earlier results of that case id in the test (0, 1, ...: the trials of the
``pathgrade_trials`` marker). At the end of the session the results are scored together
(one :func:`pathgrade.score` call, so that they share one provenance), stored under one run
name with their traces (:func:`pathgrade.store.save_scored`), and, against a baseline,
checked for comparability (:func:`pathgrade.core.comparability.check_records`) and gated
(:func:`pathgrade.gates.evaluate_gates`: paired statistics on the cases both sides have,
hard safety gates on every run).

The provenance's cases hash is of the JSON of the cases the session could check: every case
of the session's cases file (``--pathgrade-cases``) and every other case a test checked,
with their own ids. Sessions that run a subset of the same cases file's tests are thus
comparable; a case edited in between is not (the gate is refused, as ``pathgrade gate``
refuses sides scored differently, unless ``--pathgrade-allow-config-change``).

All results of one session must be scored with one config (a test that passes another
``config`` to ``assert_path`` makes saving an error).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pathgrade.core.config import ScoringConfig
    from pathgrade.core.types import Case, Run
    from pathgrade.gates import GateReport, GateSet

__all__ = ["Entry", "Outcome", "Prepared", "SessionOptions", "TestRecorder", "finish", "prepare"]


@dataclass(frozen=True)
class Entry:
    """One result of the session: the test's node id, the case and run under the session's
    case id and trial (``case.case_id == run.case_id``), the case as the test gave it
    (``source``), and the config it was scored with."""

    node_id: str
    case: Case
    run: Run
    source: Case
    config: ScoringConfig

    def to_json(self) -> dict[str, Any]:
        """JSON values only (what an xdist worker sends the controller)."""
        return {
            "node_id": self.node_id,
            "case": self.case.model_dump(mode="json"),
            "run": self.run.model_dump(mode="json"),
            "source": self.source.model_dump(mode="json"),
            "config": self.config.model_dump(mode="json"),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        """The entry :meth:`to_json` gave."""
        from pathgrade.core.config import ScoringConfig
        from pathgrade.core.types import Case, Run

        return cls(
            str(data["node_id"]),
            Case.model_validate(data["case"]),
            Run.model_validate(data["run"]),
            Case.model_validate(data["source"]),
            ScoringConfig.model_validate(data["config"]),
        )


class TestRecorder:
    """The results of one test (:class:`pathgrade.testing.Recorder`); ``config`` is the
    session's, loaded by ``load_config`` when first asked for."""

    __test__ = False  # not a test class, whatever pytest's name patterns say

    def __init__(self, node_id: str, load_config: Callable[[], ScoringConfig]) -> None:
        self.node_id = node_id
        self._load_config = load_config
        self.checked: list[tuple[Case, Run, ScoringConfig]] = []

    @property
    def config(self) -> ScoringConfig:
        return self._load_config()

    def __repr__(self) -> str:
        return f"TestRecorder({self.node_id!r}, checked={len(self.checked)})"

    def record(self, case: Case, run: Run, config: ScoringConfig) -> None:
        self.checked.append((case, run, config))

    def entries(self) -> list[Entry]:
        """The test's results under their session case ids and trials (module docstring)."""
        distinct = list(dict.fromkeys(case.case_id for case, _, _ in self.checked))
        trials: dict[str, int] = {}
        out = []
        for case, run, config in self.checked:
            case_id = self.node_id if len(distinct) == 1 else f"{self.node_id}::{case.case_id}"
            trial = trials.get(case_id, 0)
            trials[case_id] = trial + 1
            out.append(
                Entry(
                    self.node_id,
                    case.model_copy(update={"case_id": case_id}),
                    run.model_copy(update={"case_id": case_id, "trial": trial}),
                    case,
                    config,
                )
            )
        return out


@dataclass(frozen=True)
class SessionOptions:
    """What the session is asked to do with its results (the ``--pathgrade-*`` options)."""

    save: str | None = None
    baseline: str | None = None
    gates: Path | None = None
    store: Path | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    allow_config_change: bool = False


@dataclass(frozen=True)
class Prepared:
    """Checked before any test runs: the run name to save under (``None``: nothing is
    saved), the gates and the baseline's records (``None`` without a baseline)."""

    name: str | None
    gates: GateSet | None = None
    baseline: list[dict[str, Any]] | None = None


def _auto_name() -> str:
    """``pytest-20250102T030405Z-1a2b``: the UTC time and 4 random hex digits."""
    return f"pytest-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(2)}"


def prepare(options: SessionOptions) -> Prepared:
    """Check the options before the tests run: a baseline needs a gates file, which must
    load, and a stored run (or results file) of that name; the run name to save under (the
    ``save`` option, else a new ``pytest-<time>-<hex>`` when gating) must be valid and not
    stored yet, in a writable store.

    Raises:
        InputError: one line saying which option is wrong.
    """
    from pathgrade.core.errors import InputError
    from pathgrade.io.gates import load_gates
    from pathgrade.store import RunStore, resolve_results

    store = RunStore(options.store)
    name = options.save
    if name is None and options.baseline is not None:
        name = _auto_name()
    if name is not None:
        store.check_writable(name)
    if options.baseline is None:
        return Prepared(name)
    if options.gates is None:
        raise InputError(
            "--pathgrade-baseline needs a gates file: --pathgrade-gates FILE (or the"
            " pathgrade_gates ini option)"
        )
    gates = load_gates(options.gates)
    baseline = resolve_results(options.baseline, store)
    return Prepared(name, gates, baseline)


@dataclass(frozen=True)
class Outcome:
    """The end of the session: the terminal paragraph and the exit it asks for (``ok``,
    ``failed``: a gate failed, ``error``: the results could not be saved or compared)."""

    lines: list[str]
    status: Literal["ok", "failed", "error"]


def cases_hash(entries: Sequence[Entry], file_cases: Sequence[Case]) -> str:
    """``sha256:`` of the distinct case JSONs (``model_dump_json``, sorted, one a line) of
    ``file_cases`` and every entry's ``source`` case (module docstring)."""
    from pathgrade.core.record_provenance import sha256_of

    texts = {case.model_dump_json() for case in file_cases}
    texts.update(entry.source.model_dump_json() for entry in entries)
    return sha256_of("".join(f"{text}\n" for text in sorted(texts)))


def finish(
    entries: Sequence[Entry],
    options: SessionOptions,
    prepared: Prepared,
    file_cases: Sequence[Case] = (),
) -> Outcome:
    """Score, save and gate the session's results as :func:`prepare` planned (module
    docstring). Errors are the outcome's lines, never raised."""
    from pathgrade.core.errors import InputError

    if prepared.name is None:
        return Outcome([], "ok")
    if not entries:
        lines = [f"pathgrade: no test called assert_path: nothing saved as {prepared.name!r}"]
        return Outcome(lines, "failed" if prepared.baseline is not None else "ok")
    try:
        saved, records = _save(entries, options, prepared.name, file_cases)
    except InputError as error:
        return Outcome([f"pathgrade: results not saved: {error}"], "error")
    tests = len({entry.node_id for entry in entries})
    lines = [
        f"pathgrade: {len(entries)} results of {tests} tests saved as run {prepared.name!r}"
        f" ({saved})."
    ]
    if prepared.gates is None or prepared.baseline is None:
        return Outcome(lines, "ok")
    try:
        report, head = _gate(prepared.gates, prepared.baseline, records, options, prepared.name)
    except InputError as error:
        return Outcome([*lines, f"pathgrade: not gated: {error}"], "error")
    return Outcome([*lines, *head, *_gate_lines(report, options, prepared)], _status(report))


def _save(
    entries: Sequence[Entry], options: SessionOptions, name: str, file_cases: Sequence[Case]
) -> tuple[Path, list[dict[str, Any]]]:
    from pathgrade.core.errors import InputError
    from pathgrade.core.record_provenance import config_hash, measured
    from pathgrade.evaluate import score
    from pathgrade.store import RunStore, save_scored

    ordered = sorted(entries, key=lambda entry: (entry.case.case_id, entry.run.trial))
    configs = {config_hash(entry.config): entry.config for entry in ordered}
    if len(configs) > 1:
        raise InputError(
            f"the tests scored with {len(configs)} different configs; one session's results"
            " need one (pass no config= to assert_path, or the same one everywhere)"
        )
    config = next(iter(configs.values()))
    cases = {entry.case.case_id: entry.case for entry in ordered}
    runs = [entry.run for entry in ordered]
    provenance = measured(
        config, cases=cases_hash(ordered, file_cases), variables=dict(options.labels)
    )
    result = score(cases, runs, config, provenance=provenance)
    store = RunStore(options.store)
    saved = save_scored(
        result,
        name=name,
        runs=runs,
        cases=cases,
        config=config,
        labels=options.labels,
        store=store,
    )
    return saved, store.load(name).records


def _gate(
    gates: GateSet,
    baseline: list[dict[str, Any]],
    records: list[dict[str, Any]],
    options: SessionOptions,
    name: str,
) -> tuple[GateReport, list[str]]:
    """The gates' report on ``records`` (stored as ``name``) against ``baseline``, after the
    comparability check; the check's warning and note lines."""
    from pathgrade.core.comparability import check_records
    from pathgrade.gates import evaluate_gates

    names = (str(options.baseline), name)
    check = check_records(baseline, records, names=names, allow=options.allow_config_change)
    changed = check.changed if check.recorded else None
    report = evaluate_gates(gates, baseline, records, changed=changed)
    head = [line for line in (check.warning, check.note) if line]
    return report, [f"pathgrade: {line}" for line in head]


def _status(report: GateReport) -> Literal["ok", "failed"]:
    return "ok" if report.passed else "failed"


def _gate_lines(report: GateReport, options: SessionOptions, prepared: Prepared) -> list[str]:
    """One paragraph: the gates' verdict, then each failed gate's message, then the next
    commands."""
    from pathgrade.report.display import clip

    results = report.results
    failed = [r for r in results if not r.passed]
    hard = sum(1 for r in failed if r.gate.hard)
    unpaired = f", {report.unpaired_cases} on one side only" if report.unpaired_cases else ""
    verdict = (
        f"{len(failed)} of {len(results)} gates failed ({hard} hard): the session fails"
        if failed
        else f"all {len(results)} gates passed"
    )
    gates = options.gates.name if options.gates is not None else "gates"
    lines = [
        f"pathgrade: {gates} against baseline {options.baseline!r} on {report.paired_cases}"
        f" paired cases{unpaired}: {verdict}."
    ]
    lines += [
        f"  FAIL {clip(r.gate.name)}{' [hard]' if r.gate.hard else ''}: {clip(r.message, 400)}"
        for r in failed
    ]
    env = f"PATHGRADE_STORE={options.store} " if options.store is not None else ""
    lines.append(
        f"  next: {env}pathgrade compare {options.baseline} {prepared.name};"
        f" {env}pathgrade report {prepared.name} --baseline {options.baseline} --out report.html"
    )
    return lines
