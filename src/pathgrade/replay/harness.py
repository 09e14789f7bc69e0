"""Replay an agent against frozen tool fixtures recorded from a run.

The agent is any callable ``agent(task) -> answer`` (a string or ``None``). Through the
:class:`ReplayTask` it sees the case's query, calls tools with :meth:`ReplayTask.call` (each
answered from the recording, see :mod:`pathgrade.replay.fixtures`), and reads frozen time
(:meth:`ReplayTask.now`) and seeded randomness (:attr:`ReplayTask.rng`). With
``freeze_globals`` the harness also freezes ``time.time``/``time.time_ns`` and seeds the
``random`` module for the duration of the agent's call, restoring both afterwards.

A call with no matching recording gets the configured reply (:class:`Unrecorded`): an error
observation by default, a fixed value, or an abort; every such call is flagged in the step's
``metadata["replay"]`` and counted in the run's ``metadata["replay"]["unrecorded"]``.
Agents that drive a model (:mod:`pathgrade.replay.tool_loop`) record each call's provenance
with :meth:`ReplayTask.call_step`, calls whose argument text is not JSON with
:meth:`ReplayTask.reject`, their model calls' totals with :meth:`ReplayTask.add_usage` (the
run's ``usage``) and anything else in :attr:`ReplayTask.notes`.
With a fault plan (:mod:`pathgrade.replay.faults`) tool calls get injected faults, flagged in
the step's ``metadata["fault"]`` and counted in the run's ``metadata["replay"]["faults"]``;
with ``interrupt_at`` the agent is stopped after that step and restarted
(:mod:`pathgrade.replay.interrupt`).
The replayed run is an ordinary :class:`~pathgrade.core.types.Run`: score it and compare it
like any other.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from pathgrade.core.config import MatchingConfig
from pathgrade.core.types import Case, Run, Step, Usage
from pathgrade.metrics.trajectory.arguments import ValueMatcher
from pathgrade.replay.faults import FaultInjector, FaultPlan, fault_counts, faulted_observation
from pathgrade.replay.fixtures import FixtureSet
from pathgrade.replay.interrupt import ReplayInterrupt, check_interrupt_at, mark_resumed

UnrecordedMode = Literal["error", "value", "abort"]
#: Frozen time when the recording has none: 2024-01-01T00:00:00Z.
DEFAULT_EPOCH = 1_704_067_200.0


class UnrecordedCallError(RuntimeError):
    """Raised inside the agent on an unrecorded call when the policy is ``abort``."""


@dataclass(frozen=True)
class Unrecorded:
    """What an unrecorded call gets: ``error`` (an error observation, the default),
    ``value`` (``reply`` as the output), or ``abort`` (the run stops there)."""

    mode: UnrecordedMode = "error"
    reply: Any = None
    message: str = "no recorded result for this call (replay)"


@dataclass(frozen=True)
class Observation:
    """What a tool call returns in replay."""

    output: Any
    error: str | None
    recorded: bool


@dataclass
class ReplayTask:
    """The agent's view of one replayed case."""

    case_id: str
    query: str | None
    recorded: Run
    fixtures: FixtureSet
    unrecorded: Unrecorded
    clock: float
    rng: random.Random
    steps: list[Step] = field(default_factory=list)
    misses: int = 0
    malformed: int = 0
    #: What the agent reports about itself (model, turns, stop reason), kept in the run's
    #: ``metadata["replay"]["agent"]``.
    notes: dict[str, Any] = field(default_factory=dict)
    #: Totals of the agent's own model calls (see :meth:`add_usage`): the run's ``usage``.
    usage: dict[str, float] = field(default_factory=dict)
    #: The run's fault state (None: no fault plan).
    faults: FaultInjector | None = None
    #: Stop the agent right after its step ``interrupt_at`` is made (None: never).
    interrupt_at: int | None = None
    #: True in the agent's second attempt, after an interruption.
    resumed: bool = False
    #: The steps made before the interruption: the state the agent resumes from.
    checkpoint: tuple[Step, ...] = ()
    _mark_next: bool = field(default=False, init=False, repr=False)

    def _record(self, step: Step) -> None:
        if self._mark_next:
            step, self._mark_next = mark_resumed(step), False
        self.steps.append(step)

    def _after_step(self) -> None:
        at = self.interrupt_at
        if at is not None and not self.resumed and len(self.steps) == at:
            raise ReplayInterrupt(at)

    def restart(self) -> None:
        """Prepare the agent's second attempt after an interruption."""
        self.resumed, self.checkpoint, self._mark_next = True, tuple(self.steps), True

    def now(self) -> float:
        """Frozen unix time: the recording's start (it does not advance)."""
        return self.clock

    def call(self, tool: str, arguments: Any = None, /, **kwargs: Any) -> Observation:
        """Call ``tool`` with ``arguments`` (a dict or list) or keyword arguments."""
        args: Any = dict(kwargs) if arguments is None else arguments
        if arguments is not None and kwargs:
            raise TypeError("give the arguments either as one value or as keywords, not both")
        return self.call_step(tool, args)

    def call_step(
        self,
        tool: str,
        arguments: Any,
        *,
        turn: int | None = None,
        call_id: str | None = None,
        raw_arguments: str | None = None,
        latency_ms: float | None = None,
        tokens: float | None = None,
        cost: float | None = None,
    ) -> Observation:
        """:meth:`call` with the step's provenance: the model turn that made the call (parallel
        calls share it), the call id, the argument text, and the model call's measurements."""
        extra: dict[str, Any] = {
            "turn": turn, "call_id": call_id, "raw_arguments": raw_arguments,
            "latency_ms": latency_ms, "tokens": tokens, "cost": cost,
        }  # fmt: skip
        fault = self.faults.decide(tool) if self.faults is not None else None
        fixture = self.fixtures.lookup(tool, arguments, consume=fault is None)
        meta: dict[str, Any]
        if fixture is not None:
            meta = {"replay": "recorded", "fixture": fixture.index}
            obs = Observation(fixture.output, fixture.error, True)
        else:
            self.misses += 1
            meta = {"replay": "unrecorded"}
        if fault is not None:
            recorded = None if fixture is None else fixture.output
            obs = Observation(*faulted_observation(fault.rule, recorded), fixture is not None)
            meta["fault"] = fault.note()
        elif fixture is None:
            if self.unrecorded.mode == "abort":
                self._record(
                    Step(
                        tool=tool,
                        arguments=arguments,
                        error=self.unrecorded.message,
                        metadata=meta,
                        **extra,
                    )
                )
                raise UnrecordedCallError(f"unrecorded call {tool}({arguments!r})")
            if self.unrecorded.mode == "value":
                obs = Observation(self.unrecorded.reply, None, False)
            else:
                obs = Observation(None, self.unrecorded.message, False)
        self._record(
            Step(
                tool=tool,
                arguments=arguments,
                output=obs.output,
                error=obs.error,
                metadata=meta,
                **extra,
            )
        )
        self._after_step()
        return obs

    def reject(
        self,
        tool: str,
        raw_arguments: str,
        message: str,
        *,
        turn: int | None = None,
        call_id: str | None = None,
        latency_ms: float | None = None,
        tokens: float | None = None,
        cost: float | None = None,
    ) -> Observation:
        """Record a call whose argument text could not be read, answered with ``message`` as an
        error observation (no fixture is consulted); flagged ``"malformed_arguments"``."""
        self.malformed += 1
        self._record(
            Step(
                tool=tool,
                raw_arguments=raw_arguments,
                error=message,
                turn=turn,
                call_id=call_id,
                latency_ms=latency_ms,
                tokens=tokens,
                cost=cost,
                metadata={"replay": "malformed_arguments", "arguments_unparsed": True},
            )
        )
        self._after_step()
        return Observation(None, message, False)

    def add_usage(
        self, *, tokens: float | None = None, cost: float | None = None, latency_ms: float = 0.0
    ) -> None:
        """Add one model call's measurements to the run's totals (``Run.usage``)."""
        for name, value in (("tokens", tokens), ("cost", cost), ("latency_ms", latency_ms)):
            if value is not None:
                self.usage[name] = self.usage.get(name, 0.0) + value


Agent = Callable[[ReplayTask], Any]


@contextmanager
def frozen_globals(now: float, seed: int) -> Iterator[None]:
    """Freeze ``time.time``/``time.time_ns`` at ``now`` and seed ``random``; restore after."""
    saved_time, saved_ns, state = time.time, time.time_ns, random.getstate()
    time.time = lambda: now
    time.time_ns = lambda: int(now * 1e9)
    random.seed(seed)
    try:
        yield
    finally:
        time.time, time.time_ns = saved_time, saved_ns
        random.setstate(state)


def _start_time(run: Run) -> float:
    starts = [s.start_time for s in run.steps if s.start_time is not None]
    return min(starts) if starts else DEFAULT_EPOCH


def replay_run(
    recorded: Run,
    agent: Agent,
    *,
    case: Case | None = None,
    matching: MatchingConfig | None = None,
    plugins: Mapping[str, ValueMatcher] | None = None,
    unrecorded: Unrecorded | None = None,
    seed: int = 0,
    label: str = "replay",
    freeze_globals: bool = True,
    faults: FaultPlan | None = None,
    interrupt_at: int | None = None,
) -> Run:
    """Run ``agent`` once against the fixtures of ``recorded``; the replayed run.

    The agent's answer is the run's ``answer`` (``str(answer)`` unless ``None``). An agent
    exception other than an abort on an unrecorded call propagates. ``faults`` injects the
    plan's faults into the tool calls (:mod:`pathgrade.replay.faults`); ``interrupt_at=K``
    stops the agent after step ``K`` and calls it again, resumed
    (:mod:`pathgrade.replay.interrupt`).

    Raises:
        InputError: ``interrupt_at`` below 1.
    """
    check_interrupt_at(interrupt_at)
    task = ReplayTask(
        case_id=recorded.case_id,
        query=case.query if case is not None else None,
        recorded=recorded,
        fixtures=FixtureSet.from_run(recorded, matching, plugins),
        unrecorded=unrecorded or Unrecorded(),
        clock=_start_time(recorded),
        rng=random.Random(seed),
        faults=None if faults is None else faults.injector(*_identity(recorded)),
        interrupt_at=interrupt_at,
    )
    aborted = False
    answer: Any = None
    with frozen_globals(task.clock, seed) if freeze_globals else _nothing():
        try:
            try:
                answer = agent(task)
            except ReplayInterrupt:
                task.restart()
                answer = agent(task)
        except UnrecordedCallError:
            aborted = True
    run_id = f"{recorded.run_id or recorded.case_id}#{label}"
    replay: dict[str, Any] = {
        "source_run": recorded.run_id,
        "label": label,
        "seed": seed,
        "unrecorded": task.misses,
        "malformed_arguments": task.malformed,
        "unused_fixtures": len(task.fixtures.unused()),
        "aborted": aborted,
    }
    if faults is not None:
        injected = fault_counts(task.faults)
        replay["faults"] = {
            "injected": sum(injected.values()),
            "by_kind": injected,
            "plan": faults.describe(),
        }
    if interrupt_at is not None:
        replay["interrupt"] = {"at": interrupt_at, "interrupted": task.resumed}
    if task.notes:
        replay["agent"] = dict(task.notes)
    return Run(
        case_id=recorded.case_id,
        run_id=run_id,
        trial=recorded.trial,
        steps=tuple(task.steps),
        answer=None if answer is None else str(answer),
        usage=Usage(**task.usage) if task.usage else None,
        metadata={"replay": replay},
    )


def _identity(run: Run) -> tuple[str, str | None, int]:
    return run.case_id, run.run_id, run.trial


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def replay_runs(
    recorded: Iterable[Run],
    agent: Agent,
    *,
    cases: Mapping[str, Case] | None = None,
    **options: Any,
) -> Iterator[Run]:
    """:func:`replay_run` over many recorded runs (same options for each)."""
    for run in recorded:
        yield replay_run(run, agent, case=(cases or {}).get(run.case_id), **options)
