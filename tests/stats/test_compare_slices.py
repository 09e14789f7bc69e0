"""``compare --by``: slice keys of each case, and the paired comparison per slice."""

from __future__ import annotations

from typing import Any

import pytest

from pathgrade.core.types import Case
from pathgrade.stats.compare import metric_direction
from pathgrade.stats.compare_slices import compare_slices
from pathgrade.stats.records import MissingMetricError
from pathgrade.stats.slice_keys import SliceFieldError, slice_keys


def rec(case_id: str, group: str | None, value: float | None) -> dict[str, Any]:
    return {"case_id": case_id, "trial": 0, "group": group, "metrics": {"path_score": value}}


def test_group_comes_from_the_records() -> None:
    records = [rec("a", "orders", 1.0), rec("b", None, 1.0), rec("a", "ignored", 1.0)]
    assert slice_keys("group", ["a", "b"], records=records) == {"a": ("orders",), "b": (None,)}


def test_other_fields_need_the_cases() -> None:
    with pytest.raises(SliceFieldError, match="needs the cases file"):
        slice_keys("difficulty", ["a"], records=[rec("a", None, 1.0)])


CASES = {
    "c0": Case(case_id="c0", group="g", metadata={"difficulty": "hard", "tags": ["x", "y", "x"]}),
    "c1": Case(case_id="c1", metadata={"difficulty": 2, "tags": ["x"], "env": {"os": "linux"}}),
    "c2": Case(case_id="c2", order="partial", metadata={"tags": []}),
    "c3": Case(case_id="c3", metadata={"env": {"os": "mac", "cpu": 4}}),
}


def test_case_fields_metadata_and_lists() -> None:
    ids = list(CASES)
    assert slice_keys("difficulty", ids, cases=CASES) == {
        "c0": ("hard",),
        "c1": (2,),
        "c2": (None,),
        "c3": (None,),
    }
    assert slice_keys("metadata.difficulty", ids, cases=CASES) == slice_keys(
        "difficulty", ids, cases=CASES
    )
    # a list puts a case in each of its slices (duplicates once); an empty list is None
    tags = slice_keys("tags", ids, cases=CASES)
    assert tags == {"c0": ("x", "y"), "c1": ("x",), "c2": (None,), "c3": (None,)}
    assert slice_keys("metadata.env.os", ids, cases=CASES)["c1"] == ("linux",)
    assert slice_keys("env", ids, cases=CASES)["c3"] == ('{"cpu":4,"os":"mac"}',)
    order = slice_keys("order", ids, cases=CASES)
    assert order["c2"] == ("partial",) and order["c0"] == ("total",)
    assert slice_keys("group", ids, cases=CASES)["c0"] == ("g",)


def test_unknown_field_and_unknown_case_are_errors() -> None:
    with pytest.raises(SliceFieldError, match=r"no case has the field difficlty \(nor metadata"):
        slice_keys("difficlty", list(CASES), cases=CASES)
    with pytest.raises(SliceFieldError, match=r"no case has the field metadata\.nope"):
        slice_keys("metadata.nope", list(CASES), cases=CASES)
    with pytest.raises(SliceFieldError, match="case 'zz' of the results is not in the cases"):
        slice_keys("tags", ["c0", "zz"], cases=CASES)


def _worked_sides() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    # slice A: diffs 0.1, 0.2, 0.3, 0.4, -0.05; slice B: diffs 1 .. 6; slice C: 2 cases
    diffs = {"A": [0.1, 0.2, 0.3, 0.4, -0.05], "B": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "C": [1, 1]}
    base, var = [], []
    for group, ds in diffs.items():
        for i, d in enumerate(ds):
            base.append(rec(f"{group}{i}", group, 50.0))
            var.append(rec(f"{group}{i}", group, 50.0 + d))
    return base, var


def test_paired_slices_worked_example_with_verdicts() -> None:
    base, var = _worked_sides()
    keys = slice_keys("group", [r["case_id"] for r in base], records=base)
    out = compare_slices(
        base, var, ["path_score"], keys, by="group", direction=metric_direction, resamples=2000
    )
    a, b, c = out.metrics["path_score"]
    assert (a.stats.key, b.stats.key, c.stats.key) == ("A", "B", "C")
    # A: |d| ranks 2, 3, 4, 5 positive and 1 negative: R+ = 14 of 15, p = 2 * 2/32 = 0.125
    # B: all 6 positive: p = 2/64 = 0.03125; Holm over the 2 tested slices:
    # B = 2 * 0.03125 = 0.0625, A = max(0.0625, 1 * 0.125) = 0.125
    assert a.stats.p_value == pytest.approx(0.125) and a.stats.p_holm == pytest.approx(0.125)
    assert b.stats.p_value == pytest.approx(0.03125) and b.stats.p_holm == pytest.approx(0.0625)
    assert b.stats.diff == pytest.approx(3.5) and b.stats.low >= 1.0
    # B's interval excludes 0 and its raw p passes, but Holm's does not
    assert b.verdict == "not significant after correcting for 2 comparisons"
    # A's interval excludes 0 (a resample mean <= 0 needs five draws of -0.05: p = 0.0003)
    assert a.stats.low > 0 and a.verdict == "not significant"
    assert not c.stats.tested and c.stats.n == 2 and c.verdict == "not tested (n < 5)"
    doc = out.to_dict()
    assert doc["by"] == "group" and doc["min_n"] == 5
    assert doc["metrics"]["path_score"][2] == {
        "slice": "C",
        "n": 2,
        "undefined": 0,
        "baseline": 50.0,
        "variant": 51.0,
        "diff": 1.0,
        "ci": [None, None],
        "p_value": None,
        "p_holm": None,
        "tested": False,
        "verdict": "not tested (n < 5)",
    }
    # with min_n = 2 slice C is tested too: 3 slices in Holm's family
    three = compare_slices(
        base, var, ["path_score"], keys, by="group", direction=metric_direction, min_n=2
    )
    assert [r.stats.tested for r in three.metrics["path_score"]] == [True, True, True]


def test_a_case_with_several_tags_counts_in_each_slice() -> None:
    ids = list(CASES)
    base = [rec(c, None, 1.0) for c in ids]
    var = [rec(c, None, 2.0 + i) for i, c in enumerate(ids)]
    keys = slice_keys("tags", ids, cases=CASES)
    out = compare_slices(base, var, ["path_score"], keys, by="tags", direction=metric_direction)
    rows = {r.stats.key: r.stats for r in out.metrics["path_score"]}
    assert list(rows) == ["x", "y", None]
    # x: c0 (+1) and c1 (+2); y: c0; None: c2 (+3) and c3 (+4)
    assert (rows["x"].n, rows["x"].diff) == (2, pytest.approx(1.5))
    assert (rows["y"].n, rows["y"].diff) == (1, pytest.approx(1.0))
    assert (rows[None].n, rows[None].diff) == (2, pytest.approx(3.5))


def test_slices_of_a_missing_metric_fail_loudly() -> None:
    base, var = _worked_sides()
    keys = slice_keys("group", [r["case_id"] for r in base], records=base)
    with pytest.raises(MissingMetricError, match="'nope'"):
        compare_slices(base, var, ["nope"], keys, by="group", direction=metric_direction)
