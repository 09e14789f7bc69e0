"""Execution outcome (level 4 of the tool-call layer): did calls succeed, is the end state right.

A call succeeded when its ``error`` is empty (null or an empty string). Where the case gives an
``expected_state`` and the run a ``final_state``, the two JSON objects are compared by a deep
diff reported field by field, as tau-bench judges a run by its end database state: the run's
state matches when there is no difference at all. Objects are compared key by key, lists
index by index, scalars by JSON equality (``1 == 1.0``, ``"1" != 1``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pathgrade.core.types import Step
from pathgrade.metrics.tool.arguments import json_equal

DiffKind = Literal["changed", "missing", "unexpected"]


@dataclass(frozen=True)
class StateDifference:
    """One field where the final state differs: ``missing`` (expected, absent), ``unexpected``
    (present, not expected) or ``changed`` (both present, different values)."""

    path: str
    kind: DiffKind
    expected: Any = None
    actual: Any = None

    def __str__(self) -> str:
        if self.kind == "missing":
            return f"{self.path}: missing (expected {self.expected!r})"
        if self.kind == "unexpected":
            return f"{self.path}: unexpected {self.actual!r}"
        return f"{self.path}: expected {self.expected!r}, got {self.actual!r}"


def state_diff(expected: Any, actual: Any, path: str = "$") -> list[StateDifference]:
    """Every leaf-level difference between ``expected`` and ``actual``, in a stable order.

    >>> [str(d) for d in state_diff({"a": 1, "b": [1, 2]}, {"a": 1.0, "b": [1], "c": 0})]
    ['$.b[1]: missing (expected 2)', '$.c: unexpected 0']
    """
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[StateDifference] = []
        for key in sorted(expected.keys() | actual.keys(), key=str):
            child = f"{path}.{key}"
            if key not in actual:
                out.append(StateDifference(child, "missing", expected=expected[key]))
            elif key not in expected:
                out.append(StateDifference(child, "unexpected", actual=actual[key]))
            else:
                out.extend(state_diff(expected[key], actual[key], child))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        out = []
        for i in range(max(len(expected), len(actual))):
            child = f"{path}[{i}]"
            if i >= len(actual):
                out.append(StateDifference(child, "missing", expected=expected[i]))
            elif i >= len(expected):
                out.append(StateDifference(child, "unexpected", actual=actual[i]))
            else:
                out.extend(state_diff(expected[i], actual[i], child))
        return out
    if json_equal(expected, actual):
        return []
    return [StateDifference(path, "changed", expected=expected, actual=actual)]


def execution_metrics(steps: Sequence[Step]) -> dict[str, float | None]:
    """``execution_success_rate`` (calls with an empty ``error`` / calls; None without calls)
    and ``execution_errors`` (the count of failed calls)."""
    if not steps:
        return {"execution_success_rate": None, "execution_errors": 0.0}
    failed = sum(1 for s in steps if s.error)
    return {
        "execution_success_rate": (len(steps) - failed) / len(steps),
        "execution_errors": float(failed),
    }
