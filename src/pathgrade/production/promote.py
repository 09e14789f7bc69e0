"""Promoting chosen stored runs to draft cases (``pathgrade cases promote``).

:func:`promote` selects rows of one stored run with SQL over the store
(:func:`pathgrade.store.query`), and makes one draft :class:`~pathgrade.core.types.Case` of
each, **redacted before anything leaves the function** (:mod:`pathgrade.production.redact`):

- ``case_id``: :func:`promoted_case_id` of the run's case id, run id and trial (stable: the
  same run promoted twice, from any store name, gets the same id; a hash, so no personal
  data in an id);
- ``query``: the user's input, found in this order: the source case's ``query`` (the cases
  given, else the one the store kept in the trace excerpt), the first turn's user message
  of a conversation (the run's turns, else the record's ``conversation``), the run's
  ``metadata`` ``query``/``input``/``user_message``/``question``/``prompt`` (text);
- ``reference``: the observed path, each call's tool and arguments in the order made
  (failed calls included: the reviewer decides), ``order = "total"``;
- ``metadata.reference_status = "unreviewed"`` (:data:`UNREVIEWED`): ``pathgrade cases lint``
  refuses it until a reviewer edits the path and removes the key (or sets ``"reviewed"``);
- ``metadata.promoted``: where the case came from (``from``: store name, case id, run id,
  trial), what was wrong (``defects`` as scored, the defined ``metrics``), what was observed
  (``answer``, each step's ``output``/``error``, a conversation's ``user_messages``) and
  ``source`` (``"runs"``: the full runs given; ``"store"``: the store's trace excerpt, where
  outputs and answers are cut at 2,000 characters).

Given the source cases, the draft keeps the source case's other fields (group, budget,
tools, gold answer, ...) and metadata; its reference fields are replaced.

**Where the run's content comes from.** The store keeps, per scored run, the result record
(metrics, defects, alignment) and, when the runs were given to ``save_scored``
(``score --save``), a trace excerpt: each step's tool and arguments, outputs and the answer
cut at 2,000 characters, and the case's query. That is enough for a draft, so the store
alone is the default; ``runs`` (``--runs``) gives the full runs instead (turns, metadata,
uncut outputs) and is required for a run stored from a results file (``runs add``: no trace).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from pathgrade.cases.lint import REFERENCE_STATUS, UNREVIEWED
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.production.redact import KINDS, Redactor
from pathgrade.store.query import query
from pathgrade.store.runs import RunStore

#: The metadata key holding where a promoted case came from and what was wrong.
PROMOTED: Final = "promoted"
#: The run metadata keys read for the user's input, in order.
INPUT_KEYS: Final = ("query", "input", "user_message", "question", "prompt")
#: Source case fields a draft does not keep: its own id and references replace them.
_REPLACED: Final = frozenset(
    {"case_id", "reference", "references", "references_by_agent", "turn_references", "order"}
)
#: Field names of the case and step models that ``fields`` may still name (text values).
_TEXT_FIELDS: Final = frozenset({"query", "gold_answer", "output", "error", "tenant", "group"})

Key = tuple[str, str | None, int]


def promoted_case_id(case_id: str, run_id: str | None, trial: int = 0) -> str:
    """``promoted-`` and 12 hex digits of the SHA-256 of the run's identity.

    >>> promoted_case_id("refund-A17", "D")
    'promoted-4f965b501054'
    """
    identity = f"{case_id}\x00{'' if run_id is None else run_id}\x00{trial}"
    return "promoted-" + hashlib.sha256(identity.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Promoted:
    """The draft cases (redacted, valid), and what was replaced (distinct values by kind)."""

    cases: list[Case]
    redacted: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0

    def __repr__(self) -> str:
        return f"Promoted(cases={len(self.cases)}, redacted={self.redacted!r})"


def check_fields(fields: Iterable[str]) -> tuple[str, ...]:
    """The redacted field names, refusing those that name a structural field of a case or
    a step (replacing ``arguments`` or ``budget`` with text would make the case invalid)."""
    names = tuple(fields)
    structural = (set(Case.model_fields) | set(Step.model_fields)) - _TEXT_FIELDS
    for name in names:
        if not isinstance(name, str) or not name:
            raise InputError(f"expected a non-empty field name, got {name!r}", field="redact")
        if name.casefold() in {s.casefold() for s in structural}:
            raise InputError(
                f"{name!r} is a field of the case or step model: it cannot be replaced whole"
                " (its text is still redacted by pattern)",
                field="redact.fields",
            )
    return names


def promote(
    name: str,
    where: str,
    *,
    store: str | Path | RunStore | None = None,
    runs: Sequence[Run] | None = None,
    cases: Mapping[str, Case] | None = None,
    fields: Iterable[str] = (),
    kinds: Iterable[str] = KINDS,
) -> Promoted:
    """Draft cases from the rows of stored run ``name`` that ``where`` selects (module
    docstring), redacted.

    Args:
        name: the stored run.
        where: an SQL condition over the view ``runs`` (``pathgrade runs query``'s columns:
            ``"metrics.goal_success" = false``, ``penalty_total > 0``,
            ``list_contains(defect_kinds, 'missing_step')``).
        store: the store folder or a :class:`RunStore` (default: see
            :func:`pathgrade.store.store_path`).
        runs: the runs that were scored (full content; matched by case id, run id, trial).
        cases: the source cases by id (their query and other fields are kept).
        fields: key names whose values are replaced whole (``[redact] fields``).
        kinds: the redaction pattern kinds to apply (default: all).

    Raises:
        InputError: an unknown store name, bad SQL, a selected run found neither in
            ``runs`` nor with a trace excerpt in the store, or a bad field name.
    """
    redactor = Redactor(check_fields(fields), kinds)
    target = store if isinstance(store, RunStore) else RunStore(store)
    stored = target.load(name)
    quoted = "'" + name.replace("'", "''") + "'"
    sql = f"SELECT case_id, run_id, trial FROM runs WHERE run_name = {quoted} AND ({where})"
    try:
        rows = query(sql, target).rows
    except InputError as error:  # the SQL is the --where condition's
        raise InputError(error.message, file=error.file, field="where") from None
    chosen = {(str(c), r, int(t or 0)) for c, r, t in rows}
    by_key = {_key_of_run(run): run for run in runs or ()}
    drafts: list[Case] = []
    seen: set[Key] = set()
    duplicates = 0
    for record, trace in zip(stored.records, stored.traces, strict=True):
        key = (str(record["case_id"]), record.get("run_id"), int(record.get("trial") or 0))
        if key not in chosen:
            continue
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        run = by_key.get(key)
        if runs is not None and run is None:
            raise InputError(
                f"the stored run {name!r} has run {_describe(key)}, which the runs given"
                " do not hold",
                field="runs",
            )
        if run is None and trace is None:
            raise InputError(
                f"the stored run {name!r} keeps no trace excerpt of run {_describe(key)}"
                " (stored from a results file): give the runs file (--runs)",
                field="runs",
            )
        source = (cases or {}).get(key[0])
        raw = _draft(name, key, record, trace, run, source)
        drafts.append(_validated(redactor(raw), key))
    return Promoted(drafts, redactor.counts, duplicates)


def _key_of_run(run: Run) -> Key:
    return (run.case_id, run.run_id, run.trial)


def _describe(key: Key) -> str:
    case_id, run_id, trial = key
    return f"case_id={case_id!r} run_id={run_id!r} trial={trial}"


def _validated(record: dict[str, Any], key: Key) -> Case:
    try:
        return Case.model_validate(record)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(
            f"the draft case of run {_describe(key)} is not a valid case: {first['msg']}",
            field=where or None,
        ) from None


def _draft(
    name: str,
    key: Key,
    record: Mapping[str, Any],
    trace: Mapping[str, Any] | None,
    run: Run | None,
    source: Case | None,
) -> dict[str, Any]:
    """The draft case record, before redaction."""
    base: dict[str, Any] = {}
    if source is not None:
        dumped = source.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        base = {k: v for k, v in dumped.items() if k not in _REPLACED}
    elif trace is not None and trace.get("gold_answer"):
        base["gold_answer"] = list(trace["gold_answer"])
    if record.get("group") is not None:
        base.setdefault("group", record["group"])
    messages = _user_messages(record, run)
    query_text = _query(source, trace, run, messages)
    if query_text is not None:
        base["query"] = query_text
    steps, observed = _steps(trace, run)
    answer = run.answer if run is not None else (trace or {}).get("answer")
    promoted: dict[str, Any] = {
        "from": {"run_name": name, "case_id": key[0], "run_id": key[1], "trial": key[2]},
        "source": "runs" if run is not None else "store",
        "reference_index": record.get("reference_index"),
        "defects": list(record.get("defects") or ()),
        "metrics": {k: v for k, v in (record.get("metrics") or {}).items() if v is not None},
        "answer": answer,
        "steps": observed,
    }
    if messages:
        promoted["user_messages"] = messages
    if query_text is None:
        promoted["note"] = "no user input recorded: write the query"
    metadata = dict(base.pop("metadata", None) or {})
    metadata[REFERENCE_STATUS] = UNREVIEWED
    metadata[PROMOTED] = promoted
    return {
        "case_id": promoted_case_id(*key),
        **base,
        "reference": steps,
        "order": "total",
        "metadata": metadata,
    }


def _user_messages(record: Mapping[str, Any], run: Run | None) -> list[str]:
    if run is not None and run.turns:
        return [turn.user for turn in run.turns]
    conversation = record.get("conversation") or {}
    turns = conversation.get("turns") if isinstance(conversation, Mapping) else None
    found = [t.get("user") for t in turns or () if isinstance(t, Mapping)]
    return [m for m in found if isinstance(m, str) and m]


def _query(
    source: Case | None,
    trace: Mapping[str, Any] | None,
    run: Run | None,
    messages: Sequence[str],
) -> str | None:
    if source is not None and source.query is not None:
        return source.query
    if trace is not None and isinstance(trace.get("query"), str):
        return str(trace["query"])
    if messages:
        return messages[0]
    for name in INPUT_KEYS:
        value = (run.metadata if run is not None else {}).get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _steps(
    trace: Mapping[str, Any] | None, run: Run | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The reference steps (tool, arguments) and what each step observed (output, error)."""
    if run is not None:
        calls = [
            ({"tool": s.tool, "arguments": s.arguments}, _observed(s.tool, s.output, s.error))
            for s in run.steps
        ]
    else:
        calls = [
            (
                {"tool": s["tool"], "arguments": s.get("arguments", {})},
                _observed(s["tool"], s.get("output"), s.get("error")),
            )
            for s in (trace or {}).get("steps", ())
        ]
    return [c for c, _ in calls], [o for _, o in calls]


def _observed(tool: str, output: Any, error: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": tool}
    if output is not None:
        out["output"] = output
    if error is not None:
        out["error"] = error
    return out


__all__ = [
    "INPUT_KEYS",
    "PROMOTED",
    "REFERENCE_STATUS",
    "UNREVIEWED",
    "Promoted",
    "check_fields",
    "promote",
    "promoted_case_id",
]
