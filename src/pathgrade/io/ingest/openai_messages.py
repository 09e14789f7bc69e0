"""OpenAI chat-completions message lists.

One conversation per JSON line: a list of messages, or an object ``{"messages": [...],
"case_id"?, "run_id"?, "trial"?, "success"?, "usage"?, "metadata"?}``; a file holding one
JSON array of messages is one conversation.

================================  ==========================================================
assistant ``tool_calls[i]``       a step: ``function.name``; ``function.arguments`` is a JSON
                                  *string* (decoded; the text is kept in ``raw_arguments``);
                                  ``id`` is the call id. Calls of one message share a turn.
assistant ``function_call``       the legacy single call (a step of its own turn)
``role: "tool"``                  the result (``content``) of the step whose call id is
                                  ``tool_call_id``; ``role: "function"`` (legacy) by name
last assistant text               the answer
``usage.total_tokens``            ``usage.tokens`` (else prompt + completion tokens)
================================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run, Step, Usage
from pathgrade.io.ingest._build import sum_numbers
from pathgrade.io.ingest._common import (
    TRIAL_LIMIT,
    At,
    IngestOptions,
    bounded,
    decode_arguments,
    head_text,
    json_lines,
    kind,
    maybe_json,
    number,
    obj,
    text_of,
)

NAME = "openai-messages"


def content_text(content: Any) -> str | None:
    """Message content as text: a string, or the ``text`` parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "".join(texts) if texts else None
    return None


def _conversations(record: Any) -> list[Any]:
    if (
        isinstance(record, list)
        and record
        and all(isinstance(m, dict) and "role" in m for m in record)
    ):
        return [record]
    if isinstance(record, list):
        return record
    return [record]


class _Builder:
    def __init__(self, file: str, line: int) -> None:
        self.file, self.line = file, line
        self.steps: list[dict[str, Any]] = []
        self.by_call: dict[str, dict[str, Any]] = {}
        self.turn = 0
        self.answer: str | None = None

    def error(self, message: str, field: str) -> InputError:
        return InputError(message, file=self.file, line=self.line, field=field)

    def at(self, field: str) -> At:
        return At(self.file, self.line, field)

    def call(self, name: Any, arguments: Any, call_id: Any, where: str) -> None:
        if not isinstance(name, str) or not name.strip():
            raise self.error("a tool call needs a function name", f"{where}.function.name")
        decoded = decode_arguments(arguments)
        bounded(decoded.value, self.at(f"{where}.function.arguments"))
        step: dict[str, Any] = {
            "tool": name,
            "arguments": decoded.value,
            "raw_arguments": decoded.raw,
            "call_id": call_id if isinstance(call_id, str) else None,
            "turn": self.turn,
            "metadata": {"arguments_unparsed": True} if decoded.unparsed else {},
        }
        if arguments is None:
            step["metadata"]["arguments_recorded"] = False
        self.steps.append(step)
        if step["call_id"]:
            self.by_call[step["call_id"]] = step

    def message(self, message: Any, where: str) -> None:
        if not isinstance(message, dict):
            raise self.error(f"a message must be an object, got {kind(message)}", where)
        role = message.get("role")
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list):
                raise self.error("tool_calls must be a list", f"{where}.tool_calls")
            for k, call in enumerate(calls):
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict):
                    raise self.error(
                        "a tool call needs a 'function' object", f"{where}.tool_calls[{k}]"
                    )
                self.call(
                    fn.get("name"), fn.get("arguments"), call.get("id"), f"{where}.tool_calls[{k}]"
                )
            legacy = message.get("function_call")
            if isinstance(legacy, dict):
                self.call(
                    legacy.get("name"), legacy.get("arguments"), None, f"{where}.function_call"
                )
            if calls or isinstance(legacy, dict):
                self.turn += 1
            text = content_text(message.get("content"))
            if text:
                self.answer = text
        elif role == "tool":
            call_id = message.get("tool_call_id")
            step = self.by_call.get(call_id) if isinstance(call_id, str) else None
            if step is None:
                raise self.error(
                    f"tool result for unknown tool_call_id {call_id!r}", f"{where}.tool_call_id"
                )
            output = maybe_json(content_text(message.get("content")))
            step["output"] = bounded(output, self.at(f"{where}.content"))
            if message.get("status") == "error":  # LangChain ToolMessage
                step["error"] = content_text(message.get("content")) or "error"
        elif role == "function":
            name = message.get("name")
            for step in reversed(self.steps):
                if step["tool"] == name and "output" not in step:
                    output = maybe_json(content_text(message.get("content")))
                    step["output"] = bounded(output, self.at(f"{where}.content"))
                    break


def conversation_run(
    conversation: Any, options: IngestOptions, *, file: str, line: int, position: int
) -> Run:
    """The run of one conversation (raises :class:`InputError` naming file and line)."""
    header: dict[str, Any] = {}
    if isinstance(conversation, dict):
        header = conversation
        messages = conversation.get("messages")
    else:
        messages = conversation
    if not isinstance(messages, list):
        raise InputError(
            "expected a list of messages or an object with 'messages'",
            file=file,
            line=line,
            field="messages",
        )
    builder = _Builder(file, line)
    for index, message in enumerate(messages):
        builder.message(message, f"messages[{index}]")
    run_id = text_of(header.get("run_id")) or text_of(header.get("id"))
    run_id = run_id or f"{Path(file).name}:{line}" + (f"#{position}" if position else "")
    at = At(file, line)
    metadata = bounded(obj(header.get("metadata"), at.key("metadata")), at.key("metadata"))
    usage_raw = obj(header.get("usage"), at.key("usage"))
    tokens = number(usage_raw.get("total_tokens")) or sum_numbers(
        usage_raw.get("prompt_tokens"), usage_raw.get("completion_tokens")
    )
    trial = header.get("trial")
    trial = trial if isinstance(trial, int) and not isinstance(trial, bool) else 0
    if trial >= TRIAL_LIMIT:
        raise at.key("trial").error("a trial number must be below 2**63")
    try:
        return Run(
            case_id=options.case_id(
                run_id, header.get("case_id") or metadata.get(options.case_id_attribute)
            ),
            run_id=run_id,
            trial=trial,
            steps=tuple(Step(**s) for s in builder.steps),
            answer=builder.answer,
            success=header.get("success") if isinstance(header.get("success"), bool) else None,
            usage=Usage(tokens=tokens) if tokens is not None else None,
            metadata={**metadata, "source": NAME},
        )
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError(first["msg"], file=file, line=line) from None


def sniff(head: bytes | str) -> bool:
    """Messages with ``role`` and either ``tool_calls`` or ``"type": "function"``."""
    text = head_text(head)
    return (
        '"role"' in text
        and ('"tool_calls"' in text or '"function_call"' in text)
        and ('"function"' in text)
        and '"resourceSpans"' not in text
    )


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """One run per conversation."""
    options = options or IngestOptions()
    name = str(path)
    for line, record in json_lines(path, options):
        for position, conversation in enumerate(_conversations(record)):
            try:
                run = conversation_run(
                    conversation, options, file=name, line=line, position=position
                )
            except InputError as error:
                options.fail(error)
                continue
            yield run
