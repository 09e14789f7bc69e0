"""What :func:`pathgrade.score` calls for ``semantic`` and ``judge`` matching: the pre-pass
before scoring, and the undefined argument matches after it.

A run with a step pair whose argument match reads a ``judge_error``, or an uncertain field
left undecided (a ``band`` and no judge stage), has every trajectory metric but
``goal_success`` set to ``nan`` (undefined: excluded from means, with the count reported),
and the summary's ``argument_match_undefined`` counts the runs and step pairs; its
``semantic`` entry lists the uncertain comparisons and the judge stage's cost
(:mod:`pathgrade.semantic.uncertain`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence
from pathgrade.semantic.prepass import prepare, uses_evidence
from pathgrade.semantic.uncertain import Undefined, banded, undefined_matches

__all__ = ["KEPT", "Undefined", "mark_undefined", "with_evidence"]

KEPT = frozenset({"goal_success"})


def with_evidence(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    tools: ToolSet | None,
    plugins: Mapping[str, Any],
    evidence: ArgumentEvidence | None,
) -> tuple[dict[str, Any], Undefined | None]:
    """``plugins`` with the evidence the matchers read (made here when ``semantic`` matching
    needs embeddings and none were given), and what is undefined (None: no judge and no
    band, so nothing can be)."""
    out = dict(plugins)
    matching = config.matching
    if evidence is None and uses_evidence(matching, "semantic"):
        evidence = prepare(cases, runs, config, tools)
    if evidence is None:
        return out, None
    out["semantic"] = out["judge"] = evidence
    if evidence.verdicts is None and not banded(config):
        return out, None
    return out, undefined_matches(cases, runs, config, out, evidence)


def mark_undefined(
    metrics: Mapping[str, npt.NDArray[np.float64]],
    names: Sequence[str],
    undefined: Undefined,
) -> tuple[dict[str, npt.NDArray[np.float64]], dict[str, Any]]:
    """``metrics`` with the columns ``names`` (but ``goal_success``) of undefined runs set to
    nan (new arrays; the input is not changed), and the summary entry."""
    out = dict(metrics)
    rows = np.asarray(undefined.runs, dtype=np.int64)
    if rows.size:
        for name in names:
            if name not in KEPT and name in out:
                column = np.array(out[name], dtype=np.float64)
                column[rows] = np.nan
                out[name] = column
    note: dict[str, Any] = {"argument_match_undefined": undefined.to_dict()}
    if undefined.semantic is not None:
        note["semantic"] = undefined.semantic
    return out, note
