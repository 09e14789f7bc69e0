"""reference_lists: the scorer's flat reference paths, built without a loop per path when no
case writes the grammar, equal to the plain one-path-at-a-time definition."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.instances import ORDER_CODES
from pathgrade.metrics.trajectory.reference_lists import (
    ReferenceLists,
    reference_lists,
    reference_lists_by_path,
)

STEPS = st.lists(st.builds(Step, tool=st.sampled_from(["a", "b", "c"])), max_size=4)
PATHS = st.lists(st.lists(STEPS.map(tuple), max_size=3).map(tuple), max_size=6)
ORDERS = st.sampled_from(sorted(ORDER_CODES))


def _same(a: ReferenceLists, b: ReferenceLists) -> None:
    assert a.paths == b.paths and a.order == b.order and a.preds == b.preds
    assert np.array_equal(a.case_first, b.case_first)
    assert np.array_equal(a.case_count, b.case_count)


@settings(max_examples=300, deadline=None)
@given(PATHS, st.data())
def test_without_grammar_equals_the_definition(paths: list, data: st.DataObject) -> None:
    order = [data.draw(ORDERS) for _ in paths]
    plain = np.zeros(len(paths), dtype=np.bool_)
    _same(reference_lists(paths, order, plain), reference_lists_by_path(paths, order, plain))


def test_hand_case() -> None:
    a, b, c = Step(tool="a"), Step(tool="b"), Step(tool="c")
    paths = [((a, b), (b,)), (), ((c, a),)]
    lists = reference_lists(paths, ["total", "none", "partial"], np.zeros(3, dtype=np.bool_))
    assert lists.paths == [(a, b), (b,), (c, a)]
    assert lists.case_first.tolist() == [0, 2, 2] and lists.case_count.tolist() == [2, 0, 1]
    total, partial = ORDER_CODES["total"], ORDER_CODES["partial"]
    assert lists.order == [total, total, partial]
    assert lists.preds[:2] == [None, None] and lists.preds[2] is not None
