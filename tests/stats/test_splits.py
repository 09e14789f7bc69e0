"""Group and time splits, and the near-duplicate leakage check."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.stats.splits import group_split, near_duplicates, time_split, validate_ratios


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=200), st.integers(0, 10_000))
def test_no_group_crosses_splits(groups: list[int], seed: int) -> None:
    assignment = group_split(groups, [0.7, 0.15, 0.15], seed)
    split_of: dict[int, int] = {}
    for group, split in zip(groups, assignment, strict=True):
        assert split_of.setdefault(group, split) == split


def test_group_split_is_seeded_and_close_to_ratios() -> None:
    groups = [f"incident-{i % 100}" for i in range(1000)]
    first = group_split(groups, [0.7, 0.15, 0.15], 42)
    assert first == group_split(groups, [0.7, 0.15, 0.15], 42)
    assert first != group_split(groups, [0.7, 0.15, 0.15], 43)
    counts = Counter(first)
    assert counts[0] == 700 and counts[1] == 150 and counts[2] == 150


def test_zero_ratio_split_stays_empty() -> None:
    assert set(group_split(list(range(50)), [0.8, 0.0, 0.2], 0)) == {0, 2}


def test_time_split_is_chronological() -> None:
    times = ["2024-03-01", "2024-01-01", "2024-02-01", "2024-01-15", "2024-04-01"] * 2
    assignment = time_split(times, [0.6, 0.2, 0.2])
    latest_train = max(t for t, a in zip(times, assignment, strict=True) if a == 0)
    earliest_test = min(t for t, a in zip(times, assignment, strict=True) if a == 2)
    assert latest_train <= earliest_test
    assert Counter(assignment) == {0: 6, 1: 2, 2: 2}
    with pytest.raises(ValueError, match="comparable"):
        time_split([1, "a"], [0.5, 0.5])


@pytest.mark.parametrize("ratios", [[0.5, 0.6], [1.0], [0.5, -0.1, 0.6], [0.2, 0.2, 0.2, 0.4]])
def test_bad_ratios(ratios: list[float]) -> None:
    with pytest.raises(ValueError):
        validate_ratios(ratios)


def test_near_duplicates_across_splits_only() -> None:
    texts = [
        "How do I reset my password?",
        "how do i reset my password",  # same after processing, other split: a leak
        "How do I reset my password?",  # same split as the first: not a leak
        "Restart the payments service",
        None,
    ]
    leaks = near_duplicates(texts, [0, 1, 0, 2, 1], threshold=90)
    assert {(leak.first, leak.second) for leak in leaks} == {(0, 1), (2, 1)}
    assert all(leak.score == 100.0 for leak in leaks)
    assert near_duplicates(texts, [0, 0, 0, 0, 0]) == []
    with pytest.raises(ValueError):
        near_duplicates(texts, [0], 90)
