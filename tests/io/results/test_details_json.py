"""The alignments text written from the trajectory layer's columns
(``ScoreResult.alignment_columns``, ``pathgrade.io.results.details.alignment_json``) is the
same as the runs' objects (``ScoreResult.details``), each alignment's JSON text byte for
byte, on random batches of paths with awkward text in their arguments; and the texts of step
objects kept across scorings (``StepTexts``) belong to their objects."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.core.config import MatchingConfig
from pathgrade.core.results import ScoreResult
from pathgrade.io.results.details import alignment_json
from pathgrade.metrics.trajectory.alignment_text import StepTexts

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


def _alignments(result: ScoreResult) -> list[bytes]:
    assert result.alignment_columns is not None
    texts: list[bytes] = alignment_json(result.alignment_columns(0, len(result))).to_pylist()
    return texts


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
    alignments = _alignments(result)
    assert len(alignments) == len(result)
    for run in range(len(result)):
        assert alignments[run] == orjson.dumps([a.to_dict() for a in result.details(run)[1]])


def test_runs_without_a_reference_or_steps_have_their_alignments() -> None:
    cases = [Case(case_id="none"), Case(case_id="one", reference=(Step(tool="t"),))]
    runs = [
        Run(case_id="none", steps=(Step(tool="t"),)),
        Run(case_id="one"),  # no steps: one deletion
        Run(case_id="none"),
    ]
    result = score(cases, runs)
    assert _alignments(result) == [
        orjson.dumps([a.to_dict() for a in result.details(r)[1]]) for r in range(3)
    ]
    assert _alignments(result)[0] == b"[]"
    assert _alignments(score(cases[:1], runs[:1])) == [b"[]"]


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
    assert _alignments(score(cases, runs)) == [orjson.dumps(r["alignment"]) for r in in_order]


def test_kept_step_texts_belong_to_their_step_object() -> None:
    kept = StepTexts(capacity=2)
    a, b, c = Step(tool="a", arguments={"q": "x"}), Step(tool="b"), Step(tool="c")
    assert kept.text(a) == "a(q='x')"
    kept._entries[id(b)] = (a, "stale")  # as if b had a dead step's id
    assert kept.text(b) == "b"  # the stale entry is replaced (the full store emptied first)
    assert kept.text(c) == "c" and len(kept) == 2
    assert kept.text(a) == "a(q='x')" and len(kept) == 1  # full: emptied, then kept
    kept.clear()
    assert len(kept) == 0


def test_step_texts_passed_in_are_kept_across_scorings() -> None:
    step = Step(tool="t", arguments={"q": "x"})
    cases = [Case(case_id="c", reference=(step,))]
    runs = [Run(case_id="c", steps=(step, step))]
    kept = StepTexts()
    first = score(cases, runs, step_texts=kept)
    assert first[0].defects[0].detail == "t(q='x') repeats an earlier call"
    assert len(kept) == 1  # the one step object's text, kept for the next scoring
    kept._entries[id(step)] = (step, "cached")  # the next scoring reads the kept text
    assert score(cases, runs, step_texts=kept)[0].alignment[0].agent == "cached"
    assert score(cases, runs)[0].alignment[0].agent == "t(q='x')"  # none kept: made anew
