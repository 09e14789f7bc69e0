"""The one slice-membership helper of score, compare and report: checks, keys, expansion."""

from __future__ import annotations

import numpy as np
import pytest

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case
from pathgrade.stats.records import RunValues
from pathgrade.stats.slice_keys import (
    Membership,
    SliceFieldError,
    case_slice_keys,
    check_field,
    slice_keys,
)
from pathgrade.stats.slices import slice_summaries


@pytest.mark.parametrize("name", ["group", "order", "metadata.difficulty", "tags", "env.os"])
def test_sliceable_names(name: str) -> None:
    check_field(name)


@pytest.mark.parametrize("name", ["", "case_id", "metadata", "metadata.", "a..b", ".x"])
def test_unsliceable_names_are_one_line_errors(name: str) -> None:
    with pytest.raises(SliceFieldError, match=f"cannot slice by {name!r}") as raised:
        check_field(name)
    assert isinstance(raised.value, InputError) and raised.value.field == "--by"


def test_case_keys_and_whether_the_field_is_there() -> None:
    case = Case(case_id="c", metadata={"tags": ["a", "b", "a"], "n": 3})
    assert case_slice_keys(case, "tags") == (("a", "b"), True)
    assert case_slice_keys(case, "metadata.n") == ((3,), True)
    assert case_slice_keys(case, "difficulty") == ((None,), False)
    assert case_slice_keys(case, "group") == ((None,), True)  # a case field: always there


def test_without_cases_only_group() -> None:
    with pytest.raises(SliceFieldError, match="cannot slice by 'tags' from the results alone"):
        slice_keys("tags", ["a"], records=[{"case_id": "a"}])


def test_membership_counts_a_case_once_in_each_slice() -> None:
    # a: tags [x, y], b: [x], c: []. Runs: a 1.0, a 3.0, b 5.0, c 7.0.
    # slice x: a (mean 2) and b (5) -> 3.5; y: a -> 2; (none): c -> 7.
    cases = {
        "a": Case(case_id="a", metadata={"tags": ["x", "y"]}),
        "b": Case(case_id="b", metadata={"tags": ["x"]}),
        "c": Case(case_id="c", metadata={"tags": []}),
    }
    members = Membership(slice_keys("tags", ["a", "b", "c"], cases=cases))
    runs = RunValues(("a", "a", "b", "c"), np.array([1.0, 3.0, 5.0, 7.0]), False)
    values, ids = members.expand(runs)
    assert values == [1.0, 1.0, 3.0, 3.0, 5.0, 7.0]
    assert ids == [("x", "a"), ("y", "a"), ("x", "a"), ("y", "a"), ("x", "b"), (None, "c")]
    rows = slice_summaries(values, ids, members.slice_of, min_n=1, resamples=50)
    assert [(r.key, r.n_cases, r.mean) for r in rows] == [("x", 2, 3.5), ("y", 1, 2.0),
                                                         (None, 1, 7.0)]  # fmt: skip
    assert repr(members) == "Membership(cases=3, members=4)"
