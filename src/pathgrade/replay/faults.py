"""Faults injected into tool calls during replay: a plan of rules and its per-run injector.

A :class:`FaultPlan` is an ordered list of :class:`FaultRule`. For each tool call of a replayed
run (through :meth:`~pathgrade.replay.harness.ReplayTask.call`; a call whose argument text is
not JSON is not a call of the tool and is never faulted), the first rule that applies decides
the fault:

* ``tool``: the rule's tool (``None``: every tool);
* ``nth``: the 1-based positions of the call among the run's calls of ``tool`` (of all calls
  when ``tool`` is ``None``), counted over the whole run, a restart after an interruption
  included; empty: every call;
* ``probability``: the chance that a call which passed the two tests above is faulted, drawn
  from the run's own generator, ``random.Random(f"{seed}/{case_id}/{run_id}/{trial}")``
  (the plan's ``seed``, not the agent's): the same plan and the same calls give the same
  faults in any process and in any order of runs. A draw is made only for a rule with
  ``probability < 1`` that passed the two tests.

What the agent observes (:func:`faulted_observation`), for ``output`` the recording that would
have answered (``None`` when unrecorded):

=====================  ====================================================================
``timeout``            no output; error ``"timeout: the tool did not answer in time"``
``error``              no output; error ``"HTTP <status>: Service Unavailable"`` (503)
``mcp_is_error``       an MCP ``CallToolResult`` ``{"isError": true, "content": [{"type":
                       "text", "text": message}]}``; error ``message`` (``"tool error"``), as
                       ingest reads such a result
``empty_result``       ``""``, ``[]`` or ``{}`` for a string, list or object output; else none
``truncated_result``   the first ``floor(len * keep)`` characters, items or keys (``keep`` 0.5)
                       of a string, list or object; any other output unchanged
``permission_denied``  no output; error ``"permission denied"``
=====================  ====================================================================

``message`` replaces the error text of any kind that has one. A faulted call does not consume
its recording, so a retry is answered by the recording the faulted call would have had.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

FaultKind = Literal[
    "timeout", "error", "mcp_is_error", "empty_result", "truncated_result", "permission_denied"
]
FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)

_MESSAGES: dict[str, str] = {
    "timeout": "timeout: the tool did not answer in time",
    "mcp_is_error": "tool error",
    "permission_denied": "permission denied",
}


@dataclass(frozen=True)
class FaultRule:
    """One rule of a fault plan (see the module docstring for how it applies)."""

    kind: FaultKind
    tool: str | None = None
    nth: tuple[int, ...] = ()
    probability: float = 1.0
    message: str | None = None
    status: int = 503
    keep: float = 0.5

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"kind must be one of {', '.join(FAULT_KINDS)}, got {self.kind!r}")
        if any(n < 1 for n in self.nth):
            raise ValueError(f"nth counts calls from 1, got {list(self.nth)}")
        if not 0.0 <= self.probability <= 1.0:
            raise ValueError(f"probability must be in [0, 1], got {self.probability!r}")
        if not 500 <= self.status <= 599:
            raise ValueError(f"status must be a 5xx code, got {self.status!r}")
        if not 0.0 <= self.keep < 1.0:
            raise ValueError(f"keep must be in [0, 1), got {self.keep!r}")

    def describe(self) -> dict[str, Any]:
        """The rule as written in a faults file (defaults left out)."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.tool is not None:
            out["tool"] = self.tool
        if self.nth:
            out["nth"] = list(self.nth)
        if self.probability != 1.0:
            out["probability"] = self.probability
        if self.message is not None:
            out["message"] = self.message
        if self.kind == "error":
            out["status"] = self.status
        if self.kind == "truncated_result":
            out["keep"] = self.keep
        return out


@dataclass(frozen=True)
class FaultPlan:
    """Rules tried in order (the first that applies wins) and the seed of their draws."""

    rules: tuple[FaultRule, ...]
    seed: int = 0
    #: Where the plan came from (a file name), kept in the replayed runs' metadata.
    source: str | None = None

    def __repr__(self) -> str:
        where = f", from {self.source!r}" if self.source else ""
        return f"FaultPlan({len(self.rules)} rule(s), seed={self.seed}{where})"

    def describe(self) -> dict[str, Any]:
        """What a replayed run records of the plan (``metadata["replay"]["faults"]["plan"]``)."""
        return {
            "source": self.source,
            "seed": self.seed,
            "rules": [rule.describe() for rule in self.rules],
        }

    def injector(self, case_id: str, run_id: str | None, trial: int) -> FaultInjector:
        """The fault state of one replayed run: call counters and its own generator."""
        return FaultInjector(self, random.Random(f"{self.seed}/{case_id}/{run_id}/{trial}"))


@dataclass(frozen=True)
class Fault:
    """The fault a call got: the rule's index in the plan and the rule."""

    index: int
    rule: FaultRule

    def note(self) -> dict[str, Any]:
        """The step's ``metadata["fault"]``."""
        return {"kind": self.rule.kind, "rule": self.index}


@dataclass
class FaultInjector:
    """Decides, call by call, which fault (if any) a replayed run's tool call gets."""

    plan: FaultPlan
    rng: random.Random
    calls: Counter[str] = field(default_factory=Counter)
    total: int = 0
    injected: Counter[str] = field(default_factory=Counter)

    def decide(self, tool: str) -> Fault | None:
        """Count one call of ``tool`` and return its fault, or ``None``."""
        self.calls[tool] += 1
        self.total += 1
        for index, rule in enumerate(self.plan.rules):
            if rule.tool is not None and rule.tool != tool:
                continue
            position = self.total if rule.tool is None else self.calls[tool]
            if rule.nth and position not in rule.nth:
                continue
            if rule.probability < 1.0 and not self.rng.random() < rule.probability:
                continue
            self.injected[rule.kind] += 1
            return Fault(index, rule)
        return None


def faulted_observation(rule: FaultRule, output: Any) -> tuple[Any, str | None]:
    """``(output, error)`` that a call faulted by ``rule`` returns instead of ``output``."""
    kind = rule.kind
    if kind == "empty_result":
        return _empty_like(output), None
    if kind == "truncated_result":
        return _truncated(output, rule.keep), None
    if kind == "error":
        return None, rule.message or f"HTTP {rule.status}: Service Unavailable"
    message = rule.message or _MESSAGES[kind]
    if kind == "mcp_is_error":
        return {"isError": True, "content": [{"type": "text", "text": message}]}, message
    return None, message


def _empty_like(output: Any) -> Any:
    if isinstance(output, str):
        return ""
    if isinstance(output, list | tuple):
        return []
    if isinstance(output, dict):
        return {}
    return None


def _truncated(output: Any, keep: float) -> Any:
    if isinstance(output, str | list | tuple | dict):
        n = math.floor(len(output) * keep)
        if isinstance(output, dict):
            return dict(list(output.items())[:n])
        if isinstance(output, str):
            return output[:n]
        return list(output[:n])
    return output


def fault_counts(injector: FaultInjector | None) -> dict[str, int]:
    """Injected faults by kind (for the run's metadata), in :data:`FAULT_KINDS` order."""
    if injector is None:
        return {}
    return {k: injector.injected[k] for k in FAULT_KINDS if injector.injected[k]}
