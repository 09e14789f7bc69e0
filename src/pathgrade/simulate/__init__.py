"""User simulation: drive multi-turn conversations between a simulated user and an agent.

:func:`simulate` runs every case that has a ``user`` goal (``trials`` times each) against an
agent (a Python callable, :mod:`pathgrade.simulate.agents`, or a model behind an endpoint,
:class:`EndpointTurnAgent`) and a user (:class:`ScriptedUser` or :class:`LLMUser`), with
tools from frozen fixtures, faults or live tools (:mod:`pathgrade.simulate.tools`); each
conversation is a :class:`~pathgrade.core.types.Run` with ``turns``
(:mod:`pathgrade.simulate.conversation`). Where trials of one case stop telling the same
story is :func:`pathgrade.metrics.conversation.divergence.trial_divergence` (pure; in the
score summary). See ``docs/simulate.md``.

Names are imported on first use, so importing the package loads no HTTP client.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathgrade.simulate.agents import (
        AgentTurn,
        CallableAgent,
        EndpointTurnAgent,
        TurnAgent,
        TurnContext,
    )
    from pathgrade.simulate.conversation import Conversation, Failure, Limits, Outcome
    from pathgrade.simulate.output import RunWriter
    from pathgrade.simulate.runner import SimulationInterrupted, simulate
    from pathgrade.simulate.tools import Cancelled, Tools
    from pathgrade.simulate.users import LLMUser, Said, ScriptedUser, User, UserError

#: Each exported name -> the module that defines it.
_LAZY = {
    "AgentTurn": "agents",
    "CallableAgent": "agents",
    "EndpointTurnAgent": "agents",
    "TurnAgent": "agents",
    "TurnContext": "agents",
    "Conversation": "conversation",
    "Failure": "conversation",
    "Limits": "conversation",
    "Outcome": "conversation",
    "RunWriter": "output",
    "SimulationInterrupted": "runner",
    "simulate": "runner",
    "Cancelled": "tools",
    "Tools": "tools",
    "LLMUser": "users",
    "Said": "users",
    "ScriptedUser": "users",
    "User": "users",
    "UserError": "users",
}

__all__ = [
    "AgentTurn",
    "CallableAgent",
    "Cancelled",
    "Conversation",
    "EndpointTurnAgent",
    "Failure",
    "LLMUser",
    "Limits",
    "Outcome",
    "RunWriter",
    "Said",
    "ScriptedUser",
    "SimulationInterrupted",
    "Tools",
    "TurnAgent",
    "TurnContext",
    "User",
    "UserError",
    "simulate",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
