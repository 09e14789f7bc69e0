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
                               must contain; the compact file has no reply text, so the
                               recorded ``r_outputs`` is the only check of them)
=============================  ============================================================

The compact file carries no tool outputs, reply text, timings or tokens. tau-bench's own
results files are read by :mod:`pathgrade.io.ingest.tau_bench_results`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.io.cases import validation_error
from pathgrade.io.ingest._common import (
    TRIAL_LIMIT,
    At,
    IngestOptions,
    bounded,
    head_text,
    json_lines,
    text,
)

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
    try:
        run = Run(
            case_id=record.get("case_id"),
            run_id=record.get("run_id"),
            trial=record.get("trial", 0),
            steps=tuple(
                Step(
                    tool=a["tool"],
                    arguments=a.get("arguments") or {},
                    error="tool result began with 'Error'" if i in failed else None,
                )
                for i, a in enumerate(actions)
            ),
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
