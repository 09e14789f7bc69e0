"""Labelled pairs from a JSONL file through the configured ``semantic`` matcher, for
:mod:`pathgrade.semantic.agreement` (``pathgrade matcher-agreement``).

Each line: ``{"tool": str, "field": str, "reference": value, "agent": value,
"equivalent": bool}``. A pair is decided by the matcher of ``tool`` when the configuration
sets ``semantic`` for that tool or field, else by a ``semantic`` matcher of the one field
with the configuration's ``[matching.semantic]`` settings (the tool's mode set to ``semantic``,
so the automatic free-text decision applies, unless the config overrides that field).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.config import FieldMatch, MatchingConfig, ScoringConfig, ToolMatch
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.semantic.agreement import Scored
from pathgrade.semantic.backends import Embedder
from pathgrade.semantic.cache import EmbeddingCache
from pathgrade.semantic.prepass import prepare


@dataclass(frozen=True)
class LabelledPair:
    """One labelled pair of argument values."""

    tool: str
    field: str
    reference: Any
    agent: Any
    equivalent: bool


def load_pairs(path: str | Path) -> list[LabelledPair]:
    """The pairs of a JSONL file; a bad line is an :class:`InputError` naming line and field."""
    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise InputError(f"{where}: not JSON: {error}") from None
        if not isinstance(row, dict):
            raise InputError(f"{where}: a pair must be a JSON object")
        for name, kind in (("tool", str), ("field", str), ("equivalent", bool)):
            if not isinstance(row.get(name), kind):
                raise InputError(f"{where}: field {name!r} must be a {kind.__name__}", field=name)
        for name in ("reference", "agent"):
            if name not in row:
                raise InputError(f"{where}: field {name!r} is missing", field=name)
        out.append(
            LabelledPair(
                row["tool"], row["field"], row["reference"], row["agent"], row["equivalent"]
            )
        )
    if not out:
        raise InputError(f"{path}: no labelled pairs")
    return out


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
