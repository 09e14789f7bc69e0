"""Conversations in the data model (docs/conversations.md): a case's simulated user
(:class:`UserGoal`) and a run's turns (:class:`Turn`).

A turn is one user message, the tool calls the agent made to answer it, and the agent's reply.
A run with ``turns`` is a conversation; its ``steps`` are the turns' steps in order (filled in
when the run gives only turns), so every path metric scores the whole conversation as one path.
A run without turns is one turn, exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field, field_validator, model_validator

from pathgrade.core.fields import FieldError, FreeObject, Name, Usage, _Strict
from pathgrade.core.step import Step, validate_path

__all__ = [
    "END_REASONS",
    "STOP_SIGNAL",
    "TRANSFER_TOOLS",
    "EndReason",
    "Turn",
    "UserGoal",
    "flat_steps",
]

#: The user's stop signal (tau-bench's convention): a user message containing it ends the
#: conversation; the scripted and the LLM user both send it when the goal is met.
STOP_SIGNAL = "###STOP###"
#: The tools a hand-off to a human is made with by default (tau-bench's name).
TRANSFER_TOOLS = ("transfer_to_human_agents",)
#: Why a conversation ended, recorded on its last turn.
EndReason = Literal["user", "agent", "max_turns", "budget", "error", "interrupted"]
END_REASONS: tuple[EndReason, ...] = (
    "user",
    "agent",
    "max_turns",
    "budget",
    "error",
    "interrupted",
)


class UserGoal(_Strict):
    """The user's side of a conversation case.

    Attributes:
        instructions: what the user wants and how they behave (the LLM user's prompt).
        facts: what the user knows and gives when asked, by name (``{"order_id": "W123"}``).
        ask_once: the facts the agent must not ask for again once the user gave them
            (default ``None``: every fact).
        ask_terms: how the agent names each fact when it asks for it (default: the fact's name
            with ``_`` read as a space, ``order_id`` -> ``order id``).
        script: the scripted user's messages, in order (``--user scripted``); after the last
            one the scripted user sends :data:`STOP_SIGNAL`.
        stop: the user's stop signal.
        required_info: texts the agent must tell the user (each must appear in a reply,
            case-insensitively) for the user-side outcome to hold.
        escalate: the agent should hand the user off (``True``), must not (``False``), or no
            check (``None``).
        transfer_tools: the tools a hand-off is made with.
    """

    instructions: str = Field(min_length=1)
    facts: dict[Name, str] = Field(default_factory=dict)
    ask_once: tuple[str, ...] | None = None
    ask_terms: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    script: tuple[str, ...] = ()
    stop: str = Field(default=STOP_SIGNAL, min_length=1)
    required_info: tuple[str, ...] = ()
    escalate: bool | None = None
    transfer_tools: tuple[Name, ...] = TRANSFER_TOOLS

    @model_validator(mode="after")
    def _names_known(self) -> UserGoal:
        for field_name in ("ask_once", "ask_terms"):
            for index, name in enumerate(getattr(self, field_name) or ()):
                if name not in self.facts:
                    where = f"{field_name}[{index}]" if field_name == "ask_once" else field_name
                    raise FieldError(where, f"{name!r} is not one of the user's facts")
        for name, terms in self.ask_terms.items():
            if not terms or not all(term.strip() for term in terms):
                raise FieldError(f"ask_terms.{name}", "give at least one non-empty term")
        return self

    def guarded_facts(self) -> tuple[str, ...]:
        """The facts that must not be asked for twice (``ask_once``, default all)."""
        return tuple(self.facts) if self.ask_once is None else self.ask_once

    def terms(self, fact: str) -> tuple[str, ...]:
        """How an agent names ``fact`` when it asks for it (lower case)."""
        terms = self.ask_terms.get(fact) or (fact.replace("_", " "),)
        return tuple(term.strip().lower() for term in terms)


class Turn(_Strict):
    """One turn of a conversation: the user's message, the agent's calls and its reply.

    ``usage`` is the agent's (tokens, cost, latency of the turn); ``user_usage`` the simulated
    user's, kept apart so the agent's cost is not inflated by the simulator's. ``ended_by`` is
    set on the last turn: who or what ended the conversation.
    """

    user: str = Field(min_length=1)
    steps: tuple[Step, ...] = ()
    reply: str | None = None
    usage: Usage | None = None
    user_usage: Usage | None = None
    ended_by: EndReason | None = None
    error: str | None = None
    metadata: FreeObject = Field(default_factory=dict)

    @field_validator("user", mode="before")
    @classmethod
    def _user_message(cls, value: object) -> object:
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ValueError("a turn needs the user's message")
        return value

    @field_validator("steps", mode="wrap")
    @classmethod
    def _steps(cls, value: object, handler: object) -> object:
        return validate_path(value, handler)  # type: ignore[arg-type]


def flat_steps(turns: Sequence[Turn]) -> tuple[Step, ...]:
    """The conversation's path: every turn's steps, in order."""
    if len(turns) == 1:
        return turns[0].steps
    return tuple(step for turn in turns for step in turn.steps)
