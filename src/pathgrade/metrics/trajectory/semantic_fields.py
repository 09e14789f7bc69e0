"""``semantic`` and ``judge`` comparison of one argument field, with what decided it.

See :mod:`pathgrade.metrics.trajectory.arguments` for the definition,
:mod:`pathgrade.metrics.trajectory.evidence` for the free-text decision and
:mod:`pathgrade.semantic.guards` for the guards.

``semantic`` on two free-text strings, in order (:meth:`SemanticField.semantic`):

1. the guards (:func:`pathgrade.semantic.guards.check`: the id guard always, then those of
   :attr:`SemanticOptions.guards`): the first that decides gives the verdict
   (``decided_by = "guard:<name>"``);
2. the embedding: a cosine ``>= threshold`` (the band's high end) matches; without a band,
   any other cosine does not; with a band ``[low, high]``, a cosine ``< low`` does not and
   one in ``[low, high)`` is *uncertain*;
3. an uncertain field is decided by the judge when the cascade has a judge stage
   (``decided_by = "judge"``; a judge error leaves it undefined), else it is *undefined*
   (``match: null``, ``uncertain: true``): never silently a match or a mismatch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pathgrade.core.config import SemanticConfig
from pathgrade.core.errors import ConfigError
from pathgrade.metrics.trajectory.evidence import (
    ArgumentEvidence,
    free_text_name,
    free_text_value,
)
from pathgrade.metrics.trajectory.frozen_values import freeze
from pathgrade.semantic.guards import check

#: The modes that read evidence made before scoring (embeddings, judge verdicts).
EVIDENCE_MODES = frozenset({"semantic", "judge"})


@dataclass(frozen=True)
class SemanticOptions:
    """What ``semantic`` matching does besides the threshold: ``low``, the low end of the
    band (None: the single threshold), the ``guards`` on, and whether the judge decides
    uncertain fields (``judge_uncertain``: a judge stage in the cascade). The default is the
    rule before bands and guards: a single threshold and the id guard."""

    low: float | None = None
    guards: tuple[str, ...] = ()
    judge_uncertain: bool = False

    @property
    def banded(self) -> bool:
        """Whether a field may be uncertain."""
        return self.low is not None


#: The rule before bands and guards (a single threshold, the id guard).
PLAIN = SemanticOptions()


def options_of(config: SemanticConfig) -> SemanticOptions:
    """The band, guards and cascade of ``[matching.semantic]`` (a band ``[t, t]`` is the
    single threshold ``t``)."""
    band = config.band
    low = band[0] if band is not None and band[0] < band[1] else None
    return SemanticOptions(low, tuple(config.guards), config.judges_uncertain)


def single_threshold(options: SemanticOptions, threshold: float | None) -> SemanticOptions:
    """``options`` under a tool's or field's own ``threshold`` (None: not given): a single
    threshold, no band."""
    if threshold is None:
        return options
    return SemanticOptions(None, options.guards, options.judge_uncertain)


def need_judge(evidence: ArgumentEvidence | None, options: SemanticOptions, where: str) -> None:
    """A judge stage that may be reached needs verdicts made before scoring."""
    reached = options.banded and options.judge_uncertain
    if reached and evidence is not None and evidence.verdicts is None:
        raise ConfigError(
            "cascade = ['embedding', 'judge'] needs judge verdicts made before scoring:"
            " pass evidence=pathgrade.semantic.judge_verdicts(...)",
            field=where,
        )


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
    band: tuple[float, float] | None = None
    uncertain: bool = False
    decided_by: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The entry of an aligned step's ``fields`` list: ``field``, ``mode``, ``match``
        (``null`` when undefined), then only the keys that apply, in this order:
        ``similarity``, ``difference``, ``verdict``, ``judge_id``, ``judge_error``,
        ``threshold``, ``band`` (``[low, high]``, when the cosine fell in or against a band),
        ``uncertain`` (the cosine was inside the band), ``decided_by`` (``guard:<name>`` or
        ``judge``: what decided instead of the cosine) and ``reason`` (the guard's)."""
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
        if self.undefined and (self.judge_error is not None or not self.uncertain):
            out["judge_error"] = self.judge_error or "judge_error"
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.band is not None:
            out["band"] = list(self.band)
        if self.uncertain:
            out["uncertain"] = True
        if self.decided_by is not None:
            out["decided_by"] = self.decided_by
        if self.reason is not None:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class SemanticField:
    """The semantic/judge comparison of one field (``forced``: a field override asked)."""

    evidence: ArgumentEvidence
    tool: str
    name: str
    threshold: float
    forced: bool
    options: SemanticOptions = PLAIN

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
            return self._strings(ref, agent)
        if isinstance(ref, dict) and isinstance(agent, dict) and ref.keys() == agent.keys():
            return all_of(self.name, "semantic", [self.semantic(ref[k], agent[k]) for k in ref])
        if isinstance(ref, list) and isinstance(agent, list) and len(ref) == len(agent):
            parts = [self.semantic(r, a) for r, a in zip(ref, agent, strict=True)]
            return all_of(self.name, "semantic", parts)
        equal = freeze(ref, normalized=True) == freeze(agent, normalized=True)
        return FieldDetail(self.name, "normalized", equal)

    def _strings(self, ref: str, agent: str) -> FieldDetail:
        """Two free-text strings not equal after normalisation (module docstring)."""
        options = self.options
        guarded = check(ref, agent, options.guards)
        if guarded is not None:
            return FieldDetail(
                self.name, "semantic", guarded.match,
                decided_by=f"guard:{guarded.guard}", reason=guarded.reason,
            )  # fmt: skip
        cosine = self.evidence.cosine(ref, agent)
        high = self.threshold
        low = high if options.low is None else options.low
        if low == high:
            return FieldDetail(self.name, "semantic", cosine >= high, cosine, threshold=high)
        band = (low, high)
        if cosine >= high or cosine < low:
            return FieldDetail(self.name, "semantic", cosine >= high, cosine, band=band)
        if not options.judge_uncertain:
            return FieldDetail(
                self.name, "semantic", False, cosine, True, band=band, uncertain=True
            )
        verdicts = self.evidence.verdicts
        if verdicts is None:
            raise KeyError("no judge verdicts: run pathgrade.semantic.judge_verdicts first")
        verdict = verdicts.verdict(self.tool, self.name, ref, agent)
        judge_id, error = verdicts.provenance(self.tool, self.name, ref, agent)
        return FieldDetail(
            self.name, "semantic", verdict is True, cosine, verdict is None, verdict=verdict,
            judge_id=judge_id, judge_error=error, band=band, uncertain=True, decided_by="judge",
        )  # fmt: skip

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
    the lowest similarity of its parts, their threshold or band, uncertain when a part is,
    and what decided the first part that did not match (when not its cosine)."""
    sims = [p.similarity for p in parts if p.similarity is not None]
    thresholds = [p.threshold for p in parts if p.threshold is not None]
    bands = [p.band for p in parts if p.band is not None]
    differing = next((p for p in parts if not p.matched and not p.undefined), None)
    return FieldDetail(
        name, mode, all(p.matched for p in parts), min(sims) if sims else None,
        any(p.undefined for p in parts), thresholds[0] if thresholds else None,
        band=bands[0] if bands else None, uncertain=any(p.uncertain for p in parts),
        decided_by=differing.decided_by if differing is not None else None,
        reason=differing.reason if differing is not None else None,
    )  # fmt: skip


def evidence_of(plugins: Mapping[str, Any]) -> ArgumentEvidence | None:
    """The :class:`ArgumentEvidence` passed as the ``semantic`` or ``judge`` plug-in."""
    for name in ("semantic", "judge"):
        found = plugins.get(name)
        if isinstance(found, ArgumentEvidence):
            return found
    return None


def need_evidence(
    evidence: ArgumentEvidence | None, mode: str, where: str, options: SemanticOptions = PLAIN
) -> None:
    """Refuse a ``semantic`` or ``judge`` mode whose evidence was not made before scoring."""
    if evidence is None or (mode == "judge" and evidence.verdicts is None):
        made = "embeddings" if mode == "semantic" else "judge verdicts"
        raise ConfigError(
            f"{mode!r} matching needs {made} made before scoring: pathgrade.score makes"
            " embeddings itself; pass evidence=pathgrade.semantic.judge_verdicts(...) for"
            " 'judge'",
            field=where,
        )
    if mode == "semantic":
        need_judge(evidence, options, where)


def cosine_threshold(given: float | None, inherited: float, mode: str, where: str) -> float:
    """A ``semantic`` threshold is a cosine in [-1, 1]; unset, it is inherited."""
    if given is None or mode not in EVIDENCE_MODES:
        return inherited
    if given > 1:
        raise ConfigError(
            f"a semantic threshold is a cosine in [-1, 1], got {given:g}",
            field=where + ".threshold",
        )
    return given
