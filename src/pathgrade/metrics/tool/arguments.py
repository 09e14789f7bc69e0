"""Argument correctness (level 3 of the tool-call layer): do the values satisfy the task.

Each agent call is paired with a reference step of the same tool (an optimal one-to-one
assignment per tool, preferring correct pairs, then higher field F1, then pairs in the same
order), and the two argument objects are compared **field by field**:

* arguments are flattened to leaf paths (``window.start``; a positional argument list becomes
  ``[0]``, ``[1]``, ...); lists are leaves, and a path that has its own rule is a leaf too;
* each leaf is compared under its field mode (:class:`pathgrade.core.config.FieldMatch`):
  ``exact`` (the default, used for enums, ids and time windows: deep equality after JSON
  normalisation, ``1 == 1.0`` but ``"1" != 1`` and ``true != 1``), ``normalized`` (NFKC, case
  and whitespace folding, numeric strings as numbers), ``fuzzy`` (rapidfuzz over a
  threshold), ``numeric`` (``|a - b| <= max(abs_tol, rel_tol * |reference|)``), ``ignore``
  (not counted), or the name of a custom validator (:mod:`.validators`);
* field counts: TP = reference fields the agent gave with a matching value, FP = agent fields
  that are wrong or absent from the reference, FN = reference fields missing or wrong.
  precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2TP / (2TP + FP + FN); each is
  undefined (None) when its denominator is 0.
* a call is **correct** when every reference field matches and it adds no field the reference
  lacks (under the call mode ``subset`` extra fields are allowed; under ``ignore`` every call of
  the right tool is correct). A schema-valid call naming the wrong ``service_id`` is incorrect.

Unpaired calls (extra or missing steps) belong to the trajectory layer, not to this one.
"""

from __future__ import annotations

import math
import unicodedata
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from rapidfuzz import fuzz, utils

from pathgrade.core.config import FieldMatch, MatchingConfig
from pathgrade.core.errors import ConfigError
from pathgrade.core.types import Step
from pathgrade.metrics.tool.validators import Validator

FieldStatus = Literal["match", "mismatch", "missing", "extra"]
_FIELD_MODES = ("exact", "normalized", "fuzzy", "ignore")


@dataclass(frozen=True)
class FieldResult:
    """One argument field of a paired call: its path, status, and both values."""

    path: str
    status: FieldStatus
    expected: Any = None
    actual: Any = None


@dataclass(frozen=True)
class CallComparison:
    """One agent call paired with one reference step."""

    tool: str
    step_index: int
    reference_step_index: int
    tp: int
    fp: int
    fn: int
    correct: bool
    fields: tuple[FieldResult, ...]

    @property
    def f1(self) -> float | None:
        denominator = 2 * self.tp + self.fp + self.fn
        return None if denominator == 0 else 2 * self.tp / denominator


def json_equal(a: Any, b: Any) -> bool:
    """Deep equality after JSON normalisation: ``1 == 1.0``, ``"1" != 1``, ``True != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def _normalize(value: Any) -> Any:
    if isinstance(value, str):
        text = " ".join(unicodedata.normalize("NFKC", value).casefold().split())
        try:
            number = float(text)
        except ValueError:
            return text
        return number if math.isfinite(number) else text
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalize(v) for v in value]
    return value


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


_SCORERS = {
    "token_set_ratio": fuzz.token_set_ratio,
    "token_sort_ratio": fuzz.token_sort_ratio,
    "ratio": fuzz.ratio,
    "partial_ratio": fuzz.partial_ratio,
    "WRatio": fuzz.WRatio,
}


class FieldComparer:
    """Compares argument fields under a :class:`MatchingConfig` and a validator table."""

    def __init__(self, matching: MatchingConfig, validators: Mapping[str, Validator]) -> None:
        self.matching = matching
        self.validators = validators

    def call_mode(self, tool: str) -> str:
        override = self.matching.tools.get(tool)
        if override is not None and override.mode is not None:
            return override.mode
        return self.matching.mode

    def rule(self, tool: str, path: str) -> FieldMatch:
        override = self.matching.tools.get(tool)
        if override is not None and path in override.fields:
            return override.fields[path]
        mode = self.call_mode(tool)
        return FieldMatch(mode=mode if mode in _FIELD_MODES else "exact")

    def leaves(self, tool: str, arguments: Any) -> dict[str, Any]:
        override = self.matching.tools.get(tool)
        pinned = frozenset(override.fields) if override is not None else frozenset()
        out: dict[str, Any] = {}
        if isinstance(arguments, list | tuple):
            for i, value in enumerate(arguments):
                out[f"[{i}]"] = value
        elif isinstance(arguments, dict):
            _flatten(arguments, "", pinned, out)
        return out

    def equal(self, tool: str, path: str, actual: Any, expected: Any) -> bool:
        rule = self.rule(tool, path)
        mode = rule.mode
        if mode == "exact":
            return json_equal(actual, expected)
        if mode == "normalized":
            return json_equal(_normalize(actual), _normalize(expected))
        if mode == "numeric":
            a, e = _as_number(actual), _as_number(expected)
            if a is None or e is None:
                return False
            return abs(a - e) <= max(rule.abs_tol, rule.rel_tol * abs(e))
        if mode == "fuzzy":
            if isinstance(actual, str) and isinstance(expected, str):
                scorer = _SCORERS[self.matching.fuzzy_scorer]
                threshold = (
                    rule.threshold if rule.threshold is not None else self.matching.fuzzy_threshold
                )
                score = float(scorer(actual, expected, processor=utils.default_process))
                return score >= threshold
            return json_equal(actual, expected)
        validator = self.validators.get(mode)
        if validator is None:
            raise ConfigError(
                f"unknown argument matching mode or validator {mode!r} for {tool}.{path}",
                field=f"matching.tools.{tool}.fields.{path}.mode",
            )
        return bool(validator(actual, expected))

    def compare(
        self, step: Step, step_index: int, reference: Step, reference_index: int
    ) -> CallComparison:
        """Compare one agent call with one reference step of the same tool."""
        tool = reference.tool
        mode = self.call_mode(tool)
        actual = self.leaves(tool, step.arguments)
        expected = self.leaves(tool, reference.arguments)
        fields: list[FieldResult] = []
        tp = fp = fn = 0
        if mode != "ignore":
            for path in sorted(expected.keys() | actual.keys()):
                if self.rule(tool, path).mode == "ignore":
                    continue
                if path not in actual:
                    fn += 1
                    fields.append(FieldResult(path, "missing", expected=expected[path]))
                elif path not in expected:
                    fp += 1
                    fields.append(FieldResult(path, "extra", actual=actual[path]))
                elif self.equal(tool, path, actual[path], expected[path]):
                    tp += 1
                    fields.append(FieldResult(path, "match", expected[path], actual[path]))
                else:
                    fp += 1
                    fn += 1
                    fields.append(FieldResult(path, "mismatch", expected[path], actual[path]))
        extras_ok = mode == "subset"
        wrong = any(f.status in ("missing", "mismatch") for f in fields)
        extra = any(f.status == "extra" for f in fields)
        correct = not wrong and (extras_ok or not extra)
        return CallComparison(tool, step_index, reference_index, tp, fp, fn, correct, tuple(fields))


def _flatten(
    value: dict[str, Any], prefix: str, pinned: frozenset[str], out: dict[str, Any]
) -> None:
    for key, item in value.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item and path not in pinned:
            _flatten(item, path, pinned, out)
        else:
            out[path] = item


def pair_calls(
    comparer: FieldComparer, steps: Sequence[Step], reference: Sequence[Step]
) -> list[CallComparison]:
    """Pair agent calls with reference steps of the same tool, one to one, optimally.

    The assignment maximises, in order: correct pairs, field F1, closeness in position
    (so that repeated calls with equal scores pair in order). Sorted by agent step index.
    """
    by_tool_agent: dict[str, list[int]] = defaultdict(list)
    by_tool_ref: dict[str, list[int]] = defaultdict(list)
    for i, step in enumerate(steps):
        by_tool_agent[step.tool].append(i)
    for j, step in enumerate(reference):
        by_tool_ref[step.tool].append(j)
    pairs: list[CallComparison] = []
    for tool in sorted(by_tool_agent.keys() & by_tool_ref.keys()):
        agent_idx, ref_idx = by_tool_agent[tool], by_tool_ref[tool]
        grid = [
            [comparer.compare(steps[i], i, reference[j], j) for j in ref_idx] for i in agent_idx
        ]
        gain = np.array(
            [
                [2.0 * c.correct + (c.f1 or 0.0) - 1e-6 * abs(a - r) for r, c in enumerate(row)]
                for a, row in enumerate(grid)
            ]
        )
        from scipy.optimize import linear_sum_assignment  # imported on use (slow import)

        rows, cols = linear_sum_assignment(gain, maximize=True)
        pairs.extend(grid[int(r)][int(c)] for r, c in zip(rows, cols, strict=True))
    return sorted(pairs, key=lambda c: c.step_index)


@dataclass(frozen=True)
class ArgumentSummary:
    """Argument correctness of one run against one reference path."""

    reference_index: int | None
    calls: tuple[CallComparison, ...]

    @property
    def n_correct(self) -> int:
        return sum(c.correct for c in self.calls)

    def metrics(self) -> dict[str, float | None]:
        """``argument_correctness`` and micro-averaged field precision/recall/F1."""
        if not self.calls:
            return {
                "argument_correctness": None,
                "argument_precision": None,
                "argument_recall": None,
                "argument_f1": None,
            }
        tp = sum(c.tp for c in self.calls)
        fp = sum(c.fp for c in self.calls)
        fn = sum(c.fn for c in self.calls)
        return {
            "argument_correctness": self.n_correct / len(self.calls),
            "argument_precision": None if tp + fp == 0 else tp / (tp + fp),
            "argument_recall": None if tp + fn == 0 else tp / (tp + fn),
            "argument_f1": None if 2 * tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn),
        }


def best_argument_summary(
    comparer: FieldComparer,
    steps: Sequence[Step],
    paths: Sequence[Sequence[Step]],
    reference_index: int | None = None,
) -> ArgumentSummary:
    """Pair ``steps`` against the given reference path, or the best one.

    Without ``reference_index`` the path with the most correct calls wins (ties: the higher
    summed field F1, then the lower index).
    """
    if not paths:
        return ArgumentSummary(None, ())
    if reference_index is not None:
        return ArgumentSummary(
            reference_index, tuple(pair_calls(comparer, steps, paths[reference_index]))
        )
    summaries = [
        ArgumentSummary(index, tuple(pair_calls(comparer, steps, path)))
        for index, path in enumerate(paths)
    ]
    # max() keeps the first of equal keys, so ties go to the lower index.
    return max(summaries, key=lambda s: (s.n_correct, sum(c.f1 or 0.0 for c in s.calls)))
