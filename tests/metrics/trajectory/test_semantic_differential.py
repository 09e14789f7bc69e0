"""The batched engine against the executable definition under ``semantic`` and ``judge``
matching (call level and per field), with random embeddings and random verdicts: every
output of every run must be equal (as in test_definition_differential)."""

from __future__ import annotations

import hashlib
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.config import FieldMatch, MatchingConfig, ToolMatch
from pathgrade.metrics.trajectory.definition import explain_runs
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence, Embeddings, Verdicts
from pathgrade.semantic.judging import pairs_to_judge

from .helpers import trajectory_part
from .trajectory_strategies import ARGUMENTS, scorings

TEXTS = sorted(
    {v for a in ARGUMENTS if isinstance(a, dict) for v in a.values() if isinstance(v, str)}
    | {"1", "2"}
)
MATCHINGS = (
    MatchingConfig(mode="semantic"),
    MatchingConfig(mode="judge"),
    MatchingConfig(tools={"a": ToolMatch(mode="semantic", threshold=0.5)}),
    MatchingConfig(
        tools={"b": ToolMatch(fields={"q": FieldMatch(mode="semantic", threshold=0.9)})}
    ),
    MatchingConfig(
        mode="normalized", tools={"a": ToolMatch(fields={"q": FieldMatch(mode="judge")})}
    ),
)


def _evidence(
    seed: int, config: ScoringConfig, cases: list[Case], runs: list[Run]
) -> ArgumentEvidence:
    rng = np.random.default_rng(seed)
    angles = rng.uniform(0, math.pi, len(TEXTS))
    vectors = np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)
    bare = ArgumentEvidence(embeddings=Embeddings({t: i for i, t in enumerate(TEXTS)}, vectors))
    asked = pairs_to_judge({c.case_id: c for c in cases}, runs, config, bare)
    verdicts = {k: hashlib.sha256(f"{seed}{k}".encode()).digest()[0] % 2 == 0 for k in asked}
    return ArgumentEvidence(bare.embeddings, Verdicts(verdicts))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scorings(), st.sampled_from(MATCHINGS), st.integers(0, 2**16))
def test_engine_equals_definition_under_semantic_and_judge(
    scoring: tuple[list[Case], list[Run], ScoringConfig], matching: MatchingConfig, seed: int
) -> None:
    cases, runs, drawn = scoring
    config = drawn.model_copy(update={"matching": matching})
    evidence = _evidence(seed, config, cases, runs)
    engine = score(cases, runs, config, evidence=evidence)
    explained = explain_runs(cases, runs, config, {"semantic": evidence, "judge": evidence})
    for r, spec in enumerate(explained):
        assert trajectory_part(engine[r]) == spec.result, f"run {r}"
