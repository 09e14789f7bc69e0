"""The conversation metrics of one run, by their plain definitions (docs/conversations.md).

Every metric reads the run's ``turns`` (turn numbers count from 1, as a reader counts them) and
the case's user goal (:class:`~pathgrade.core.conversation.UserGoal`); each note names the turn
it is about. ``None`` is undefined (``null`` in JSON, excluded from means), for the reason the
catalogue row gives (:mod:`pathgrade.metrics.catalogue_conversation_rows`).

- ``turns``: the number of turns.
- ``user_outcome``: every ``required_info`` text appears in some reply (case-insensitively,
  whitespace collapsed), and, when the case has an ``expected_state`` and the run a
  ``final_state``, the two have no difference (:func:`~pathgrade.metrics.tool.state.state_diff`).
- ``conversation_success``: ``user_outcome`` when defined, else the run's ``goal_success``.
- ``turns_to_success``: the number of turns of a successful conversation.
- ``first_error_turn``: the turn of the first failed call (a step with an ``error``).
- ``error_recovered``: a later call of the same tool (that turn or after) succeeded.
- ``turns_to_recovery``: the turn of that call minus ``first_error_turn``.
- ``reasked_facts``: the times the agent asked for a guarded fact (``ask_once``) in the reply of
  turn ``t`` when the user had given it in the message of turn ``g <= t``. The user *gave* a
  fact when the message contains its value (case-insensitively); a reply *asks* for it when it
  contains a question mark and one of the fact's terms as whole words.
- ``premature_end``: the agent ended the conversation (``ended_by == "agent"`` on the last
  turn) without success; 0 for a success or any other end.
- ``escalation_correct``: the run called a ``transfer_tools`` tool exactly when the goal says
  to escalate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pathgrade.core.conversation import Turn, UserGoal
from pathgrade.core.types import Case, Run
from pathgrade.metrics.tool.state import state_diff

__all__ = [
    "CONVERSATION_METRICS",
    "ConversationScore",
    "conversation_score",
    "conversation_turns",
    "reasks",
]

#: The metrics :func:`conversation_score` emits, in catalogue order.
CONVERSATION_METRICS = (
    "turns",
    "user_outcome",
    "conversation_success",
    "turns_to_success",
    "first_error_turn",
    "error_recovered",
    "turns_to_recovery",
    "reasked_facts",
    "premature_end",
    "escalation_correct",
)

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class ConversationScore:
    """One run's conversation metrics, and notes by turn number (``0``: the conversation)."""

    metrics: dict[str, float | None]
    notes: dict[int, list[str]] = field(default_factory=dict)


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


@lru_cache(maxsize=1024)
def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(_normal(term))}(?!\w)")


def _asks(reply: str | None, terms: Sequence[str]) -> bool:
    if not reply or "?" not in reply:
        return False
    text = _normal(reply)
    return any(_term_pattern(term).search(text) for term in terms)


def reasks(goal: UserGoal, turns: Sequence[Turn]) -> list[tuple[int, str, int]]:
    """``(turn, fact, given_in)`` for each time the agent asked again (module docstring)."""
    found: list[tuple[int, str, int]] = []
    for fact in goal.guarded_facts():
        value = _normal(goal.facts[fact])
        terms = goal.terms(fact)
        given_in: int | None = None
        for number, turn in enumerate(turns, 1):
            if given_in is None and value and value in _normal(turn.user):
                given_in = number
            if given_in is not None and _asks(turn.reply, terms):
                found.append((number, fact, given_in))
    return sorted(found)


def _user_outcome(case: Case, run: Run, turns: Sequence[Turn]) -> tuple[float | None, list[str]]:
    goal = case.user
    required = goal.required_info if goal is not None else ()
    state = case.expected_state is not None and run.final_state is not None
    if not required and not state:
        return None, []
    notes: list[str] = []
    replies = " ".join(_normal(turn.reply or "") for turn in turns)
    missing = [info for info in required if _normal(info) not in replies]
    if missing:
        notes.append("the agent never told the user " + ", ".join(map(repr, missing)))
    if state:
        differences = state_diff(case.expected_state, run.final_state)
        if differences:
            notes.append(f"the end state differs from the goal's in {len(differences)} places")
    return float(not notes), notes


def _errors(turns: Sequence[Turn]) -> tuple[int | None, int | None, str]:
    """``(first error turn, recovery turn, failed tool)`` (``None``: none)."""
    for number, turn in enumerate(turns, 1):
        for index, step in enumerate(turn.steps):
            if step.error is None:
                continue
            later = [(number, turn.steps[index + 1 :])]
            later += [(n, t.steps) for n, t in enumerate(turns[number:], number + 1)]
            for at, steps in later:
                if any(s.tool == step.tool and s.error is None for s in steps):
                    return number, at, step.tool
            return number, None, step.tool
    return None, None, ""


def conversation_turns(case: Case, run: Run) -> tuple[Turn, ...]:
    """The run's turns; a run without turns is one turn (its query, steps and answer)."""
    if run.turns is not None:
        return run.turns
    return (Turn(user=case.query or "(the query)", steps=run.steps, reply=run.answer),)


def conversation_score(case: Case, run: Run, goal_success: float | None) -> ConversationScore:
    """The conversation metrics of ``run`` (module docstring); ``goal_success`` is the run's
    trajectory-layer value (``None``: undefined). A run without turns is one turn with its
    steps and answer, and the user's message its case's query."""
    turns = conversation_turns(case, run)
    notes: dict[int, list[str]] = {}
    m: dict[str, float | None] = dict.fromkeys(CONVERSATION_METRICS)
    m["turns"] = float(len(turns))
    m["user_outcome"], outcome_notes = _user_outcome(case, run, turns)
    if outcome_notes:
        notes.setdefault(0, []).extend(outcome_notes)
    success = m["user_outcome"] if m["user_outcome"] is not None else goal_success
    m["conversation_success"] = success
    if success is not None and success > 0:
        m["turns_to_success"] = float(len(turns))
    first, recovered, tool = _errors(turns)
    if first is not None:
        m["first_error_turn"] = float(first)
        m["error_recovered"] = float(recovered is not None)
        if recovered is not None:
            m["turns_to_recovery"] = float(recovered - first)
        else:
            notes.setdefault(first, []).append(f"{tool} failed and was never called again")
    goal = case.user
    if goal is not None and goal.guarded_facts():
        found = reasks(goal, turns)
        m["reasked_facts"] = float(len(found))
        for number, fact, given_in in found:
            notes.setdefault(number, []).append(f"asked again for {fact}, given in turn {given_in}")
    ended_by = turns[-1].ended_by
    if ended_by is not None and success is not None:
        m["premature_end"] = float(ended_by == "agent" and success <= 0)
        if m["premature_end"]:
            notes.setdefault(len(turns), []).append("the agent ended before the goal was met")
    if goal is not None and goal.escalate is not None:
        transfers = frozenset(goal.transfer_tools)
        at = next(
            (n for n, t in enumerate(turns, 1) if any(s.tool in transfers for s in t.steps)),
            None,
        )
        m["escalation_correct"] = float((at is not None) == goal.escalate)
        if at is not None and not goal.escalate:
            notes.setdefault(at, []).append("handed the user off, which the goal does not want")
        elif at is None and goal.escalate:
            notes.setdefault(len(turns), []).append("never handed the user off, as it should")
    return ConversationScore(m, notes)
