"""The writers' view of the runs' explanations (``ScoreResult.defects_of`` and the
column-wise ``ScoreResult.alignments_json``) is the same as their objects
(``ScoreResult.details``): each alignment's JSON text byte for byte, the defects equal, on
random batches of paths with awkward text in their arguments."""

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
    assert result.defects_of is not None and result.alignments_json is not None
    alignments = result.alignments_json()
    assert len(alignments) == len(result)
    for run in range(len(result)):
        defects, alignment = result.details(run)
        assert result.defects_of(run) == defects
        assert alignments[run] == orjson.dumps(alignment)


def test_runs_without_a_reference_or_steps_have_their_alignments() -> None:
    cases = [Case(case_id="none"), Case(case_id="one", reference=(Step(tool="t"),))]
    runs = [
        Run(case_id="none", steps=(Step(tool="t"),)),
        Run(case_id="one"),  # no steps: one deletion
        Run(case_id="none"),
    ]
    result = score(cases, runs)
    assert result.alignments_json is not None
    assert result.alignments_json() == [orjson.dumps(result.details(r)[1]) for r in range(3)]
    assert result.alignments_json()[0] == b"[]"
    only_unreferenced = score(cases[:1], runs[:1])
    assert only_unreferenced.alignments_json is not None
    assert only_unreferenced.alignments_json() == [b"[]"]


def test_a_call_written_in_two_key_orders_has_one_text_whatever_the_reading_order() -> None:
    # {"b": 1, "a": 2} and {"a": 2, "b": 1} are one call; its text is that of its first
    # occurrence in the runs (run 1 here), however the explanations are read.
    first, second = {"b": 1, "a": 2}, {"a": 2, "b": 1}
    cases = [
        Case(case_id="x", reference=(Step(tool="t", arguments=first),)),
        Case(case_id="y", reference=(Step(tool="u"),)),
    ]
    runs = [
        Run(case_id="y", steps=(Step(tool="u"),)),
        Run(case_id="x", steps=(Step(tool="t", arguments=second),)),
    ]
    in_order = [r.to_dict() for r in score(cases, runs)]
    result = score(cases, runs)
    backwards = [result[1].to_dict(), result[0].to_dict()][::-1]
    assert in_order == backwards
    assert in_order[1]["alignment"][0]["reference"] == "t(a=2, b=1)"  # the run's spelling
    written = score(cases, runs)
    assert written.alignments_json is not None
    assert written.alignments_json() == [orjson.dumps(r["alignment"]) for r in in_order]


def test_kept_step_texts_belong_to_their_step_object() -> None:
    from pathgrade.metrics.trajectory.alignment_text import _FormattedSteps

    kept = _FormattedSteps(capacity=2)
    a, b, c = Step(tool="a", arguments={"q": "x"}), Step(tool="b"), Step(tool="c")
    assert kept.text(a) == "a(q='x')" and kept.json(a) == b"\"a(q='x')\""
    kept._entries[id(b)] = (a, "stale", b'"stale"')  # as if b had a dead step's id
    assert kept.text(b) == "b"  # the stale entry is replaced (the full store emptied first)
    assert kept.text(c) == "c" and len(kept._entries) == 2
    assert kept.text(a) == "a(q='x')" and len(kept._entries) == 1  # full: emptied, then kept
