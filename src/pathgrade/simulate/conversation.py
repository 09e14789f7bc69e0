"""Drive one conversation between a simulated user and an agent; its run.

The user speaks first; then each turn is the agent's answer (tool calls and a reply) to the
user's message, followed by the user's next message. The conversation stops, and its last
turn records why (``Turn.ended_by``):

* ``"user"``: the user's next message contains the goal's ``stop`` signal; that message is
  not a turn (its usage is added to the last turn's ``user_usage``, and its text, when it
  says more than the signal, is the last turn's ``metadata["user_stop"]``);
* ``"agent"``: the agent ended it (``end=True``, or a call of one of ``transfer_tools``);
* ``"max_turns"``: the turn was the ``max_turns``-th;
* ``"budget"``: the conversation's tokens (agent and user together) reached
  ``budget_tokens``, or its cost ``budget_cost``, after a turn;
* ``"error"``: the agent's turn failed (``Turn.error``), or the user could not give its
  next message, or the conversation timed out or crashed (then the turn in progress is
  recorded with what it made so far and no reply).

The run (:meth:`Conversation.run`) has the turns, ``usage`` = the agent's totals (the user's
are in each turn's ``user_usage`` only), and ``metadata["simulator"]`` (the caller's
settings, plus ``outcome``: ``finished``, ``failed`` or ``timed_out``, and the replay
counters); a failed one also has ``metadata["error"]``. A conversation that failed before its
first turn began (the user gave no first message, or stopped at once) has no run: it is a
:class:`Failure`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pathgrade.core.conversation import EndReason, Turn, UserGoal
from pathgrade.core.types import Run, Step, Usage
from pathgrade.replay.faults import fault_counts
from pathgrade.replay.harness import ReplayTask
from pathgrade.replay.tool_loop import checkpoint_messages
from pathgrade.simulate.agents import AgentTurn, TurnAgent, TurnContext
from pathgrade.simulate.tools import Cancelled
from pathgrade.simulate.users import Said, User, UserError

__all__ = ["Conversation", "Failure", "Limits", "Outcome", "Status", "converse"]

Status = Literal["finished", "failed", "timed_out"]


@dataclass(frozen=True)
class Limits:
    """When a conversation stops (module docstring), and whether timings are kept
    (``timing=False`` drops every ``latency_ms``, for byte-identical transcripts)."""

    max_turns: int = 10
    budget_tokens: float | None = None
    budget_cost: float | None = None
    timing: bool = True

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {self.max_turns}")
        for name in ("budget_tokens", "budget_cost"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be > 0, got {value!r}")


@dataclass(frozen=True)
class Failure:
    """A conversation with no turn to record (its run cannot exist)."""

    case_id: str
    trial: int
    run_id: str
    status: Status
    error: str

    def record(self) -> dict[str, Any]:
        """The line written to the errors file."""
        return {
            "case_id": self.case_id,
            "trial": self.trial,
            "run_id": self.run_id,
            "outcome": self.status,
            "error": self.error,
        }


@dataclass(frozen=True)
class Outcome:
    """How a conversation ended: its run, or its :class:`Failure` when it has no turn."""

    status: Status
    run: Run | None = None
    failure: Failure | None = None


def _add(a: Usage | None, b: Usage | None) -> Usage | None:
    if a is None or b is None:
        return a or b
    sums = {}
    for name in ("tokens", "cost", "latency_ms"):
        x, y = getattr(a, name), getattr(b, name)
        sums[name] = None if x is None and y is None else (x or 0.0) + (y or 0.0)
    return Usage(**sums)


def _untimed_usage(usage: Usage | None) -> Usage | None:
    if usage is None or (usage.tokens is None and usage.cost is None):
        return None
    return usage.model_copy(update={"latency_ms": None})


def _untimed(turn: Turn) -> Turn:
    steps = tuple(s.model_copy(update={"latency_ms": None}) for s in turn.steps)
    usage, user_usage = _untimed_usage(turn.usage), _untimed_usage(turn.user_usage)
    return turn.model_copy(update={"steps": steps, "usage": usage, "user_usage": user_usage})


@dataclass
class Conversation:
    """The state of one conversation, shared by the thread that drives it and the runner
    that may time it out (:meth:`stop`); every change is made under ``lock``."""

    case_id: str
    goal: UserGoal
    trial: int
    run_id: str
    task: ReplayTask
    limits: Limits = field(default_factory=Limits)
    settings: Mapping[str, Any] = field(default_factory=dict)
    cancelled: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    turns: list[Turn] = field(default_factory=list)
    pending: Said | None = None
    done: bool = False
    _first_step: int = 0
    _calls: int = 0

    def begin(self, said: Said) -> None:
        """A turn starts with the user's message ``said`` (:class:`Cancelled` once stopped)."""
        if self.cancelled.is_set():
            raise Cancelled
        with self.lock:
            self.pending, self._first_step = said, len(self.task.steps)

    def turn_steps(self, calls: int) -> tuple[Step, ...]:
        """The steps made in the turn in progress; model-call numbers (``Step.turn``) count
        from the conversation's start, so adjacent turns never share one."""
        made = self._renumbered()
        self._calls += calls
        return made

    def _renumbered(self) -> tuple[Step, ...]:
        made, offset = self.task.steps[self._first_step :], self._calls
        if not offset:
            return tuple(made)
        return tuple(
            s if s.turn is None else s.model_copy(update={"turn": s.turn + offset}) for s in made
        )

    def add(self, turn: Turn) -> None:
        with self.lock:
            self.turns.append(turn)
            self.pending = None

    def end(self, reason: EndReason, error: str | None = None, **update: Any) -> Outcome:
        """The outcome with the last turn ended by ``reason`` (``update``: its other fields)."""
        with self.lock:
            self.done = True
            return self._ended(reason, error, update, "failed" if error else "finished")

    def _ended(
        self, reason: EndReason, error: str | None, update: dict[str, Any], status: Status
    ) -> Outcome:
        if not self.turns:
            return Outcome(status, failure=self.failure(status, error or "no turn"))
        last = self.turns[-1].model_copy(update={"ended_by": reason, "error": error, **update})
        self.turns[-1] = last
        return Outcome(status, run=self.run(status, error))

    def failure(self, status: Status, error: str) -> Failure:
        return Failure(self.case_id, self.trial, self.run_id, status, error)

    def stop(self, error: str, status: Status) -> Outcome | None:
        """Stop the conversation from outside (a timeout, a crash): the turns so far, the turn
        in progress with its steps and no reply, ``ended_by="error"``; None when it had
        already ended (its own outcome stands)."""
        with self.lock:
            if self.done:
                return None
            self.done = True
            self.cancelled.set()
            if self.pending is not None:
                said, self.pending = self.pending, None
                made = self._renumbered()
                self.turns.append(Turn(user=said.text, steps=made, user_usage=said.usage))
            return self._ended("error", error, {}, status)

    def run(self, status: Status, error: str | None) -> Run:
        """The conversation's run (module docstring)."""
        turns = self.turns if self.limits.timing else [_untimed(t) for t in self.turns]
        usage = None
        for turn in turns:
            usage = _add(usage, turn.usage)
        task = self.task
        simulator: dict[str, Any] = {
            **self.settings,
            "outcome": status,
            "ended_by": turns[-1].ended_by,
            "unrecorded": task.misses,
            "malformed_arguments": task.malformed,
        }
        if task.faults is not None:
            injected = fault_counts(task.faults)
            simulator["faults"] = {"injected": sum(injected.values()), "by_kind": injected}
        metadata: dict[str, Any] = {"simulator": simulator}
        if error is not None:
            metadata["error"] = error
        return Run(
            case_id=self.case_id,
            run_id=self.run_id,
            trial=self.trial,
            turns=tuple(turns),
            usage=usage,
            metadata=metadata,
        )

    def spent(self) -> tuple[float, float]:
        """Tokens and cost of the turns so far, the agent's and the user's together."""
        tokens = cost = 0.0
        for turn in self.turns:
            for usage in (turn.usage, turn.user_usage):
                if usage is not None:
                    tokens += usage.tokens or 0.0
                    cost += usage.cost or 0.0
        return tokens, cost

    def over_budget(self) -> bool:
        tokens, cost = self.spent()
        limits = self.limits
        return (limits.budget_tokens is not None and tokens >= limits.budget_tokens) or (
            limits.budget_cost is not None and cost >= limits.budget_cost
        )


def _speak(c: Conversation, user: User, history: list[dict[str, Any]]) -> Said:
    if c.cancelled.is_set():
        raise Cancelled
    said = user.speak(c.goal, history)
    if not said.text.strip():
        raise UserError("the user's message is empty")
    return said


def converse(conversation: Conversation, agent: TurnAgent, user: User) -> Outcome:
    """Drive ``conversation`` to its end (module docstring); its outcome.

    Raises:
        Cancelled: the runner stopped it (:meth:`Conversation.stop`): its outcome is the one
            ``stop`` gave.
    """
    c, goal = conversation, conversation.goal
    history: list[dict[str, Any]] = []
    try:
        said = _speak(c, user, history)
    except UserError as error:
        return c.end("error", f"user: {error}")
    if goal.stop in said.text:
        return c.end("error", "user: the user sent the stop signal before the first turn")
    for number in range(c.limits.max_turns):
        c.begin(said)
        history.append({"role": "user", "content": said.text})
        context = TurnContext(c.task, goal, c.cancelled, number)
        start = time.perf_counter()
        result: AgentTurn = agent.take_turn(list(history), context)
        latency = round((time.perf_counter() - start) * 1000.0, 3)
        steps = c.turn_steps(result.calls)
        usage = (result.usage or Usage()).model_copy(update={"latency_ms": latency})
        metadata = {"agent": result.notes} if result.notes else {}
        turn = Turn(
            user=said.text,
            steps=steps,
            reply=result.reply,
            usage=usage,
            user_usage=said.usage,
            metadata=metadata,
        )
        c.add(turn)
        if result.error is not None:
            return c.end("error", result.error)
        if result.end or any(step.tool in goal.transfer_tools for step in steps):
            return c.end("agent")
        if c.over_budget():
            return c.end("budget")
        if number + 1 == c.limits.max_turns:
            return c.end("max_turns")
        history += checkpoint_messages(steps)
        history.append({"role": "assistant", "content": result.reply or ""})
        try:
            said = _speak(c, user, history)
        except UserError as error:
            return c.end("error", f"user: {error}")
        if goal.stop in said.text:
            extra: dict[str, Any] = {"user_usage": _add(turn.user_usage, said.usage)}
            if said.text.strip() != goal.stop:
                extra["metadata"] = {**turn.metadata, "user_stop": said.text}
            return c.end("user", **extra)
    raise AssertionError("unreachable: the last turn ends the conversation")  # pragma: no cover
