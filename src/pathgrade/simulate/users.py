"""The simulated user: a scripted one (the case's ``user.script``) or a model (:class:`LLMUser`).

A user is asked for its next message with :meth:`User.speak`, given the case's
:class:`~pathgrade.core.conversation.UserGoal` and the conversation so far as the agent sees it
(OpenAI-style messages: ``user``, ``assistant`` and ``tool``). It returns a :class:`Said`: the
text and what producing it cost (``None`` for the scripted user). A message that contains the
goal's ``stop`` signal ends the conversation (:mod:`pathgrade.simulate.conversation`). Users
keep no state between calls, so one user serves every conversation at once.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pathgrade.core.conversation import UserGoal
from pathgrade.core.types import Usage
from pathgrade.openai_compat import content_of
from pathgrade.replay.endpoint import EndpointError
from pathgrade.replay.tool_loop import Completer

__all__ = ["GREETING", "LLMUser", "Said", "ScriptedUser", "User", "UserError", "user_prompt"]

#: What the LLM user is shown as the agent's opening line, before its first message.
GREETING = "Hi! How can I help you today?"


class UserError(RuntimeError):
    """The simulated user could not give a message (its endpoint failed, or it sent no text)."""


@dataclass(frozen=True)
class Said:
    """One user message and what producing it cost (``None``: nothing measured)."""

    text: str
    usage: Usage | None = None


class User(Protocol):
    """What the conversation needs from a simulated user."""

    def speak(self, goal: UserGoal, messages: Sequence[Mapping[str, Any]]) -> Said:
        """The next user message, given the conversation so far (empty before the first)."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the runs record of this user (``metadata["simulator"]["user"]``)."""
        ...


def user_turns(messages: Sequence[Mapping[str, Any]]) -> int:
    """How many user messages ``messages`` holds."""
    return sum(1 for message in messages if message.get("role") == "user")


class ScriptedUser:
    """Says ``goal.script[i]`` as its ``i``-th message, then ``goal.stop``; deterministic."""

    def __repr__(self) -> str:
        return "ScriptedUser()"

    def speak(self, goal: UserGoal, messages: Sequence[Mapping[str, Any]]) -> Said:
        index = user_turns(messages)
        return Said(goal.script[index] if index < len(goal.script) else goal.stop)

    def describe(self) -> dict[str, Any]:
        return {"kind": "scripted"}


def user_prompt(goal: UserGoal) -> str:
    """The LLM user's system prompt: act as the user, facts only when asked, stop when done."""
    lines = [
        "You are role-playing a user who is talking to a customer-service agent."
        " Stay in character: you are the user, never the agent.",
        "",
        "Who you are and what you want:",
        goal.instructions.strip(),
    ]
    if goal.facts:
        lines += ["", "What you know (give a fact only when the agent asks for it):"]
        lines += [f"- {name}: {value}" for name, value in goal.facts.items()]
    lines += [
        "",
        "Rules:",
        "- Write only your next message to the agent, short and natural.",
        "- Do not invent facts you were not given; say you do not know.",
        f"- When your goal is met, or cannot be met, reply with {goal.stop} and nothing else.",
    ]
    return "\n".join(lines)


def flipped(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as the LLM user sees it: the user's own messages are ``assistant``,
    the agent's replies (with text) are ``user``; tool calls and results are left out."""
    out: list[dict[str, Any]] = [{"role": "user", "content": GREETING}]
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user":
            out.append({"role": "assistant", "content": content})
        elif message.get("role") == "assistant" and isinstance(content, str) and content:
            out.append({"role": "user", "content": content})
    return out


class LLMUser:
    """A user played by a model behind a :class:`~pathgrade.replay.tool_loop.Completer` (an
    open :class:`~pathgrade.replay.endpoint.EndpointClient`).

    Each message is one chat-completions request: :func:`user_prompt` as the system message,
    then :func:`flipped` history. Its text is the reply's content, stripped; an endpoint
    failure or an empty reply is a :class:`UserError`. ``usage`` is the reply's tokens and
    cost and the request's wall time in milliseconds.
    """

    def __init__(self, client: Completer) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"LLMUser({self.client.model!r})"

    def speak(self, goal: UserGoal, messages: Sequence[Mapping[str, Any]]) -> Said:
        sent = [{"role": "system", "content": user_prompt(goal)}, *flipped(messages)]
        start = time.perf_counter()
        try:
            reply = self.client.complete(sent, ())
        except EndpointError as error:
            raise UserError(f"the user model failed: {error}") from None
        latency = round((time.perf_counter() - start) * 1000.0, 3)
        text = (content_of(reply.data) or "").strip()
        if not text:
            raise UserError("the user model sent no text")
        return Said(text, Usage(tokens=reply.tokens, cost=reply.cost, latency_ms=latency))

    def describe(self) -> dict[str, Any]:
        return {"kind": "endpoint", "model": self.client.model}
