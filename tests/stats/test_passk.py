"""pass@k, pass^k, all_pass@n: the issue's worked examples and edge cases."""

from __future__ import annotations

import pytest

from pathgrade.stats.passk import all_pass_at_n, pass_at_k, pass_hat_k, passk_summary


def test_worked_example_n10_c3() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3, abs=1e-12)
    assert round(pass_at_k(10, 3, 5), 6) == 0.916667
    assert round(pass_hat_k(10, 3, 2), 6) == 0.066667
    assert pass_hat_k(10, 3, 2) == pytest.approx(3 / 45)


def test_k_larger_than_n_is_an_error() -> None:
    with pytest.raises(ValueError, match="larger than the number of trials"):
        pass_at_k(10, 3, 11)
    with pytest.raises(ValueError, match="larger than the number of trials"):
        pass_hat_k(3, 1, 4)


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (5, 6, 1), (5, -1, 1), (5, 2, 0)])
def test_out_of_range(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_edges() -> None:
    assert pass_at_k(5, 0, 3) == 0.0
    assert pass_at_k(5, 5, 1) == 1.0
    assert pass_at_k(5, 3, 3) == 1.0  # n - c < k: some success is certain
    assert pass_hat_k(5, 2, 3) == 0.0
    assert all_pass_at_n(4, 4) == 1.0 == pass_hat_k(4, 4, 4)
    assert all_pass_at_n(4, 3) == 0.0 == pass_hat_k(4, 3, 4)


def test_summary_case_is_the_unit() -> None:
    # case a: 10 trials, 3 successes; case b: 2 trials, both succeed
    ids = ["a"] * 10 + ["b"] * 2
    trials = [*list(range(10)), 0, 1]
    success: list[bool | None] = [True] * 3 + [False] * 7 + [True, True]
    out = passk_summary(ids, trials, success)
    assert set(out["pass@k"]) == {"1", "2"}
    assert out["pass@k"]["1"] == pytest.approx((0.3 + 1.0) / 2)
    assert out["pass^k"]["2"] == pytest.approx((3 / 45 + 1.0) / 2)
    assert out["trials"] == {
        "cases": 2,
        "runs": 12,
        "min": 2,
        "max": 10,
        "undefined_runs": 0,
        "undefined_cases": 0,
    }


def test_summary_excludes_and_counts_null() -> None:
    out = passk_summary(["a", "a", "a", "b"], [0, 1, 2, 0], [True, None, False, None])
    assert out["trials"]["undefined_runs"] == 2
    assert out["trials"]["undefined_cases"] == 1
    assert out["pass@k"] == {"1": 0.5, "2": 1.0}


def test_summary_rejects_duplicates_and_non_bools() -> None:
    with pytest.raises(ValueError, match="more than once"):
        passk_summary(["a", "a"], [0, 0], [True, False])
    with pytest.raises(ValueError, match="bool or None"):
        passk_summary(["a"], [0], [1])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="same length"):
        passk_summary(["a"], [0, 1], [True])


def test_summary_empty() -> None:
    out = passk_summary([], [], [])
    assert out["pass@k"] == {} and out["trials"]["cases"] == 0
