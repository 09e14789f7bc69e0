"""The I/O-side pre-pass of ``semantic`` matching: embed, before scoring, every string that
scoring will compare semantically, so that matching stays pure.

:func:`prepare` walks the reference paths of the cases and the runs' steps, takes every
string of each field that a ``semantic`` matcher reads as free text (the rule of
:class:`~pathgrade.metrics.trajectory.semantic_fields.SemanticField`), embeds each distinct
one once (through the :class:`~pathgrade.semantic.cache.EmbeddingCache`, so a later job
computes only new strings) and returns the
:class:`~pathgrade.metrics.trajectory.evidence.ArgumentEvidence` the matchers read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from pathgrade.core.config import MatchingConfig, ScoringConfig, SemanticConfig
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence, Embeddings
from pathgrade.metrics.trajectory.grammar import leaves
from pathgrade.metrics.trajectory.semantic_fields import SemanticField
from pathgrade.semantic.backends import Embedder, make_embedder
from pathgrade.semantic.cache import EmbeddingCache

_MODES = ("semantic", "judge")


def uses_evidence(matching: MatchingConfig, mode: str = "semantic") -> bool:
    """Whether any call or field mode of ``matching`` is ``mode``."""
    if matching.mode == mode:
        return True
    return any(
        spec.mode == mode or any(f.mode == mode for f in spec.fields.values())
        for spec in matching.tools.values()
    )


def schema_free_text(tools: ToolSet | None) -> dict[str, dict[str, bool]]:
    """Per tool and top-level field: the schema types it ``"string"`` with no ``enum``,
    ``const``, ``format`` or ``pattern`` (True), or types it otherwise (False)."""
    out: dict[str, dict[str, bool]] = {}
    if tools is None:
        return out
    for name in tools:
        spec = tools.get(name)
        parameters = spec.parameters if spec is not None else None
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        if not isinstance(properties, Mapping):
            continue
        out[name] = {
            field: _free(schema) for field, schema in properties.items() if isinstance(schema, dict)
        }
    return out


def _free(schema: Mapping[str, Any]) -> bool:
    plain = not any(k in schema for k in ("enum", "const", "format", "pattern"))
    return schema.get("type") == "string" and plain


def _steps(cases: Mapping[str, Case], runs: Sequence[Run]) -> Iterator[Step]:
    for case in cases.values():
        for path in case.reference_paths():
            yield from leaves(path)  # the calls of one_of branches, never the placeholder
    for run in runs:
        yield from run.steps


def semantic_strings(
    steps: Iterable[Step], matching: MatchingConfig, evidence: ArgumentEvidence
) -> Iterator[str]:
    """Every string a ``semantic`` matcher may embed (duplicates included)."""
    call_mode = {tool: spec.mode or matching.mode for tool, spec in matching.tools.items()}
    base = matching.semantic.threshold if matching.semantic is not None else 0.0
    for step in steps:
        args = step.arguments
        spec = matching.tools.get(step.tool)
        overrides = spec.fields if spec is not None else {}
        mode = call_mode.get(step.tool, matching.mode)
        if not isinstance(args, dict):
            if mode == "semantic":
                yield from _strings(SemanticField(evidence, step.tool, "", base, False), args)
            continue
        for name, value in args.items():
            override = overrides.get(name)
            field_mode = override.mode if override is not None else mode
            if field_mode == "semantic":
                forced = override is not None
                yield from _strings(SemanticField(evidence, step.tool, name, base, forced), value)


def _strings(how: SemanticField, value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if how.free_one(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(how, item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(how, item)


def prepare(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    tools: ToolSet | None = None,
    *,
    embedder: Embedder | None = None,
    cache: EmbeddingCache | None = None,
) -> ArgumentEvidence:
    """Embeddings of every string scoring will compare semantically (module docstring)."""
    semantic = config.matching.semantic or SemanticConfig()
    schema = schema_free_text(tools)
    bare = ArgumentEvidence(schema_free=schema, threshold=semantic.threshold)
    texts = semantic_strings(_steps(cases, runs), config.matching, bare)
    if not uses_evidence(config.matching):
        return bare
    embedder = embedder if embedder is not None else make_embedder(semantic)
    cache = cache if cache is not None else EmbeddingCache(semantic.cache_dir)
    index, vectors = cache.embed_all(texts, embedder)
    return ArgumentEvidence(
        embeddings=Embeddings(index, vectors), schema_free=schema, threshold=semantic.threshold
    )
