"""``mine_case``: hand-computed paths, support, edges and proposals; properties over random
successful runs (a proposal lints clean and its base path scores 100 against it)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import pathgrade
from pathgrade.cases.lint import errors, lint_cases
from pathgrade.cases.mine import Mined, mine_case, successful
from pathgrade.core.types import Case, Run, format_step

CASE = Case(case_id="c1", query="refund order A", budget={"steps": 9}, metadata={"team": "x"})


def run(steps: list[Any], success: bool | None = True, **meta: Any) -> Run:
    return Run.model_validate(
        {"case_id": "c1", "steps": steps, "success": success, "metadata": meta}
    )


def mined(*runs: Run) -> Mined:
    result = mine_case(CASE, runs)
    assert result is not None
    return result


def reference(result: Mined) -> list[dict[str, Any]]:
    """The proposed steps without their support metadata."""
    return [{k: v for k, v in s.items() if k != "metadata"} for s in result.record["reference"]]


def test_who_counts_as_successful() -> None:
    assert successful(run([], True)) and not successful(run([], False))
    assert successful(run([], None, reward=1)) and successful(run([], None, reward=1.0))
    assert not successful(run([], None, reward=0.5)) and not successful(run([], None, reward=True))
    assert not successful(run([], None))
    assert mine_case(CASE, [run(["a"], False)]) is None


def test_paths_support_edges_and_the_shortest_base() -> None:
    result = mined(
        run(["lookup:A", "refund:A", "send"]),
        run(["lookup:A", "refund:A", "send"]),
        run(["refund:A", "send"]),
        run(["delete"], False),  # failed: ignored
        run(["lookup:A", "poll", "poll", "refund:A", "send"], None, reward=1),
        run(["lookup:A"], None, reward=0.5),  # not 1: ignored
    )
    assert result.runs == 4
    paths = [([format_step(s) for s in path], n) for path, n in result.paths]
    assert paths == [
        (["lookup:A", "refund:A", "send"], 2),
        (["refund:A", "send"], 1),
        (["lookup:A", "poll", "poll", "refund:A", "send"], 1),
    ]
    # support: lookup in 3 runs (optional), refund and send in all 4 (required), poll in 1
    # run, called twice there (bounds 2..2).
    stats = [
        (format_step(s.step), s.support, s.required, s.min_count, s.max_count) for s in result.steps
    ]
    assert stats == [
        ("lookup:A", 3, False, 1, 1),
        ("refund:A", 4, True, 1, 1),
        ("send", 4, True, 1, 1),
        ("poll", 1, False, 2, 2),
    ]
    # before -> after, support = runs calling both: lookup is before refund and send in the
    # 3 runs calling it; refund before send in all 4; poll between lookup and refund in 1.
    edges = {(format_step(e.before), format_step(e.after)): e.support for e in result.edges}
    assert edges == {
        ("lookup:A", "refund:A"): 3,
        ("lookup:A", "send"): 3,
        ("lookup:A", "poll"): 1,
        ("refund:A", "send"): 4,
        ("poll", "refund:A"): 1,
        ("poll", "send"): 1,
    }
    # Lengths 3, 2, 5 disagree: the shortest (refund, send) is the base; lookup, poll left out.
    assert reference(result) == [
        {"tool": "refund", "arguments": ["A"]},
        {"tool": "send", "arguments": {}},
    ]
    assert result.record["reference"][0]["metadata"] == {"support": 4, "runs": 4}
    assert "shortest (2 calls, 1 of 4 runs) is preferred; 2 step(s)" in result.choice
    record = result.record
    assert record["order"] == "total" and "references" not in record
    assert record["metadata"]["status"] == "proposed" and record["metadata"]["team"] == "x"
    assert record["metadata"]["mined"]["choice"] == result.choice
    assert record["query"] == "refund order A" and record["budget"] == {"steps": 9}
    Case.model_validate(record)  # loads back as a case


def test_an_optional_step_when_paths_agree_on_length() -> None:
    # Both 3 calls; tie on count: the first seen is the base. lookup is in 1 of 2 runs.
    result = mined(run(["lookup", "refund", "send"]), run(["check", "refund", "send"]))
    assert reference(result) == [
        {"tool": "lookup", "arguments": {}, "optional": True},
        {"tool": "refund", "arguments": {}},
        {"tool": "send", "arguments": {}},
    ]
    assert result.choice.startswith("2 distinct successful paths, all of 3 calls")


def test_repeat_bounds_and_the_optional_repeat() -> None:
    # poll 2, 1 and 3 times: the shortest (poll, done) is the base, poll{1..3}.
    result = mined(
        run(["poll", "poll", "done"]), run(["poll", "done"]), run(["poll"] * 3 + ["done"])
    )
    assert reference(result) == [
        {"tool": "poll", "arguments": {}, "repeat": {"min": 1, "max": 3}},
        {"tool": "done", "arguments": {}},
    ]
    # poll twice in one run of two (equal lengths): poll{0..2}, the grammar's optional repeat.
    result = mined(run(["poll", "poll", "done"]), run(["done", "x", "y"]))
    assert reference(result)[0] == {"tool": "poll", "arguments": {}, "repeat": {"min": 0, "max": 2}}


def test_steps_made_in_either_order_become_an_unordered_group() -> None:
    # a and b in either order, then m, then c. Kept edges: a->m, b->m, m->c, a->c, b->c;
    # none between a and b, which were seen both ways. Blocks [a, b], [m], [c]: every step
    # of a block before every step of the later blocks, so total with a and b unordered.
    result = mined(run(["a", "b", "m", "c"]), run(["b", "a", "m", "c"]))
    assert result.record["order"] == "total"
    assert [(s["tool"], s.get("group")) for s in result.record["reference"]] == [
        ("a", "unordered"),
        ("b", "unordered"),
        ("m", None),
        ("c", None),
    ]
    assert all("id" not in s for s in result.record["reference"])
    # m in one run of two: still a -> m, b -> m (the one run calling both), m -> c: the same.
    result = mined(run(["a", "b", "m", "c"]), run(["b", "a", "c", "z"]))
    assert [(s["tool"], s.get("group"), s.get("optional")) for s in result.record["reference"]] == [
        ("a", "unordered", None),
        ("b", "unordered", None),
        ("m", None, True),
        ("c", None, None),
    ]


def test_a_partial_order_with_its_direct_predecessors() -> None:
    # [a, x, b], [b, a, x], [a, b, x]: a -> x in all three; b is ordered with neither (seen
    # both sides of each). Base [a, x, b] (first seen of three of equal length and count):
    # blocks [a], [x, b], but a -> b does not hold, so no total order with groups: partial,
    # x after a, b after nothing.
    result = mined(run(["a", "x", "b"]), run(["b", "a", "x"]), run(["a", "b", "x"]))
    assert result.record["order"] == "partial"
    assert [(s["id"], s.get("after")) for s in result.record["reference"]] == [
        ("a", None),
        ("x", ["a"]),
        ("b", None),
    ]
    # [a, m, c, b] and [b, a, m, c]: a -> m -> c and a -> c, b ordered with none. Partial
    # (a -> b fails); a -> c goes through the required m, so c is after m only.
    result = mined(run(["a", "m", "c", "b"]), run(["b", "a", "m", "c"]))
    assert [(s["id"], s.get("after")) for s in result.record["reference"]] == [
        ("a", None),
        ("m", ["a"]),
        ("c", ["m"]),
        ("b", None),
    ]


def test_different_calls_at_one_place_become_a_choice() -> None:
    # 2 runs look the order up, 2 search for it, then refund and send: lookup and search
    # are never made together, each by 2 runs (>= MIN_CHOICE_RUNS = 2, 2/4 >= 0.2), both
    # before refund and send, and together by all 4 runs: one_of [[lookup], [search]]
    # (support 2 and 2: the first seen first). Base: [lookup, refund, send] (first seen).
    runs = [run(["lookup", "refund", "send"])] * 2 + [run(["search", "refund", "send"])] * 2
    result = mined(*runs)
    first = result.record["reference"][0]
    assert [[s["tool"] for s in branch] for branch in first["one_of"]] == [["lookup"], ["search"]]
    assert first["metadata"] == {"support": [2, 2], "runs": 4}
    assert [s["tool"] for s in result.record["reference"][1:]] == ["refund", "send"]
    proposed = Case.model_validate(result.record)
    assert errors(lint_cases([proposed])) == []
    scored = pathgrade.score([proposed], [r.model_copy(update={"case_id": "c1"}) for r in runs])
    assert list(scored.metrics["path_score"]) == [100.0] * 4


def test_a_choice_needs_support_and_must_cover_every_run() -> None:
    three = [run(["lookup", "refund"])] * 3 + [run(["search", "refund"])]
    # search by 1 run of 4: below MIN_CHOICE_RUNS, so lookup stays optional (3 of 4).
    assert reference(mined(*three))[0] == {"tool": "lookup", "arguments": {}, "optional": True}
    # With min_choice_runs=1, 1/4 = 0.25 >= 0.2: a choice (support 3, then 1).
    result = mine_case(CASE, three, min_choice_runs=1)
    assert result is not None
    assert result.record["reference"][0]["metadata"]["support"] == [3, 1]
    # ... but not with min_choice_share=0.5 (0.25 < 0.5).
    result = mine_case(CASE, three, min_choice_runs=1, min_choice_share=0.5)
    assert result is not None and "one_of" not in result.record["reference"][0]
    # lookup 2, search 2, other 1 (unsupported): 2 + 2 = 4 of 5 runs, no choice.
    five = [run(["lookup", "refund"])] * 2 + [run(["search", "refund"])] * 2
    result = mined(*five, run(["other", "refund"]))
    assert reference(result)[0] == {"tool": "lookup", "arguments": {}, "optional": True}


def test_failed_calls_are_no_part_of_a_mined_path() -> None:
    failing = {"tool": "update", "arguments": {"x": 1}, "error": "invalid"}
    result = mined(run([failing, {"tool": "update", "arguments": {"x": 2}}]))
    assert reference(result) == [{"tool": "update", "arguments": {"x": 2}}]


TOOLS = st.sampled_from(["a", "b", "c", "d"])
PATHS = st.lists(st.lists(TOOLS, max_size=6), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(PATHS)
def test_a_proposal_lints_clean_and_its_base_path_scores_100(paths: list[list[str]]) -> None:
    runs = [run(list(p)) for p in paths]
    result = mined(*runs)
    proposed = Case.model_validate(result.record)
    assert errors(lint_cases([proposed])) == []
    # The base: the shortest path, then the one most runs took, then the first seen.
    chosen = min(paths, key=lambda p: (len(p), -paths.count(p), paths.index(p)))
    base = runs[paths.index(chosen)]
    (scored,) = list(pathgrade.score([proposed], [base]))
    assert scored.metrics["path_score"] == 100.0
    assert scored.metrics["missing_steps"] == 0
