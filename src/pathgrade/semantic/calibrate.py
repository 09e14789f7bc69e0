"""Labelled pairs through the configured ``semantic`` matcher, for
:mod:`pathgrade.semantic.agreement` and :mod:`pathgrade.semantic.crossval`
(``pathgrade matcher-agreement``).

The pairs files are read by :mod:`pathgrade.semantic.pairs_file` (:func:`load_pairs`,
re-exported here). A pair is decided by the matcher of ``tool`` when the configuration
sets ``semantic`` for that tool or field, else by a ``semantic`` matcher of the one field
with the configuration's ``[matching.semantic]`` settings (the tool's mode set to ``semantic``,
so the automatic free-text decision applies, unless the config overrides that field).
"""

from __future__ import annotations

from collections.abc import Sequence

from pathgrade.core.config import FieldMatch, MatchingConfig, ScoringConfig, ToolMatch
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.semantic.agreement import Scored
from pathgrade.semantic.backends import Embedder
from pathgrade.semantic.cache import EmbeddingCache
from pathgrade.semantic.pairs_file import LabelledPair, load_pairs
from pathgrade.semantic.prepass import prepare

__all__ = ["LabelledPair", "load_pairs", "score_pairs"]


def _pair_config(pairs: Sequence[LabelledPair], config: ScoringConfig) -> ScoringConfig:
    """``config`` with ``semantic`` on every pair's field that the config does not set so."""
    matching = config.matching
    tools = dict(matching.tools)
    for pair in pairs:
        spec = tools.get(pair.tool, ToolMatch())
        mode = spec.mode or matching.mode
        override = spec.fields.get(pair.field)
        if (override.mode if override is not None else mode) == "semantic":
            continue
        if override is not None:  # the config compares this field otherwise: make it semantic
            fields = {**spec.fields, pair.field: FieldMatch(mode="semantic")}
            tools[pair.tool] = spec.model_copy(update={"fields": fields})
        else:  # call-level semantic: the automatic free-text decision applies
            tools[pair.tool] = spec.model_copy(update={"mode": "semantic"})
    new = MatchingConfig.model_validate({**matching.model_dump(), "tools": tools})
    return config.model_copy(update={"matching": new})


def score_pairs(
    pairs: Sequence[LabelledPair],
    config: ScoringConfig,
    tools: ToolSet | None = None,
    *,
    embedder: Embedder | None = None,
    cache: EmbeddingCache | None = None,
) -> list[Scored]:
    """Each pair's label with the matcher's cosine (or its decision without one)."""
    config = _pair_config(pairs, config)
    steps = [
        (
            Step(tool=p.tool, arguments={p.field: p.reference}),
            Step(tool=p.tool, arguments={p.field: p.agent}),
        )
        for p in pairs
    ]
    case = Case(case_id="pairs", reference=[s for pair in steps for s in pair])
    evidence = prepare(
        {"pairs": case}, [Run(case_id="pairs")], config, tools, embedder=embedder, cache=cache
    )
    matchers = MatcherSet(config.matching, {"semantic": evidence})
    out = []
    for pair, (ref, agent) in zip(pairs, steps, strict=True):
        (detail,) = matchers.for_tool(pair.tool).explain(ref.arguments, agent.arguments)
        out.append(Scored(pair.equivalent, detail.similarity, detail.matched))
    return out
