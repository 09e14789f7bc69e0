"""Trace replay: run an agent against frozen tool fixtures recorded from a trace.

``replay_run(recorded, agent)`` answers each tool call from the recording (matched by tool
and arguments with the scoring matchers), freezes time and randomness, flags unrecorded calls,
and returns the replayed :class:`~pathgrade.core.types.Run`. See ``docs/ingest.md``.
"""

from pathgrade.replay.fixtures import Fixture, FixtureSet
from pathgrade.replay.harness import (
    Agent,
    Observation,
    ReplayTask,
    Unrecorded,
    UnrecordedCallError,
    frozen_globals,
    replay_run,
    replay_runs,
)

__all__ = [
    "Agent",
    "Fixture",
    "FixtureSet",
    "Observation",
    "ReplayTask",
    "Unrecorded",
    "UnrecordedCallError",
    "frozen_globals",
    "replay_run",
    "replay_runs",
]
