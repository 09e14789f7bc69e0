"""Which mode decided each field of an aligned pair, and what it measured.

:func:`field_details` takes a run's result (its alignment and ``reference_index``) and gives,
for each alignment entry, the entries of
:func:`~pathgrade.metrics.trajectory.field_details.pair_fields` for a pair of the same tool
compared field by field (``[]`` for insertions, deletions, pairs of different tools and
tools compared as whole calls), as dictionaries: ``{"field", "mode", "match", ...}``
(:meth:`~pathgrade.metrics.trajectory.semantic_fields.FieldDetail.to_dict`). Records of
:func:`pathgrade.score` carry the same entries as each aligned step's ``fields``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import RunResult
from pathgrade.core.types import Case, Run
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.field_details import pair_fields
from pathgrade.metrics.trajectory.grammar import scored_path


def field_details(
    case: Case,
    run: Run,
    result: RunResult,
    config: ScoringConfig,
    plugins: Mapping[str, Any] | None = None,
) -> list[list[dict[str, Any]]]:
    """Per alignment entry of ``result``, how each field of the pair compared."""
    matchers = MatcherSet(config.matching, plugins)
    paths = case.reference_paths()
    index = result.reference_index
    reference = scored_path(paths[index], result.reference_branch) if index is not None else ()
    out: list[list[dict[str, Any]]] = []
    for entry in result.alignment:
        i, j = entry.reference_step, entry.agent_step
        if i is None or j is None or not entry.tool_match:
            out.append([])
            continue
        ref, agent = reference[i], run.steps[j]
        spec = config.matching.tools.get(ref.tool)
        specs = spec.fields if spec is not None else {}
        found = pair_fields(matchers.for_tool(ref.tool), specs, ref.arguments, agent.arguments)
        out.append([d.to_dict() for d in found or ()])
    return out
