"""Bias checks for the judge: position bias and verbosity bias.

* **Position bias**: every pairwise comparison is judged twice, with the answers in both
  orders. Mapped back to the original answers, the two verdicts should agree; the
  **position-bias rate** = inconsistent pairs / pairs with both verdicts (pairs with a
  ``judge_error`` in either order are counted apart, not in the rate). The report also says
  which slot the inconsistent verdicts favoured (``first_slot`` / ``second_slot``).
* **Verbosity**: :func:`length_correlation` is the Spearman (and Pearson) correlation of
  verdict scores with answer length; :func:`length_controlled_preference` fits
  ``P(first preferred) = sigmoid(b0 + b1 * tanh(d / sd(d)))`` with ``d`` the length difference
  (first minus second; after AlpacaEval 2's length-controlled win rate) and reports
  ``sigmoid(b0)``, the preference with length differences taken out, beside the raw rate.
  Ties count as half a win.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats as scipy_stats

from pathgrade.judge.client import JudgeClient
from pathgrade.judge.prompts import pairwise_prompt
from pathgrade.judge.verdicts import Winner, check_pairwise

Preference = Literal["first", "second", "tie"]


@dataclass(frozen=True)
class Pair:
    """Two answers to one question (``first`` is shown as A in the forward order)."""

    item: str
    question: str | None
    first: str
    second: str
    gold_answer: str | None = None


@dataclass(frozen=True)
class PairVerdict:
    """Both orders' verdicts for one pair, mapped back to first/second."""

    item: str
    forward: Preference | None
    backward: Preference | None
    errors: tuple[str, ...] = ()

    @property
    def consistent(self) -> bool | None:
        if self.forward is None or self.backward is None:
            return None
        return self.forward == self.backward

    @property
    def preference(self) -> Preference | None:
        """The agreed preference; an inconsistent pair is a tie; None on a judge error."""
        if self.consistent is None:
            return None
        return self.forward if self.consistent else "tie"


@dataclass(frozen=True)
class PositionBiasReport:
    """Pairs judged in both orders and how often the order changed the verdict."""

    verdicts: tuple[PairVerdict, ...]

    @property
    def judged(self) -> int:
        return sum(v.consistent is not None for v in self.verdicts)

    @property
    def inconsistent(self) -> int:
        return sum(v.consistent is False for v in self.verdicts)

    @property
    def errors(self) -> int:
        return sum(v.consistent is None for v in self.verdicts)

    @property
    def rate(self) -> float | None:
        """Inconsistent / judged pairs; None when no pair has both verdicts."""
        return None if self.judged == 0 else self.inconsistent / self.judged

    def favoured_slots(self) -> dict[str, int]:
        """Among inconsistent pairs: how often slot A (or B) won in both orders."""
        first = sum(
            v.consistent is False and v.forward == "first" and v.backward == "second"
            for v in self.verdicts
        )
        second = sum(
            v.consistent is False and v.forward == "second" and v.backward == "first"
            for v in self.verdicts
        )
        return {"first_slot": first, "second_slot": second}

    def to_dict(self) -> dict[str, object]:
        return {
            "pairs": len(self.verdicts),
            "judged": self.judged,
            "inconsistent": self.inconsistent,
            "judge_errors": self.errors,
            "position_bias_rate": self.rate,
            "favoured_slots": self.favoured_slots(),
        }


def _forward(winner: Winner) -> Preference:
    return "first" if winner == "A" else "second" if winner == "B" else "tie"


def _backward(winner: Winner) -> Preference:
    return "second" if winner == "A" else "first" if winner == "B" else "tie"


async def position_bias(
    client: JudgeClient,
    pairs: Sequence[Pair],
    *,
    on_item: Callable[[int, int], None] | None = None,
) -> PositionBiasReport:
    """Judge every pair in both orders (``pairwise@1``) and count inconsistent verdicts."""
    total, finished = 2 * len(pairs), 0

    async def one(pair: Pair, swapped: bool) -> tuple[Preference | None, str | None]:
        nonlocal finished
        a, b = (pair.second, pair.first) if swapped else (pair.first, pair.second)
        prompt = pairwise_prompt(
            question=pair.question, first=a, second=b, gold_answer=pair.gold_answer
        )
        outcome = await client.judge(
            prompt, check_pairwise, item=f"{pair.item}:{'BA' if swapped else 'AB'}"
        )
        finished += 1
        if on_item is not None:
            on_item(finished, total)
        if outcome.value is None:
            return None, outcome.error
        return (_backward if swapped else _forward)(outcome.value), None

    results = await asyncio.gather(*(one(p, s) for p in pairs for s in (False, True)))
    verdicts = []
    for index, pair in enumerate(pairs):
        (fwd, fwd_error), (bwd, bwd_error) = results[2 * index], results[2 * index + 1]
        errors = tuple(e for e in (fwd_error, bwd_error) if e is not None)
        verdicts.append(PairVerdict(pair.item, fwd, bwd, errors))
    return PositionBiasReport(tuple(verdicts))


@dataclass(frozen=True)
class Correlation:
    """Rank and linear correlation of scores with lengths (None when undefined)."""

    n: int
    spearman: float | None
    pearson: float | None


def length_correlation(scores: Sequence[float], lengths: Sequence[float]) -> Correlation:
    """Correlation of verdict scores with answer lengths; None with < 3 items or no spread."""
    if len(scores) != len(lengths):
        raise ValueError(f"got {len(scores)} scores and {len(lengths)} lengths")
    x = np.asarray(lengths, dtype=np.float64)
    y = np.asarray(scores, dtype=np.float64)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(int(x.size), None, None)
    spearman = float(scipy_stats.spearmanr(x, y).statistic)
    pearson = float(np.corrcoef(x, y)[0, 1])
    return Correlation(int(x.size), spearman, pearson)


@dataclass(frozen=True)
class LengthControlled:
    """Raw and length-controlled preference for the first answer of each pair."""

    n: int
    raw: float | None
    controlled: float | None
    slope: float | None


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
    return out


def length_controlled_preference(
    outcomes: Sequence[float], length_differences: Sequence[float], *, ridge: float = 1e-3
) -> LengthControlled:
    """Fit the logistic model of the module docstring by Newton's method.

    ``outcomes``: 1 first preferred, 0 second preferred, 0.5 tie. ``length_differences``:
    len(first) - len(second). ``ridge`` keeps the fit finite when outcomes are separable.

    Example:
        >>> lc = length_controlled_preference([1, 1, 0, 1], [0, 0, 0, 0])
        >>> lc.raw, round(lc.controlled, 2)
        (0.75, 0.75)
    """
    if len(outcomes) != len(length_differences):
        raise ValueError(f"got {len(outcomes)} outcomes and {len(length_differences)} lengths")
    y = np.asarray(outcomes, dtype=np.float64)
    if y.size == 0:
        return LengthControlled(0, None, None, None)
    if np.any((y < 0) | (y > 1)):
        raise ValueError("outcomes must be in [0, 1] (1 first, 0 second, 0.5 tie)")
    d = np.asarray(length_differences, dtype=np.float64)
    spread = float(np.std(d))
    x = np.tanh(d / spread) if spread > 0 else np.zeros_like(d)
    design = np.column_stack([np.ones_like(x), x])
    weights = np.zeros(2)
    penalty = np.diag([ridge, ridge])
    for _ in range(100):
        p = _sigmoid(design @ weights)
        gradient = design.T @ (p - y) + penalty @ weights
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        weights = weights - step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    controlled = 1.0 / (1.0 + math.exp(-float(weights[0])))
    return LengthControlled(int(y.size), float(np.mean(y)), controlled, float(weights[1]))
