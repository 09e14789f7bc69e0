"""What reads a reference path after scoring sees the grammar as scored: the report's
reference and the records' per-field details index the instance the run was scored against
(never a ``one_of`` placeholder), the semantic and judge passes see every call of every
branch, and a judge prompt shows a path as written."""

from __future__ import annotations

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.types import Step
from pathgrade.judge.render import references_text
from pathgrade.metrics.trajectory.grammar import branch_calls, leaves, scored_path, written_step
from pathgrade.semantic.judging import candidate_pairs
from pathgrade.store.table import trace_of

# lookup, then one of (refund | cancel ; notify), an optional note, a poll repeated 1-3 times
PATH = (
    Step(tool="lookup", arguments={"id": "A"}),
    Step.model_validate(
        {
            "one_of": [
                [{"tool": "refund", "arguments": {"amount": 5}}],
                [{"tool": "cancel"}, {"tool": "notify", "arguments": {"text": "sorry"}}],
            ]
        }
    ),
    Step(tool="note", optional=True),
    Step.model_validate({"tool": "poll", "repeat": {"min": 1, "max": 3}}),
)
CASE = Case(case_id="c", reference=PATH)
RUN = Run(
    case_id="c",
    steps=[
        Step(tool="lookup", arguments={"id": "A"}),
        Step(tool="cancel"),
        Step(tool="notify", arguments={"text": "sorry!"}),
        Step(tool="poll"),
        Step(tool="poll"),
    ],
)
FIELDS = {"matching": {"tools": {"notify": {"fields": {"text": {"mode": "fuzzy"}}}}}}


def test_written_step_shows_the_grammar() -> None:
    assert [written_step(s) for s in PATH] == [
        "lookup(id='A')",
        "one_of(refund(amount=5) | cancel ; notify(text='sorry'))",
        "note?",
        "poll{1,3}",
    ]
    grouped = Step(tool="a", group="unordered")
    assert written_step(grouped) == "a [unordered]"
    empty = Step.model_validate({"one_of": [[], [{"tool": "b"}]]})
    assert written_step(empty) == "one_of(nothing | b)"
    assert references_text(CASE) == (
        "path 0: lookup(id='A') ; one_of(refund(amount=5) | cancel ; notify(text='sorry'))"
        " ; note? ; poll{1,3}"
    )


def test_the_scored_instance_is_what_the_alignment_indexes() -> None:
    (result,) = score([CASE], [RUN], ScoringConfig.model_validate(FIELDS))
    # the second branch, no note, two polls: lookup, cancel, notify, poll, poll
    assert result.reference_branch is not None
    assert list(result.reference_branch["one_of"]) == [1]
    scored = scored_path(PATH, result.reference_branch)
    assert [s.tool for s in scored] == ["lookup", "cancel", "notify", "poll", "poll"]
    assert scored == branch_calls(PATH, result.reference_branch or {})
    assert scored_path(PATH, None) is PATH
    trace = trace_of(RUN, CASE, result.reference_index, result.reference_branch)
    for entry in result.alignment:
        if entry.reference_step is not None:
            reference = trace["reference"][entry.reference_step]
            assert entry.reference is not None and entry.reference.startswith(reference["tool"])
    # the per-field details of the notify pair (indexing the instance: reference step 2):
    # token_set_ratio after rapidfuzz's default processing ("sorry!" -> "sorry") = 100
    notify = next(e for e in result.alignment if e.agent_step == 2)
    assert notify.fields is not None
    (text,) = notify.fields
    assert text["field"] == "text" and text["mode"] == "fuzzy" and text["match"] is True
    assert text["similarity"] == 100.0 and notify.reference_step == 2


def test_the_semantic_and_judge_passes_see_every_call_of_every_branch() -> None:
    assert [s.tool for s in leaves(PATH)] == [
        "lookup",
        "refund",
        "cancel",
        "notify",
        "note",
        "poll",
    ]
    pairs = list(candidate_pairs({"c": CASE}, [RUN]))
    tools = {(ref.tool, agent.tool) for _, ref, agent in pairs}
    assert ("notify", "notify") in tools and ("cancel", "cancel") in tools
    assert all(ref.one_of is None for _, ref, _ in pairs)  # never the placeholder
