"""Latency, tokens and cost of a run: the system layer's per-run amounts.

Per run (``None`` = unknown, never 0):

* ``latency_ms``: the run's recorded ``usage.latency_ms``, else the sum of its steps'
  ``latency_ms`` when any step has one (the same totals as the budget check,
  :func:`pathgrade.metrics.trajectory.runlevel.usage_totals`; parallel steps are summed, so
  it is the time spent in calls, not wall-clock time), else unknown.
* ``tokens``: the recorded ``usage.tokens``, else ``usage.input_tokens + usage.output_tokens``
  when both are recorded, else the sum over steps, else unknown.
* ``cost`` (USD; a recorded cost is taken to be USD): in order, the first that applies
  (its *source*):

  1. ``recorded``: ``usage.cost``;
  2. ``steps``: the sum of the steps' ``cost`` when any step has one;
  3. ``priced``: from the price table (``[prices."model"]``) of the run's model
     (``run.metadata["model"]``, the name ingest found in the trace, matched exactly):
     ``(input_tokens * input_per_mtok + output_tokens * output_per_mtok) / 1e6``. The split
     is ``usage.input_tokens``/``usage.output_tokens``; when one of them and the total are
     recorded, the other is the total minus it. With only a total (most readers record
     only the total), the cost is ``tokens * price / 1e6`` when both prices are equal,
     otherwise unknown;
  4. unknown, counted by its reason: ``no_tokens`` (nothing to price), ``no_model`` (the
     trace names no model), ``unknown_model`` (no price for the model), ``no_token_split``
     (only a total, and the input and output prices differ).

Example (1,000 input tokens at $2.50 and 200 output tokens at $10 per million:
``(1000 * 2.5 + 200 * 10) / 1e6 = 0.0045``):
    >>> from pathgrade.core.config import Price
    >>> run = Run(case_id="c", metadata={"model": "m"},
    ...           usage={"input_tokens": 1000, "output_tokens": 200})
    >>> run_usage(run, {"m": Price(input_per_mtok=2.5, output_per_mtok=10)}).cost
    0.0045
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from pathgrade.core.config import Price
from pathgrade.core.types import Run, Step

__all__ = [
    "AMOUNTS",
    "UNITS",
    "CostSource",
    "RunUsage",
    "UsageColumns",
    "run_usage",
    "usage_columns",
]

FloatArray = NDArray[np.float64]
#: The per-run amounts, in the order the layer emits them.
AMOUNTS = ("latency_ms", "tokens", "cost")
#: The unit of each amount.
UNITS: Mapping[str, str] = {"latency_ms": "ms", "tokens": "tokens", "cost": "USD"}
CostSource = Literal[
    "recorded", "steps", "priced", "no_tokens", "no_model", "unknown_model", "no_token_split"
]
_KNOWN_SOURCES = frozenset({"recorded", "steps", "priced"})
_MTOK = 1_000_000.0


@dataclass(frozen=True)
class RunUsage:
    """One run's amounts (``None`` = unknown) and where its cost came from (or why not)."""

    latency_ms: float | None
    tokens: float | None
    cost: float | None
    cost_source: CostSource


def _step_sum(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(sum(known)) if known else None


def _split(
    total: float | None, inputs: float | None, outputs: float | None
) -> tuple[float, float] | None:
    """``(input, output)`` tokens when recorded or implied by the total; else ``None``."""
    if inputs is not None and outputs is not None:
        return inputs, outputs
    if total is not None and inputs is not None and total >= inputs:
        return inputs, total - inputs
    if total is not None and outputs is not None and total >= outputs:
        return total - outputs, outputs
    return None


def _priced(
    run: Run, tokens: float | None, prices: Mapping[str, Price]
) -> tuple[float | None, CostSource]:
    usage = run.usage
    inputs = usage.input_tokens if usage else None
    outputs = usage.output_tokens if usage else None
    if tokens is None and inputs is None and outputs is None:
        return None, "no_tokens"
    model = run.metadata.get("model")
    if not isinstance(model, str) or not model:
        return None, "no_model"
    price = prices.get(model)
    if price is None:
        return None, "unknown_model"
    split = _split(usage.tokens if usage else None, inputs, outputs)
    if split is not None:
        cost = split[0] * price.input_per_mtok + split[1] * price.output_per_mtok
        return cost / _MTOK, "priced"
    if tokens is not None and price.input_per_mtok == price.output_per_mtok:
        return tokens * price.input_per_mtok / _MTOK, "priced"
    return None, "no_token_split"


def run_usage(run: Run, prices: Mapping[str, Price]) -> RunUsage:
    """The run's latency, tokens and cost (module docstring)."""
    usage, steps = run.usage, run.steps
    latency = usage.latency_ms if usage and usage.latency_ms is not None else None
    if latency is None:
        latency = _step_sum([s.latency_ms for s in steps])
    tokens = usage.tokens if usage else None
    split = (usage.input_tokens, usage.output_tokens) if usage else (None, None)
    if tokens is None and split[0] is not None and split[1] is not None:
        tokens = split[0] + split[1]
    if tokens is None:
        tokens = _step_sum([s.tokens for s in steps])
    if usage is not None and usage.cost is not None:
        return RunUsage(latency, tokens, usage.cost, "recorded")
    step_cost = _step_sum([s.cost for s in steps])
    if step_cost is not None:
        return RunUsage(latency, tokens, step_cost, "steps")
    cost, source = _priced(run, tokens, prices)
    return RunUsage(latency, tokens, cost, source)


_USAGE = attrgetter("usage")
_STEPS = attrgetter("steps")
#: A step's amounts, read at C speed; a step without any is ``_NO_AMOUNT``.
_AMOUNTS = attrgetter("latency_ms", "tokens", "cost")
_NO_AMOUNT = (None, None, None)


def _has_amount(step: Step) -> bool:
    return step.latency_ms is not None or step.tokens is not None or step.cost is not None


@dataclass
class UsageColumns:
    """Per-run columns of the amounts some run has (``nan`` = unknown), and the runs' cost
    sources: ``sources`` for the known costs, ``unknown`` (reason -> runs) for the rest."""

    values: dict[str, FloatArray] = field(default_factory=dict)
    sources: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)


def usage_columns(
    runs: Sequence[Run], prices: Mapping[str, Price], *, any_step_amount: bool | None = None
) -> UsageColumns:
    """:func:`run_usage` of every run, as columns. ``latency_ms`` and ``tokens`` are emitted
    when some run has them; ``cost`` when some run has a cost or something to price (its
    unknown costs are then ``nan`` and counted by reason). ``any_step_amount``: whether any
    step records an amount, when the caller knows it
    (:attr:`~pathgrade.core.run_columns.RunColumns.step_facts`), which saves a pass."""
    n = len(runs)
    out = UsageColumns()
    if any_step_amount is None:
        steps = chain.from_iterable(map(_STEPS, runs))
        any_step_amount = any(map(_NO_AMOUNT.__ne__, map(_AMOUNTS, steps)))
    if not any_step_amount and not any(map(_USAGE, runs)):
        return out  # nothing recorded, nothing to price: what the pass below would find
    columns = [np.full(n, math.nan) for _ in AMOUNTS]
    sources: dict[str, int] = {}
    for index, run in enumerate(runs):
        # Fast path (no usage, no step amounts): what run_usage gives, without building it.
        if run.usage is None and not any(map(_has_amount, run.steps)):
            sources["no_tokens"] = sources.get("no_tokens", 0) + 1
            continue
        found = run_usage(run, prices)
        amounts = (found.latency_ms, found.tokens, found.cost)
        for column, value in zip(columns, amounts, strict=True):
            if value is not None:
                column[index] = value
        sources[found.cost_source] = sources.get(found.cost_source, 0) + 1
    for source, count in sources.items():
        (out.sources if source in _KNOWN_SOURCES else out.unknown)[source] = count
    out.values = dict(zip(AMOUNTS, columns, strict=True))
    for name in ("latency_ms", "tokens"):
        if np.isnan(out.values[name]).all():
            del out.values[name]
    if set(out.unknown) <= {"no_tokens"} and not out.sources:  # nothing to price
        del out.values["cost"]
        out.unknown.clear()
    return out
