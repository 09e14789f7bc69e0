"""The tools of one simulated conversation: frozen fixtures, injected faults, or live tools.

Each conversation has its own :class:`~pathgrade.replay.harness.ReplayTask` (:func:`new_task`),
so tool calls are answered exactly as ``pathgrade replay`` answers them: from the fixtures
recorded for the case (every step of every run of the case in the fixtures file, in file
order; :mod:`pathgrade.replay.fixtures`), an unrecorded call getting an error observation and
being counted, and a :class:`~pathgrade.replay.faults.FaultPlan` injecting faults. Every call
is a step of the turn it is made in.

**Live tools** (``--live-tools``, ``live_tools=``): calls are not answered from fixtures but
run: ``live_tools[name](arguments)`` (one argument, the call's arguments as given) returns
the output; an exception is the step's error (``TypeError: ...``), an unknown tool the error
``no live tool named '...'``, an output that is not JSON the error ``the tool returned ...``.
Faults still apply (a faulted call is not run). On the command line the live tools are the
agent callable's attribute ``tools`` (a dict of name -> function).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from pathgrade.core.types import Run, Step
from pathgrade.replay.faults import FaultPlan, faulted_observation
from pathgrade.replay.fixtures import FixtureSet
from pathgrade.replay.harness import DEFAULT_EPOCH, Observation, ReplayTask, Unrecorded

__all__ = ["Cancelled", "LiveTask", "LiveTools", "Tools", "new_task"]

#: Live tools by name: each takes the call's arguments and returns its output.
LiveTools = Mapping[str, Callable[[Any], Any]]


class Cancelled(BaseException):
    """Raised inside a conversation that timed out or was interrupted: it stops at its next
    tool or model call (a ``BaseException``: an agent's ``except Exception`` lets it pass)."""


@dataclass
class LiveTask(ReplayTask):
    """A :class:`ReplayTask` whose calls run live tools instead of reading fixtures."""

    live: LiveTools = field(default_factory=dict)

    def call_step(self, tool: str, arguments: Any, **extra: Any) -> Observation:
        fault = self.faults.decide(tool) if self.faults is not None else None
        meta: dict[str, Any] = {"simulate": "live"}
        if fault is not None:
            output, error = faulted_observation(fault.rule, None)
            meta["fault"] = fault.note()
        elif tool not in self.live:
            output, error = None, f"no live tool named {tool!r}"
        else:
            try:
                output, error = self.live[tool](arguments), None
            except Exception as problem:  # the tool's failure is the call's observation
                output, error = None, f"{type(problem).__name__}: {problem}"
        try:
            step = Step(
                tool=tool, arguments=arguments, output=output, error=error, metadata=meta, **extra
            )
        except ValidationError:
            error = f"the tool returned {type(output).__name__}, which is not JSON"
            output, step = None, Step(tool=tool, arguments=arguments, error=error, **extra)
        self._record(step)
        return Observation(output, error, False)


def new_task(
    case_id: str,
    run_id: str,
    trial: int,
    *,
    fixtures: Sequence[Step] = (),
    faults: FaultPlan | None = None,
    live: LiveTools | None = None,
    seed: int = 0,
) -> ReplayTask:
    """The task of one conversation: its own fixtures state, fault state and generator
    (``random.Random(f"{seed}/{case_id}/{trial}")``); live tools when ``live`` is given."""
    recorded = Run(case_id=case_id, steps=tuple(fixtures))
    common: dict[str, Any] = {
        "case_id": case_id,
        "query": None,
        "recorded": recorded,
        "fixtures": FixtureSet(recorded.steps),
        "unrecorded": Unrecorded(),
        "clock": DEFAULT_EPOCH,
        "rng": random.Random(f"{seed}/{case_id}/{trial}"),
        "faults": None if faults is None else faults.injector(case_id, run_id, trial),
    }
    if live is not None:
        return LiveTask(**common, live=live)
    return ReplayTask(**common)


class Tools:
    """The tools object a callable agent gets each turn (:mod:`pathgrade.simulate.agents`).

    ``call(name, arguments)`` (or ``call(name, key=value, ...)``) answers the call and
    records it as a step with the time the call took (``latency_ms``) and a call id
    (``call_<turn>_<n>``); it returns an :class:`~pathgrade.replay.harness.Observation`
    (``output``, ``error``, ``recorded``). ``now()`` is frozen time and ``rng`` the
    conversation's seeded generator (the agent's only sources of time and randomness that
    keep a conversation repeatable).
    """

    def __init__(self, task: ReplayTask, cancelled: threading.Event, turn: int) -> None:
        self._task, self._cancelled, self._turn = task, cancelled, turn
        self.case_id = task.case_id
        self.rng = task.rng

    def __repr__(self) -> str:
        return f"Tools({self.case_id!r}, turn {self._turn})"

    def now(self) -> float:
        """Frozen unix time (it does not advance)."""
        return self._task.now()

    def call(self, name: str, arguments: Any = None, /, **kwargs: Any) -> Observation:
        """Answer one tool call and record it (class docstring)."""
        if self._cancelled.is_set():
            raise Cancelled
        steps = self._task.steps
        made = len(steps)
        start = time.perf_counter()
        observation = self._task.call(name, arguments, **kwargs)
        elapsed = round((time.perf_counter() - start) * 1000.0, 3)
        for index in range(made, len(steps)):
            update = {"latency_ms": elapsed, "call_id": f"call_{self._turn}_{index}"}
            steps[index] = steps[index].model_copy(update=update)
        return observation
