"""A replay agent that is a model driving a tool-calling loop (OpenAI chat-completions shape).

:class:`EndpointAgent` is an ordinary replay agent (``agent(task) -> answer``). For each case
it sends the optional system prompt and the case query as the user message, with the tool
schemas. Then, for each assistant message:

* every entry of its ``tool_calls`` is answered from the frozen fixtures through
  :meth:`~pathgrade.replay.harness.ReplayTask.call_step`. The calls of one message are one
  turn (``Step.turn``, 0-based: the index of the model call), in the order the model listed
  them; each result goes back as a ``role: "tool"`` message with the call's
  ``tool_call_id``. An error observation is sent as ``{"error": ...}`` JSON; an output that is
  not a string is sent as JSON.
* argument text that is not JSON is kept in ``Step.raw_arguments`` and answered with an error
  observation (:meth:`~pathgrade.replay.harness.ReplayTask.reject`); the model can correct it.
* a message without tool calls ends the loop: its content is the run's answer.

At most ``max_turns`` model calls are made. When the last one still asks for tools, those
calls are answered and recorded, the run has no answer and ``metadata["replay"]["agent"]
["stopped"]`` is ``"max_turns"`` (otherwise ``"answer"``, or ``"error"`` when the endpoint
failed for good: the error text is kept, the run has no answer, and the next run goes on).

After an interruption (``interrupt_at``, :mod:`pathgrade.replay.interrupt`) the loop is
restarted from the recorded state: the conversation is rebuilt from ``task.checkpoint``
(:func:`checkpoint_messages`: per turn, the assistant message with the calls made and their
results; calls of the cut turn that were not made are left out), and the turns go on from
the last one recorded.

Each model call's latency, tokens and cost (when the reply reports ``usage``) are shared out
evenly over the steps of its turn and summed into the run's ``usage``, which also counts the
final answering call. The HTTP client is :mod:`pathgrade.replay.endpoint`; anything with the
same ``complete`` method works (see :class:`Completer`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import orjson

from pathgrade.core.types import Run, Step
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.openai_compat import message_of
from pathgrade.replay.endpoint import Completion, EndpointError
from pathgrade.replay.harness import Observation, ReplayTask

DEFAULT_MAX_TURNS = 10
DANGEROUS_KEY = "x-dangerous"  # the tools file's marker (pathgrade.io.tools), not sent


class Completer(Protocol):
    """What the loop needs from a client: a model name and one chat-completions call."""

    @property
    def model(self) -> str: ...

    def complete(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> Completion: ...


def tool_schema(name: str) -> dict[str, Any]:
    """The open schema of a tool known only by name: any JSON object as arguments."""
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def function_tools(tools: ToolSet) -> tuple[dict[str, Any], ...]:
    """The tools of a tools file (:func:`pathgrade.io.tools.load_tools`, the file scoring
    reads) in OpenAI function format. The ``x-dangerous`` marker is left out; a boolean
    schema becomes an open object (``true``) or an object without properties (``false``)."""
    out: list[dict[str, Any]] = []
    for spec in tools.tools.values():
        if isinstance(spec.parameters, bool):
            parameters: dict[str, Any] = {"type": "object"}
            if not spec.parameters:
                parameters.update(properties={}, additionalProperties=False)
        else:
            parameters = {k: v for k, v in spec.parameters.items() if k != DANGEROUS_KEY}
        function: dict[str, Any] = {"name": spec.name}
        if spec.description is not None:
            function["description"] = spec.description
        function["parameters"] = parameters
        out.append({"type": "function", "function": function})
    return tuple(out)


def tools_from_runs(runs: Iterable[Run]) -> tuple[dict[str, Any], ...]:
    """Open schemas for every tool called in ``runs``, in order of first call."""
    names = dict.fromkeys(step.tool for run in runs for step in run.steps)
    return tuple(tool_schema(name) for name in names)


def parse_arguments(raw: Any) -> tuple[Any, str | None, str | None]:
    """``(arguments, raw text, problem)`` of a tool call's ``function.arguments``.

    JSON text of an object or array is decoded; any other JSON value becomes a one-element
    list (as in ingest); empty text is no arguments. Text that is not JSON gives
    ``(None, text, problem)``. A server that sends an object instead of text is accepted.
    """
    if raw is None:
        return {}, None, None
    if isinstance(raw, dict | list):
        return raw, None, None
    if not isinstance(raw, str):
        return None, repr(raw), f"arguments must be JSON text, got {type(raw).__name__}"
    if not raw.strip():
        return {}, raw, None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return None, raw, f"arguments are not valid JSON ({error})"
    return (value if isinstance(value, dict | list) else [value]), raw, None


def observation_text(obs: Observation) -> str:
    """The ``content`` of the ``role: "tool"`` message that answers a call."""
    if obs.error is not None:
        payload: dict[str, Any] = {"error": obs.error}
        if obs.output is not None:
            payload["output"] = obs.output
        return orjson.dumps(payload).decode()
    if isinstance(obs.output, str):
        return obs.output
    return orjson.dumps(obs.output).decode()


class EndpointAgent:
    """A model behind a :class:`Completer` run as a replay agent.

    Args:
        client: the chat-completions client (an open
            :class:`~pathgrade.replay.endpoint.EndpointClient`).
        system: the system prompt (none by default).
        tools: the tool schemas in OpenAI function format; None derives open schemas from
            each recorded run's calls (:func:`tools_from_runs`).
        max_turns: the most model calls per run.
    """

    def __init__(
        self,
        client: Completer,
        *,
        system: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {max_turns}")
        self.client = client
        self.system = system
        self.tools = None if tools is None else tuple(tools)
        self.max_turns = max_turns

    def __repr__(self) -> str:
        tools = "derived" if self.tools is None else len(self.tools)
        return f"EndpointAgent({self.client.model!r}, tools={tools}, max_turns={self.max_turns})"

    def __call__(self, task: ReplayTask) -> str | None:
        tools = self.tools if self.tools is not None else tools_from_runs([task.recorded])
        messages: list[dict[str, Any]] = []
        if self.system:
            messages.append({"role": "system", "content": self.system})
        messages.append({"role": "user", "content": task.query or ""})
        first = 0
        if task.resumed:
            messages += checkpoint_messages(task.checkpoint)
            first = 1 + max((s.turn for s in task.checkpoint if s.turn is not None), default=-1)
            task.notes["resumed_at_turn"] = first
        else:
            task.notes.update(model=self.client.model, turns=0, stopped="max_turns")
        for turn in range(first, self.max_turns):
            try:
                reply = self.client.complete(messages, tools)
                message = message_of(reply.data)
                if message is None:
                    raise EndpointError("the reply has no choices[0].message")
            except EndpointError as error:
                task.notes.update(stopped="error", error=str(error))
                return None
            task.notes["turns"] = turn + 1
            _note_reply(task, reply)
            calls = message.get("tool_calls")
            if not isinstance(calls, list) or not calls:
                task.notes["stopped"] = "answer"
                content = message.get("content")
                return content if isinstance(content, str) else None
            sent = [_normalized(call, turn, index) for index, call in enumerate(calls)]
            messages.append(
                {"role": "assistant", "content": message.get("content"), "tool_calls": sent}
            )
            share = _share(reply, len(sent))
            for call in sent:
                obs = self._answer(task, call, turn, share)
                messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": observation_text(obs)}
                )
        return None

    def _answer(
        self, task: ReplayTask, call: dict[str, Any], turn: int, share: dict[str, Any]
    ) -> Observation:
        function = call["function"]
        name = function.get("name")
        arguments, raw, problem = parse_arguments(function.get("arguments"))
        if not isinstance(name, str) or not name:
            text = raw if raw is not None else orjson.dumps(arguments).decode()
            return task.reject(
                "<unnamed>", text, "the tool call has no function name",
                turn=turn, call_id=call["id"], **share,
            )  # fmt: skip
        if problem is not None:
            return task.reject(name, raw or "", problem, turn=turn, call_id=call["id"], **share)
        return task.call_step(
            name, arguments, turn=turn, call_id=call["id"], raw_arguments=raw, **share
        )


def checkpoint_messages(steps: Sequence[Step]) -> list[dict[str, Any]]:
    """The conversation after ``steps`` (the calls made before an interruption): per turn in
    order, the assistant message with those calls, then one ``role: "tool"`` message each."""
    out: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for index, step in enumerate(steps):
        call_id = step.call_id or f"call_{step.turn}_{index}"
        text = step.raw_arguments
        if text is None:
            text = orjson.dumps(step.arguments).decode()
        function = {"name": step.tool, "arguments": text}
        if index == 0 or step.turn is None or step.turn != steps[index - 1].turn:
            calls = []
            out.append({"role": "assistant", "content": None, "tool_calls": calls})
        calls.append({"id": call_id, "type": "function", "function": function})
        obs = Observation(step.output, step.error, True)
        out.append({"role": "tool", "tool_call_id": call_id, "content": observation_text(obs)})
    return out


def _normalized(call: Any, turn: int, index: int) -> dict[str, Any]:
    """A tool call as sent back to the model: an id (made up when missing), a function."""
    call = call if isinstance(call, dict) else {}
    function = call.get("function")
    function = function if isinstance(function, dict) else {}
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        call_id = f"call_{turn}_{index}"
    return {"id": call_id, "type": "function", "function": function}


def _share(reply: Completion, n: int) -> dict[str, Any]:
    """One step's even share of the model call's latency, tokens and cost."""
    tokens = reply.tokens
    return {
        "latency_ms": reply.latency_ms / n,
        "tokens": None if tokens is None else tokens / n,
        "cost": None if reply.cost is None else reply.cost / n,
    }


def _note_reply(task: ReplayTask, reply: Completion) -> None:
    task.add_usage(tokens=reply.tokens, cost=reply.cost, latency_ms=reply.latency_ms)
    if reply.attempts > 1:
        task.notes["retries"] = task.notes.get("retries", 0) + reply.attempts - 1
    for field, note in (("model", "response_model"), ("system_fingerprint", "system_fingerprint")):
        value = reply.data.get(field)
        if isinstance(value, str):
            task.notes[note] = value
