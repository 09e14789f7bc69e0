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


def test_a_partial_order_with_its_direct_predecessors() -> None:
    # a and b in either order, then m, then c. Edges: a->m, b->m, m->c, a->c, b->c; a->c and
    # b->c go through the required m, so c is after m only.
    result = mined(run(["a", "b", "m", "c"]), run(["b", "a", "m", "c"]))
    assert result.record["order"] == "partial"
    assert [(s["id"], s.get("after")) for s in result.record["reference"]] == [
        ("a", None),
        ("b", None),
        ("m", ["a", "b"]),
        ("c", ["m"]),
    ]
    # m optional (one run of two): a->c and b->c are not implied through it, so kept.
    result = mined(run(["a", "b", "m", "c"]), run(["b", "a", "c", "z"]))
    assert [(s["id"], s.get("after"), s.get("optional")) for s in result.record["reference"]] == [
        ("a", None, None),
        ("b", None, None),
        ("m", ["a", "b"], True),
        ("c", ["a", "b", "m"], None),
    ]


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
