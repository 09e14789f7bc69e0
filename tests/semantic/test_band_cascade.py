"""Three verdicts of ``semantic`` matching: a band ``[low, high]`` of cosine, inside which a
field is uncertain: decided by the judge stage of the cascade (a scripted judge on
127.0.0.1, its cache making a second scoring free), or undefined without one: counted,
listed, the run's trajectory metrics undefined (never 0 or 1). A band with low == high is
the single threshold (a differential test against the old rule); bad bands are one-line
config errors."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.config import SemanticConfig
from pathgrade.core.errors import ConfigError
from pathgrade.core.types import Step
from pathgrade.io.config import config_from_mapping
from pathgrade.judge.cache import JudgeCache
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence, Verdicts, value_key
from pathgrade.metrics.trajectory.semantic_fields import (
    FieldDetail,
    SemanticField,
    SemanticOptions,
    options_of,
)
from pathgrade.report.semantic_line import uncertain_line
from pathgrade.semantic import judge_verdicts

from .helpers import angle_vectors, evidence
from .test_judge_mode import REF, _Judge

SAME = "The customer asks for a refund: the item arrived broken."  # the stub: equivalent
OTHER = "The customer wants to change the delivery address."  # the stub: not equivalent
ABOVE, BELOW = "a refund for the damaged item", "a question about opening hours"
ANGLES = {REF: 0.0, SAME: 30.0, OTHER: 40.0, ABOVE: 10.0, BELOW: 80.0}  # cos .87 .77 .98 .17


def _config(cascade: list[str] | None = None) -> ScoringConfig:
    semantic = {"band": [0.6, 0.9], "guards": [], "cascade": cascade or ["embedding"]}
    return ScoringConfig.model_validate(
        {"matching": {"tools": {"transfer": {"mode": "semantic"}}, "semantic": semantic}}
    )


def _data() -> tuple[dict[str, Case], list[Run]]:
    case = Case(case_id="c", reference=[Step(tool="transfer", arguments={"summary": REF})])
    runs = [
        Run(case_id="c", steps=[Step(tool="transfer", arguments={"summary": s})])
        for s in (ABOVE, BELOW, SAME, OTHER)
    ]
    return {"c": case}, runs


def _field(low: float | None, judge: bool = False, **kwargs: object) -> SemanticField:
    return SemanticField(
        evidence(ANGLES, **kwargs),
        "transfer",
        "summary",
        0.9,
        True,
        SemanticOptions(low, (), judge),
    )


def test_above_below_and_inside_the_band() -> None:
    how = _field(0.6)
    above, below, inside = (how.semantic(REF, s) for s in (ABOVE, BELOW, SAME))
    assert (above.matched, above.undefined, above.band) == (True, False, (0.6, 0.9))
    assert (below.matched, below.undefined) == (False, False)
    assert (inside.undefined, inside.uncertain) == (True, True)
    assert inside.to_dict() == {
        "field": "summary", "mode": "semantic", "match": None, "similarity": 0.866025,
        "band": [0.6, 0.9], "uncertain": True,
    }  # fmt: skip


def test_without_a_judge_uncertain_runs_are_undefined_counted_and_listed() -> None:
    cases, runs = _data()
    given = ArgumentEvidence(embeddings=angle_vectors(ANGLES))
    result = score(cases.values(), runs, _config(), evidence=given)
    path = result.metrics["path_score"].tolist()
    assert path[0] == 100.0 and path[1] == 75.0  # above: a match; below: a missing step
    assert math.isnan(path[2]) and math.isnan(path[3])  # uncertain: undefined, not 0 or 100
    for name in ("argument_accuracy", "tool_accuracy", "composite"):
        assert math.isnan(result.metrics[name][2]) and math.isnan(result.metrics[name][3])
    assert result.summary_extra["argument_match_undefined"] == {"runs": 2, "pairs": 2}
    semantic = result.summary_extra["semantic"]
    assert semantic["uncertain"] | {"examples": None} == {
        "comparisons": 2, "undecided": 2, "judged": 0, "runs": 2, "examples": None,
    }  # fmt: skip
    assert [e["agent"] for e in semantic["uncertain"]["examples"]] == [SAME, OTHER]
    assert semantic["band"] == [0.6, 0.9] and "judge" not in semantic
    line = uncertain_line(semantic)
    assert line is not None and line.startswith("2 argument comparisons were uncertain")
    fields = [entry.fields for entry in result.details(2)[1]]
    assert fields[0][0]["match"] is None and fields[0][0]["uncertain"] is True


def test_the_judge_stage_decides_uncertain_fields_from_scripted_verdicts() -> None:
    cases, runs = _data()
    by_key = {("transfer", "summary", value_key(REF), value_key(SAME)): True,
              ("transfer", "summary", value_key(REF), value_key(OTHER)): False}  # fmt: skip
    given = ArgumentEvidence(embeddings=angle_vectors(ANGLES), verdicts=Verdicts(by_key))
    result = score(cases.values(), runs, _config(["embedding", "judge"]), evidence=given)
    assert result.metrics["path_score"].tolist() == [100.0, 75.0, 100.0, 75.0]
    uncertain = result.summary_extra["semantic"]["uncertain"]
    assert (uncertain["comparisons"], uncertain["undecided"], uncertain["judged"]) == (2, 0, 2)
    assert result.summary_extra["argument_match_undefined"] == {"runs": 0, "pairs": 0}
    (entry,) = result.details(2)[1]
    assert entry.fields is not None
    assert entry.fields[0]["decided_by"] == "judge" and entry.fields[0]["verdict"] is True


def test_a_judge_stage_without_verdicts_is_a_config_error() -> None:
    cases, runs = _data()
    given = ArgumentEvidence(embeddings=angle_vectors(ANGLES))
    with pytest.raises(ConfigError, match="cascade"):
        score(cases.values(), runs, _config(["embedding", "judge"]), evidence=given)


def test_only_uncertain_fields_go_to_the_judge_and_the_cache_makes_it_free(
    judge_url: str, tmp_path: Path
) -> None:
    cases, runs = _data()
    config = _config(["embedding", "judge"])
    cache = JudgeCache(tmp_path)

    def scored() -> dict[str, object]:
        client = JudgeClient(
            JudgeConfig(base_url=judge_url, model="scripted", max_retries=0), cache=cache
        )
        base = ArgumentEvidence(embeddings=angle_vectors(ANGLES))
        made = asyncio.run(judge_verdicts(cases, runs, config, client, base))
        result = score(cases.values(), runs, config, evidence=made)
        assert result.metrics["path_score"].tolist() == [100.0, 75.0, 100.0, 75.0]
        semantic: dict[str, object] = result.summary_extra["semantic"]
        return semantic

    first = scored()
    assert sorted(_Judge.asked) == sorted([SAME, OTHER])  # above and below are not asked
    judge = first["judge"]
    assert isinstance(judge, dict)
    assert (judge["comparisons"], judge["requests"], judge["cache_hits"]) == (2, 2, 0)
    assert judge["seconds"] >= 0
    _Judge.asked.clear()
    second = scored()["judge"]
    assert _Judge.asked == []  # the second scoring sends no request
    assert isinstance(second, dict)
    assert (second["requests"], second["cache_hits"], second["prompt_tokens"]) == (0, 2, 0)


def _old_rule(how: SemanticField, ref: str, agent: str) -> FieldDetail:
    """The single-threshold rule before bands and guards (the differential reference)."""
    from pathgrade.metrics.trajectory.evidence import same_numbers

    if not same_numbers(ref, agent):
        return FieldDetail(how.name, "semantic", False)
    cosine = how.evidence.cosine(ref, agent)
    return FieldDetail(
        how.name, "semantic", cosine >= how.threshold, cosine, threshold=how.threshold
    )


_TEXT = st.sampled_from(["refund the item", "refund item 12", "refund item 13", "a b c", "x y"])


@given(st.floats(-1, 1), _TEXT, _TEXT, st.floats(0, 180), st.floats(0, 180))
def test_a_band_with_low_equal_to_high_is_the_single_threshold(
    t: float, ref: str, agent: str, a: float, b: float
) -> None:
    if ref == agent:
        return
    vectors = {ref: a, agent: b}
    band = options_of(SemanticConfig(band=(t, t), guards=()))
    for options in (band, SemanticOptions(t, ()), SemanticOptions()):
        how = SemanticField(evidence(vectors), "t", "q", t, True, options)
        new, old = how.semantic(ref, agent), _old_rule(how, ref, agent)
        # the same decision and measure (a guard's decision now also names itself)
        assert (new.matched, new.undefined, new.similarity, new.threshold, new.band) == (
            old.matched, old.undefined, old.similarity, old.threshold, old.band,
        )  # fmt: skip


@pytest.mark.parametrize(
    ("semantic", "message"),
    [
        ({"band": [0.9, 0.6]}, "low <= high"),
        ({"band": [0.5, 1.2]}, "in [-1, 1]"),
        ({"band": [-1.5, 0.5]}, "in [-1, 1]"),
        ({"band": [0.6, 0.8], "threshold": 0.9}, "outside band"),
        ({"threshold": 1.5}, "less than or equal to 1"),
        ({"cascade": ["judge"]}, "starts with 'embedding'"),
        ({"guards": ["numbers"]}, "'number', 'entity' or 'negation'"),
    ],
)
def test_bad_bands_are_one_line_config_errors(semantic: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=r"matching\.semantic") as error:
        config_from_mapping({"matching": {"semantic": semantic}}, file="pathgrade.toml")
    text = str(error.value)
    assert message in text and "\n" not in text
