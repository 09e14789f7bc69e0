"""Google ADK content: field access in both spellings, parts, and events as steps.

ADK's pydantic models write ``snake_case`` names by default and ``camelCase`` ones with
``by_alias=True`` (``adk run --save_session``, the API server): ``function_call`` /
``functionCall``, ``invocation_id`` / ``invocationId``. :func:`member` reads either (the
``snake_case`` name wins when both are present), and errors name the key as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pathgrade.io.ingest._build import sum_numbers
from pathgrade.io.ingest._common import (
    At,
    arr,
    bounded,
    decode_arguments,
    number,
    obj,
    text,
    text_of,
)

USER = "user"


def camel(name: str) -> str:
    """``function_call`` -> ``functionCall``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def member(record: Mapping[str, Any], name: str, at: At) -> tuple[Any, At]:
    """The value of ``name`` (``snake_case``, else its ``camelCase`` alias) and its location."""
    if name in record:
        return record[name], at.key(name)
    alias = camel(name)
    return record.get(alias), at.key(alias if alias in record else name)


def has(record: Mapping[str, Any], name: str) -> bool:
    """Whether ``record`` holds ``name`` in either spelling."""
    return name in record or camel(name) in record


def child(record: Mapping[str, Any], name: str, at: At) -> tuple[Mapping[str, Any], At]:
    """An object member (``{}`` when absent or null)."""
    value, where = member(record, name, at)
    return obj(value, where), where


def items(record: Mapping[str, Any], name: str, at: At) -> list[tuple[Any, At]]:
    """The elements of a list member with their locations (``[]`` when absent or null)."""
    value, where = member(record, name, at)
    return [(item, where.item(i)) for i, item in enumerate(arr(value, where))]


def parts_of(content: Any, at: At) -> list[tuple[Mapping[str, Any], At]]:
    """The parts of a ``Content`` object (each an object)."""
    record = obj(content, at)
    return [(obj(p, where, optional=False), where) for p, where in items(record, "parts", at)]


def text_of_parts(parts: list[tuple[Mapping[str, Any], At]]) -> str | None:
    """The joined ``text`` of the parts that are not thoughts (``None`` when there is none)."""
    found: list[str] = []
    for part, where in parts:
        said = text(member(part, "text", where)[0], where.key("text"))
        if said is not None and member(part, "thought", where)[0] is not True:
            found.append(said)
    return "".join(found) if found else None


def content_text(content: Any, at: At) -> str | None:
    """The text of a ``Content`` object."""
    return text_of_parts(parts_of(content, at))


def tokens_of(usage: Mapping[str, Any]) -> float | None:
    """``total_token_count``, else prompt + candidates tokens, of a usage metadata object."""
    total = number(usage.get("total_token_count", usage.get("totalTokenCount")))
    if total is not None:
        return total
    return sum_numbers(
        usage.get("prompt_token_count", usage.get("promptTokenCount")),
        usage.get("candidates_token_count", usage.get("candidatesTokenCount")),
    )


def split_of(usage: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """``(prompt_token_count, candidates_token_count + thoughts_token_count)`` of a usage
    metadata object (thinking tokens are billed as output; each side ``None`` when not
    recorded)."""
    inputs = number(usage.get("prompt_token_count", usage.get("promptTokenCount")))
    outputs = sum_numbers(
        usage.get("candidates_token_count", usage.get("candidatesTokenCount")),
        usage.get("thoughts_token_count", usage.get("thoughtsTokenCount")),
    )
    return inputs, outputs


def response_error(response: Any) -> str | None:
    """The failure a tool result reports: a truthy ``error`` member (ADK's convention), or
    an MCP result with ``isError: true`` (its text content as the message)."""
    if not isinstance(response, dict):
        return None
    error = response.get("error")
    if error:
        return error if isinstance(error, str) else str(error)[:1000]
    if response.get("isError") is True or response.get("is_error") is True:
        content = response.get("content")
        texts = [
            c["text"]
            for c in (content if isinstance(content, list) else [])
            if isinstance(c, dict) and isinstance(c.get("text"), str)
        ]
        return "".join(texts) or "isError"
    return None


@dataclass
class Steps:
    """Steps of one run: function calls in order; their responses fill output and error.

    Each event (model response) that makes calls is one turn, counted 0-based over the run,
    so calls of one response share a turn and calls of different agents never do.
    """

    steps: list[dict[str, Any]] = field(default_factory=list)
    by_call: dict[str, dict[str, Any]] = field(default_factory=dict)
    turns: int = 0

    def call(self, call: Mapping[str, Any], at: At, turn: int | None, agent: str | None) -> None:
        """Add the step of one ``FunctionCall`` object (``{id, name, args}``)."""
        name = text(member(call, "name", at)[0], at.key("name"), optional=False) or ""
        if not name.strip():
            raise at.key("name").error("a function call needs a name")
        raw, where = member(call, "args", at)
        decoded = decode_arguments(raw)
        bounded(decoded.value, where)
        metadata: dict[str, Any] = {"arguments_unparsed": True} if decoded.unparsed else {}
        if agent is not None:
            metadata["agent"] = agent
        step: dict[str, Any] = {
            "tool": name,
            "arguments": decoded.value,
            "raw_arguments": decoded.raw,
            "call_id": text(member(call, "id", at)[0], at.key("id")),
            "turn": turn,
            "metadata": metadata,
        }
        self.steps.append(step)
        if step["call_id"] and step["call_id"] not in self.by_call:
            self.by_call[step["call_id"]] = step

    def response(self, response: Mapping[str, Any], at: At, when: float | None) -> None:
        """Fill the step a ``FunctionResponse`` answers (by id, else the first open call of
        that name)."""
        call_id = text_of(member(response, "id", at)[0])
        step = self.by_call.get(call_id) if call_id else None
        if step is None or "done" in step:
            name = text_of(member(response, "name", at)[0])
            step = next((s for s in self.steps if s["tool"] == name and "done" not in s), None)
        if step is None:
            return
        step["done"] = True
        value, where = member(response, "response", at)
        step["output"] = bounded(value, where)
        error = response_error(value)
        if error is not None:
            step["error"] = error
        if when is not None:
            step["end_time"] = when
            start = step.get("start_time")
            if start is not None and when >= start:
                step["latency_ms"] = (when - start) * 1000.0

    def event(
        self, parts: list[tuple[Mapping[str, Any], At]], agent: str | None, when: float | None
    ) -> None:
        """The calls (one turn) and responses of one event's parts."""
        calls = [(p, w) for p, w in parts if has(p, "function_call")]
        turn = (
            self.turns
            if any(member(p, "function_call", w)[0] is not None for p, w in calls)
            else None
        )
        for part, where in calls:
            value, at = member(part, "function_call", where)
            if value is None:
                continue
            self.call(obj(value, at), at, turn, agent)
            if when is not None:
                self.steps[-1]["start_time"] = when
        if turn is not None:
            self.turns += 1
        for part, where in parts:
            value, at = member(part, "function_response", where)
            if value is not None:
                self.response(obj(value, at), at, when)

    def finished(self) -> list[dict[str, Any]]:
        """The steps, ready for :class:`~pathgrade.core.types.Step`."""
        for step in self.steps:
            step.pop("done", None)
        return self.steps


def has_function_parts(parts: list[tuple[Mapping[str, Any], At]]) -> bool:
    """Whether any part is a function call or a function response."""
    return any(
        member(p, "function_call", w)[0] is not None
        or member(p, "function_response", w)[0] is not None
        for p, w in parts
    )
