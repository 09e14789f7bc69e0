"""Which mode decided each field of an aligned pair, and the cosine of ``semantic`` fields.

:func:`field_details` takes a run's result (its alignment and ``reference_index``) and gives,
for each alignment entry, the :class:`~pathgrade.metrics.trajectory.semantic_fields.
FieldDetail` list of :meth:`ToolMatcher.explain
<pathgrade.metrics.trajectory.arguments.ToolMatcher.explain>` for a pair of the same tool
(``[]`` for insertions, deletions and pairs of different tools), as dictionaries:
``{"field", "mode", "matched"[, "similarity"][, "undefined"]}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import RunResult
from pathgrade.core.types import Case, Run
from pathgrade.metrics.trajectory.arguments import MatcherSet


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
    reference = paths[result.reference_index] if result.reference_index is not None else ()
    out: list[list[dict[str, Any]]] = []
    for entry in result.alignment:
        i, j = entry.reference_step, entry.agent_step
        if i is None or j is None or not entry.tool_match:
            out.append([])
            continue
        ref, agent = reference[i], run.steps[j]
        details = matchers.for_tool(ref.tool).explain(ref.arguments, agent.arguments)
        out.append([d.to_dict() for d in details])
    return out
