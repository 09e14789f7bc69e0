"""OpenAI chat-completions message lists.

One conversation per JSON line: a list of messages, or an object ``{"messages": [...],
"case_id"?, "run_id"?, "trial"?, "success"?, "usage"?, "metadata"?}``; a file holding one
JSON array of messages is one conversation.

================================  ==========================================================
assistant ``tool_calls[i]``       a step: ``function.name``; ``function.arguments`` is a JSON
                                  *string* (decoded; the text is kept in ``raw_arguments``);
                                  ``id`` is the call id. Calls of one message share a turn.
assistant ``function_call``       the legacy single call (a step of its own turn)
``role: "tool"``                  the result (``content``) of a call, paired as below;
                                  ``role: "function"`` (legacy) by name
last assistant text               the answer
``role: "user"`` (with text)      opens a conversation turn (``Run.turns``, :mod:`._turns`):
                                  its calls are the steps until the next user message, its
                                  last assistant text the reply; a leading system message
                                  is no turn, messages before the first user message belong
                                  to the first turn; fewer than two user messages: no turns
``usage.total_tokens``            ``usage.tokens`` (else prompt + completion tokens);
                                  ``prompt_tokens``/``completion_tokens`` (or ``input_``/
                                  ``output_tokens``) the run's split
``model`` (a string)              ``metadata["model"]``, unless the metadata has one
================================  ==========================================================

Pairing a ``tool`` message with its call (calls are *unanswered* until paired):

1. a ``tool_call_id`` that names a call: the earliest unanswered call with that id (a second
   result for an answered call replaces the first);
2. no ``tool_call_id`` (absent, null or ``""``): the earliest unanswered call that has no id;
   when every call has an id, the one unanswered call if exactly one is unanswered;
3. an unknown ``tool_call_id``: the one unanswered call if exactly one is, and it has no id.

Anything else is an error naming the message. Steps paired by rule 2 or 3 have
``metadata["result_paired_by"] = "position"``. Integer ids are read as their decimal text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import RetrievedItem, Run, Step, Usage
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
from pathgrade.io.ingest._turns import TurnMarks
from pathgrade.io.ingest._usage import with_split

NAME = "openai-messages"
#: The ranked ``(id, score)`` documents a tool message carries, or ``None`` (not a retrieval).
DocumentsOf = Callable[[Mapping[str, Any]], Sequence[tuple[str, float | None]] | None]


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


def _call_id(value: Any) -> str | None:
    """A call id as text: a non-empty string, or an integer's decimal text; else ``None``."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


class _Builder:
    def __init__(self, file: str, line: int, documents_of: DocumentsOf | None) -> None:
        self.file, self.line = file, line
        self.documents_of = documents_of
        self.steps: list[dict[str, Any]] = []
        self.answered: set[int] = set()  # indices into steps
        self.turn = 0
        self.answer: str | None = None
        self.retrievals: list[dict[str, Any]] = []
        self.turns = TurnMarks()

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
            "call_id": _call_id(call_id),
            "turn": self.turn,
            "metadata": {"arguments_unparsed": True} if decoded.unparsed else {},
        }
        if arguments is None:
            step["metadata"]["arguments_recorded"] = False
        self.steps.append(step)

    def pair(self, call_id: str | None, where: str) -> int:
        """The index of the step a tool message answers (the rules of the module docstring)."""
        open_ = [i for i in range(len(self.steps)) if i not in self.answered]
        if call_id is not None:
            named = [i for i, s in enumerate(self.steps) if s["call_id"] == call_id]
            if named:
                return next((i for i in named if i not in self.answered), named[-1])
            if len(open_) == 1 and self.steps[open_[0]]["call_id"] is None:
                return self._by_position(open_[0])
            raise self.error(
                f"tool result for unknown tool_call_id {call_id!r}", f"{where}.tool_call_id"
            )
        anonymous = [i for i in open_ if self.steps[i]["call_id"] is None]
        if anonymous:
            return self._by_position(anonymous[0])
        if len(open_) == 1:
            return self._by_position(open_[0])
        raise self.error(
            f"a tool result without tool_call_id cannot be paired: {len(open_)} calls"
            " are unanswered and all have ids",
            f"{where}.tool_call_id",
        )

    def _by_position(self, index: int) -> int:
        self.steps[index]["metadata"]["result_paired_by"] = "position"
        return index

    def result(self, message: Mapping[str, Any], where: str) -> None:
        index = self.pair(_call_id(message.get("tool_call_id")), where)
        self.answered.add(index)
        step = self.steps[index]
        output = maybe_json(content_text(message.get("content")))
        step["output"] = bounded(output, self.at(f"{where}.content"))
        if message.get("status") == "error":  # LangChain ToolMessage
            step["error"] = content_text(message.get("content")) or "error"
        found = self.documents_of(message) if self.documents_of else None
        if found is not None:
            step["metadata"]["retrieval"] = True
            docs = [
                {"id": doc_id, "score": score, "rank": rank}
                for rank, (doc_id, score) in enumerate(found, start=1)
            ]
            entry = {"tool": step["tool"], "call_id": step["call_id"], "documents": docs}
            self.retrievals.append(entry)

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
                self.turns.reply(text)
        elif role == "user":
            self.turns.open(content_text(message.get("content")), len(self.steps))
        elif role == "tool":
            self.result(message, where)
        elif role == "function":
            name = message.get("name")
            for step in reversed(self.steps):
                if step["tool"] == name and "output" not in step:
                    output = maybe_json(content_text(message.get("content")))
                    step["output"] = bounded(output, self.at(f"{where}.content"))
                    break

    def retrieved(self) -> tuple[RetrievedItem, ...] | None:
        """The documents of every retrieval, in order (first occurrence of an id kept)."""
        if not self.retrievals:
            return None
        seen: dict[str, float | None] = {}
        for retrieval in self.retrievals:
            for doc in retrieval["documents"]:
                seen.setdefault(doc["id"], doc["score"])
        return tuple(RetrievedItem(id=k, score=v) for k, v in seen.items())


def conversation_run(
    conversation: Any,
    options: IngestOptions,
    *,
    file: str,
    line: int,
    position: int,
    documents_of: DocumentsOf | None = None,
    source: str = NAME,
) -> Run:
    """The run of one conversation (raises :class:`InputError` naming file and line).

    ``documents_of`` reads the documents a ``tool`` message carries (LangChain retriever
    tools): such a step has ``metadata["retrieval"] = True``, and its documents go to
    ``retrieved`` and ``metadata["retrievals"]`` (``{"tool", "call_id", "documents": [{"id",
    "score", "rank"}]}``).
    """
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
    builder = _Builder(file, line, documents_of)
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
    split = (
        number(usage_raw.get("prompt_tokens", usage_raw.get("input_tokens"))),
        number(usage_raw.get("completion_tokens", usage_raw.get("output_tokens"))),
    )
    usage = with_split(Usage(tokens=tokens) if tokens is not None else None, split)
    model = text_of(header.get("model"))
    if model and "model" not in metadata:
        metadata = {**metadata, "model": model}
    trial = header.get("trial")
    trial = trial if isinstance(trial, int) and not isinstance(trial, bool) else 0
    if trial >= TRIAL_LIMIT:
        raise at.key("trial").error("a trial number must be below 2**63")
    try:
        steps = tuple(Step(**s) for s in builder.steps)
        return Run(
            case_id=options.case_id(
                run_id, header.get("case_id") or metadata.get(options.case_id_attribute)
            ),
            run_id=run_id,
            trial=trial,
            steps=steps,
            turns=builder.turns.turns(steps),
            answer=builder.answer,
            success=header.get("success") if isinstance(header.get("success"), bool) else None,
            usage=usage,
            retrieved=builder.retrieved(),
            metadata={**metadata, "source": source}
            | ({"retrievals": builder.retrievals} if builder.retrievals else {}),
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
