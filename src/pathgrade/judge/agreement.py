"""Agreement of judge verdicts with expert labels, field by field.

Expert labels are a runs file in the usual format, holding the labels the experts gave; the
judged runs are the output of ``pathgrade judge``. Runs are matched by (case_id, run_id,
trial). Compared fields:

=====================  ===========================================================
``success``            the goal verdict
``claims.supported``   per claim, matched by index when the claim texts agree
                       (case and whitespace folded); labels supported /
                       unsupported / not_verifiable
``citations.entails``  per citation, by index (same chunk id)
``rubric.<dimension>``  per dimension (ordinal; alpha uses the ordinal metric)
=====================  ===========================================================

An item the experts labelled but the judge did not (a ``judge_error`` or a skipped label) is
counted as ``missing`` and left out of the statistics. Per field: observed agreement, Cohen's
kappa (:func:`pathgrade.stats.agreement.cohen_kappa`), Krippendorff's alpha
(:func:`pathgrade.stats.agreement.krippendorff_alpha`) and the confusion matrix (rows: expert,
columns: judge). Undefined statistics are None with a note, never 0.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pathgrade.core.types import Run
from pathgrade.stats.agreement import Level, cohen_kappa, krippendorff_alpha

RunKey = tuple[str, str | None, int]


def _key(run: Run) -> RunKey:
    return (run.case_id, run.run_id, run.trial)


def _support(value: bool | None) -> str:
    return "not_verifiable" if value is None else ("supported" if value else "unsupported")


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


@dataclass
class _Collector:
    pairs: dict[str, list[tuple[Hashable, Hashable | None]]] = field(default_factory=dict)
    unaligned: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, expert: Hashable, judge: Hashable | None) -> None:
        self.pairs.setdefault(name, []).append((expert, judge))


@dataclass(frozen=True)
class FieldAgreement:
    """Agreement on one field."""

    field: str
    n: int
    missing: int
    unaligned: int
    observed: float | None
    kappa: float | None
    alpha: float | None
    labels: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "n": self.n,
            "missing": self.missing,
            "unaligned": self.unaligned,
            "observed_agreement": self.observed,
            "cohen_kappa": self.kappa,
            "krippendorff_alpha": self.alpha,
            "labels": list(self.labels),
            "confusion": [list(row) for row in self.confusion],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class AgreementReport:
    """Per-field agreement and the expert runs with no judged counterpart."""

    fields: tuple[FieldAgreement, ...]
    unmatched_runs: tuple[RunKey, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "fields": [f.to_dict() for f in self.fields],
            "unmatched_runs": [list(k) for k in self.unmatched_runs],
        }


def _label_text(value: Hashable | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _number(value: Hashable | None) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"not a number: {value!r}")


def _collect(expert: Run, judged: Run, out: _Collector) -> None:
    if expert.success is not None:
        out.add("success", expert.success, judged.success)
    if expert.claims is not None:
        judged_claims = judged.claims or ()
        for index, claim in enumerate(expert.claims):
            if index < len(judged_claims) and _fold(judged_claims[index].text) == _fold(claim.text):
                out.add(
                    "claims.supported",
                    _support(claim.supported),
                    _support(judged_claims[index].supported),
                )
            else:
                out.unaligned["claims.supported"] = out.unaligned.get("claims.supported", 0) + 1
    if expert.citations is not None:
        judged_citations = judged.citations or ()
        for index, citation in enumerate(expert.citations):
            if citation.entails is None:
                continue
            other = judged_citations[index] if index < len(judged_citations) else None
            if other is None or other.chunk_id != citation.chunk_id:
                out.unaligned["citations.entails"] = out.unaligned.get("citations.entails", 0) + 1
                continue
            out.add("citations.entails", citation.entails, other.entails)
    for dimension, score in sorted((expert.rubric or {}).items()):
        out.add(f"rubric.{dimension}", score, (judged.rubric or {}).get(dimension))


def _field(
    name: str, pairs: Sequence[tuple[Hashable, Hashable | None]], unaligned: int
) -> FieldAgreement:
    complete = [(e, j) for e, j in pairs if j is not None]
    missing = len(pairs) - len(complete)
    notes: list[str] = []
    experts = [_label_text(e) for e, _ in complete]
    judges = [_label_text(j) for _, j in complete]
    ordinal = name.startswith("rubric.")
    values = {*(e for e, _ in complete), *(j for _, j in complete)}
    numeric = ordinal and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )
    if numeric:
        labels = tuple(_label_text(v) for v in sorted(values, key=_number))
    else:
        labels = tuple(sorted(set(experts) | set(judges)))
    index = {label: i for i, label in enumerate(labels)}
    confusion = [[0] * len(labels) for _ in labels]
    for e, j in zip(experts, judges, strict=True):
        confusion[index[e]][index[j]] += 1
    observed = kappa = alpha = None
    if complete:
        observed = sum(e == j for e, j in zip(experts, judges, strict=True)) / len(complete)
        value = cohen_kappa(experts, judges)
        if math.isnan(value):
            notes.append("kappa undefined: both raters used one and the same label")
        else:
            kappa = value
        level: Level = "ordinal" if numeric else "nominal"

        def code(value: Hashable | None) -> float:
            return _number(value) if numeric else float(index[_label_text(value)])

        codes: list[list[float | None]] = [
            [code(e) for e, _ in complete],
            [code(j) for _, j in complete],
        ]
        try:
            alpha = krippendorff_alpha(codes, level=level)
        except ValueError as error:
            notes.append(f"alpha undefined: {error}")
    else:
        notes.append("no item labelled by both")
    return FieldAgreement(
        name, len(complete), missing, unaligned, observed, kappa, alpha, labels,
        tuple(tuple(row) for row in confusion), tuple(notes),
    )  # fmt: skip


def judge_agreement(expert_runs: Sequence[Run], judged_runs: Sequence[Run]) -> AgreementReport:
    """Compare the experts' labels with the judge's, field by field (see the module doc)."""
    judged = {_key(run): run for run in judged_runs}
    out = _Collector()
    unmatched: list[RunKey] = []
    for run in expert_runs:
        other = judged.get(_key(run))
        if other is None:
            unmatched.append(_key(run))
            continue
        _collect(run, other, out)
    names = sorted(set(out.pairs) | set(out.unaligned))
    fields = tuple(_field(n, out.pairs.get(n, []), out.unaligned.get(n, 0)) for n in names)
    return AgreementReport(fields, tuple(unmatched))
