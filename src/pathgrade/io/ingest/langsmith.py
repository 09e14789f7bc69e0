"""LangSmith runs as spans: run trees (nested ``child_runs``) and flat runs (``parent_run_id``).

A record is a run (see :func:`is_run`), a list of runs, or ``{"runs": [...]}`` (the runs
query API). Runs nest through ``child_runs`` (``read_run(load_child_runs=True)``) or
point to their parent with ``parent_run_id`` (``list_runs``, the tracer's posts); both may
be mixed and spread over lines. Runs are grouped into traces by ``trace_id`` (else the
tree's, else the parent's, else the run's own id). A run id seen twice is one run: the later
record's non-null fields win (a post followed by its patch).

===============  ==========================================================================
``tool``         a step: ``name``; call id ``extra.tool_call_id``; arguments from ``inputs``
                 (``{"input": "<json>"}`` decoded, else the object); result ``outputs.output``
                 (a ``ToolMessage``: its ``content``, and ``status: "error"`` fails the step),
                 else ``outputs``; ``error`` (up to the traceback) fails the step; an
                 ``artifact`` of documents and no retriever run below: see :meth:`RunTrees.spans`
``retriever``    a retrieval step: ``name``; arguments ``inputs`` (``{"query": ...}``);
                 documents ``outputs.documents`` (LangChain) or ``outputs.output``
                 (``@traceable``), ids and scores as in :mod:`.langchain_message`
``llm``          a model call, see :func:`~.langsmith_model.model_info`
``chain``        an agent scope when it is the root, or when a model run and a tool or
                 retriever run are below it outside any deeper agent scope (a sub-agent;
                 graph nodes and plain runnables are not); its ``outputs`` give the answer
                 (:func:`~.langsmith_model.answer_of`)
===============  ==========================================================================
The case id attribute is read from ``extra.metadata``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from pathgrade.core.types import Run
from pathgrade.io.ingest._build import runs_from_traces
from pathgrade.io.ingest._common import At, IngestOptions, arr, kind, obj, text, text_of
from pathgrade.io.ingest._info import SpanInfo
from pathgrade.io.ingest.langchain_message import Message, documents, message
from pathgrade.io.ingest.langsmith_model import answer_of, model_info
from pathgrade.io.ingest.spans import Span, ancestors, time_ns

SOURCE = "langchain"
_TOOLS = frozenset({"tool", "retriever"})
_TRACEBACK = "Traceback (most recent call last)"


@dataclass
class _Node:
    run: dict[str, Any]
    parent: str | None
    trace: str | None
    at: At
    order: int


def is_run(value: Any) -> bool:
    """A LangSmith run: an object with ``run_type`` (or an ``id`` and a ``trace_id`` or
    ``dotted_order``, as a patch that updates a run can be)."""
    if not isinstance(value, dict):
        return False
    return "run_type" in value or (
        "id" in value and ("trace_id" in value or "dotted_order" in value)
    )


def run_items(record: Any, at: At) -> list[tuple[Any, At]] | None:
    """The runs a JSON record holds (see module docstring), or ``None`` when it holds none."""
    if is_run(record):
        return [(record, at)]
    if (
        isinstance(record, dict)
        and isinstance(record.get("runs"), list)
        and "messages" not in record
    ):
        return [(r, at.key("runs").item(i)) for i, r in enumerate(record["runs"])]
    if isinstance(record, list) and record and is_run(record[0]):
        return [(r, at.item(i)) for i, r in enumerate(record)]
    return None


def _error_text(value: Any) -> str | None:
    """A run's error up to its traceback (LangChain appends it), else its first line."""
    raw = text_of(value)
    if not raw or not raw.strip():
        return None
    head = raw.split(_TRACEBACK, 1)[0].strip()
    return (head or raw.strip()).splitlines()[0]


class RunTrees:
    """LangSmith runs gathered from the lines of a file, then built into one run per trace."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.nodes: dict[str, _Node] = {}
        self.count = 0

    def add(self, item: Any, at: At) -> None:
        """Add a run and its ``child_runs`` (all or nothing: an :class:`InputError` adds none)."""
        found: list[tuple[str, _Node]] = []
        stack: list[tuple[Any, str | None, str | None, At]] = [(item, None, None, at)]
        while stack:
            run, parent, trace, here = stack.pop()
            if not isinstance(run, dict):
                raise here.error(f"a run (or child run) must be an object, got {kind(run)}")
            run_id = run.get("id")
            if not isinstance(run_id, str) or not run_id:
                raise here.key("id").error("a run needs a string 'id'")
            own_parent = text(run.get("parent_run_id"), here.key("parent_run_id"))
            trace = text(run.get("trace_id"), here.key("trace_id")) or trace
            extra = obj(run.get("extra"), here.key("extra"))
            obj(extra.get("metadata"), here.key("extra").key("metadata"))
            time_ns(run.get("start_time"), here.key("start_time"))
            time_ns(run.get("end_time"), here.key("end_time"))
            node = _Node(run, parent or own_parent, trace, at, self.count + len(found))
            found.append((run_id, node))
            children_at = here.key("child_runs")
            children = arr(run.get("child_runs"), children_at)
            stack.extend(
                (child, run_id, trace or run_id, children_at.item(k))
                for k, child in reversed(list(enumerate(children)))
            )
        for run_id, node in found:
            self._merge(run_id, node)
        self.count += len(found)

    def _merge(self, run_id: str, node: _Node) -> None:
        old = self.nodes.get(run_id)
        if old is None:
            self.nodes[run_id] = node
            return
        later = {k: v for k, v in node.run.items() if v is not None}
        old.run = {**old.run, **later}
        old.parent = node.parent or old.parent
        old.trace = node.trace or old.trace

    def _trace_of(self, run_id: str) -> str:
        node, seen = self.nodes[run_id], {run_id}
        top = run_id
        while node.trace is None and node.parent in self.nodes and node.parent not in seen:
            top = node.parent
            seen.add(top)
            node = self.nodes[top]
        return node.trace or top

    def spans(self) -> dict[str, list[Span]]:
        """The runs as spans, grouped by trace id (in order of first appearance).

        A tool run whose ``ToolMessage`` output carries documents as its ``artifact`` and
        that has no retriever run below it gets one: a retrieval span ``<run id>#artifact``
        (the tool's name and inputs, the artifact's documents), so that, as for
        ``create_retriever_tool``, the call is one step and its documents are retrieved.
        """
        traces: dict[str, list[Span]] = {}
        retrieving = {
            n.parent for n in self.nodes.values() if text_of(n.run.get("run_type")) == "retriever"
        }
        for run_id, node in self.nodes.items():
            run, here = node.run, node.at
            extra = obj(run.get("extra"), here.key("extra"))
            meta = obj(extra.get("metadata"), here.key("extra").key("metadata"))
            trace_id = self._trace_of(run_id)
            span = Span(
                trace_id=trace_id,
                span_id=run_id,
                parent_id=node.parent,
                name=text_of(run.get("name")) or "",
                start_ns=time_ns(run.get("start_time"), here.key("start_time")),
                end_ns=time_ns(run.get("end_time"), here.key("end_time")),
                attributes={**meta, "run": run},
                error=_error_text(run.get("error")),
                line=here.line,
                order=node.order,
            )
            traces.setdefault(trace_id, []).append(span)
            found = _artifact_run(run) if run_id not in retrieving else None
            if found is not None:
                traces[trace_id].append(
                    replace(
                        span,
                        span_id=f"{run_id}#artifact",
                        parent_id=run_id,
                        attributes={**meta, "run": found},
                        error=None,
                    )
                )
        return traces

    def runs(self, options: IngestOptions) -> Iterator[Run]:
        """One run per trace; a bad trace goes to ``options`` (raised or skipped)."""
        for trace_id, spans in self.spans().items():
            yield from runs_from_traces(
                {trace_id: spans},
                partial(classify, scopes=agent_scopes(spans)),
                options,
                file=self.file,
                source=SOURCE,
            )


def _kind(span: Span) -> str | None:
    run = span.attributes.get("run")
    return text_of(run.get("run_type")) if isinstance(run, dict) else None


def agent_scopes(spans: list[Span]) -> frozenset[str]:
    """The chain runs that are agent scopes (see module docstring).

    Root chains are; then, deepest first, a chain is when the model runs and tool or
    retriever runs below it that no deeper agent scope holds include at least one of each.
    """
    index = {s.span_id: s for s in spans}
    chains_above = {
        s.span_id: {a.span_id for a in ancestors(s, index) if _kind(a) == "chain"}
        for s in spans
        if _kind(s) == "llm" or _kind(s) in _TOOLS
    }
    agents = {s.span_id for s in spans if _kind(s) == "chain" and s.parent_id not in index}
    depth = {s.span_id: sum(1 for _ in ancestors(s, index)) for s in spans}
    held: set[str] = set()
    inner = [s for s in spans if _kind(s) == "chain" and s.span_id not in agents]
    for chain in sorted(inner, key=lambda s: -depth[s.span_id]):
        below = [
            leaf
            for leaf, above in chains_above.items()
            if chain.span_id in above and leaf not in held
        ]
        kinds = {_kind(index[leaf]) == "llm" for leaf in below}
        if kinds == {True, False}:
            agents.add(chain.span_id)
            held.update(below)
    return frozenset(agents)


def _call_id(run: Mapping[str, Any]) -> str | None:
    extra = run.get("extra")
    value = extra.get("tool_call_id") if isinstance(extra, dict) else None
    return value if isinstance(value, str) and value else None


def _tool_arguments(inputs: Any) -> Any:
    if isinstance(inputs, dict) and set(inputs) == {"input"}:
        value = inputs["input"]
        return value if isinstance(value, str | dict | list) else [value]
    return inputs


def _tool_result(outputs: Any) -> tuple[Any, str | None]:
    """A tool run's result and the error its ``ToolMessage`` reports (``status: "error"``)."""
    value = (
        outputs.get("output")
        if isinstance(outputs, dict) and set(outputs) == {"output"}
        else outputs
    )
    if value == {}:
        return None, None
    found: Message | None = message(value)
    if found is None or found.role != "tool":
        return value, None
    content = found.text if found.text is not None else found.fields.get("content")
    error = (found.text or "error") if found.fields.get("status") == "error" else None
    return content, error


def _artifact_run(run: Mapping[str, Any]) -> dict[str, Any] | None:
    """The retriever run a tool run's ``ToolMessage`` artifact of documents stands for."""
    if text_of(run.get("run_type")) != "tool" or not isinstance(run.get("outputs"), dict):
        return None
    found = message(run["outputs"].get("output"))
    if found is None or found.role != "tool":
        return None
    artifact = found.fields.get("artifact")
    if documents(artifact) is None:
        return None
    inputs = run.get("inputs")
    return {"run_type": "retriever", "inputs": inputs, "outputs": {"documents": artifact}}


def _retrieved(outputs: Any) -> list[tuple[str, float | None]]:
    value = outputs
    if isinstance(outputs, dict):
        value = outputs.get("documents", outputs.get("output"))
    return documents(value, strict=False) or []


def classify(span: Span, scopes: frozenset[str] = frozenset()) -> SpanInfo:
    """The role of one LangSmith run (see module docstring)."""
    run = span.attributes.get("run")
    if not isinstance(run, dict):
        return SpanInfo(None)
    run_type = run.get("run_type")
    outputs = run.get("outputs")
    if run_type == "tool":
        result, error = _tool_result(outputs)
        return SpanInfo(
            "tool",
            tool=span.name or None,
            call_id=_call_id(run),
            arguments=_tool_arguments(run.get("inputs")),
            result=result,
            error=error,
        )
    if run_type == "retriever":
        inputs = run.get("inputs")
        return SpanInfo(
            "retrieval",
            tool=span.name or None,
            call_id=_call_id(run),
            arguments=inputs if isinstance(inputs, dict) and inputs else None,
            documents=_retrieved(outputs),
        )
    if run_type == "llm":
        return model_info(run)
    if run_type == "chain" and span.span_id in scopes:
        return SpanInfo("agent", agent_name=span.name or None, output_text=answer_of(outputs))
    return SpanInfo(None)
