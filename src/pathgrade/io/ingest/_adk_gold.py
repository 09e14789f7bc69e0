"""Google ADK gold: cases from eval sets, eval results and old ``*.test.json`` files.

A multi-turn conversation (several ``Invocation``\\ s) is ONE case: its reference is the
expected tool uses of every invocation, in conversation order (each reference step's
``metadata["invocation"]`` is the 0-based index of its invocation); the query is the first
user content, the gold answer the last invocation's ``final_response``; each turn's query,
expected final response and tool names are in ``metadata["turns"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Step
from pathgrade.io.ingest._adk_content import (
    USER,
    child,
    content_text,
    has,
    items,
    member,
    parts_of,
)
from pathgrade.io.ingest._common import At, IngestOptions, arr, bounded, decode_arguments, obj, text

_NEW = ("name", "args")
_OLD = ("tool_name", "tool_input")


def _step(
    call: Mapping[str, Any], at: At, invocation: int, agent: str | None, keys: tuple[str, str]
) -> Step:
    """A reference step from a call object (``keys``: its name and arguments members)."""
    name = text(member(call, keys[0], at)[0], at.key(keys[0]), optional=False) or ""
    if not name.strip():
        raise at.key(keys[0]).error("a tool use needs a name")
    raw, where = member(call, keys[1], at)
    arguments = bounded(decode_arguments(raw).value, where)
    metadata: dict[str, Any] = {"invocation": invocation}
    if agent is not None:
        metadata["agent"] = agent
    return _checked_step(at, tool=name, arguments=arguments, metadata=metadata)


def _checked_step(at: At, **fields: Any) -> Step:
    try:
        return Step(**fields)
    except ValidationError as failure:
        raise at.error(failure.errors()[0]["msg"]) from None


def _expected_calls(invocation: Mapping[str, Any], at: At, index: int) -> Iterator[Step]:
    """The tool uses an invocation expects: ``intermediate_data.tool_uses``, or the function
    calls of its ``invocation_events`` (which name the agent)."""
    data, where = child(invocation, "intermediate_data", at)
    if not has(data, "invocation_events"):
        for call, c_at in items(data, "tool_uses", where):
            yield _step(obj(call, c_at, optional=False), c_at, index, None, _NEW)
        return
    for value, e_at in items(data, "invocation_events", where):
        event = obj(value, e_at, optional=False)
        author = text(member(event, "author", e_at)[0], e_at.key("author"))
        agent = author if author and author.lower() != USER else None
        content, c_at = member(event, "content", e_at)
        for part, p_at in parts_of(content, c_at):
            call, f_at = member(part, "function_call", p_at)
            if call is not None:
                yield _step(obj(call, f_at), f_at, index, agent, _NEW)


def _case(
    eval_id: str,
    conversation: list[tuple[Mapping[str, Any], At]],
    metadata: dict[str, Any],
    query: str | None = None,
) -> Case:
    reference: list[Step] = []
    by_agent: dict[str, list[Step]] = {}
    turns: list[dict[str, Any]] = []
    for index, (invocation, at) in enumerate(conversation):
        calls = list(_expected_calls(invocation, at, index))
        reference.extend(calls)
        for step in calls:
            if "agent" in step.metadata:
                by_agent.setdefault(step.metadata["agent"], []).append(step)
        user, u_at = member(invocation, "user_content", at)
        final, f_at = member(invocation, "final_response", at)
        turns.append(
            {
                "query": content_text(user, u_at),
                "answer": content_text(final, f_at),
                "tools": [s.tool for s in calls],
            }
        )
    if turns:
        metadata["turns"] = turns
    return Case(
        case_id=eval_id,
        query=turns[0]["query"] if turns else query,
        reference=tuple(reference) if turns else None,
        gold_answer=turns[-1]["answer"] if turns else None,
        metadata=metadata,
        references_by_agent={k: tuple(v) for k, v in by_agent.items()} or None,
    )


def _checked(at: At, build: Callable[..., Case], *args: Any, **kwargs: Any) -> Case:
    """``build(*args, **kwargs)``, a validation failure as an error at ``at``."""
    try:
        return build(*args, **kwargs)
    except ValidationError as failure:
        raise at.error(failure.errors()[0]["msg"]) from None


def eval_set_cases(record: Mapping[str, Any], at: At, options: IngestOptions) -> list[Case]:
    """One case per ``eval_cases[i]``: its ``conversation``, or the ``starting_prompt`` of
    its ``conversation_scenario`` (no reference: a simulated user drives it). A bad case is
    reported through ``options`` and left out."""
    set_id = text(member(record, "eval_set_id", at)[0], at.key("eval_set_id"))
    out: list[Case] = []
    for value, c_at in items(record, "eval_cases", at):
        try:
            out.append(_eval_case(value, c_at, set_id))
        except InputError as error:
            options.fail(error)
    return out


def _eval_case(value: Any, c_at: At, set_id: str | None) -> Case:
    case = obj(value, c_at, optional=False)
    eval_id = text(member(case, "eval_id", c_at)[0], c_at.key("eval_id"), optional=False)
    conversation = [(obj(v, w, optional=False), w) for v, w in items(case, "conversation", c_at)]
    scenario, s_at = child(case, "conversation_scenario", c_at)
    prompt = text(member(scenario, "starting_prompt", s_at)[0], s_at.key("starting_prompt"))
    metadata: dict[str, Any] = {"eval_set_id": set_id} if set_id else {}
    if scenario:
        metadata["conversation_scenario"] = bounded(dict(scenario), s_at)
    return _checked(c_at, _case, eval_id or "", conversation, metadata, prompt)


def result_cases(record: Mapping[str, Any], at: At, options: IngestOptions) -> list[Case]:
    """One case per eval case result with ``expected_invocation``\\ s (a bad one is reported
    through ``options`` and left out)."""
    set_id = text(member(record, "eval_set_id", at)[0], at.key("eval_set_id"))
    out: list[Case] = []
    for value, r_at in items(record, "eval_case_results", at):
        try:
            case = _result_case(value, r_at, set_id)
        except InputError as error:
            options.fail(error)
            continue
        if case is not None:
            out.append(case)
    return out


def _result_case(value: Any, r_at: At, set_id: str | None) -> Case | None:
    result = obj(value, r_at, optional=False)
    eval_id = text(member(result, "eval_id", r_at)[0], r_at.key("eval_id"), optional=False)
    conversation: list[tuple[Mapping[str, Any], At]] = []
    for item, i_at in items(result, "eval_metric_result_per_invocation", r_at):
        expected, e_at = member(obj(item, i_at, optional=False), "expected_invocation", i_at)
        if expected is not None:
            conversation.append((obj(expected, e_at), e_at))
    if not conversation:
        return None
    metadata: dict[str, Any] = {"eval_set_id": set_id} if set_id else {}
    return _checked(r_at, _case, eval_id or "", conversation, metadata)


def test_file_case(entries: list[Any], at: At, file: str) -> Case:
    """The one case of an old ``*.test.json`` (a list of ``{query, expected_tool_use:
    [{tool_name, tool_input}], reference}`` turns), named by the file without ``.test.json``."""
    reference: list[Step] = []
    turns: list[dict[str, Any]] = []
    for index, value in enumerate(entries):
        where = at.item(index)
        entry = obj(value, where, optional=False)
        uses_at = where.key("expected_tool_use")
        steps = [
            _step(obj(use, uses_at.item(k), optional=False), uses_at.item(k), index, None, _OLD)
            for k, use in enumerate(arr(entry.get("expected_tool_use"), uses_at))
        ]
        reference.extend(steps)
        turns.append(
            {
                "query": text(entry.get("query"), where.key("query")),
                "answer": text(entry.get("reference"), where.key("reference")),
                "tools": [s.tool for s in steps],
            }
        )
    name = Path(file).name
    case_id = name.removesuffix(".json").removesuffix(".test") or name
    return _checked(
        at,
        Case,
        case_id=case_id,
        query=turns[0]["query"] if turns else None,
        reference=tuple(reference),
        gold_answer=turns[-1]["answer"] if turns else None,
        metadata={"turns": turns} if turns else {},
    )
