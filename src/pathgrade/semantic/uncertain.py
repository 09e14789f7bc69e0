"""What stays undefined after ``semantic`` and ``judge`` matching, and the summary entry that
says so: the runs whose argument match reads a ``judge_error`` or an uncertain field left
undecided (no judge stage in the cascade), and the uncertain comparisons.

One pass over every (reference step, agent step) pair of the same tool in a run's case (the
pairs :func:`~pathgrade.semantic.judging.candidate_pairs` names, the set the alignment may
read) gives, through the matchers' own :meth:`explain
<pathgrade.metrics.trajectory.arguments.ToolMatcher.explain>`:

* ``runs``, ``pairs``: the runs with such a pair and how many pairs
  (``summary()["argument_match_undefined"]``);
* the ``semantic`` summary entry: ``uncertain`` = ``comparisons`` (distinct
  ``(tool, field, reference value, agent value)`` whose cosine fell inside the band),
  ``undecided`` (of them, left undefined), ``judged`` (decided by the judge stage), ``runs``
  (made undefined by an undecided one) and up to :data:`EXAMPLES` ``examples``; ``band`` and
  ``cascade`` as configured; ``judge``: what the judge stage cost, when verdicts were asked
  (:attr:`~pathgrade.metrics.trajectory.evidence.Verdicts.cost`: comparisons sent, requests,
  cache hits, tokens, seconds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pathgrade.core.config import ScoringConfig, SemanticConfig
from pathgrade.core.types import Case, Run
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence, value_key
from pathgrade.semantic.judging import candidate_pairs

#: Uncertain comparisons listed in the summary.
EXAMPLES = 5

Key = tuple[str, str, str, str]


@dataclass(frozen=True)
class Undefined:
    """Runs (indices) and step pairs whose argument match is undefined, and the
    ``semantic`` summary entry (None: no band and no judge stage to report on)."""

    runs: tuple[int, ...]
    pairs: int
    semantic: dict[str, Any] | None = field(default=None)

    def to_dict(self) -> dict[str, int]:
        return {"runs": len(self.runs), "pairs": self.pairs}


def banded(config: ScoringConfig) -> bool:
    """Whether ``[matching.semantic]`` sets a band (``low < high``): a field may be
    uncertain."""
    semantic = config.matching.semantic
    return (
        semantic is not None and semantic.band is not None and semantic.band[0] < semantic.band[1]
    )


def _value(arguments: Any, name: str) -> Any:
    return arguments.get(name) if isinstance(arguments, dict) and name else arguments


def undefined_matches(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    plugins: Mapping[str, Any],
    evidence: ArgumentEvidence,
) -> Undefined:
    """What is undefined, and the ``semantic`` entry (module docstring)."""
    matchers = MatcherSet(config.matching, plugins)
    bad_runs: dict[int, None] = {}
    uncertain_runs: dict[int, None] = {}
    pairs = 0
    seen: dict[Key, str] = {}  # key -> "undecided" | "judged" | "decided"
    examples: list[dict[str, Any]] = []
    for r, ref, agent in candidate_pairs(cases, runs):
        bad = False
        for detail in matchers.for_tool(ref.tool).explain(ref.arguments, agent.arguments):
            bad = bad or detail.undefined
            if not detail.uncertain:
                continue
            rv, av = _value(ref.arguments, detail.name), _value(agent.arguments, detail.name)
            key = (ref.tool, detail.name, value_key(rv), value_key(av))
            undecided = detail.undefined and detail.judge_error is None
            if undecided:
                uncertain_runs[r] = None
            if key not in seen:
                how = "undecided" if undecided else "judged" if detail.decided_by else "decided"
                seen[key] = how
                if undecided and len(examples) < EXAMPLES:
                    examples.append(
                        {"tool": ref.tool, "field": detail.name, "reference": rv, "agent": av,
                         "similarity": round(detail.similarity or 0.0, 6)}
                    )  # fmt: skip
        if bad:
            bad_runs[r] = None
            pairs += 1
    return Undefined(
        tuple(bad_runs), pairs, _entry(config, evidence, seen, uncertain_runs, examples)
    )


def _entry(
    config: ScoringConfig,
    evidence: ArgumentEvidence,
    seen: Mapping[Key, str],
    uncertain_runs: Mapping[int, None],
    examples: list[dict[str, Any]],
) -> dict[str, Any] | None:
    semantic = config.matching.semantic or SemanticConfig()
    verdicts = evidence.verdicts
    if not banded(config) and (verdicts is None or not verdicts.cost):
        return None
    out: dict[str, Any] = {}
    if banded(config):
        values = list(seen.values())
        out["band"] = list(semantic.bounds)
        out["cascade"] = list(semantic.cascade)
        out["uncertain"] = {
            "comparisons": len(values),
            "undecided": values.count("undecided"),
            "judged": values.count("judged"),
            "runs": len(uncertain_runs),
            "examples": examples,
        }
    if verdicts is not None and verdicts.cost:
        out["judge"] = dict(verdicts.cost)
    return out
