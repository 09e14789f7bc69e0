"""``pathgrade replay RUNS (--agent module:callable | --endpoint URL --model M) -o out.jsonl``.

Offline replay against frozen tool fixtures. The agent is a Python callable (``--agent``) or a
model behind an OpenAI-compatible endpoint driving a tool-calling loop (``--endpoint`` and
``--model``; the API key comes from ``PATHGRADE_AGENT_API_KEY`` only). Exit 0, or 1 when the
endpoint failed for good on some run (the runs are still written, each failure flagged), or 2
on bad input.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathgrade.cli.agent_options import (
    AgentOption,
    EndpointOption,
    ModelOption,
    SystemOption,
    check_agent_choice,
    read_text,
    retry_policy,
)
from pathgrade.cli.defaults import DEFAULT_DEADLINE, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_TURNS
from pathgrade.cli.lazy_help import help_filled_by
from pathgrade.cli.outputs import check_output_file
from pathgrade.core.errors import InputError
from pathgrade.report.display import clip

if TYPE_CHECKING:
    from pathgrade.core.types import Run


_MODE_HELP = "Argument matching mode (docs/trajectory.md, Argument matching)."


def _mode_help() -> dict[str, str]:
    """``--mode``'s help: the matching modes (defined with the config model, pydantic)."""
    from pathgrade.core.config import CALL_MODES

    return {"mode": f"Argument matching mode: {', '.join(CALL_MODES)}."}


ReplayCommand = help_filled_by(_mode_help)


class OnUnrecorded(StrEnum):
    error = "error"
    value = "value"
    abort = "abort"


def replay_command(
    runs: Annotated[Path, typer.Argument(help="Recorded runs JSONL (the tool fixtures).")],
    agent: AgentOption = None,
    endpoint: EndpointOption = None,
    model: ModelOption = None,
    tools: Annotated[
        Path | None,
        typer.Option(
            "--tools",
            help="Tools file (OpenAI function tools, as for scoring); default: open schemas"
            " for every tool called in RUNS.",
        ),
    ] = None,
    system: SystemOption = None,
    max_turns: Annotated[
        int, typer.Option("--max-turns", help="Most model calls per run (--endpoint).")
    ] = DEFAULT_MAX_TURNS,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds each read may take (--endpoint).")
    ] = 60.0,
    deadline: Annotated[
        float,
        typer.Option("--deadline", help="Seconds one HTTP attempt may take in all (--endpoint)."),
    ] = DEFAULT_DEADLINE,
    max_response_bytes: Annotated[
        int,
        typer.Option(
            "--max-response-bytes", help="Largest decoded reply body in bytes (--endpoint)."
        ),
    ] = DEFAULT_MAX_RESPONSE_BYTES,
    max_retries: Annotated[
        int,
        typer.Option("--max-retries", help="Retries on 429/5xx/timeouts (--endpoint)."),
    ] = 4,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Replayed runs JSONL (default stdout).")
    ] = None,
    cases: Annotated[
        Path | None, typer.Option("--cases", help="Cases file: gives each agent its query.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="pathgrade.toml whose [matching] is used.")
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option("--mode", help=_MODE_HELP),
    ] = None,
    unrecorded: Annotated[
        OnUnrecorded,
        typer.Option("--unrecorded", help="Reply to an unrecorded call: error, value, abort."),
    ] = OnUnrecorded.error,
    reply: Annotated[
        str | None, typer.Option("--reply", help="JSON output for --unrecorded value.")
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the agent's randomness (and request seed).")
    ] = 0,
    label: Annotated[str, typer.Option("--label", help="Suffix of replayed run ids.")] = "replay",
    faults: Annotated[
        Path | None,
        typer.Option(
            "--faults", help="Faults file (TOML): faults injected into the recorded tool calls."
        ),
    ] = None,
    interrupt_at: Annotated[
        int | None,
        typer.Option(
            "--interrupt-at",
            help="Stop the agent right after step K and restart it from the recorded state.",
        ),
    ] = None,
) -> None:
    """Run an agent against frozen tool outputs recorded in RUNS; write the replayed runs."""
    import random

    import orjson

    from pathgrade.io.cases import load_cases, load_runs
    from pathgrade.io.config import load_config
    from pathgrade.io.ingest import write_runs
    from pathgrade.io.tools import load_tools
    from pathgrade.plugins import argument_matchers
    from pathgrade.replay import (
        Agent,
        EndpointAgent,
        EndpointClient,
        EndpointConfig,
        Unrecorded,
        function_tools,
        load_faults,
        replay_runs,
        tools_from_runs,
    )
    from pathgrade.replay.loader import load_agent

    check_output_file(out, "--out")
    check_agent_choice(agent, endpoint, model, tools, system)
    if max_turns < 1:
        raise InputError(f"must be >= 1, got {max_turns}", field="--max-turns")
    scoring = load_config(config) if config else load_config(None)
    matching = scoring.matching
    if mode is not None:
        matching = matching.model_copy(update={"mode": mode})
    reply_value = None
    if reply is not None:
        try:
            reply_value = orjson.loads(reply)
        except orjson.JSONDecodeError as error:
            raise InputError(f"--reply is not JSON: {error}", field="--reply") from None
    case_map = {c.case_id: c for c in load_cases(cases).items} if cases else None
    recorded = load_runs(runs, case_map).items
    policy = Unrecorded(unrecorded.value, reply_value)
    plan = load_faults(faults) if faults is not None else None

    def replay_with(chosen: Agent) -> list[Run]:
        return list(
            replay_runs(
                recorded,
                chosen,
                cases=case_map,
                matching=matching,
                plugins=argument_matchers(),
                unrecorded=policy,
                seed=seed,
                label=label,
                faults=plan,
                interrupt_at=interrupt_at,
            )
        )

    if agent is not None:
        replayed = replay_with(load_agent(agent))
    else:
        settings = EndpointConfig.from_env(
            endpoint or "",
            model or "",
            seed=seed,
            timeout=timeout,
            deadline=deadline,
            max_response_bytes=max_response_bytes,
            retry=retry_policy(max_retries),
        )
        schemas = function_tools(load_tools(tools)) if tools else tools_from_runs(recorded)
        prompt = read_text(system, "--system") if system else None
        with EndpointClient(settings, rng=random.Random(seed)) as client:
            loop: Agent = EndpointAgent(client, system=prompt, tools=schemas, max_turns=max_turns)
            replayed = replay_with(loop)
    count = write_runs(replayed, out)
    misses = sum(r.metadata["replay"]["unrecorded"] for r in replayed)
    injected = sum(r.metadata["replay"].get("faults", {}).get("injected", 0) for r in replayed)
    print(
        f"pathgrade: {count} run(s) replayed; {misses} unrecorded call(s) flagged"
        + (f"; {injected} fault(s) injected" if plan is not None else ""),
        file=sys.stderr,
    )
    if endpoint is not None:
        _endpoint_summary(replayed)


def _endpoint_summary(replayed: list[Run]) -> None:
    """One line of counts; one line per run the endpoint failed on; exit 1 if there were any."""
    notes = [r.metadata["replay"].get("agent", {}) for r in replayed]
    stopped = [n.get("stopped") for n in notes]
    malformed = sum(r.metadata["replay"]["malformed_arguments"] for r in replayed)
    print(
        f"pathgrade: endpoint: {stopped.count('answer')} answered,"
        f" {stopped.count('max_turns')} stopped at --max-turns,"
        f" {stopped.count('error')} failed; {malformed} call(s) with malformed arguments",
        file=sys.stderr,
    )
    failed = [(r, n) for r, n in zip(replayed, notes, strict=True) if n.get("stopped") == "error"]
    for run, note in failed:
        name, error = clip(str(run.run_id)), clip(str(note.get("error")), 240)
        print(f"pathgrade: endpoint error: {name}: {error}", file=sys.stderr)
    if failed:
        raise typer.Exit(1)
