"""``pathgrade simulate CASES (--agent module:callable | --endpoint URL --model M)
[--user scripted | --user endpoint --user-url URL --user-model M] -o runs.jsonl``.

Multi-turn conversations between a simulated user and an agent, for every case with a
``user`` goal (docs/simulate.md), over :func:`pathgrade.simulate.simulate`. Each finished
conversation is one line of ``-o`` at once; conversations without a turn go to
``<out>.errors.jsonl``. Exit 0, 1 when some conversation failed or timed out (each is
recorded and named), 2 on bad input, 130 on Ctrl-C (the finished runs are in the file).
The agent's API key comes from ``PATHGRADE_AGENT_API_KEY``, the user model's from
``PATHGRADE_USER_API_KEY`` (never from an option).
"""

from __future__ import annotations

import sys
from collections import Counter
from contextlib import ExitStack
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

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
from pathgrade.cli.defaults import DEFAULT_DEADLINE, DEFAULT_MAX_TURNS
from pathgrade.cli.outputs import check_output_file
from pathgrade.core.errors import InputError
from pathgrade.report.display import clip

if TYPE_CHECKING:
    from pathgrade.core.types import Case, Run
    from pathgrade.io.cases import Loaded
    from pathgrade.replay import EndpointConfig
    from pathgrade.simulate import TurnAgent, User
    from pathgrade.simulate.tools import LiveTools

#: The environment variable holding the user model's API key.
ENV_USER_API_KEY = "PATHGRADE_USER_API_KEY"
#: Failed conversations named one line each, at most.
SHOWN_FAILURES = 10


class UserKind(StrEnum):
    scripted = "scripted"
    endpoint = "endpoint"


def simulate_command(
    cases: Annotated[Path, typer.Argument(help="Cases JSONL; the cases with a 'user' goal run.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Runs JSONL written (required).")],
    agent: AgentOption = None,
    endpoint: EndpointOption = None,
    model: ModelOption = None,
    system: SystemOption = None,
    tools: Annotated[
        Path | None,
        typer.Option(
            "--tools",
            help="Tools file (OpenAI function tools) for --endpoint; default: open schemas for"
            " the case's fixture tools and transfer tools.",
        ),
    ] = None,
    max_calls: Annotated[
        int, typer.Option("--max-calls", help="Most model calls in one turn (--endpoint).")
    ] = DEFAULT_MAX_TURNS,
    temperature: Annotated[
        float, typer.Option("--temperature", help="Sampling temperature of --endpoint.")
    ] = 0.0,
    user: Annotated[
        UserKind,
        typer.Option("--user", help="The user: scripted (the case's user.script) or endpoint."),
    ] = UserKind.scripted,
    user_url: Annotated[
        str | None,
        typer.Option(
            "--user-url",
            help="The user model's OpenAI-compatible base URL (--user endpoint); the API key"
            " is read from PATHGRADE_USER_API_KEY.",
        ),
    ] = None,
    user_model: Annotated[
        str | None, typer.Option("--user-model", help="Model name sent to --user-url.")
    ] = None,
    user_temperature: Annotated[
        float, typer.Option("--user-temperature", help="Sampling temperature of the user model.")
    ] = 0.0,
    fixtures: Annotated[
        Path | None,
        typer.Option(
            "--fixtures",
            help="Recorded runs JSONL: tool calls are answered from each case's recorded calls"
            " (unrecorded calls get an error, as in replay).",
        ),
    ] = None,
    faults: Annotated[
        Path | None,
        typer.Option("--faults", help="Faults file (TOML): faults injected into tool calls."),
    ] = None,
    live_tools: Annotated[
        bool,
        typer.Option(
            "--live-tools", help="Run the agent's own tools (its 'tools' dict) instead of fixtures."
        ),
    ] = False,
    trials: Annotated[int, typer.Option("--trials", help="Conversations per case.")] = 1,
    max_turns: Annotated[
        int, typer.Option("--max-turns", help="Most turns in one conversation.")
    ] = DEFAULT_MAX_TURNS,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Conversations run at once.")
    ] = 4,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Seconds one conversation may take (default: no limit)."),
    ] = None,
    deadline: Annotated[
        float, typer.Option("--deadline", help="Seconds one HTTP request attempt may take.")
    ] = DEFAULT_DEADLINE,
    max_retries: Annotated[
        int, typer.Option("--max-retries", help="Retries of a request on 429/5xx/timeouts.")
    ] = 4,
    budget_tokens: Annotated[
        float | None,
        typer.Option("--budget-tokens", help="Stop a conversation once it used this many tokens."),
    ] = None,
    budget_cost: Annotated[
        float | None,
        typer.Option("--budget-cost", help="Stop a conversation once it cost this much."),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the agent's randomness and of requests.")
    ] = 0,
    no_timing: Annotated[
        bool,
        typer.Option("--no-timing", help="Leave latencies out: repeatable output, byte for byte."),
    ] = False,
    stream: Annotated[
        bool,
        typer.Option(
            "--stream", help="Ask the endpoints for streamed replies (assembled, bounded)."
        ),
    ] = False,
) -> None:
    """Simulate conversations between a user and an agent; write one run per conversation."""
    _check_options(agent, endpoint, model, system, tools, user, user_url, user_model)
    if live_tools and (fixtures is not None or endpoint is not None):
        used = "--fixtures" if fixtures is not None else "--endpoint"
        raise InputError(f"--live-tools does not go with {used}", field="--live-tools")
    check_output_file(out, "--out")
    for option, value in (("--trials", trials), ("--max-turns", max_turns)):
        _at_least_one(option, value)
    _at_least_one("--concurrency", concurrency)
    _at_least_one("--max-calls", max_calls)
    for option, number in (
        ("--timeout", timeout),
        ("--budget-tokens", budget_tokens),
        ("--budget-cost", budget_cost),
    ):
        if number is not None and not number > 0:
            raise InputError(f"must be > 0, got {number!r}", field=option)
    try:
        _simulate(locals())
    except KeyboardInterrupt as stop:
        from pathgrade.simulate import SimulationInterrupted

        if isinstance(stop, SimulationInterrupted):
            said = (
                f"{stop.finished} conversation(s) written to {out} (whole lines);"
                f" {stop.dropped} in flight dropped, {stop.not_started} not started"
            )
        else:
            said = f"nothing more is written; {out} holds whole lines only"
        print(f"pathgrade: interrupted: {said}", file=sys.stderr)
        raise typer.Exit(130) from None


def _at_least_one(option: str, value: int) -> None:
    if value < 1:
        raise InputError(f"must be >= 1, got {value}", field=option)


def _check_options(
    agent: str | None,
    endpoint: str | None,
    model: str | None,
    system: Path | None,
    tools: Path | None,
    user: UserKind,
    user_url: str | None,
    user_model: str | None,
) -> None:
    check_agent_choice(agent, endpoint, model, tools, system)
    if user is UserKind.endpoint:
        for option, value in (("--user-url", user_url), ("--user-model", user_model)):
            if not value:
                raise InputError(f"--user endpoint needs {option}", field=option)
        if not str(user_url).startswith(("http://", "https://")):
            raise InputError(f"expected an http(s) URL, got {user_url!r}", field="--user-url")
    elif user_url is not None or user_model is not None:
        option = "--user-url" if user_url is not None else "--user-model"
        raise InputError(f"{option} goes with --user endpoint", field=option)


def _scripted_cases(loaded: Loaded[Case], name: str) -> None:
    """Every case with a user goal has a script for the scripted user."""
    for case, line in zip(loaded.items, loaded.lines, strict=True):
        if case.user is not None and not case.user.script:
            raise InputError(
                "is empty: the scripted user needs the user's messages (or use --user endpoint)",
                file=name,
                line=line,
                field="user.script",
            )


def _simulate(given: dict[str, Any]) -> None:
    """The command's work, with its options (``given``) already checked."""
    import os
    import random

    from pathgrade.io.cases import load_cases, load_runs
    from pathgrade.io.tools import load_tools
    from pathgrade.replay import EndpointClient, EndpointConfig, function_tools, load_faults
    from pathgrade.replay.loader import load_agent
    from pathgrade.simulate import CallableAgent, EndpointTurnAgent, LLMUser, RunWriter, simulate

    name = str(given["cases"])
    loaded = load_cases(given["cases"])
    if given["user"] is UserKind.scripted:
        _scripted_cases(loaded, name)
    chosen = [case for case in loaded.items if case.user is not None]
    if not chosen:
        raise InputError("no case has a 'user' goal: nothing to simulate", file=name)
    skipped = [case.case_id for case in loaded.items if case.user is None]
    if skipped:
        shown = clip(", ".join(skipped), 120)
        print(
            f"pathgrade: note: {len(skipped)} case(s) without a user goal skipped: {shown}",
            file=sys.stderr,
        )
    recorded = load_runs(given["fixtures"]).items if given["fixtures"] is not None else None
    plan = load_faults(given["faults"]) if given["faults"] is not None else None
    seed: int = given["seed"]
    request = {"seed": seed, "timeout": given["deadline"], "deadline": given["deadline"]}
    request["stream"] = given["stream"]
    request["retry"] = retry_policy(given["max_retries"])
    with ExitStack() as stack:
        turn_agent: TurnAgent
        live: LiveTools | None = None
        if given["agent"] is not None:
            function: Any = load_agent(given["agent"])
            turn_agent = CallableAgent(function, name=given["agent"])
            if given["live_tools"]:
                live = _live_tools(function)
        else:
            config = EndpointConfig.from_env(
                given["endpoint"], given["model"], temperature=given["temperature"], **request
            )
            client = stack.enter_context(EndpointClient(config, rng=random.Random(seed)))
            schemas = function_tools(load_tools(given["tools"])) if given["tools"] else None
            prompt = read_text(given["system"], "--system") if given["system"] else None
            turn_agent = EndpointTurnAgent(
                client, system=prompt, tools=schemas, max_calls=given["max_calls"]
            )
        speaker: User | Literal["scripted"] = "scripted"
        if given["user"] is UserKind.endpoint:
            key = os.environ.get(ENV_USER_API_KEY) or None
            settings = {**request, "temperature": given["user_temperature"]}
            user_config = _user_config(given["user_url"], given["user_model"], key, settings)
            user_client = EndpointClient(user_config, rng=random.Random(seed))
            speaker = LLMUser(stack.enter_context(user_client))
        writer = stack.enter_context(RunWriter(given["out"]))
        runs = simulate(
            chosen,
            turn_agent,
            speaker,
            trials=given["trials"],
            max_turns=given["max_turns"],
            concurrency=given["concurrency"],
            timeout=given["timeout"],
            fixtures=recorded,
            faults=plan,
            live_tools=live,
            budget_tokens=given["budget_tokens"],
            budget_cost=given["budget_cost"],
            seed=seed,
            timing=not given["no_timing"],
            on_run=writer.run,
            on_failure=writer.failure,
        )
    _summary(runs, writer.failures, given["out"], writer.errors)


def _user_config(url: str, model: str, key: str | None, settings: dict[str, Any]) -> EndpointConfig:
    from pathgrade.core.errors import ConfigError
    from pathgrade.replay import EndpointConfig

    try:
        return EndpointConfig(url, model, api_key=key, **settings)
    except ConfigError as error:
        field = {"--endpoint": "--user-url", "--model": "--user-model"}.get(error.field or "")
        raise InputError(error.message, field=field or error.field) from None


def _live_tools(function: Any) -> LiveTools:
    from collections.abc import Mapping

    found = getattr(function, "tools", None)
    if not isinstance(found, Mapping) or not all(callable(f) for f in found.values()):
        raise InputError(
            "needs the agent to have a 'tools' attribute: a dict of tool name -> function",
            field="--live-tools",
        )
    return found


def _summary(runs: list[Run], failures: int, out: Path, errors: Path) -> None:
    """The counts on one line, one line per failed conversation; exit 1 if there were any."""
    outcomes = Counter(run.metadata["simulator"]["outcome"] for run in runs)
    ended = Counter(run.metadata["simulator"]["ended_by"] for run in runs)
    total = len(runs) + failures
    by = ", ".join(f"{reason} {count}" for reason, count in sorted(ended.items()))
    print(
        f"pathgrade: simulate: {total} conversation(s): {outcomes['finished']} finished,"
        f" {outcomes['failed']} failed, {outcomes['timed_out']} timed out; {len(runs)} run(s)"
        f" written to {out} (ended by: {by or 'none'})"
        + (f"; {failures} without a turn in {errors}" if failures else ""),
        file=sys.stderr,
    )
    failed = [run for run in runs if run.metadata["simulator"]["outcome"] != "finished"]
    for run in failed[:SHOWN_FAILURES]:
        error = clip(str(run.metadata.get("error")), 240)
        print(f"pathgrade: failed: {clip(str(run.run_id))}: {error}", file=sys.stderr)
    if len(failed) > SHOWN_FAILURES:
        print(f"pathgrade: ... and {len(failed) - SHOWN_FAILURES} more", file=sys.stderr)
    if failed or failures:
        raise typer.Exit(1)
