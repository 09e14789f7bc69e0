"""One Inspect AI ``EvalSample`` as a run, and as a case (see :mod:`.inspect_ai`).

Every value is type-checked through the accessors of :mod:`._common`; a wrong one is an
:class:`InputError` naming file, line and field path (``samples[2].messages[1].tool_calls``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from pathgrade.core.types import Case, Run, Step, Usage
from pathgrade.io.ingest._build import sum_numbers
from pathgrade.io.ingest._common import (
    TRIAL_LIMIT,
    At,
    IngestOptions,
    arr,
    bounded,
    decode_arguments,
    kind,
    maybe_json,
    number,
    obj,
    text,
    text_of,
)
from pathgrade.io.ingest._usage import split_sum, with_split
from pathgrade.io.ingest.openai_messages import content_text

SOURCE = "inspect-ai"
_ATTACHMENT = "attachment://"
#: Score values read as a pass or a failure (Inspect's CORRECT / INCORRECT / NOANSWER).
_PASS = {"C": True, "I": False, "N": False}


@dataclass(frozen=True)
class LogInfo:
    """What the log's header says about every sample: task, model, eval id, dataset order."""

    task: str | None = None
    model: str | None = None
    eval_id: str | None = None
    order: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, header: Mapping[str, Any], at: At) -> LogInfo:
        """The info of a log header (an EvalLog object without its samples)."""
        spec = obj(header.get("eval"), at.key("eval"))
        dataset = obj(spec.get("dataset"), at.key("eval").key("dataset"))
        ids = dataset.get("sample_ids")
        order = {str(v): i for i, v in enumerate(ids)} if isinstance(ids, list) else {}
        return cls(
            text_of(spec.get("task")),
            text_of(spec.get("model")),
            text_of(spec.get("eval_id")),
            order,
        )

    def rank(self, sample_id: Any, epoch: Any) -> tuple[int, int]:
        """Sort key of a sample: epoch, then position in the dataset (unknown: last)."""
        epoch = epoch if isinstance(epoch, int) and not isinstance(epoch, bool) else 0
        return epoch, self.order.get(str(sample_id), len(self.order))


def sample_id(sample: Mapping[str, Any], at: At) -> str:
    """The sample's ``id`` (a string or an integer) as text."""
    value = sample.get("id")
    if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
        raise at.key("id").error(f"expected a non-empty string or an integer, got {kind(value)}")
    return str(value)


def _epoch(sample: Mapping[str, Any], at: At) -> int:
    value = sample.get("epoch", 1)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise at.key("epoch").error(f"expected an integer of at least 1, got {value!r:.40}")
    if value > TRIAL_LIMIT:
        raise at.key("epoch").error("an epoch must be at most 2**63")
    return value


def _text(content: Any, attachments: Mapping[str, Any]) -> str | None:
    """Message content as text (``attachment://`` references resolved)."""
    found = content_text(content)
    if found is not None and found.startswith(_ATTACHMENT):
        resolved = attachments.get(found[len(_ATTACHMENT) :])
        return resolved if isinstance(resolved, str) else found
    return found


def _seconds(value: Any) -> float | None:
    """Unix seconds of an ISO 8601 timestamp (``None`` when it is not one)."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def _timings(events: Any, at: At) -> dict[str, dict[str, float]]:
    """Per tool call id: ``latency_ms``, ``start_time``, ``end_time`` of its ``tool`` event."""
    out: dict[str, dict[str, float]] = {}
    for event in arr(events, at):
        if not isinstance(event, dict) or event.get("event") != "tool":
            continue
        call_id = text_of(event.get("id"))
        if call_id is None:
            continue
        found: dict[str, float] = {}
        working = number(event.get("working_time"))
        if working is not None:
            found["latency_ms"] = working * 1000.0
        for key, source in (("start_time", "timestamp"), ("end_time", "completed")):
            seconds = _seconds(event.get(source))
            if seconds is not None:
                found[key] = seconds
        out.setdefault(call_id, found)
    return out


class _Messages:
    """Steps from assistant ``tool_calls``; results and errors from ``tool`` messages."""

    def __init__(self, attachments: Mapping[str, Any]) -> None:
        self.attachments = attachments
        self.steps: list[dict[str, Any]] = []
        self.by_call: dict[str, dict[str, Any]] = {}
        self.turn = 0
        self.last_text: str | None = None
        self.unmatched = 0

    def read(self, messages: Any, at: At) -> None:
        for index, item in enumerate(arr(messages, at)):
            where = at.item(index)
            message = obj(item, where, optional=False)
            role = message.get("role")
            if role == "assistant":
                self._assistant(message, where)
            elif role == "tool":
                self._tool(message, where)

    def _assistant(self, message: Mapping[str, Any], at: At) -> None:
        calls = arr(message.get("tool_calls"), at.key("tool_calls"))
        for k, item in enumerate(calls):
            where = at.key("tool_calls").item(k)
            call = obj(item, where, optional=False)
            name = text(call.get("function"), where.key("function"), optional=False) or ""
            if not name.strip():
                raise where.key("function").error("a tool call needs a function name")
            decoded = decode_arguments(call.get("arguments"))
            bounded(decoded.value, where.key("arguments"))
            metadata: dict[str, Any] = {"arguments_unparsed": True} if decoded.unparsed else {}
            parse_error = text_of(call.get("parse_error"))
            if parse_error:
                metadata["parse_error"] = parse_error
            step: dict[str, Any] = {
                "tool": name,
                "arguments": decoded.value,
                "raw_arguments": decoded.raw,
                "call_id": text_of(call.get("id")),
                "turn": self.turn,
                "metadata": metadata,
            }
            self.steps.append(step)
            if step["call_id"] and step["call_id"] not in self.by_call:
                self.by_call[step["call_id"]] = step
        if calls:
            self.turn += 1
        said = _text(message.get("content"), self.attachments)
        if said:
            self.last_text = said

    def _tool(self, message: Mapping[str, Any], at: At) -> None:
        call_id = text_of(message.get("tool_call_id"))
        step = self.by_call.get(call_id) if call_id else None
        if step is None or "done" in step:  # no id: pair by function name, in call order
            name = text_of(message.get("function"))
            step = next((s for s in self.steps if s["tool"] == name and "done" not in s), None)
        if step is None:
            self.unmatched += 1
            return
        step["done"] = True
        output = maybe_json(_text(message.get("content"), self.attachments))
        error = obj(message.get("error"), at.key("error"))
        if error:
            step["error"] = text_of(error.get("message")) or text_of(error.get("type")) or "error"
            if text_of(error.get("type")):
                step["metadata"]["error_type"] = error["type"]
            if output == "":
                output = None
        step["output"] = bounded(output, at.key("content"))


def _passed(value: Any) -> bool | None:
    """A score value as a pass (``C``, 1, true) or a failure (``I``, ``N``, 0, false)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _PASS.get(value.strip().upper())
    if isinstance(value, int | float) and value in (0, 1):
        return value == 1
    return None


def _scores(sample: Mapping[str, Any], at: At) -> tuple[dict[str, Any], bool | None]:
    """Each scorer's value, and the success the first pass/fail scorer gives."""
    values: dict[str, Any] = {}
    success: bool | None = None
    for name, item in obj(sample.get("scores"), at.key("scores")).items():
        score = obj(item, at.key("scores").key(name))
        value = bounded(score.get("value"), at.key("scores").key(name).key("value"))
        values[name] = value
        if success is None:
            success = _passed(value)
    return values, success


def _usage(sample: Mapping[str, Any], at: At) -> Usage | None:
    """Tokens and cost summed over ``model_usage`` (else ``output.usage``), and the split
    (``input_tokens``/``output_tokens``, :mod:`._usage`); ``total_time``."""
    tokens: list[float] = []
    costs: list[float] = []
    splits: list[tuple[float | None, float | None]] = []
    by_model = obj(sample.get("model_usage"), at.key("model_usage"))
    output = obj(sample.get("output"), at.key("output"))
    usages = list(by_model.values()) or [output.get("usage")]
    for item in usages:
        usage = item if isinstance(item, dict) else {}
        total = number(usage.get("total_tokens")) or sum_numbers(
            usage.get("input_tokens"), usage.get("output_tokens")
        )
        if total is not None:
            tokens.append(total)
        splits.append((number(usage.get("input_tokens")), number(usage.get("output_tokens"))))
        cost = number(usage.get("total_cost"))
        if cost is not None:
            costs.append(cost)
    seconds = number(sample.get("total_time"))
    found = None
    if tokens or costs or seconds is not None:
        found = Usage(
            tokens=sum(tokens) if tokens else None,
            cost=sum(costs) if costs else None,
            latency_ms=seconds * 1000.0 if seconds is not None else None,
        )
    return with_split(found, split_sum(splits))


def _answer(sample: Mapping[str, Any], at: At, last_text: str | None) -> str | None:
    """``output.completion`` when not empty, else the last assistant text."""
    output = obj(sample.get("output"), at.key("output"))
    completion = text(output.get("completion"), at.key("output").key("completion"))
    return completion or last_text


def sample_run(sample: Any, at: At, log: LogInfo, options: IngestOptions) -> Run:
    """The run of one sample × epoch (trial = epoch - 1)."""
    record = obj(sample, at, optional=False)
    ident = sample_id(record, at)
    epoch = _epoch(record, at)
    attachments = obj(record.get("attachments"), at.key("attachments"))
    messages = _Messages(attachments)
    messages.read(record.get("messages"), at.key("messages"))
    timings = _timings(record.get("events"), at.key("events"))
    for step in messages.steps:
        step.pop("done", None)
        step.update(timings.get(step["call_id"] or "", {}))
    scores, success = _scores(record, at)
    metadata: dict[str, Any] = {"source": SOURCE, "epoch": epoch}
    for key, value in (("task", log.task), ("model", log.model), ("eval_id", log.eval_id)):
        if value is not None:
            metadata[key] = value
    if scores:
        metadata["scores"] = scores
    working = number(record.get("working_time"))
    if working is not None:
        metadata["working_time"] = working
    error = obj(record.get("error"), at.key("error"))
    if error:
        metadata["error"] = text_of(error.get("message")) or "error"
        success = False if success is None else success
    limit = obj(record.get("limit"), at.key("limit"))
    if text_of(limit.get("type")):
        metadata["limit"] = limit["type"]
    if messages.unmatched:
        metadata["unmatched_tool_results"] = messages.unmatched
    run_id = text_of(record.get("uuid")) or f"{ident}#epoch{epoch}"
    try:
        return Run(
            case_id=options.case_id(run_id, ident),
            run_id=run_id,
            trial=epoch - 1,
            steps=tuple(Step(**s) for s in messages.steps),
            answer=_answer(record, at, messages.last_text),
            success=success,
            usage=_usage(record, at),
            metadata=metadata,
        )
    except ValidationError as failure:
        first = failure.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise (at.key(where) if where else at).error(first["msg"]) from None


def _query(value: Any, at: At, attachments: Mapping[str, Any]) -> str | None:
    """The sample input as text: a string, or the first user message's text."""
    if isinstance(value, str):
        return value
    for index, item in enumerate(arr(value, at)):
        message = obj(item, at.item(index), optional=False)
        if message.get("role") == "user":
            return _text(message.get("content"), attachments)
    return None


def _gold(value: Any, at: At) -> str | tuple[str, ...] | None:
    """The target: a string, or a list of acceptable strings (empty: no gold)."""
    if isinstance(value, str):
        return value or None
    items = arr(value, at)
    for index, item in enumerate(items):
        text(item, at.item(index), optional=False)
    return tuple(items) or None


def sample_case(sample: Any, at: At, log: LogInfo) -> Case:
    """The case of a sample: its id, input text as ``query``, target as ``gold_answer``."""
    record = obj(sample, at, optional=False)
    attachments = obj(record.get("attachments"), at.key("attachments"))
    metadata: dict[str, Any] = {}
    if log.task is not None:
        metadata["task"] = log.task
    choices = arr(record.get("choices"), at.key("choices"))
    if choices:
        metadata["choices"] = bounded(choices, at.key("choices"))
    extra = obj(record.get("metadata"), at.key("metadata"))
    if extra:
        metadata["sample_metadata"] = bounded(dict(extra), at.key("metadata"))
    try:
        return Case(
            case_id=sample_id(record, at),
            query=_query(record.get("input"), at.key("input"), attachments),
            gold_answer=_gold(record.get("target"), at.key("target")),
            metadata=metadata,
        )
    except ValidationError as failure:
        raise at.error(failure.errors()[0]["msg"]) from None


def header_of(document: Mapping[str, Any]) -> dict[str, Any]:
    """A ``.json`` log without its samples (what ``header.json`` holds in an ``.eval``)."""
    return {k: v for k, v in document.items() if k != "samples"}
