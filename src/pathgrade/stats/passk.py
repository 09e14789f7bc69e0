"""Repeated-trial success estimators: ``pass@k``, ``pass^k`` and ``all_pass@n``.

For one case with ``n`` recorded trials of which ``c`` succeeded:

* ``pass@k = 1 - C(n - c, k) / C(n, k)``: the unbiased estimate of the probability that at
  least one of ``k`` trials drawn without replacement succeeds (Chen et al., 2021, HumanEval).
* ``pass^k = C(c, k) / C(n, k)``: the probability that all ``k`` drawn trials succeed, as
  tau-bench reports it (Yao et al., 2024).
* ``all_pass@n = 1`` when every one of the ``n`` trials succeeded, else ``0`` (``pass^n``).

``k`` must satisfy ``1 <= k <= n``: ``k > n`` is an error, not a number. Over a set of cases
the estimators are averaged with each case weighing the same (the case is the unit; trials
never inflate the sample size).

Example:
    >>> round(pass_at_k(10, 3, 1), 6), round(pass_at_k(10, 3, 5), 6), round(pass_hat_k(10, 3, 2), 6)
    (0.3, 0.916667, 0.066667)
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

__all__ = ["all_pass_at_n", "pass_at_k", "pass_hat_k", "passk_over_cases", "passk_summary"]


def _check(n: int, c: int, k: int | None = None) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n (number of trials) must be an integer >= 1, got {n!r}")
    if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= n:
        raise ValueError(f"c (successful trials) must be an integer in [0, n={n}], got {c!r}")
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}")
        if k > n:
            raise ValueError(f"k={k} is larger than the number of trials n={n}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased ``pass@k = 1 - C(n-c, k) / C(n, k)`` for one case.

    Args:
        n: trials recorded for the case (>= 1).
        c: successful trials (0 <= c <= n).
        k: trials drawn (1 <= k <= n).

    Raises:
        ValueError: on ``k > n`` or any value out of range.
    """
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """``pass^k = C(c, k) / C(n, k)``: all ``k`` drawn trials succeed (tau-bench)."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def all_pass_at_n(n: int, c: int) -> float:
    """``1.0`` when all ``n`` trials succeeded, else ``0.0`` (equals ``pass^n``)."""
    _check(n, c)
    return 1.0 if c == n else 0.0


def passk_summary(
    case_ids: Sequence[str],
    trials: Sequence[int],
    goal_success: Sequence[bool | None],
) -> dict[str, Any]:
    """``pass@k`` and ``pass^k`` over cases for ``k = 1 .. the smallest trial count``.

    The helper behind ``pathgrade score --json``'s ``summary``: one entry per run (parallel
    sequences). ``None`` (undefined ``goal_success``) runs are excluded and counted; a case
    with no defined run is excluded and counted. Each case weighs the same.

    Args:
        case_ids: the case of each run.
        trials: the trial number of each run; a repeated ``(case_id, trial)`` is an error.
        goal_success: ``True``/``False``/``None`` per run.

    Returns:
        ``{"pass@k": {"1": float, ...}, "pass^k": {"1": float, ...}, "trials": {"cases",
        "runs", "min", "max", "undefined_runs", "undefined_cases"}}``. Keys of ``pass@k`` are
        strings (JSON object keys); both maps are empty when no case has a defined run.

    Raises:
        ValueError: sequences of different lengths, a repeated ``(case_id, trial)``, or a
            ``goal_success`` value that is not a bool or ``None``.
    """
    if not len(case_ids) == len(trials) == len(goal_success):
        raise ValueError(
            "case_ids, trials and goal_success must have the same length, got"
            f" {len(case_ids)}, {len(trials)}, {len(goal_success)}"
        )
    seen: set[tuple[str, int]] = set()
    counts: dict[str, list[int]] = {}  # case -> [defined trials, successes]
    undefined_runs = 0
    for case_id, trial, success in zip(case_ids, trials, goal_success, strict=True):
        key = (case_id, trial)
        if key in seen:
            raise ValueError(f"case {case_id!r} has trial {trial!r} more than once")
        seen.add(key)
        entry = counts.setdefault(case_id, [0, 0])
        if success is None:
            undefined_runs += 1
            continue
        if not isinstance(success, bool):
            raise ValueError(
                f"goal_success of case {case_id!r} trial {trial!r} must be a bool or None,"
                f" got {success!r}"
            )
        entry[0] += 1
        entry[1] += int(success)
    return passk_over_cases(list(counts.values()), undefined_runs)


def passk_over_cases(counts: Sequence[Sequence[int]], undefined_runs: int) -> dict[str, Any]:
    """The summary of :func:`passk_summary` from ``(defined trials, successes)`` per case, in
    case order (cases with no defined trial count as ``undefined_cases``). Each case's
    estimate is summed left to right; each distinct ``(n, c)`` is computed once."""
    defined = [(int(n), int(c)) for n, c in counts if n > 0]
    sizes = [n for n, _ in defined]
    k_max = min(sizes) if sizes else 0
    at_k: dict[str, float] = {}
    hat_k: dict[str, float] = {}
    for k in range(1, k_max + 1):
        at = {pair: pass_at_k(pair[0], pair[1], k) for pair in set(defined)}
        hat = {pair: pass_hat_k(pair[0], pair[1], k) for pair in set(defined)}
        at_k[str(k)] = sum(at[pair] for pair in defined) / len(defined)
        hat_k[str(k)] = sum(hat[pair] for pair in defined) / len(defined)
    return {
        "pass@k": at_k,
        "pass^k": hat_k,
        "trials": {
            "cases": len(defined),
            "runs": sum(sizes),
            "min": k_max,
            "max": max(sizes) if sizes else 0,
            "undefined_runs": undefined_runs,
            "undefined_cases": len(counts) - len(defined),
        },
    }
