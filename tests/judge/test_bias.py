"""Position bias (pairs judged in both orders, against the stub) and verbosity checks."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from pathgrade.judge.bias import (
    Pair,
    PositionBiasReport,
    length_controlled_preference,
    length_correlation,
    position_bias,
)
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig


def test_position_swap_inconsistency_is_counted(stub: Any, api_key: str) -> None:
    v = stub.verdict
    stub.on("<answer_A>\nalpha", v({"winner": "A"}))  # p1: slot A always wins
    stub.on("<answer_A>\nbeta", v({"winner": "A"}))
    stub.on("<answer_A>\ngamma", v({"winner": "B"}))  # p2: slot B always wins
    stub.on("<answer_A>\ndelta", v({"winner": "B"}))
    stub.on("<answer_A>\nepsilon", v({"winner": "A"}))  # p3: epsilon wins in both orders
    stub.on("<answer_A>\nzeta", v({"winner": "B"}))
    stub.on("<answer_A>\neta", v({"winner": "tie"}))  # p4: a tie both ways
    stub.on("<answer_A>\ntheta", v({"winner": "TIE"}))
    stub.on("<answer_A>\niota", v({"winner": "A"}))  # p5: the swapped order fails
    stub.on("<answer_A>\nkappa", stub.reply(status=500, body="down"))
    pairs = [
        Pair("p1", "q?", "alpha", "beta"),
        Pair("p2", "q?", "gamma", "delta"),
        Pair("p3", "q?", "epsilon", "zeta", gold_answer="epsilon"),
        Pair("p4", "q?", "eta", "theta"),
        Pair("p5", "q?", "iota", "kappa"),
    ]
    config = JudgeConfig(
        base_url=stub.url, model="m", api_key=api_key, max_retries=1, backoff_base=0.001
    )
    progress: list[tuple[int, int]] = []

    async def go() -> PositionBiasReport:
        async with JudgeClient(config, rng=random.Random(0)) as client:
            return await position_bias(client, pairs, on_item=lambda d, t: progress.append((d, t)))

    report = asyncio.run(go())
    assert [(v.forward, v.backward) for v in report.verdicts] == [
        ("first", "second"),
        ("second", "first"),
        ("first", "first"),
        ("tie", "tie"),
        ("first", None),
    ]
    assert [v.preference for v in report.verdicts] == ["tie", "tie", "first", "tie", None]
    assert report.to_dict() == {
        "pairs": 5,
        "judged": 4,
        "inconsistent": 2,
        "judge_errors": 1,
        "position_bias_rate": 0.5,
        "favoured_slots": {"first_slot": 1, "second_slot": 1},
    }
    assert len(stub.requests) == 10 + 1  # both orders of 5 pairs, one retry
    assert progress[-1] == (10, 10)
    first = stub.requests[0]["body"]["messages"][-1]["content"]
    assert "<gold_answer>" in first  # pairwise judging reads the gold answer


def test_length_correlation() -> None:
    corr = length_correlation([1, 2, 3, 4], [10, 20, 30, 45])
    assert corr.n == 4 and corr.spearman == pytest.approx(1.0)
    assert corr.pearson == pytest.approx(0.99437671, abs=1e-8)
    assert length_correlation([1, 1, 1], [1, 2, 3]).spearman is None  # no spread: undefined
    assert length_correlation([1, 2], [1, 2]).spearman is None  # too few
    with pytest.raises(ValueError, match="2 scores and 1 lengths"):
        length_correlation([1, 2], [1])


def test_length_controlled_preference() -> None:
    # Every verdict goes to the longer answer; the first answer is longer 3 times in 4.
    lc = length_controlled_preference([1, 1, 1, 0], [10, 10, 10, -10])
    assert lc.raw == 0.75 and lc.slope is not None and lc.slope > 0
    assert lc.controlled is not None and lc.controlled < lc.raw
    # With equal lengths the controlled rate is the raw rate (up to the tiny ridge).
    same = length_controlled_preference([1, 0.5, 1, 1, 0, 1], [0] * 6)
    assert same.raw == 0.75 and same.controlled == pytest.approx(0.75, abs=1e-3)
    assert length_controlled_preference([], []).controlled is None
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        length_controlled_preference([2], [0])


def test_doctests() -> None:
    import doctest

    from pathgrade.judge import bias

    assert doctest.testmod(bias).failed == 0
