"""Turn boundaries of a conversation, as a message-reading trace reader sees them.

A reader that walks a conversation in order tells :class:`TurnMarks` where each user message
opens a turn (:meth:`TurnMarks.open`, at the number of steps made so far) and each agent text
(:meth:`TurnMarks.reply`); once the run's steps are built, :meth:`TurnMarks.turns` cuts them
at those marks. The run's steps are therefore exactly the turns' steps concatenated, in the
same order: turns add boundaries, never change the path.

The rules, the same for every reader (docs/ingest.md, "Multi-turn conversations"):

- a user message with text opens a turn; one without text (only an image, or a user event
  that only returns a function response) opens none;
- what comes before the first user message (an assistant greeting, its calls) belongs to
  the first turn: its calls are that turn's first steps, its text is not the turn's reply
  (a reply answers the user's message);
- a turn's reply is the agent's last text after its user message (``None`` when it wrote
  none);
- a trace with fewer than :data:`MIN_TURNS` user messages gets no turns (``Run.turns`` is
  ``None``), so a single-turn run is written exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pathgrade.core.conversation import EndReason, Turn
from pathgrade.core.step import Step

__all__ = ["MIN_TURNS", "TurnMarks"]

#: The fewest user messages a trace needs to be read as a conversation of turns.
MIN_TURNS = 2


@dataclass
class _Mark:
    user: str
    start: int
    reply: str | None = None
    ended_by: EndReason | None = None


@dataclass
class TurnMarks:
    """Where a conversation's turns begin, and their replies (module docstring)."""

    marks: list[_Mark] = field(default_factory=list)

    def open(self, user: str | None, steps_so_far: int) -> None:
        """A user message: a new turn whose first step is step ``steps_so_far`` (no turn when
        the message has no text)."""
        if user is not None and user.strip():
            self.marks.append(_Mark(user, steps_so_far))

    def reply(self, text: str | None) -> None:
        """An agent text: the current turn's reply, until a later text replaces it."""
        if text and self.marks:
            self.marks[-1].reply = text

    def end(self, reason: EndReason) -> None:
        """Who or what ended the conversation, recorded on its last turn so far."""
        if self.marks:
            self.marks[-1].ended_by = reason

    def turns(self, steps: Sequence[Step]) -> tuple[Turn, ...] | None:
        """The turns of the run whose steps are ``steps`` (``None``: fewer than
        :data:`MIN_TURNS` user messages)."""
        if len(self.marks) < MIN_TURNS:
            return None
        starts = [0, *(mark.start for mark in self.marks[1:])]
        ends = [*starts[1:], len(steps)]
        return tuple(
            Turn(
                user=mark.user,
                steps=tuple(steps[start:end]),
                reply=mark.reply,
                ended_by=mark.ended_by,
            )
            for mark, start, end in zip(self.marks, starts, ends, strict=True)
        )
