"""The writers' view of a run's explanation (``ScoreResult.details_json``) is the same as
its objects (``ScoreResult.details``): the alignment's JSON text byte for byte, the defects
equal, on random paths with awkward text in their arguments."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.core.config import MatchingConfig

# Quotes, backslashes, control characters, non-ASCII and astral code points: what JSON
# escaping must get right.
TEXT = st.sampled_from(["A", "b", 'q"uote', "back\\slash", "tab\there", "\x00\x1f", "é", "🙂"])
step_st = st.builds(
    lambda tool, arg, failed: Step(
        tool=tool, arguments={"id": arg}, error="boom" if failed else None
    ),
    st.sampled_from(["lookup", "refund", "search"]),
    TEXT,
    st.integers(0, 9).map(lambda n: n == 0),
)
path_st = st.lists(step_st, max_size=8)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(path_st, st.lists(path_st, max_size=2), path_st), min_size=1, max_size=6),
    st.sampled_from(["total", "none"]),
    st.sampled_from(["exact", "fuzzy", "ignore"]),
)
def test_details_json_equals_the_objects(
    items: list[tuple[list[Step], list[list[Step]], list[Step]]], order: str, mode: str
) -> None:
    cases, runs = [], []
    for k, (reference, alternatives, agent) in enumerate(items):
        cases.append(
            Case(
                case_id=f"c{k}",
                reference=tuple(reference),
                references=tuple(tuple(a) for a in alternatives),
                order=order,  # type: ignore[arg-type]
                required_tools=("notify",) if k % 2 else (),
            )
        )
        runs.append(Run(case_id=f"c{k}", steps=tuple(agent)))
    result = score(cases, runs, ScoringConfig(matching=MatchingConfig(mode=mode)))
    assert result.details_json is not None
    for run in range(len(result)):
        defects, alignment = result.details(run)
        json_defects, json_alignment = result.details_json(run)
        assert json_defects == defects
        assert json_alignment == orjson.dumps(alignment)


def test_a_run_without_a_reference_has_an_empty_alignment() -> None:
    result = score([Case(case_id="c")], [Run(case_id="c", steps=(Step(tool="t"),))])
    assert result.details_json is not None
    assert result.details_json(0)[1] == b"[]" == orjson.dumps(result.details(0)[1])
