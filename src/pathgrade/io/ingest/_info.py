"""What a span says, in format-neutral terms: the classifiers' output, the builder's input.

A format reader classifies each span into a :class:`SpanInfo`; ``_build.build_run`` turns the
classified spans of one trace into a run (the rules are in its module docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pathgrade.io.ingest.spans import Span

SpanKind = Literal["tool", "llm", "retrieval", "agent"]


@dataclass(frozen=True)
class EmittedCall:
    """A tool call a model span's output message asked for, in the order the model wrote it.

    ``index`` is its position among the calls of that model response (0-based).
    """

    name: str | None
    arguments: Any = None
    call_id: str | None = None
    index: int = 0


@dataclass(frozen=True)
class ToolResult:
    """A tool result the model was shown (a ``tool`` message in a model span's input).

    ``error`` is set when the message says the call failed (LangChain ``status: "error"``,
    an MCP ``isError`` result).
    """

    call_id: str | None
    content: Any = None
    error: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class SpanInfo:
    """What one span says, in format-neutral terms (``None`` = not recorded).

    ``tool``/``call_id``/``arguments``/``result`` describe a tool call, or for a retrieval
    the retriever's name, its query and parameters and its raw result. ``error`` is a failure
    the span's content reports although its status does not (an MCP ``isError`` result).
    ``emitted_calls`` and ``tool_results`` are read from a model span's output and input
    messages. ``agent_name`` names the agent of an ``agent`` span. A model span's
    ``input_tokens``/``output_tokens`` are its recorded split of ``tokens``, ``model`` the
    model it names (the request's, the name a price table is keyed on, else the response's).
    ``unmapped``: the span follows none of the conventions its reader knows (no
    OpenInference kind, no GenAI operation, ...): counted and reported, never silently
    dropped (``IngestOptions.unmapped``).
    """

    kind: SpanKind | None
    tool: str | None = None
    call_id: str | None = None
    arguments: Any = None
    result: Any = None
    tokens: float | None = None
    input_tokens: float | None = None
    output_tokens: float | None = None
    model: str | None = None
    cost: float | None = None
    #: A human-in-the-loop decision the trace records on this call (``Step.approval``).
    approval: Literal["granted", "denied"] | None = None
    #: The first call of a run resumed after an interruption (``Step.resumed``).
    resumed: bool = False
    documents: Sequence[tuple[str, float | None]] = ()
    output_text: str | None = None
    agent_name: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    emitted_calls: Sequence[EmittedCall] = ()
    tool_results: Sequence[ToolResult] = ()
    unmapped: bool = False


Classifier = Callable[[Span], SpanInfo]
