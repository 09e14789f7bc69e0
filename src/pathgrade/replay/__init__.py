"""Trace replay: run an agent against frozen tool fixtures recorded from a trace.

``replay_run(recorded, agent)`` answers each tool call from the recording (matched by tool
and arguments with the scoring matchers), freezes time and randomness, flags unrecorded calls,
and returns the replayed :class:`~pathgrade.core.types.Run`. The agent is a Python callable,
or a model behind an OpenAI-compatible endpoint driving a tool-calling loop
(:class:`EndpointAgent` over an :class:`EndpointClient`). A :class:`FaultPlan` (a faults file,
:func:`load_faults`) injects faults into the tool calls, and ``interrupt_at`` stops and
restarts the agent (:class:`ReplayInterrupt`). See ``docs/ingest.md``.
"""

from pathgrade.replay.endpoint import (
    ENV_API_KEY,
    Completion,
    EndpointClient,
    EndpointConfig,
    EndpointError,
)
from pathgrade.replay.faults import FAULT_KINDS, FaultKind, FaultPlan, FaultRule
from pathgrade.replay.faults_file import load_faults
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
from pathgrade.replay.interrupt import ReplayInterrupt
from pathgrade.replay.tool_loop import EndpointAgent, function_tools, tools_from_runs

__all__ = [
    "ENV_API_KEY",
    "FAULT_KINDS",
    "Agent",
    "Completion",
    "EndpointAgent",
    "EndpointClient",
    "EndpointConfig",
    "EndpointError",
    "FaultKind",
    "FaultPlan",
    "FaultRule",
    "Fixture",
    "FixtureSet",
    "Observation",
    "ReplayInterrupt",
    "ReplayTask",
    "Unrecorded",
    "UnrecordedCallError",
    "frozen_globals",
    "function_tools",
    "load_faults",
    "replay_run",
    "replay_runs",
    "tools_from_runs",
]
