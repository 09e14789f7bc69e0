"""One agent's sub-path, scored on its own: ``score --agent NAME`` (``evaluate(..., agent=)``).

:func:`agent_view` is the one definition; every engine and the Python API score its views.

- **The sub-path** of agent ``NAME``: the run's steps whose *nearest* agent is ``NAME``
  (``Step.metadata["agent"] == NAME``, as ingest records it), in run order. Steps of agents
  nested inside ``NAME`` are not in it (each nested agent has its own sub-path: score it
  with its own ``--agent``); steps that name no agent are in no sub-path. So the sub-paths
  of all agents partition the steps that name an agent. Every invocation of ``NAME`` in a
  run counts (two calls of one sub-agent are one sub-path).
- **Its references**: ``case.references_by_agent[NAME]`` (one path or a list of paths, with
  the case's ``order``). A case without one is scored with *no* reference (the trajectory
  metrics that need one are undefined, ``null``), never against the whole run's reference;
  :func:`agent_summary` counts such cases (the CLI prints one warning line).
- **The case's constraints**: a limit or a prohibition, which a part can only break by
  itself, applies to the sub-path as written: ``budget`` (the sub-path's step count and the
  sums of its steps' tokens, cost and latency; the run's ``usage`` totals are the whole
  run's and are dropped), ``forbidden_tools``, ``forbidden_actions``, ``tool_kinds``. A
  requirement the whole run meets together is dropped: ``required_tools`` (another agent may
  call them).
- **Off**: what only the whole run has. The run's ``answer``, ``success``, ``usage``,
  ``retrieved``, ``context``, ``claims``, ``citations``, ``confidence``, ``final_state``,
  ``rubric`` (and ``abstained``) and the case's ``gold_answer``, ``gold_evidence``,
  ``expected_state`` (and ``answerable``) are cleared, so ``goal_success``, the answer,
  retrieval, end-state and abstention layers and pass@k are not computed for an agent
  (score without ``--agent`` for them); the tool-call layer checks the sub-path's calls.

Pure: no I/O. The agent is recorded in the results' provenance
(:func:`pathgrade.core.record_provenance.with_agent`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step

__all__ = [
    "WHOLE_RUN_ONLY",
    "agent_case",
    "agent_run",
    "agent_steps",
    "agent_summary",
    "agent_view",
    "agent_warning",
    "check_agent",
    "scoped",
]

#: What is not scored for one agent (module docstring), as the summary lists it.
WHOLE_RUN_ONLY = (
    "goal_success",
    "answer",
    "retrieval",
    "end_state",
    "abstention",
    "pass@k",
    "required_tools",
)

_RUN_OFF: dict[str, Any] = {
    "answer": None,
    "success": None,
    "usage": None,
    "retrieved": None,
    "context": None,
    "claims": None,
    "citations": None,
    "abstained": False,
    "confidence": None,
    "final_state": None,
    "rubric": None,
}
_CASE_OFF: dict[str, Any] = {
    "required_tools": (),
    "gold_answer": None,
    "answerable": True,
    "gold_evidence": None,
    "expected_state": None,
}


def agent_steps(steps: Iterable[Step], agent: str) -> tuple[Step, ...]:
    """The steps whose nearest agent is ``agent`` (``metadata["agent"] == agent``), in order."""
    return tuple([step for step in steps if step.metadata.get("agent") == agent])


def agent_case(case: Case, agent: str) -> Case:
    """``case`` as ``agent``'s sub-path is scored against it (module docstring): its
    reference paths are ``references_by_agent[agent]`` (none when absent)."""
    paths = (case.references_by_agent or {}).get(agent, ())
    return case.model_copy(
        update={
            **_CASE_OFF,
            "reference": paths[0] if paths else None,
            "references": paths[1:] or None,
        }
    )


def agent_run(run: Run, agent: str) -> Run:
    """``run`` reduced to ``agent``'s sub-path, with the whole run's layers off."""
    return run.model_copy(update={**_RUN_OFF, "steps": agent_steps(run.steps, agent)})


def agent_view(case: Case, run: Run, agent: str) -> tuple[Case, Run]:
    """The case and the run that score ``agent``'s sub-path of ``run`` (module docstring).
    Neither input is modified; views of views are the same views."""
    return agent_case(case, agent), agent_run(run, agent)


def scoped(
    cases: Mapping[str, Case], runs: Iterable[Run], agent: str
) -> tuple[dict[str, Case], list[Run]]:
    """:func:`agent_view` of every case (by id) and every run (in order).

    Raises:
        InputError: ``agent`` is empty (no step names the empty agent).
    """
    check_agent(agent)
    return (
        {case_id: agent_case(case, agent) for case_id, case in cases.items()},
        [agent_run(run, agent) for run in runs],
    )


def check_agent(agent: str) -> str:
    """``agent``, when it is a name (not empty, not only spaces)."""
    if not agent.strip():
        raise InputError(f"--agent needs an agent's name, got {agent!r}", field="--agent")
    return agent


def agent_summary(cases: Iterable[Case], agent: str) -> dict[str, Any]:
    """The summary's ``agent`` entry: the agent, how many ``cases`` there are and how many
    give it no reference, the agents that cases give references for, and
    :data:`WHOLE_RUN_ONLY`."""
    n_cases = 0
    missing = 0
    named: set[str] = set()
    for case in cases:
        n_cases += 1
        by_agent = case.references_by_agent or {}
        named.update(by_agent)
        missing += agent not in by_agent
    return {
        "name": agent,
        "cases": n_cases,
        "cases_without_reference": missing,
        "reference_agents": sorted(named),
        "whole_run_only": list(WHOLE_RUN_ONLY),
    }


def agent_warning(summary: Mapping[str, Any]) -> str | None:
    """One line when some case gives the agent no reference (``None`` when all do)."""
    missing = summary["cases_without_reference"]
    if not missing:
        return None
    named: Sequence[str] = summary["reference_agents"]
    known = f"references_by_agent names {', '.join(named)}" if named else "no case has any"
    return (
        f"warning: {missing} of {summary['cases']} cases have no reference for agent"
        f" {summary['name']!r} ({known}): scored with no reference (trajectory metrics"
        " undefined)"
    )
