"""Scores that need no reference: what one run's own calls say about its path.

Every run has them, with or without a reference path (docs/layers.md, "Scores that need no
reference"). Over a run's calls ``c_0 .. c_{n-1}`` (its steps, in order):

* **the same call**: equal ``tool`` and equal ``arguments`` as JSON values (the ``exact``
  argument equality: key order within objects is irrelevant, ``1 == 1.0``, ``true != 1``,
  ``"1" != 1``; :func:`~pathgrade.metrics.trajectory.frozen_values.freeze`);
* **failed**: the step's ``error`` is set and not empty (``""`` is no error).

Definitions (each a count; a run without calls has 0 of each, never undefined):

* ``repeated_calls``: calls ``c_j`` (``j >= 1``) that are the same call as ``c_{j-1}``; a call
  made twice in a row counts 1, three times in a row 2.
* ``retries_without_change``: the repeated calls whose previous call ``c_{j-1}`` failed (a
  retry with nothing changed; a subset of ``repeated_calls``).
* ``loops``: repeated cycles, found greedily from the left. At position ``i``, the period
  ``k`` is the smallest ``k >= 2`` such that the block ``c_i .. c_{i+k-1}`` is not one call
  repeated (that is ``repeated_calls``) and the next ``k`` calls are the same calls in the
  same order. Each further full copy of the block that follows counts 1 (``a,b,a,b``: 1;
  ``a,b,c,a,b,c,a,b,c``: 2; a partial copy counts nothing); the scan goes on after the last
  full copy (copies never overlap). Without such a ``k`` the scan moves on by one call.
* ``tool_errors``: failed calls.
* ``unrecovered_errors``: failed calls ``c_j`` after which no call ``c_l`` (``l > j``) of the
  same tool succeeded. (This asks whether the tool ever worked afterwards; the trajectory
  layer's ``recovery_rate`` and ``unrecovered_error`` defect ask whether the *next* call was a
  retry, a fallback or a clean stop: a failed last call is recovered there, not here.)
* ``empty_retrievals``: retrieval calls (``metadata["retrieval"]`` is ``true``, as the trace
  readers mark them, docs/ingest.md) that did not fail and returned nothing: ``output`` null,
  ``""``, ``[]`` or ``{}``.

Each call that one of these counts is explained by a :class:`~pathgrade.core.results.Finding`
(:func:`health_findings`), e.g. ``{"code": "repeated_call", "step": 3, "message": ...}``.
:mod:`pathgrade.metrics.system.health_batch` computes the same counts for many runs at once
from the trajectory scorer's step codes (a differential test holds them equal).

Example (a lookup that fails twice, then succeeds; then a two-call cycle done twice):
    >>> from pathgrade.core.types import Step
    >>> steps = [Step(tool="lookup", arguments={"id": 1, "x": 2}, error="timeout"),
    ...          Step(tool="lookup", arguments={"x": 2, "id": 1.0}, error="timeout"),
    ...          Step(tool="lookup", arguments={"id": 1, "x": 2}),
    ...          Step(tool="a"), Step(tool="b"), Step(tool="a"), Step(tool="b")]
    >>> health_metrics(steps)
    {'repeated_calls': 2.0, 'retries_without_change': 2.0, 'loops': 1.0, 'tool_errors': 2.0, \
'unrecovered_errors': 0.0, 'empty_retrievals': 0.0}
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from pathgrade.core.results import Finding
from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.frozen_values import freeze

__all__ = [
    "HEALTH_METRICS",
    "call_key",
    "empty_retrievals",
    "health_findings",
    "health_metrics",
    "is_empty_output",
    "loops",
    "repeated_calls",
    "retries_without_change",
    "tool_errors",
    "unrecovered_errors",
]

#: The metrics, in output order.
HEALTH_METRICS = (
    "repeated_calls",
    "retries_without_change",
    "loops",
    "tool_errors",
    "unrecovered_errors",
    "empty_retrievals",
)
_EMPTY_OUTPUTS: tuple[Any, ...] = ("", [], {})


def call_key(step: Step) -> Hashable:
    """What makes two steps the same call: the tool and the arguments' JSON value."""
    return (step.tool, freeze(step.arguments))


def _failed(step: Step) -> bool:
    return bool(step.error)


def repeated_calls(steps: Sequence[Step]) -> list[int]:
    """Positions ``j >= 1`` whose call is the same call as the one before it."""
    keys = [call_key(s) for s in steps]
    return [j for j in range(1, len(keys)) if keys[j] == keys[j - 1]]


def retries_without_change(steps: Sequence[Step]) -> list[int]:
    """Repeated calls (:func:`repeated_calls`) whose previous call failed."""
    return [j for j in repeated_calls(steps) if _failed(steps[j - 1])]


def loop_starts(keys: Sequence[Hashable]) -> list[tuple[int, int]]:
    """``(start of a repeated copy, period)`` of every loop in ``keys`` (module docstring:
    greedy from the left, smallest period first, copies not overlapping)."""
    found: list[tuple[int, int]] = []
    n, i = len(keys), 0
    # same_until[i]: the end of the stretch of one call from i (a block within it is constant)
    same_until = list(range(1, n + 1))
    for j in range(n - 2, -1, -1):
        if keys[j] == keys[j + 1]:
            same_until[j] = same_until[j + 1]
    while i < n:
        period = next(
            (
                k
                for k in range(2, (n - i) // 2 + 1)
                if keys[i + k] == keys[i]  # a cheap first test
                and same_until[i] < i + k
                and keys[i : i + k] == keys[i + k : i + 2 * k]
            ),
            0,
        )
        if not period:
            i += 1
            continue
        copy = i + period
        while keys[copy : copy + period] == keys[i : i + period]:
            found.append((copy, period))
            copy += period
        i = copy
    return found


def loops(steps: Sequence[Step]) -> list[int]:
    """The first position of every repeated copy of a cycle (module docstring)."""
    return [start for start, _ in loop_starts([call_key(s) for s in steps])]


def tool_errors(steps: Sequence[Step]) -> list[int]:
    """Positions of failed calls."""
    return [j for j, s in enumerate(steps) if _failed(s)]


def unrecovered_errors(steps: Sequence[Step]) -> list[int]:
    """Failed calls after which no call of the same tool succeeded."""
    return [
        j
        for j, s in enumerate(steps)
        if _failed(s) and not any(t.tool == s.tool and not _failed(t) for t in steps[j + 1 :])
    ]


def is_empty_output(output: Any) -> bool:
    """Whether a call returned nothing: null, ``""``, ``[]`` or ``{}``."""
    return output is None or (type(output) in (str, list, dict) and output in _EMPTY_OUTPUTS)


def empty_retrievals(steps: Sequence[Step]) -> list[int]:
    """Retrieval calls (``metadata["retrieval"] is True``) that did not fail and returned
    nothing (:func:`is_empty_output`)."""
    return [
        j
        for j, s in enumerate(steps)
        if s.metadata.get("retrieval") is True and not _failed(s) and is_empty_output(s.output)
    ]


_DEFINITIONS = (
    repeated_calls,
    retries_without_change,
    loops,
    tool_errors,
    unrecovered_errors,
    empty_retrievals,
)


def health_metrics(steps: Sequence[Step]) -> dict[str, float]:
    """Every metric of the module docstring for one run's ``steps``."""
    return {
        name: float(len(found(steps)))
        for name, found in zip(HEALTH_METRICS, _DEFINITIONS, strict=True)
    }


def _text(step: Step) -> str:
    return str(step)


def health_findings(steps: Sequence[Step]) -> tuple[Finding, ...]:
    """One :class:`~pathgrade.core.results.Finding` per call that a metric counts, sorted by
    step (then in :data:`HEALTH_METRICS` order)."""
    out: list[Finding] = []
    for j in repeated_calls(steps):
        out.append(Finding("repeated_call", j, f"repeats the call before it: {_text(steps[j])}"))
    for j in retries_without_change(steps):
        message = f"retries {_text(steps[j])} unchanged after it failed: {steps[j - 1].error}"
        out.append(Finding("retry_without_change", j, message))
    for start, period in loop_starts([call_key(s) for s in steps]):
        cycle = ", ".join(_text(s) for s in steps[start - period : start])
        message = f"repeats the {period} calls before it ({cycle})"
        out.append(Finding("loop", start, message))
    for j in tool_errors(steps):
        out.append(Finding("tool_error", j, f"{_text(steps[j])} failed: {steps[j].error}"))
    for j in unrecovered_errors(steps):
        message = f"{steps[j].tool!r} failed and no later call of it succeeded"
        out.append(Finding("unrecovered_tool_error", j, message))
    for j in empty_retrievals(steps):
        out.append(Finding("empty_retrieval", j, f"retrieval {_text(steps[j])} returned nothing"))
    order = {code: i for i, code in enumerate(FINDING_CODES)}
    return tuple(sorted(out, key=lambda f: (f.step, order[f.code])))


#: The codes of :func:`health_findings`, one per metric, in :data:`HEALTH_METRICS` order.
FINDING_CODES = (
    "repeated_call",
    "retry_without_change",
    "loop",
    "tool_error",
    "unrecovered_tool_error",
    "empty_retrieval",
)
