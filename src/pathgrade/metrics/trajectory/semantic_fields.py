"""``semantic`` and ``judge`` comparison of one argument field, with what decided it.

See :mod:`pathgrade.metrics.trajectory.arguments` for the definition and
:mod:`pathgrade.metrics.trajectory.evidence` for the free-text decision and number guard.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathgrade.metrics.trajectory.evidence import (
    ArgumentEvidence,
    free_text_name,
    free_text_value,
    same_numbers,
)
from pathgrade.metrics.trajectory.frozen_values import freeze


@dataclass(frozen=True)
class FieldDetail:
    """How one field of a pair was compared: the mode that decided it (``normalized`` when a
    semantic mode fell back), whether it matched, and what decided it: ``similarity`` (the
    cosine of ``semantic`` strings, the fuzzy ratio of ``fuzzy`` strings, 0-100),
    ``difference`` (``numeric``: ``|reference - agent|``), ``threshold`` (the cosine or
    ratio at or above which it matches; ``numeric``: the tolerance it must not exceed),
    ``verdict`` and ``judge_id`` (``judge``: the verdict and its judge cache key), or
    ``judge_error`` (the judge failed: the comparison is ``undefined``)."""

    name: str
    mode: str
    matched: bool
    similarity: float | None = None
    undefined: bool = False
    threshold: float | None = None
    verdict: bool | None = None
    judge_id: str | None = None
    judge_error: str | None = None
    difference: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The entry of an aligned step's ``fields`` list: ``field``, ``mode``, ``match``
        (``null`` when undefined), then only the keys that apply, in this order:
        ``similarity``, ``difference``, ``verdict``, ``judge_id``, ``judge_error``,
        ``threshold``."""
        out: dict[str, Any] = {
            "field": self.name,
            "mode": self.mode,
            "match": None if self.undefined else self.matched,
        }
        if self.similarity is not None:
            out["similarity"] = round(self.similarity, 6)
        if self.difference is not None:
            out["difference"] = round(self.difference, 12)
        if self.verdict is not None:
            out["verdict"] = self.verdict
        if self.judge_id is not None:
            out["judge_id"] = self.judge_id
        if self.undefined:
            out["judge_error"] = self.judge_error or "judge_error"
        if self.threshold is not None:
            out["threshold"] = self.threshold
        return out


@dataclass(frozen=True)
class SemanticField:
    """The semantic/judge comparison of one field (``forced``: a field override asked)."""

    evidence: ArgumentEvidence
    tool: str
    name: str
    threshold: float
    forced: bool

    def free_one(self, value: str) -> bool:
        """``value`` of this field is free text: a field override says so, else the schema,
        else the name and value heuristic (:mod:`~pathgrade.metrics.trajectory.evidence`)."""
        if self.forced:
            return True
        schema = self.evidence.free_text(self.tool, self.name)
        if schema is not None:
            return schema
        return free_text_name(self.name) and free_text_value(value)

    def _free(self, ref: str, agent: str) -> bool:
        return self.free_one(ref) and self.free_one(agent)

    def semantic(self, ref: Any, agent: Any) -> FieldDetail:
        if isinstance(ref, str) and isinstance(agent, str):
            if freeze(ref, normalized=True) == freeze(agent, normalized=True):
                return FieldDetail(self.name, "semantic" if self.forced else "normalized", True)
            if not self._free(ref, agent):
                return FieldDetail(self.name, "normalized", False)
            if not same_numbers(ref, agent):
                return FieldDetail(self.name, "semantic", False)
            cosine = self.evidence.cosine(ref, agent)
            matched = cosine >= self.threshold
            return FieldDetail(self.name, "semantic", matched, cosine, threshold=self.threshold)
        if isinstance(ref, dict) and isinstance(agent, dict) and ref.keys() == agent.keys():
            return all_of(self.name, "semantic", [self.semantic(ref[k], agent[k]) for k in ref])
        if isinstance(ref, list) and isinstance(agent, list) and len(ref) == len(agent):
            parts = [self.semantic(r, a) for r, a in zip(ref, agent, strict=True)]
            return all_of(self.name, "semantic", parts)
        equal = freeze(ref, normalized=True) == freeze(agent, normalized=True)
        return FieldDetail(self.name, "normalized", equal)

    def judge(self, ref: Any, agent: Any) -> FieldDetail:
        if freeze(ref, normalized=True) == freeze(agent, normalized=True):
            return FieldDetail(self.name, "judge" if self.forced else "normalized", True)
        if not self.forced and not (
            isinstance(ref, str) and isinstance(agent, str) and self._free(ref, agent)
        ):
            return FieldDetail(self.name, "normalized", False)
        verdicts = self.evidence.verdicts
        if verdicts is None:
            raise KeyError("no judge verdicts: run pathgrade.semantic.judge_verdicts first")
        verdict = verdicts.verdict(self.tool, self.name, ref, agent)
        judge_id, error = verdicts.provenance(self.tool, self.name, ref, agent)
        return FieldDetail(
            self.name, "judge", verdict is True, None, verdict is None,
            verdict=verdict, judge_id=judge_id, judge_error=error,
        )  # fmt: skip


def all_of(name: str, mode: str, parts: list[FieldDetail]) -> FieldDetail:
    """The detail of an object or list compared element-wise: matched when every part is,
    the lowest similarity of its parts, and their threshold."""
    sims = [p.similarity for p in parts if p.similarity is not None]
    thresholds = [p.threshold for p in parts if p.threshold is not None]
    return FieldDetail(
        name, mode, all(p.matched for p in parts), min(sims) if sims else None,
        any(p.undefined for p in parts), thresholds[0] if thresholds else None,
    )  # fmt: skip
