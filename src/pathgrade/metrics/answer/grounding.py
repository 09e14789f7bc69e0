"""Grounding of an answer: context precision/recall, faithfulness, citation precision/recall.

* ``context_precision`` = |shown ∩ gold| / |shown| and ``context_recall`` = |shown ∩ gold| /
  |gold|, over the *set* of context unit ids shown to the model (``Run.context``) and the gold
  evidence ids (``Case.gold_evidence``; with graded evidence, the ids graded above 0). They
  measure the context builder, not the retriever: a gold chunk the retriever found but the
  builder dropped lowers ``context_recall`` and not retrieval recall. Unlike ragas'
  rank-weighted ``context_precision`` (mean precision@k over relevant positions) this is set
  based, because the shown context has no rank.
* ``faithfulness`` = supported claims / verifiable claims; a claim whose ``supported`` is null
  is not verifiable and leaves the denominator. No verifiable claim: undefined (None), not 0.
* A citation is **valid** only if its (``chunk_id``, ``version_id``) pair was shown (a null
  version matches only a shown unit whose version is null). Citations to units never shown are
  counted and listed. ``citation_precision`` = valid citations that entail their claim /
  citations that are invalid or carry an ``entails`` label (an unlabelled valid citation is
  left out; an invalid one counts as not entailing whatever its label).
  ``citation_recall`` = key claims with at least one valid citation not labelled as failing to
  entail it / key claims (``Claim.key``, default true: every claim needs evidence).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from pathgrade.core.types import Citation, Claim, ContextUnit


def gold_evidence_ids(gold: Collection[str] | Mapping[str, float]) -> frozenset[str]:
    """Gold evidence as a set of ids; graded evidence keeps the ids graded above 0."""
    if isinstance(gold, Mapping):
        return frozenset(k for k, grade in gold.items() if grade > 0)
    return frozenset(gold)


def context_precision(shown: Collection[str], gold: Collection[str]) -> float | None:
    """|shown ∩ gold| / |shown|; None when nothing was shown.

    >>> context_precision(["c1", "c2", "c3", "c4"], ["c1", "c9"])
    0.25
    """
    shown_set = set(shown)
    return None if not shown_set else len(shown_set & set(gold)) / len(shown_set)


def context_recall(shown: Collection[str], gold: Collection[str]) -> float | None:
    """|shown ∩ gold| / |gold|; None when there is no gold evidence.

    >>> context_recall(["c1", "c2"], ["c1", "c9"])
    0.5
    """
    gold_set = set(gold)
    return None if not gold_set else len(set(shown) & gold_set) / len(gold_set)


@dataclass(frozen=True)
class Faithfulness:
    """Claim counts and the faithfulness they give."""

    supported: int
    unsupported: int
    unverifiable: int

    @property
    def value(self) -> float | None:
        verifiable = self.supported + self.unsupported
        return None if verifiable == 0 else self.supported / verifiable


def faithfulness(claims: Sequence[Claim]) -> Faithfulness:
    """Count supported, unsupported and unverifiable claims.

    >>> faithfulness([Claim(text="a", supported=True), Claim(text="b", supported=None)]).value
    1.0
    """
    return Faithfulness(
        supported=sum(c.supported is True for c in claims),
        unsupported=sum(c.supported is False for c in claims),
        unverifiable=sum(c.supported is None for c in claims),
    )


@dataclass(frozen=True)
class CitationReport:
    """Citation precision and recall with their counts, and the citations never shown."""

    entailing: int
    judged: int
    covered_key_claims: int
    key_claims: int
    not_shown: tuple[int, ...]

    @property
    def precision(self) -> float | None:
        return None if self.judged == 0 else self.entailing / self.judged

    @property
    def recall(self) -> float | None:
        return None if self.key_claims == 0 else self.covered_key_claims / self.key_claims


def citation_report(
    citations: Sequence[Citation], claims: Sequence[Claim], context: Sequence[ContextUnit]
) -> CitationReport:
    """Check every citation against the context shown (see the module docstring)."""
    shown = {(unit.id, unit.version_id) for unit in context}
    valid = [(c.chunk_id, c.version_id) in shown for c in citations]
    entailing = sum(ok and c.entails is True for ok, c in zip(valid, citations, strict=True))
    judged = sum((not ok) or c.entails is not None for ok, c in zip(valid, citations, strict=True))
    covered: set[int] = {
        c.claim
        for ok, c in zip(valid, citations, strict=True)
        if ok and c.claim is not None and c.entails is not False
    }
    key = [i for i, claim in enumerate(claims) if claim.key]
    return CitationReport(
        entailing=entailing,
        judged=judged,
        covered_key_claims=sum(i in covered for i in key),
        key_claims=len(key),
        not_shown=tuple(i for i, ok in enumerate(valid) if not ok),
    )
