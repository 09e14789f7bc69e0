"""tau-bench compact runs (``tau_bench_runs.jsonl``: one line per task, model and trial).

=============================  ============================================================
``case_id``, ``run_id``,       the run's identity
``trial``
``agent_actions[i]``           step ``i``: ``tool`` and JSON ``arguments``
``agent_tool_error_indices``   those steps get ``error`` (their tool result began "Error")
``reward``                     ``success`` (reward 1.0); kept in ``metadata`` with
                               ``r_actions``, ``r_outputs``, ``episode_done``, ``model`` ...
``gold_actions``               the case's reference path (:func:`read_cases`; a ``respond``
                               action, if any, left out as tau-bench's reward leaves it)
``gold_outputs``               the case's ``metadata["gold_outputs"]`` (strings the replies
                               must contain; ``r_outputs`` is the recorded check of them)
``turns[i]`` (optional)        turn ``i`` of ``Run.turns``: ``user`` (the user's message),
                               ``reply`` (the agent's last text, or null), ``ended_by``
                               (last turn only); its steps are steps ``first_action[i]``
                               up to ``first_action[i + 1]`` (0 for the first turn, never
                               decreasing, at most the number of steps), so the run's steps
                               are the same with or without turns
=============================  ============================================================

``turns`` follows the rules of every message-reading reader (:mod:`._turns`): a line with
one turn reads as a single-turn run (no ``Run.turns``); the last reply that is not null is
the run's ``answer`` (the agent's last text, as the results reader's answer). A line without
``turns`` reads as before. The bundled ``examples/tau_bench/tau_bench_runs.jsonl`` has turns:
``examples/tau_bench/compact_turns.py`` adds them from tau-bench's results file, the same
turns :mod:`pathgrade.io.ingest.tau_bench_results` reads there. The compact file carries no tool
outputs, timings or tokens.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.conversation import END_REASONS, Turn
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.io.cases import validation_error
from pathgrade.io.ingest._common import (
    TRIAL_LIMIT,
    At,
    IngestOptions,
    arr,
    bounded,
    head_text,
    json_lines,
    obj,
    text,
)
from pathgrade.io.ingest._turns import TurnMarks

NAME = "tau-bench"
#: Tools of the tau-bench airline and retail domains that change the database.
WRITE_TOOLS = (
    "book_reservation",
    "cancel_reservation",
    "update_reservation_flights",
    "update_reservation_baggages",
    "update_reservation_passengers",
    "send_certificate",
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "modify_user_address",
    "return_delivered_order_items",
)
#: The action name of a reply to the user: not a tool call, never part of the reference
#: (tau-bench's ``calculate_reward`` leaves it out of the gold actions too).
RESPOND = "respond"
#: The members of a ``turns`` entry.
TURN_FIELDS = frozenset({"user", "first_action", "reply", "ended_by"})
#: Run metadata kept from a record (``None`` when the record lacks the field).
RUN_METADATA = (
    "domain",
    "task_id",
    "model",
    "reward",
    "r_actions",
    "r_outputs",
    "episode_done",
    "n_messages",
    "agent_text_messages",
)


def _actions(value: Any, field: str, *, file: str, line: int) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(
        isinstance(a, dict) and isinstance(a.get("tool"), str) for a in value
    ):
        raise InputError("expected a list of {tool, arguments}", file=file, line=line, field=field)
    at = At(file, line, field)
    for i, action in enumerate(value):
        bounded(action.get("arguments"), at.item(i).key("arguments"))
    return value


def _turn_marks(value: Any, n_steps: int, at: At) -> TurnMarks | None:
    """The turn boundaries of ``turns`` (``None`` when the line has none; module docstring)."""
    if value is None:
        return None
    entries = arr(value, at, optional=False)
    if not entries:
        raise at.error("expected at least one turn (or no turns field)")
    marks = TurnMarks()
    previous = 0
    for index, entry in enumerate(entries):
        where = at.item(index)
        item = obj(entry, where, optional=False)
        unknown = sorted(set(item) - TURN_FIELDS)
        if unknown:
            raise where.key(unknown[0]).error(f"unknown field; expected {sorted(TURN_FIELDS)}")
        user = text(item.get("user"), where.key("user"), optional=False) or ""
        if not user.strip():
            raise where.key("user").error("a turn needs the user's message")
        start = item.get("first_action")
        high = n_steps if index else 0  # the first turn holds the calls before any message
        if not isinstance(start, int) or isinstance(start, bool) or not previous <= start <= high:
            hint = "" if index else " (the first turn holds the run's first calls)"
            raise where.key("first_action").error(
                f"expected an index into agent_actions from {previous} to {high},"
                f" got {start!r:.40}{hint}"
            )
        previous = start
        ended_by = item.get("ended_by")
        if ended_by is not None and (ended_by not in END_REASONS or index < len(entries) - 1):
            raise where.key("ended_by").error(
                f"expected one of {list(END_REASONS)} on the last turn, got {ended_by!r:.40}"
            )
        marks.open(user, start)
        marks.reply(text(item.get("reply"), where.key("reply")))
        if ended_by is not None:
            marks.end(ended_by)
    return marks


def _run(record: Any, file: str, line: int) -> Run:
    if not isinstance(record, dict):
        raise InputError("expected a JSON object", file=file, line=line)
    actions = _actions(record.get("agent_actions"), "agent_actions", file=file, line=line)
    errors = record.get("agent_tool_error_indices") or []
    if not isinstance(errors, list):
        raise InputError(
            "expected a list of indices", file=file, line=line, field="agent_tool_error_indices"
        )
    failed = {i for i in errors if isinstance(i, int)}
    reward = record.get("reward")
    if not isinstance(reward, int | float) or isinstance(reward, bool):
        raise InputError(
            f"reward must be a number, got {reward!r}", file=file, line=line, field="reward"
        )
    at = At(file, line)
    metadata = {k: bounded(record.get(k), at.key(k)) for k in RUN_METADATA}
    marks = _turn_marks(record.get("turns"), len(actions), at.key("turns"))
    try:
        steps = tuple(
            Step(
                tool=a["tool"],
                arguments=a.get("arguments") or {},
                error="tool result began with 'Error'" if i in failed else None,
            )
            for i, a in enumerate(actions)
        )
        turns: tuple[Turn, ...] | None = None
        answer: str | None = None  # the agent's last text, as the results reader's answer
        if marks is not None:
            turns = marks.turns(steps)
            answer = next((m.reply for m in reversed(marks.marks) if m.reply), None)
        run = Run(
            case_id=record.get("case_id"),
            run_id=record.get("run_id"),
            trial=record.get("trial", 0),
            steps=steps,
            turns=turns,
            answer=answer,
            success=reward == 1.0,
            metadata={"source": NAME, **metadata},
        )
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(first["msg"], file=file, line=line, field=where or None) from None
    if run.trial >= TRIAL_LIMIT:
        raise at.key("trial").error("a trial number must be below 2**63")
    return run


def gold_case(
    case_id: str,
    *,
    instruction: Any,
    domain: Any,
    actions: list[tuple[str, Any]],
    outputs: Any,
    task_id: Any,
) -> Case:
    """The case of one tau-bench task, as both tau-bench readers build it: the gold
    ``(name, arguments)`` actions but :data:`RESPOND` are the reference path, the gold
    output strings go in ``metadata["gold_outputs"]`` (raises ``ValidationError``)."""
    return Case(
        case_id=case_id,
        query=instruction,
        group=domain,
        reference=tuple(
            Step(tool=name, arguments=arguments or {})
            for name, arguments in actions
            if name != RESPOND
        ),
        metadata={"gold_outputs": outputs, "task_id": task_id},
    )


def sniff(head: bytes | str) -> bool:
    start = head_text(head)
    return '"agent_actions"' in start and '"gold_actions"' in start


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """One run per line."""
    options = options or IngestOptions()
    name = str(path)
    for line, record in json_lines(path, options):
        for item in record if isinstance(record, list) else [record]:
            try:
                yield _run(item, name, line)
            except InputError as error:
                options.fail(error)


def read_cases(path: str | Path, options: IngestOptions | None = None) -> list[Case]:
    """One case per ``case_id``: the gold actions as the reference path (first line wins)."""
    options = options or IngestOptions()
    name = str(path)
    cases: dict[str, Case] = {}
    for line, record in json_lines(path, options):
        for item in record if isinstance(record, list) else [record]:
            if not isinstance(item, dict):
                continue
            at = At(name, line)
            try:
                case_id = text(item.get("case_id"), at.key("case_id"), optional=False) or ""
                if case_id in cases:
                    continue
                gold = _actions(item.get("gold_actions"), "gold_actions", file=name, line=line)
                cases[case_id] = gold_case(
                    case_id,
                    instruction=item.get("instruction"),
                    domain=item.get("domain"),
                    actions=[(a["tool"], a.get("arguments")) for a in gold],
                    outputs=bounded(item.get("gold_outputs") or [], at.key("gold_outputs")),
                    task_id=bounded(item.get("task_id"), at.key("task_id")),
                )
            except ValidationError as error:
                options.fail(validation_error(error, file=name, line=line))
            except InputError as error:
                options.fail(error)
    return list(cases.values())
