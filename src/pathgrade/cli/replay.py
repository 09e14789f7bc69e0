"""``pathgrade replay RUNS --agent module:callable -o replayed.jsonl``: offline replay."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import orjson
import typer

from pathgrade.core.config import CALL_MODES
from pathgrade.core.errors import InputError
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config
from pathgrade.io.ingest import write_runs
from pathgrade.plugins import argument_matchers
from pathgrade.replay import Unrecorded, replay_runs
from pathgrade.replay.loader import load_agent


class OnUnrecorded(StrEnum):
    error = "error"
    value = "value"
    abort = "abort"


def replay_command(
    runs: Annotated[Path, typer.Argument(help="Recorded runs JSONL (the tool fixtures).")],
    agent: Annotated[
        str, typer.Option("--agent", help="The agent: 'module:callable' or 'file.py:callable'.")
    ],
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
        typer.Option("--mode", help=f"Argument matching mode: {', '.join(CALL_MODES)}."),
    ] = None,
    unrecorded: Annotated[
        OnUnrecorded,
        typer.Option("--unrecorded", help="Reply to an unrecorded call: error, value, abort."),
    ] = OnUnrecorded.error,
    reply: Annotated[
        str | None, typer.Option("--reply", help="JSON output for --unrecorded value.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the agent's randomness.")] = 0,
    label: Annotated[str, typer.Option("--label", help="Suffix of replayed run ids.")] = "replay",
) -> None:
    """Run an agent against frozen tool outputs recorded in RUNS; write the replayed runs."""
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
    replayed = list(
        replay_runs(
            recorded,
            load_agent(agent),
            cases=case_map,
            matching=matching,
            plugins=argument_matchers(),
            unrecorded=Unrecorded(unrecorded.value, reply_value),
            seed=seed,
            label=label,
        )
    )
    count = write_runs(replayed, out)
    misses = sum(r.metadata["replay"]["unrecorded"] for r in replayed)
    print(
        f"pathgrade: {count} run(s) replayed; {misses} unrecorded call(s) flagged",
        file=sys.stderr,
    )
