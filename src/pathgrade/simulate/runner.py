"""Simulate many conversations: cases x trials, a bounded number at once, in a stable order.

:func:`simulate` runs each conversation (:func:`~pathgrade.simulate.conversation.converse`)
on its own daemon thread, at most ``concurrency`` at a time, and hands each outcome to the
callbacks in job order (case order, then trial), as soon as it and every job before it
ended: so the order of the output never depends on which conversation finished first.

* A conversation that runs longer than ``timeout`` seconds is stopped
  (:meth:`~pathgrade.simulate.conversation.Conversation.stop`): recorded with what it made,
  ``outcome: "timed_out"``; its thread is left to end at its next tool or model call (a
  Python agent stuck in its own code cannot be stopped, only abandoned).
* A conversation that crashes (an exception in the simulator or in a custom user) is
  recorded the same way, ``outcome: "failed"``; the others go on.
* On ``KeyboardInterrupt`` (Ctrl-C, or raised by a callback or an agent), the outcomes
  already finished are handed over (in job order), the conversations in flight are stopped
  and dropped, and :class:`SimulationInterrupted` (a ``KeyboardInterrupt``) is raised with
  the counts.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pathgrade.core.types import Case, Run, Step
from pathgrade.replay.faults import FaultPlan
from pathgrade.simulate.agents import AgentCallable, TurnAgent, as_turn_agent
from pathgrade.simulate.conversation import Conversation, Failure, Limits, Outcome, converse
from pathgrade.simulate.tools import Cancelled, LiveTools, new_task
from pathgrade.simulate.users import ScriptedUser, User

__all__ = ["SimulationInterrupted", "fixtures_by_case", "run_id_of", "simulate"]


class SimulationInterrupted(KeyboardInterrupt):
    """The simulation was interrupted: ``finished`` outcomes were handed over, ``dropped``
    conversations were in flight and ``not_started`` never began."""

    def __init__(self, finished: int, dropped: int, not_started: int) -> None:
        super().__init__(f"{finished} finished, {dropped} in flight dropped")
        self.finished, self.dropped, self.not_started = finished, dropped, not_started


def run_id_of(case_id: str, trial: int) -> str:
    """The run id of a simulated conversation: ``<case_id>#sim-<trial>``."""
    return f"{case_id}#sim-{trial}"


def fixtures_by_case(runs: Iterable[Run]) -> dict[str, tuple[Step, ...]]:
    """The fixtures of each case: the steps of all its runs, in order."""
    out: dict[str, list[Step]] = {}
    for run in runs:
        out.setdefault(run.case_id, []).extend(run.steps)
    return {case_id: tuple(steps) for case_id, steps in out.items()}


@dataclass
class _Job:
    index: int
    conversation: Conversation
    deadline: float | None = None


_Done = tuple[int, Outcome | BaseException]


def simulate(
    cases: Iterable[Case],
    agent: TurnAgent | AgentCallable,
    user: User | Literal["scripted"] = "scripted",
    *,
    trials: int = 1,
    max_turns: int = 10,
    concurrency: int = 4,
    timeout: float | None = None,
    fixtures: Iterable[Run] | None = None,
    faults: FaultPlan | None = None,
    live_tools: LiveTools | None = None,
    budget_tokens: float | None = None,
    budget_cost: float | None = None,
    seed: int = 0,
    timing: bool = True,
    on_run: Callable[[Run], None] | None = None,
    on_failure: Callable[[Failure], None] | None = None,
    settings: Mapping[str, Any] | None = None,
) -> list[Run]:
    """Simulate ``trials`` conversations of every case that has a ``user`` goal; the runs.

    Cases without ``user`` are skipped. ``agent`` is a callable following the agent protocol
    (:mod:`pathgrade.simulate.agents`) or a :class:`TurnAgent`; ``user`` is ``"scripted"``
    (:class:`ScriptedUser`) or a :class:`User`. Tools come from ``fixtures`` (recorded runs,
    by case), ``faults`` and ``live_tools`` (:mod:`pathgrade.simulate.tools`). Each run is
    passed to ``on_run``, each conversation without a turn to ``on_failure``, in job order
    (module docstring); ``settings`` is added to every run's ``metadata["simulator"]``.

    Raises:
        ValueError: a count or limit out of range.
        SimulationInterrupted: on ``KeyboardInterrupt`` (module docstring).
    """
    for name, value in (("trials", trials), ("concurrency", concurrency)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be > 0, got {timeout!r}")
    limits = Limits(max_turns, budget_tokens, budget_cost, timing)
    turn_agent = as_turn_agent(agent)
    speaker: User = ScriptedUser() if user == "scripted" else user
    recorded = fixtures_by_case(fixtures or ())
    described = {
        "user": speaker.describe(),
        "agent": turn_agent.describe(),
        "max_turns": max_turns,
        "seed": seed,
        **(settings or {}),
    }
    conversations: list[Conversation] = []
    for case in cases:
        if case.user is None:
            continue
        for trial in range(trials):
            run_id = run_id_of(case.case_id, trial)
            task = new_task(
                case.case_id,
                run_id,
                trial,
                fixtures=recorded.get(case.case_id, ()),
                faults=faults,
                live=live_tools,
                seed=seed,
            )
            conversations.append(
                Conversation(case.case_id, case.user, trial, run_id, task, limits, described)
            )
    return _Runner(conversations, turn_agent, speaker, concurrency, timeout).run(on_run, on_failure)


class _Runner:
    def __init__(
        self,
        conversations: Sequence[Conversation],
        agent: TurnAgent,
        user: User,
        concurrency: int,
        timeout: float | None,
    ) -> None:
        self.conversations, self.agent, self.user = conversations, agent, user
        self.concurrency, self.timeout = concurrency, timeout
        self.results: queue.Queue[_Done] = queue.Queue()
        self.running: dict[int, _Job] = {}
        self.ended: dict[int, Outcome] = {}
        self.emitted = 0
        self.handed = 0
        self.runs: list[Run] = []

    def _work(self, job: _Job) -> None:
        conversation = job.conversation
        try:
            outcome: Outcome | BaseException = converse(conversation, self.agent, self.user)
        except Cancelled:
            return  # stopped by the runner, which recorded it
        except Exception as error:
            crashed = conversation.stop(f"crashed: {type(error).__name__}: {error}", "failed")
            if crashed is None:
                return
            outcome = crashed
        except BaseException as error:  # KeyboardInterrupt raised by the agent: stop all
            outcome = error
        self.results.put((job.index, outcome))

    def _start(self, index: int) -> None:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        job = _Job(index, self.conversations[index], deadline)
        self.running[index] = job
        name = f"pathgrade-simulate-{index}"
        threading.Thread(target=self._work, args=(job,), name=name, daemon=True).start()

    def _emit(
        self, on_run: Callable[[Run], None] | None, on_failure: Callable[[Failure], None] | None
    ) -> None:
        while self.emitted in self.ended:
            outcome = self.ended.pop(self.emitted)
            self.emitted += 1
            self.handed += 1
            if outcome.run is not None:
                self.runs.append(outcome.run)
                if on_run is not None:
                    on_run(outcome.run)
            elif outcome.failure is not None and on_failure is not None:
                on_failure(outcome.failure)

    def _timed_out(self, now: float) -> None:
        for index, job in list(self.running.items()):
            if job.deadline is not None and job.deadline <= now:
                message = f"timed out after {self.timeout:g} s"
                outcome = job.conversation.stop(message, "timed_out")
                if outcome is not None:
                    del self.running[index]
                    self.ended[index] = outcome

    def _wait(self) -> None:
        deadlines = [j.deadline for j in self.running.values() if j.deadline is not None]
        wait = None if not deadlines else max(0.0, min(deadlines) - time.monotonic())
        try:
            index, outcome = self.results.get(timeout=wait)
        except queue.Empty:
            self._timed_out(time.monotonic())
            return
        if isinstance(outcome, BaseException):
            raise outcome
        if self.running.pop(index, None) is not None:
            self.ended[index] = outcome
        self._timed_out(time.monotonic())  # results arriving back to back skip the timeout

    def run(
        self, on_run: Callable[[Run], None] | None, on_failure: Callable[[Failure], None] | None
    ) -> list[Run]:
        started = 0
        try:
            while self.emitted < len(self.conversations):
                while len(self.running) < self.concurrency and started < len(self.conversations):
                    self._start(started)
                    started += 1
                if self.running:
                    self._wait()
                self._emit(on_run, on_failure)
        except KeyboardInterrupt:
            self._collect()
            dropped = self._cancel()
            try:
                self._drain_finished(on_run, on_failure)
            finally:
                not_started = len(self.conversations) - started
                raise SimulationInterrupted(self.handed, dropped, not_started) from None
        except BaseException:
            self._cancel()
            raise
        return self.runs

    def _collect(self) -> None:
        """Take the outcomes already sent by conversations that ended (no waiting)."""
        while True:
            try:
                index, outcome = self.results.get_nowait()
            except queue.Empty:
                return
            if isinstance(outcome, Outcome) and self.running.pop(index, None) is not None:
                self.ended[index] = outcome

    def _cancel(self) -> int:
        """Stop every conversation in flight; how many there were."""
        for job in self.running.values():
            job.conversation.cancelled.set()
        count = len(self.running)
        self.running.clear()
        return count

    def _drain_finished(
        self, on_run: Callable[[Run], None] | None, on_failure: Callable[[Failure], None] | None
    ) -> None:
        """Hand over every outcome that ended, in job order, skipping the gaps."""
        for index in sorted(self.ended):
            self.emitted = index
            self._emit(on_run, on_failure)
