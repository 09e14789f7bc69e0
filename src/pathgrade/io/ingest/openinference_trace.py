"""What the OpenInference classifier must know of a whole trace, not of one span.

- **Repeated LangGraph nodes**: AGENT spans that are one of several runs of a LangGraph node
  with the same parent (the ``agent`` node of a ReAct graph runs once per model call): not
  agent scopes.
- **Tools that are not steps**: hand-offs, by name ``transfer_to_<agent>``
  (:func:`~pathgrade.io.ingest.producers.handoff_name`) of an agent the trace holds (an AGENT
  span's name, see :func:`agent_name`) or of an OpenAI Agents SDK ``handoff to X`` span's
  target; and the producer's answer tools (:mod:`.producers`: smolagents' ``final_answer``,
  DSPy's ``finish``). Neither their spans nor the model's calls of them are steps.
- **Nested retrievers**: a RETRIEVER span inside another RETRIEVER span (LlamaIndex's
  ``aretrieve`` around ``_aretrieve``) is part of it, not a retrieval of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pathgrade.io.ingest._common import maybe_json, text_of
from pathgrade.io.ingest.producers import handoff_name, producer_of
from pathgrade.io.ingest.span_json import flat_attributes
from pathgrade.io.ingest.spans import Span, ancestors

KIND = "openinference.span.kind"
HANDOFF = "handoff to "
#: Attributes naming an AGENT span's agent, in the order they are tried (then the span name):
#: OpenInference's own, the GenAI conventions' (pydantic-ai), the graph node (CrewAI, AutoGen).
AGENT_NAME_KEYS = ("agent.name", "gen_ai.agent.name", "graph.node.id")


def kind_of(attrs: Mapping[str, Any]) -> str:
    """The span's OpenInference kind, upper case (``""`` when it has none)."""
    return (text_of(attrs.get(KIND)) or "").upper()


def agent_name(span: Span, attrs: Mapping[str, Any]) -> str | None:
    """An AGENT span's agent name (:data:`AGENT_NAME_KEYS`, else the span name)."""
    for key in AGENT_NAME_KEYS:
        found = text_of(attrs.get(key))
        if found:
            return found
    return span.name or None


def is_handoff_span(span: Span, attrs: Mapping[str, Any]) -> bool:
    """An OpenAI Agents SDK hand-off span (``handoff to X``, no ``tool.name``)."""
    return not text_of(attrs.get("tool.name")) and span.name.startswith(HANDOFF)


def _langgraph_node(span: Span) -> str | None:
    attrs = span.attributes
    node = attrs.get("metadata.langgraph_node")
    if node is None:
        decoded = maybe_json(attrs.get("metadata"))
        node = decoded.get("langgraph_node") if isinstance(decoded, dict) else None
    return node if isinstance(node, str) else None


def repeated_langgraph_nodes(spans: Sequence[Span]) -> frozenset[str]:
    """Span ids of AGENT spans that are one of several runs of a LangGraph node with the same
    parent (the ``agent`` node of a ReAct graph: one run per model call)."""
    groups: dict[tuple[str | None, str, str], list[str]] = {}
    for span in spans:
        kind = span.attributes.get(KIND)
        if not isinstance(kind, str) or kind.upper() != "AGENT":
            continue
        node = _langgraph_node(span)
        if node is not None:
            groups.setdefault((span.parent_id, node, span.name), []).append(span.span_id)
    return frozenset(i for ids in groups.values() if len(ids) > 1 for i in ids)


def handoff_tool_names(
    spans: Sequence[Span], repeated: frozenset[str] = frozenset()
) -> frozenset[str]:
    """The hand-off tool names of these spans (module docstring)."""
    names = set()
    for span in spans:
        raw = span.attributes.get(KIND)
        if isinstance(raw, str) and raw.upper() not in ("TOOL", "AGENT"):
            continue  # flattened attributes of another kind: nothing to read
        attrs = flat_attributes(span.attributes)
        kind = kind_of(attrs)
        if kind == "TOOL" and is_handoff_span(span, attrs):
            target = text_of(attrs.get("output.value")) or span.name[len(HANDOFF) :]
            names.add(handoff_name(target))
        elif kind == "AGENT" and span.span_id not in repeated:
            found = agent_name(span, attrs)
            if found:
                names.add(handoff_name(found))
    return frozenset(names)


def nested_retrievers(spans: Sequence[Span]) -> frozenset[str]:
    """Span ids of RETRIEVER spans with a RETRIEVER ancestor."""
    index = {s.span_id: s for s in spans}

    def retriever(span: Span) -> bool:
        kind = span.attributes.get(KIND)
        return isinstance(kind, str) and kind.upper() == "RETRIEVER"

    return frozenset(
        s.span_id for s in spans if retriever(s) and any(retriever(a) for a in ancestors(s, index))
    )


@dataclass(frozen=True)
class TraceFacts:
    """What :func:`pathgrade.io.ingest.openinference.classify` needs of the span's trace."""

    repeated_nodes: frozenset[str] = frozenset()
    not_steps: frozenset[str] = frozenset()
    nested: frozenset[str] = frozenset()


#: A span read on its own: no facts of its trace.
NO_FACTS = TraceFacts()


def trace_facts(spans: Sequence[Span]) -> TraceFacts:
    """The facts of one trace's spans (module docstring)."""
    repeated = repeated_langgraph_nodes(spans)
    answer_tools = frozenset().union(*(producer_of(s.scope).answer_tools for s in spans))
    return TraceFacts(
        repeated_nodes=repeated,
        not_steps=handoff_tool_names(spans, repeated) | answer_tools,
        nested=nested_retrievers(spans),
    )
