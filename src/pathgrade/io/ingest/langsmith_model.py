"""What a LangSmith model run (``run_type: "llm"``) and a root chain's outputs say.

A model run's output message is the first generation of the first prompt,
``outputs.generations[0][0]`` (its ``message``, else its ``text``: LangChain chat models),
else ``outputs.choices[0].message`` (``wrap_openai``), else ``outputs.output`` or ``outputs``
when they are an assistant message. From it: the text (the answer when the model run is the
root, or the last model text) and the tool calls it asks for, in order
(:func:`~.langchain_message.emitted_calls`). The ``tool`` messages of ``inputs.messages``
are the results the model was shown (``status: "error"`` marks a failed call).

Tokens, from the first of these that has a count (each is total, else input + output):

1. ``total_tokens`` / ``prompt_tokens`` + ``completion_tokens`` (runs read back from LangSmith);
2. ``extra.metadata.usage_metadata`` (LangChain's tracer copies the model's usage there);
3. ``outputs.usage_metadata`` (``wrap_openai``, ``@traceable`` model functions);
4. ``outputs.llm_output.token_usage``, then ``outputs.usage`` (the provider's counts);
5. the sum of the generations' ``message.usage_metadata``.

The run's split (input and output tokens) comes from the first of the same sources that
records either side (``prompt_``/``completion_tokens`` or ``input_``/``output_tokens``); the
model from ``extra.metadata.ls_model_name``, else ``extra.invocation_params.model`` (or
``model_name``), else the response's ``outputs.llm_output.model_name`` / ``outputs.model``.

Cost: ``total_cost``, else ``prompt_cost`` + ``completion_cost``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pathgrade.io.ingest._build import sum_numbers
from pathgrade.io.ingest._common import number
from pathgrade.io.ingest._info import SpanInfo, ToolResult
from pathgrade.io.ingest._usage import split_sum
from pathgrade.io.ingest.langchain_message import (
    EMPTY,
    Message,
    emitted_calls,
    message,
    message_list,
    texts,
)

#: Keys of a root chain's ``outputs`` read as the answer, in order.
ANSWER_KEYS = ("answer", "output", "text", "result", "response")
_INPUT = ("input_tokens", "output_tokens")
_PROMPT = ("prompt_tokens", "completion_tokens")


def _count(usage: Any, parts: tuple[str, str]) -> float | None:
    if not isinstance(usage, dict):
        return None
    total = number(usage.get("total_tokens"))
    return total if total is not None else sum_numbers(*(usage.get(p) for p in parts))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else EMPTY


def _generations(outputs: Mapping[str, Any]) -> list[Any]:
    found: list[Any] = []
    batches = outputs.get("generations")
    for batch in batches if isinstance(batches, list) else ():
        found.extend(batch if isinstance(batch, list) else [batch])
    return found


def tokens_of(run: Mapping[str, Any]) -> float | None:
    """A model run's token count (the first source of the module docstring that has one)."""
    outputs = _mapping(run.get("outputs"))
    extra = _mapping(run.get("extra"))
    counts = (
        number(run.get("total_tokens")),
        sum_numbers(run.get("prompt_tokens"), run.get("completion_tokens")),
        _count(_mapping(extra.get("metadata")).get("usage_metadata"), _INPUT),
        _count(outputs.get("usage_metadata"), _INPUT),
        _count(_mapping(outputs.get("llm_output")).get("token_usage"), _PROMPT),
        _count(outputs.get("usage"), _PROMPT),
    )
    found = next((count for count in counts if count is not None), None)
    if found is not None:
        return found
    per_generation = []
    for generation in _generations(outputs):
        found_message = message(_mapping(generation).get("message"))
        if found_message is not None:
            per_generation.append(_count(found_message.fields.get("usage_metadata"), _INPUT))
    return sum_numbers(*per_generation)


def _sides(usage: Any) -> tuple[float | None, float | None]:
    if not isinstance(usage, dict):
        return None, None
    inputs = number(usage.get("input_tokens", usage.get("prompt_tokens")))
    outputs = number(usage.get("output_tokens", usage.get("completion_tokens")))
    return inputs, outputs


def split_of(run: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """A model run's input and output tokens (module docstring)."""
    outputs = _mapping(run.get("outputs"))
    extra = _mapping(run.get("extra"))
    sources = (
        (number(run.get("prompt_tokens")), number(run.get("completion_tokens"))),
        _sides(_mapping(extra.get("metadata")).get("usage_metadata")),
        _sides(outputs.get("usage_metadata")),
        _sides(_mapping(outputs.get("llm_output")).get("token_usage")),
        _sides(outputs.get("usage")),
    )
    found = next((s for s in sources if s != (None, None)), None)
    if found is not None:
        return found
    per_generation = []
    for generation in _generations(outputs):
        found_message = message(_mapping(generation).get("message"))
        if found_message is not None:
            per_generation.append(_sides(found_message.fields.get("usage_metadata")))
    return split_sum(per_generation)


def model_of(run: Mapping[str, Any]) -> str | None:
    """The model a model run names (module docstring)."""
    extra = _mapping(run.get("extra"))
    params = _mapping(extra.get("invocation_params"))
    outputs = _mapping(run.get("outputs"))
    names = (
        _mapping(extra.get("metadata")).get("ls_model_name"),
        params.get("model"),
        params.get("model_name"),
        _mapping(outputs.get("llm_output")).get("model_name"),
        outputs.get("model"),
    )
    return next((n for n in names if isinstance(n, str) and n), None)


def _output(outputs: Any) -> tuple[str | None, Message | None]:
    """The output text and message of a model run (see module docstring)."""
    if isinstance(outputs, str):
        return outputs, None
    if not isinstance(outputs, dict):
        return None, None
    if isinstance(outputs.get("generations"), list):
        gens = _generations(outputs)
        first = _mapping(gens[0]) if gens else EMPTY
        found = message(first.get("message"))
        generated = first.get("text")
        if found is not None and found.text:
            return found.text, found
        return (generated if isinstance(generated, str) else None), found
    choices = outputs.get("choices")
    if isinstance(choices, list) and choices:
        choice = _mapping(choices[0])
        found = message(choice.get("message"))
        if found is not None:
            return found.text, found
        return (choice["text"] if isinstance(choice.get("text"), str) else None), None
    for candidate in (outputs.get("output"), outputs):
        found = message(candidate)
        if found is not None and found.role == "assistant":
            return found.text, found
    return None, None


def tool_results(inputs: Any) -> tuple[ToolResult, ...]:
    """The ``tool`` messages of a model run's ``inputs.messages`` (the results it was shown)."""
    found = message_list(inputs.get("messages") if isinstance(inputs, dict) else None)
    out = []
    for item in found:
        if item.role != "tool":
            continue
        call_id = item.fields.get("tool_call_id")
        name = item.fields.get("name")
        out.append(
            ToolResult(
                call_id if isinstance(call_id, str) and call_id else None,
                item.text if item.text is not None else item.fields.get("content"),
                (item.text or "error") if item.fields.get("status") == "error" else None,
                name if isinstance(name, str) else None,
            )
        )
    return tuple(out)


def model_info(run: Mapping[str, Any]) -> SpanInfo:
    """The :class:`SpanInfo` of a model run: tokens, cost, text, emitted calls, results shown."""
    text, found = _output(run.get("outputs"))
    cost = number(run.get("total_cost"))
    split = split_of(run)
    return SpanInfo(
        "llm",
        tokens=tokens_of(run),
        input_tokens=split[0],
        output_tokens=split[1],
        model=model_of(run),
        cost=cost
        if cost is not None
        else sum_numbers(run.get("prompt_cost"), run.get("completion_cost")),
        output_text=text or None,
        emitted_calls=emitted_calls(found.fields)
        if found is not None and found.role == "assistant"
        else (),
        tool_results=tool_results(run.get("inputs")),
    )


def answer_of(outputs: Any) -> str | None:
    """The answer in a chain's ``outputs``.

    A string; else the first of :data:`ANSWER_KEYS` holding a string (or an assistant
    message: its text); else the last assistant text of ``messages``; else the only string
    value of the object; else ``outputs`` itself when it is an assistant message.
    """
    if isinstance(outputs, str):
        return outputs or None
    if not isinstance(outputs, dict):
        return None
    for key in ANSWER_KEYS:
        value = outputs.get(key)
        if isinstance(value, str) and value:
            return value
        found = message(value)
        if found is not None and found.role == "assistant" and found.text:
            return found.text
    if isinstance(outputs.get("messages"), list):
        said = texts(message_list(outputs["messages"]))
        return said[-1] if said else None
    strings = [v for v in outputs.values() if isinstance(v, str)]
    if len(strings) == 1:
        return strings[0] or None
    found = message(outputs)
    return found.text if found is not None and found.role == "assistant" else None
