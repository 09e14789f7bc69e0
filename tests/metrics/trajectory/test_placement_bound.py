"""``placement_bound``: an upper bound on what any placement of a partial order places, so
skipping the exact search below it changes no result (hand-computed cases and a property
test against the exact search)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.metrics.trajectory.order import placement_bound, search_placement


def test_a_step_whose_only_match_is_before_its_predecessor_is_never_placed() -> None:
    # step 0 matches agent 1, step 1 (after 0) matches agent 0 only: step 1 has no place.
    full_eq = np.array([[False, True], [True, False]])
    assert placement_bound(full_eq, [[], [0]], [0, 1]) == 1
    assert search_placement(full_eq, [[], [0]], [0, 1], executed=2) is None


def test_a_chain_with_room_is_bounded_by_its_length() -> None:
    full_eq = np.eye(3, dtype=bool)
    assert placement_bound(full_eq, [[], [0], [1]], [0, 1, 2]) == 3


def test_the_successor_of_an_unplaceable_step_is_not_counted() -> None:
    # step 0 matches nothing; steps 1 and 2 come after it.
    full_eq = np.array([[False, False], [True, False], [False, True]])
    assert placement_bound(full_eq, [[], [0], [0]], [0, 1, 2]) == 0


@st.composite
def partial_orders(draw: st.DrawFn) -> tuple[np.ndarray, list[list[int]]]:
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 7))
    cells = draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))
    predecessors = [
        sorted(draw(st.sets(st.integers(0, k - 1), max_size=2))) if k else [] for k in range(n)
    ]
    return np.array(cells, dtype=bool).reshape(n, m), predecessors


@settings(max_examples=300, deadline=None)
@given(partial_orders())
def test_no_placement_places_more_than_the_bound(
    case: tuple[np.ndarray, list[list[int]]],
) -> None:
    full_eq, predecessors = case
    order = list(range(len(predecessors)))
    bound = placement_bound(full_eq, predecessors, order)
    for executed in range(len(order) + 1):
        found = search_placement(full_eq, predecessors, order, executed, limit=10**7)
        if executed > bound:
            assert found is None
        if found is not None:
            assert sum(p >= 0 for p in found) >= executed
