"""The agent side of a simulated conversation, one turn at a time.

**The agent protocol** (a Python callable, ``--agent module:callable``)::

    def agent(messages: list[dict], tools: Tools) -> str | dict: ...

It is called once per turn with the conversation so far as OpenAI-style messages (``user``,
``assistant`` with ``tool_calls``, ``tool``; the last one is the user's new message; the list
is the agent's own copy) and a :class:`Tools` whose ``call(name, arguments)`` answers a tool
call (frozen fixtures, faults or live tools: :mod:`pathgrade.simulate.tools`) and records it
as a step. It returns the reply: a string, or a dict ``{"reply": str, "end": bool}`` (``end``
optional, default false: true ends the conversation, ``ended_by="agent"``; an optional
``"usage": {"tokens": ..., "cost": ...}`` is the turn's model usage). Anything else is the
turn's error ``agent returned X, not a message``; an exception is ``agent raised E: text``;
either ends the conversation with ``ended_by="error"``.

**The endpoint agent** (:class:`EndpointTurnAgent`) runs the replay tool-calling loop
(:class:`~pathgrade.replay.tool_loop.EndpointAgent`) for each turn over the whole conversation:
model calls until a message without tool calls, whose content is the reply (at most
``max_calls`` per turn; a turn that runs out has no reply, and the conversation goes on). An
endpoint that failed for good is the turn's error.

Either agent ends the conversation by calling one of the case's ``user.transfer_tools`` (a
hand-off to a human, tau-bench's rule): the turn is completed, then the conversation ends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from pathgrade.core.conversation import UserGoal
from pathgrade.core.types import Usage
from pathgrade.replay.endpoint import Completion
from pathgrade.replay.harness import ReplayTask
from pathgrade.replay.tool_loop import Completer, EndpointAgent, tool_schema, tools_from_runs
from pathgrade.report.display import clip
from pathgrade.simulate.tools import Cancelled, Tools

__all__ = [
    "AgentCallable",
    "AgentTurn",
    "CallableAgent",
    "EndpointTurnAgent",
    "TurnAgent",
    "TurnContext",
    "as_turn_agent",
]

#: A Python agent (the module docstring's protocol).
AgentCallable = Callable[[list[dict[str, Any]], Tools], Any]


@dataclass(frozen=True)
class TurnContext:
    """What an agent's turn runs in: the conversation's task (fixtures, faults, steps made),
    the case's user goal, the conversation's cancel flag and the 0-based turn number."""

    task: ReplayTask
    goal: UserGoal
    cancelled: threading.Event
    turn: int


@dataclass(frozen=True)
class AgentTurn:
    """What one turn of the agent gave: the reply (None: none), whether the agent ended the
    conversation, its model usage (tokens, cost; the conversation adds the latency), the
    error that ended the turn, the model calls made (0 for a callable) and notes."""

    reply: str | None
    end: bool = False
    usage: Usage | None = None
    error: str | None = None
    calls: int = 0
    notes: dict[str, Any] = field(default_factory=dict)


class TurnAgent:
    """An agent taking one turn of a conversation (:class:`CallableAgent`,
    :class:`EndpointTurnAgent`)."""

    def take_turn(self, messages: list[dict[str, Any]], context: TurnContext) -> AgentTurn:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """What the runs record of this agent (``metadata["simulator"]["agent"]``)."""
        raise NotImplementedError


def _shown(value: Any) -> str:
    return clip(repr(value), 80)


def agent_message(result: Any) -> AgentTurn:
    """The :class:`AgentTurn` of a callable's return value (the module docstring's rules)."""
    if isinstance(result, str):
        return AgentTurn(result)
    if not isinstance(result, dict) or not isinstance(result.get("reply"), str):
        return AgentTurn(None, error=f"agent returned {_shown(result)}, not a message")
    unknown = sorted(set(result) - {"reply", "end", "usage"})
    if unknown:
        return AgentTurn(None, error=f"agent returned unknown key {unknown[0]!r}, not a message")
    end = result.get("end", False)
    if not isinstance(end, bool):
        return AgentTurn(None, error=f"agent returned end={_shown(end)}, not true or false")
    usage = None
    if result.get("usage") is not None:
        try:
            usage = Usage.model_validate(result["usage"])
        except ValidationError:
            return AgentTurn(None, error=f"agent returned usage {_shown(result['usage'])}")
    return AgentTurn(result["reply"], end=end, usage=usage)


class CallableAgent(TurnAgent):
    """A Python callable following the agent protocol (module docstring)."""

    def __init__(self, agent: AgentCallable, name: str | None = None) -> None:
        self.agent = agent
        self.name = name or _callable_name(agent)

    def __repr__(self) -> str:
        return f"CallableAgent({self.name!r})"

    def take_turn(self, messages: list[dict[str, Any]], context: TurnContext) -> AgentTurn:
        tools = Tools(context.task, context.cancelled, context.turn)
        try:
            result = self.agent(messages, tools)
        except Exception as error:  # the agent's failure is the turn's, not the simulator's
            return AgentTurn(None, error=f"agent raised {type(error).__name__}: {error}")
        return agent_message(result)

    def describe(self) -> dict[str, Any]:
        return {"kind": "callable", "name": self.name}


def _callable_name(agent: Any) -> str:
    module = getattr(agent, "__module__", None) or "?"
    name = getattr(agent, "__qualname__", None) or type(agent).__qualname__
    return f"{module}:{name}"


class _History:
    """A :class:`Completer` that sends the whole conversation: the loop's first message (the
    case query) is replaced by ``history``; a cancelled conversation makes no more calls."""

    def __init__(
        self, client: Completer, history: list[dict[str, Any]], cancelled: threading.Event
    ) -> None:
        self.client, self.history, self.cancelled = client, history, cancelled

    @property
    def model(self) -> str:
        return self.client.model

    def complete(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> Completion:
        if self.cancelled.is_set():
            raise Cancelled
        return self.client.complete([*self.history, *messages[1:]], tools)


class EndpointTurnAgent(TurnAgent):
    """A model behind a :class:`Completer` (an open
    :class:`~pathgrade.replay.endpoint.EndpointClient`), one tool-calling loop per turn.

    Args:
        client: the chat-completions client, shared by every conversation.
        system: the system prompt (none by default).
        tools: tool schemas in OpenAI function format; None: open schemas for every tool in
            the case's fixtures, then its transfer tools.
        max_calls: the most model calls in one turn.
    """

    def __init__(
        self,
        client: Completer,
        *,
        system: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_calls: int = 10,
    ) -> None:
        if max_calls < 1:
            raise ValueError(f"max_calls must be >= 1, got {max_calls}")
        self.client, self.system, self.max_calls = client, system, max_calls
        self.tools = None if tools is None else tuple(tools)

    def __repr__(self) -> str:
        return f"EndpointTurnAgent({self.client.model!r}, max_calls={self.max_calls})"

    def _schemas(self, context: TurnContext) -> tuple[Mapping[str, Any], ...]:
        if self.tools is not None:
            return self.tools
        derived = tools_from_runs([context.task.recorded])
        names = {schema["function"]["name"] for schema in derived}
        extra = [tool_schema(n) for n in context.goal.transfer_tools if n not in names]
        return (*derived, *extra)

    def take_turn(self, messages: list[dict[str, Any]], context: TurnContext) -> AgentTurn:
        task = context.task
        history = [{"role": "system", "content": self.system}] if self.system else []
        client = _History(self.client, [*history, *messages], context.cancelled)
        loop = EndpointAgent(client, tools=self._schemas(context), max_turns=self.max_calls)
        task.notes.clear()
        task.usage.clear()
        reply = loop(task)
        notes = dict(task.notes)
        calls = int(notes.pop("turns", 0))
        error = notes.pop("error", None) if notes.get("stopped") == "error" else None
        usage = Usage(tokens=task.usage.get("tokens"), cost=task.usage.get("cost"))
        return AgentTurn(reply, usage=usage, error=error, calls=calls, notes=notes)

    def describe(self) -> dict[str, Any]:
        return {"kind": "endpoint", "model": self.client.model, "max_calls": self.max_calls}


def as_turn_agent(agent: TurnAgent | AgentCallable) -> TurnAgent:
    """``agent`` itself when it is a :class:`TurnAgent`, else the callable wrapped."""
    return agent if isinstance(agent, TurnAgent) else CallableAgent(agent)
