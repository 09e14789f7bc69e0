"""Interrupting a replayed agent after step K and restarting it from the recorded state.

With ``interrupt_at=K`` (:func:`~pathgrade.replay.harness.replay_run`), the agent is stopped
right after its step ``K`` is made: the call has happened (its recording is used up, as the
environment would keep its effect, and the step is recorded) but, instead of its result, the
agent gets :class:`ReplayInterrupt`, as if it had crashed before it could read the result or
checkpoint. The harness then calls the agent a second time on the same task, with
``task.resumed`` true and ``task.checkpoint`` the ``K`` steps made, results included: the
recorded state an agent resumes from (an agent that keeps its own state reads it there;
:class:`~pathgrade.replay.tool_loop.EndpointAgent` rebuilds its conversation from it). The
interrupted attempt gives no answer; the run's steps are the ``K`` steps and then those of
the restarted attempt, the first of which carries ``Step.resumed = true``. An agent that
repeats a write it already made is what ``duplicate_write_after_resume`` counts. A run the
agent finishes in fewer than ``K`` steps is not interrupted; there is one interruption per
run, and an abort on an unrecorded call (``Unrecorded("abort")``) ends the run without one.

:class:`ReplayInterrupt` is a ``BaseException`` (as ``KeyboardInterrupt``): an agent's
``except Exception`` does not swallow the stop.
"""

from __future__ import annotations

from pathgrade.core.errors import InputError
from pathgrade.core.types import Step


class ReplayInterrupt(BaseException):
    """Raised inside the agent by the call that made its step ``K`` (``interrupt_at=K``)."""

    def __init__(self, at: int) -> None:
        super().__init__(f"replay interrupted after step {at}")
        self.at = at


def check_interrupt_at(value: int | None) -> int | None:
    """``value`` when it is ``None`` or at least 1; :class:`InputError` otherwise."""
    if value is not None and (isinstance(value, bool) or value < 1):
        raise InputError(f"must be an integer >= 1, got {value!r}", field="--interrupt-at")
    return value


def mark_resumed(step: Step) -> Step:
    """``step`` with ``resumed: true``, the first step after a resume (a copy)."""
    return step.model_copy(update={"resumed": True})
