"""The builder's rules (``_build``, ``_calls``, ``_steps``) on spans built by hand.

A fake classifier reads each span's :class:`SpanInfo` from its attributes, so every rule is
tested without a format: retrieval as a step, one call one step, emitted calls, turns, shown
results, errors, agents. Times are in ms after an arbitrary origin.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run, Step
from pathgrade.io.ingest import IngestOptions
from pathgrade.io.ingest._build import EmittedCall, SpanInfo, ToolResult, build_run
from pathgrade.io.ingest.spans import Span

T0 = 1_700_000_000_000_000_000
MS = 1_000_000


@dataclass(frozen=True)
class S:
    """A span to build: id, parent id, start and end (ms), what it is."""

    sid: str
    parent: str | None
    start: int | None
    end: int | None
    info: SpanInfo
    name: str = ""
    error: str | None = None


def spans_of(specs: list[S]) -> list[Span]:
    return [
        Span(
            trace_id="trace",
            span_id=s.sid,
            parent_id=s.parent,
            name=s.name,
            start_ns=None if s.start is None else T0 + s.start * MS,
            end_ns=None if s.end is None else T0 + s.end * MS,
            attributes={"info": s.info},
            error=s.error,
            line=1,
            order=i,
        )
        for i, s in enumerate(specs)
    ]


def run_of(spans: list[Span], options: IngestOptions | None = None) -> Run:
    return build_run(
        "trace",
        spans,
        lambda span: span.attributes["info"],
        options or IngestOptions(),
        file="t.jsonl",
        source="test",
    )


def build(specs: list[S], options: IngestOptions | None = None) -> Run:
    return run_of(spans_of(specs), options)


def view(step: Step) -> tuple[Any, ...]:
    """tool, arguments, output, error, call id, turn, parent."""
    return (
        step.tool,
        step.arguments,
        step.output,
        step.error,
        step.call_id,
        step.turn,
        step.parent,
    )


AGENT = S("a", None, 0, 1000, SpanInfo("agent", agent_name="support"))


def llm(sid: str, start: int, end: int, **kw: Any) -> S:
    return S(sid, "a", start, end, SpanInfo("llm", **kw))


def tool(sid: str, start: int, end: int, parent: str | None = "a", **kw: Any) -> S:
    return S(sid, parent, start, end, SpanInfo("tool", **kw))


def retrieval(sid: str, start: int, end: int, parent: str = "a", name: str = "", **kw: Any) -> S:
    return S(sid, parent, start, end, SpanInfo("retrieval", **kw), name=name)


# -- 1. retrieval is a step ----------------------------------------------------------------


def issue_example() -> list[S]:
    """The issue's trace: ``lookup_order`` (a tool span), then ``search_kb`` (a RETRIEVER only)."""
    return [
        AGENT,
        llm("m1", 10, 100, tokens=10.0),
        tool("t1", 110, 200, tool="lookup_order", call_id="c1", arguments='{"order": "A17"}'),
        llm("m2", 210, 300, tokens=20.0),
        retrieval(
            "r1",
            310,
            400,
            tool="search_kb",
            arguments="refund policy",
            documents=[("kb-3", 0.9), ("kb-1", 0.5)],
        ),
        llm("m3", 410, 500, tokens=5.0, output_text="Refunds within 30 days."),
    ]


def test_the_issue_example_reads_to_both_calls() -> None:
    run = build(issue_example())
    # lookup_order follows m1 (turn 0), search_kb follows m2 (turn 1); the bare query text
    # becomes {"query": ...}; the output is the ids in rank order.
    assert [view(s) for s in run.steps] == [
        ("lookup_order", {"order": "A17"}, None, None, "c1", 0, "a"),
        ("search_kb", {"query": "refund policy"}, ["kb-3", "kb-1"], None, None, 1, "a"),
    ]
    assert run.steps[1].metadata == {"span_id": "r1", "retrieval": True, "agent": "support"}
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("kb-3", 0.9), ("kb-1", 0.5)]
    (entry,) = run.metadata["retrievals"]
    assert entry["tool"] == "search_kb" and entry["call_id"] is None and entry["span_id"] == "r1"
    assert run.answer == "Refunds within 30 days."
    assert run.usage is not None and run.usage.tokens == 35  # 10 + 20 + 5


def test_retrieval_steps_off_keeps_only_the_documents() -> None:
    run = build(issue_example(), IngestOptions(retrieval_steps=False))
    assert [s.tool for s in run.steps] == ["lookup_order"]
    assert [d.id for d in run.retrieved or ()] == ["kb-3", "kb-1"]
    assert "tool" not in run.metadata["retrievals"][0]


def test_retrieval_arguments_and_names() -> None:
    specs = [
        retrieval("r1", 10, 20, arguments='{"query": "q", "top_k": 5}', name="retrieval kb"),
        retrieval("r2", 30, 40, arguments="   "),  # blank text: no query
        retrieval("r3", 50, 60, arguments=["q", 3]),
        retrieval("r4", 70, 80, arguments='"quoted"'),  # JSON text but not an object
    ]
    run = build(specs)
    assert [(s.tool, s.arguments, s.output) for s in run.steps] == [
        ("retrieval kb", {"query": "q", "top_k": 5}, []),  # the span name; found nothing
        ("retrieval", {}, []),  # no name at all
        ("retrieval", ["q", 3], []),
        ("retrieval", {"query": '"quoted"'}, []),
    ]
    assert "arguments_recorded" not in run.steps[1].metadata  # blank text was recorded
    assert [s.turn for s in run.steps] == [None] * 4  # no model spans: turns unknown


# -- 2. one call, one step -----------------------------------------------------------------


def wrapped_retriever(*, emitted: bool, result: Any = None) -> list[S]:
    emissions = [EmittedCall("search_kb", '{"query": "refund policy"}', "c7", 0)] if emitted else []
    return [
        AGENT,
        llm("m1", 10, 100, emitted_calls=emissions),
        tool("t", 110, 300, tool="search_kb", call_id="c7", result=result),
        retrieval(
            "r",
            120,
            290,
            parent="t",
            name="VectorStoreRetriever",
            arguments={"query": "refund policy", "k": 4},
            documents=[("d1", None), ("d2", None)],
        ),
    ]


def test_a_tool_wrapping_a_retriever_is_one_step() -> None:
    run = build(wrapped_retriever(emitted=False))
    # The tool's name (what the model called), the retriever's arguments (the tool has none),
    # the document ids as output (the tool recorded no result).
    assert [view(s) for s in run.steps] == [
        ("search_kb", {"query": "refund policy", "k": 4}, ["d1", "d2"], None, "c7", 0, "a")
    ]
    assert run.steps[0].metadata == {
        "span_id": "t",
        "span_ids": ["t", "r"],
        "retrieval": True,
        "agent": "support",
    }
    assert [d.id for d in run.retrieved or ()] == ["d1", "d2"]
    entry = run.metadata["retrievals"][0]
    assert (entry["span_id"], entry["tool"], entry["call_id"]) == ("r", "search_kb", "c7")


def test_the_wrapping_tool_s_result_and_the_emitted_arguments_come_first() -> None:
    run = build(wrapped_retriever(emitted=True, result="2 documents"))
    # arguments: the outer span has none, the emitted call's come before the retriever's
    assert [view(s) for s in run.steps] == [
        ("search_kb", {"query": "refund policy"}, "2 documents", None, "c7", 0, "a")
    ]
    # retrieval steps off: the tool span is still the model's call, and one step
    off = build(wrapped_retriever(emitted=True), IngestOptions(retrieval_steps=False))
    assert [(s.tool, s.output) for s in off.steps] == [("search_kb", ["d1", "d2"])]


def test_execute_tool_wrapping_an_mcp_call_is_one_failed_step() -> None:
    mcp_result = '{"content": [{"type": "text", "text": "unknown city"}], "isError": true}'
    specs = [
        AGENT,
        llm("m1", 10, 100),
        tool("x", 110, 300, tool="get_weather", call_id="call_1"),
        tool(
            "c",
            120,
            290,
            parent="x",
            tool="get_weather",
            arguments={"city": "Atlantis"},
            result=mcp_result,
            error="unknown city",  # isError in a successful reply: SpanInfo.error
        ),
    ]
    run = build(specs)
    expected_output = {"content": [{"type": "text", "text": "unknown city"}], "isError": True}
    assert [view(s) for s in run.steps] == [
        ("get_weather", {"city": "Atlantis"}, expected_output, "unknown city", "call_1", 0, "a")
    ]
    assert run.steps[0].metadata["span_ids"] == ["x", "c"]
    assert run.steps[0].latency_ms == pytest.approx(190.0)  # the outer span's: 300 - 110


def test_same_call_id_overlapping_is_one_call_and_repeated_later_is_two() -> None:
    specs = [
        AGENT,
        tool("e", 10, 50, tool="f", call_id="call_0", arguments={"x": 1}),
        tool("m", 20, 40, tool="f", call_id="call_0"),  # a sibling whose time overlaps e's
        tool("late", 60, 70, tool="f", call_id="call_0", arguments={"x": 2}),  # id used again
    ]
    run = build(specs)
    assert [(s.tool, s.arguments, s.metadata.get("span_ids")) for s in run.steps] == [
        ("f", {"x": 1}, ["e", "m"]),
        ("f", {"x": 2}, None),
    ]


def test_what_is_not_merged() -> None:
    specs = [
        AGENT,
        # a tool around two calls: three steps
        tool("p", 10, 100, tool="plan"),
        tool("p1", 20, 30, parent="p", tool="lookup"),
        tool("p2", 40, 50, parent="p", tool="lookup"),
        # a tool around a call with another call id: two steps
        tool("q", 110, 200, tool="outer", call_id="c1"),
        tool("q1", 120, 130, parent="q", tool="inner", call_id="c2"),
        # a tool around a sub-agent's only call: two steps, the inner one the sub-agent's
        tool("d", 210, 300, tool="ask_expert"),
        S("sub", "d", 220, 290, SpanInfo("agent", agent_name="expert")),
        tool("d1", 230, 240, parent="sub", tool="search"),
    ]
    run = build(specs)
    assert [(s.tool, s.parent) for s in run.steps] == [
        ("plan", "a"),
        ("lookup", "a"),
        ("lookup", "a"),
        ("outer", "a"),
        ("inner", "a"),
        ("ask_expert", "a"),
        ("search", "sub"),
    ]
    assert run.steps[-1].metadata["agent"] == "expert"


def test_a_chain_of_wrappers_is_one_step_filled_from_the_nearest() -> None:
    specs = [
        tool("t1", 10, 100, parent=None, tool="search"),
        tool("t2", 20, 90, parent="t1", tool="search", arguments={"q": "near"}),
        tool("t3", 30, 80, parent="t2", tool="search", arguments={"q": "far"}, result="r"),
    ]
    run = build(specs)
    assert [(s.tool, s.arguments, s.output, s.metadata["span_ids"]) for s in run.steps] == [
        ("search", {"q": "near"}, "r", ["t1", "t2", "t3"])
    ]


# -- 3, 4. emitted calls, turns, shown results ---------------------------------------------


def model_spans_only() -> list[S]:
    """Client-level instrumentation: model spans only, calls in their output and input."""
    c1, c2 = ToolResult("c1", '{"status": "paid"}'), ToolResult("c2", "30 days")
    c3 = ToolResult("c3", "Error: gateway timeout", error="gateway timeout")
    return [
        AGENT,
        llm(
            "m1",
            10,
            100,
            emitted_calls=[
                EmittedCall("lookup", '{"order": "A17"}', "c1", 0),
                EmittedCall("policy", None, "c2", 1),
            ],
        ),
        llm(
            "m2",
            200,
            300,
            tool_results=[c1, c2],
            emitted_calls=[EmittedCall("refund", ["A17"], "c3")],
        ),
        llm("m3", 400, 500, tool_results=[c1, c2, c3], output_text="I could not refund A17."),
    ]


def test_model_spans_only_give_the_whole_path() -> None:
    run = build(model_spans_only())
    assert [view(s) for s in run.steps] == [
        ("lookup", {"order": "A17"}, {"status": "paid"}, None, "c1", 0, "a"),
        ("policy", {}, "30 days", None, "c2", 0, "a"),
        ("refund", ["A17"], "Error: gateway timeout", "gateway timeout", "c3", 1, "a"),
    ]
    lookup, policy, _ = run.steps
    assert lookup.metadata == {"emitted_by": "m1", "agent": "support"}
    assert policy.metadata["arguments_recorded"] is False  # the model wrote no arguments
    assert lookup.start_time is None and lookup.latency_ms is None
    assert run.answer == "I could not refund A17."


def test_results_without_ids_are_paired_by_name_in_order() -> None:
    first, second = (
        ToolResult(None, "sunny", name="weather"),
        ToolResult(None, "rain", name="weather"),
    )
    specs = [
        AGENT,
        llm(
            "m1",
            10,
            100,
            emitted_calls=[
                EmittedCall("weather", {"city": "Paris"}),
                EmittedCall("weather", {"city": "Rome"}, index=1),
            ],
        ),
        llm("m2", 200, 300, tool_results=[first, second]),
        # the history is repeated in the next request; the first result found is kept
        llm("m3", 400, 500, tool_results=[ToolResult(None, "changed", name="weather"), second]),
    ]
    run = build(specs)
    assert [(s.arguments, s.output, s.turn) for s in run.steps] == [
        ({"city": "Paris"}, "sunny", 0),
        ({"city": "Rome"}, "rain", 0),
    ]


def test_emitted_order_beats_start_time_within_a_turn() -> None:
    specs = [
        AGENT,
        # the model wrote b then a (listed out of index order here); a started first
        llm("m1", 10, 100, emitted_calls=[EmittedCall("a", index=1), EmittedCall("b", index=0)]),
        tool("ta", 110, 150, tool="a", arguments={"n": 1}),
        tool("tb", 120, 160, tool="b", arguments={"n": 2}),
        tool("tc", 170, 180, tool="c"),  # emitted by no one: the turn of the latest model span
        llm("m2", 200, 250),
        tool("td", 260, 270, tool="d"),
    ]
    run = build(specs)
    assert [(s.tool, s.turn) for s in run.steps] == [("b", 0), ("a", 0), ("c", 0), ("d", 1)]
    # same start time for both: the emission order still decides, not file order
    tied = [*specs[:2], tool("ta", 110, 150, tool="a"), tool("tb", 110, 160, tool="b")]
    assert [s.tool for s in build(tied).steps] == ["b", "a"]


def test_a_tool_span_without_arguments_gets_the_emitted_ones() -> None:
    specs = [
        AGENT,
        llm(
            "m1",
            10,
            100,
            emitted_calls=[
                EmittedCall("lookup", '{"order": "A17"}', "c1", 0),
                EmittedCall("lookup", '{"order": "B2"}', "c2", 1),
            ],
        ),
        tool("t1", 110, 150, tool="lookup", call_id="c1"),
        tool("t2", 120, 160, tool="lookup", call_id="c2", arguments='{"order": "B2", "x": 1}'),
    ]
    run = build(specs)
    assert [(s.arguments, s.raw_arguments, s.call_id, s.turn) for s in run.steps] == [
        ({"order": "A17"}, '{"order": "A17"}', "c1", 0),
        ({"order": "B2", "x": 1}, '{"order": "B2", "x": 1}', "c2", 0),  # its own win
    ]
    assert "arguments_recorded" not in run.steps[0].metadata


def test_name_matching_keeps_to_the_emission_s_window() -> None:
    specs = [
        AGENT,
        llm("m1", 10, 100, emitted_calls=[EmittedCall("a", {"n": 1})]),  # no span for this one
        llm("m2", 200, 300, emitted_calls=[EmittedCall("a", {"n": 2})]),
        tool("t", 310, 320, tool="a"),  # answers m2, not m1
    ]
    run = build(specs)
    assert [(s.arguments, s.turn, s.metadata.get("span_id")) for s in run.steps] == [
        ({"n": 1}, 0, None),
        ({"n": 2}, 1, "t"),
    ]


def test_a_retriever_the_model_called_is_absorbed_when_retrieval_steps_are_off() -> None:
    specs = [
        AGENT,
        llm("m1", 10, 100, emitted_calls=[EmittedCall("search_kb", {"query": "q"}, "c9")]),
        retrieval("r", 110, 150, tool="search_kb", documents=[("d1", None)]),
    ]
    on = build(specs)
    # the retriever recorded no query: the emitted arguments fill it
    assert [view(s) for s in on.steps] == [
        ("search_kb", {"query": "q"}, ["d1"], None, "c9", 0, "a")
    ]
    off = build(specs, IngestOptions(retrieval_steps=False))
    assert off.steps == () and [d.id for d in off.retrieved or ()] == ["d1"]


def test_tools_in_a_scope_without_models_match_by_name() -> None:
    # LangGraph shape: the model runs in the "agent" node, its tools in the "tools" node.
    specs = [
        S("g", None, 0, 1000, SpanInfo("agent", agent_name="graph")),
        S("n1", "g", 10, 100, SpanInfo("agent", agent_name="agent")),
        S("m1", "n1", 20, 90, SpanInfo("llm", emitted_calls=[EmittedCall("search", {"q": "x"})])),
        S("n2", "g", 110, 200, SpanInfo("agent", agent_name="tools")),
        S("t", "n2", 120, 190, SpanInfo("tool", tool="search")),
    ]
    run = build(specs)
    assert [(s.tool, s.arguments, s.turn, s.parent) for s in run.steps] == [
        ("search", {"q": "x"}, 0, "n2")
    ]


def test_each_agent_has_its_own_turns() -> None:
    specs = [
        AGENT,
        llm("m1", 10, 100, emitted_calls=[EmittedCall("transfer", {}, "c1")]),
        S("sub", "a", 110, 500, SpanInfo("agent", agent_name="refunds")),
        S(
            "m2",
            "sub",
            120,
            200,
            SpanInfo("llm", emitted_calls=[EmittedCall("refund", ["A17"], "c2")]),
        ),
        tool("t", 210, 300, parent="sub", tool="refund", call_id="c2"),
    ]
    run = build(specs)
    # parent turn 0 and the sub-agent's turn 1: adjacent calls of two agents are not parallel
    assert [(s.tool, s.turn, s.parent, s.metadata.get("agent")) for s in run.steps] == [
        ("transfer", 0, "a", "support"),
        ("refund", 1, "sub", "refunds"),
    ]


def test_turns_without_emissions_follow_the_latest_model_span() -> None:
    specs = [
        tool("t0", 5, 8, tool="early"),  # before any model span: unknown
        AGENT,
        llm("m1", 10, 100),
        tool("t1", 110, 120, tool="x"),
        tool("t2", 130, 140, tool="y"),
        llm("m2", 150, 200),
        tool("t3", 210, 220, tool="z"),
    ]
    run = build(specs)
    assert [(s.tool, s.turn) for s in run.steps] == [("early", None), ("x", 0), ("y", 0), ("z", 1)]


# -- 5. errors, names ----------------------------------------------------------------------


def test_span_info_error_and_span_status() -> None:
    specs = [
        tool("t1", 10, 20, tool="a", error="isError result"),
        S("t2", None, 30, 40, SpanInfo("tool", tool="b", error="content error"), error="status"),
    ]
    run = build(specs)
    assert [s.error for s in run.steps] == ["isError result", "status"]  # the status first


def test_a_nameless_tool_span_is_an_error_unless_its_emission_names_it() -> None:
    nameless = [AGENT, llm("m1", 10, 100), tool("t", 110, 120, call_id="c1")]
    with pytest.raises(InputError, match="tool span t has no tool name") as caught:
        build(nameless)
    assert caught.value.line == 1
    named = [AGENT, llm("m1", 10, 100, emitted_calls=[EmittedCall("f", {}, "c1")]), nameless[2]]
    assert [s.tool for s in build(named).steps] == ["f"]
    # an emitted call without a name and without a span is dropped
    dropped = [AGENT, llm("m1", 10, 100, emitted_calls=[EmittedCall(None, {})])]
    assert build(dropped).steps == ()


def test_a_deep_chain_of_spans_is_read() -> None:
    depth = 3000  # deeper than any recursion limit
    chain = [S("s0", None, 0, 10_000, SpanInfo("agent", agent_name="root"))]
    chain += [S(f"s{i}", f"s{i - 1}", i, 10_000 - i, SpanInfo(None)) for i in range(1, depth)]
    chain.append(tool("t", 5000, 5001, parent=f"s{depth - 1}", tool="leaf"))
    (step,) = build(chain).steps
    assert step.parent == "s0" and step.metadata["agent"] == "root"


# -- properties -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Generated:
    spans: list[Span]
    calls: int  # distinct calls made
    emitted: list[int]  # the ``n`` argument of each emitted call
    turn_of: dict[str, int]  # the ``n`` (or ``x``) of each call -> the turn that made it


@st.composite
def traces(draw: st.DrawFn) -> Generated:
    """Turns of one agent: a model span, then the spans of its calls, all at distinct times.

    Call ids are on emissions and spans, on emissions only, or nowhere (as producers do);
    where spans carry none, the calls of one turn have distinct names (nothing else could
    pair them). Each call's arguments carry a unique ``n``; tool spans no model emitted
    (``extra``) carry ``x``.
    """
    specs: list[S] = [S("a", None, 0, 10**6, SpanInfo("agent", agent_name="main"))]
    offsets = iter(draw(st.permutations(range(1, 300))))
    ids = draw(st.sampled_from(["both", "emissions", "none"]))
    record = draw(st.booleans()) or ids == "emissions"  # models record their emitted calls
    calls, emitted, turn_of = 0, [], {}
    history: list[ToolResult] = []
    for turn in range(draw(st.integers(1, 4))):
        base = 10_000 * (turn + 1)
        emissions: list[EmittedCall] = []
        later: list[S] = []
        names = iter(draw(st.permutations(["a", "b", "c"])))
        for index in range(draw(st.integers(0, 3))):
            calls += 1
            n = calls
            name = draw(st.sampled_from(["a", "b"])) if ids == "both" else next(names)
            call_id = None if ids == "none" else f"id{n}"
            span_id = call_id if ids == "both" else None
            shape = draw(st.sampled_from(["tool", "wrapped", "retrieval", "none"]))
            if not record and shape == "none":
                shape = "tool"
            args = {"n": n} if not record or draw(st.booleans()) else None
            start = base + 200 + 3 * next(offsets)
            if shape in ("tool", "wrapped"):
                later.append(
                    tool(f"t{n}", start, start + 2, tool=name, call_id=span_id, arguments=args)
                )
            if shape == "wrapped":
                inner = retrieval(f"r{n}", start + 1, start + 2, parent=f"t{n}", name="kb")
                later.append(
                    S(
                        inner.sid,
                        inner.parent,
                        inner.start,
                        inner.end,
                        SpanInfo("retrieval", documents=[(f"d{n}", None)]),
                        name="kb",
                    )
                )
            if shape == "retrieval":
                later.append(
                    retrieval(f"r{n}", start, start + 2, tool=name, call_id=span_id, arguments=args)
                )
            if record:
                emissions.append(EmittedCall(name, {"n": n}, call_id, index))
                emitted.append(n)
            turn_of[f"n{n}"] = turn
            history.append(ToolResult(call_id, f"out{n}", name=name))
        if draw(st.booleans()):
            later.append(
                tool(
                    f"x{turn}",
                    base + 200 + 3 * next(offsets),
                    base + 2000,
                    tool="extra",
                    arguments={"x": turn},
                )
            )
            calls += 1
            turn_of[f"x{turn}"] = turn
        model = llm(
            f"m{turn}", base, base + 100, emitted_calls=emissions, tool_results=list(history)
        )
        specs += [model, *later]
    return Generated(spans_of(specs), calls, emitted, turn_of)


def key_of(step: Step) -> str:
    assert isinstance(step.arguments, dict)
    return f"n{step.arguments['n']}" if "n" in step.arguments else f"x{step.arguments['x']}"


@settings(max_examples=150, deadline=None)
@given(traces(), st.data())
def test_the_file_order_of_spans_never_changes_the_run(
    trace: Generated, data: st.DataObject
) -> None:
    order = data.draw(st.permutations(range(len(trace.spans))))
    shuffled = [replace(trace.spans[i], order=k) for k, i in enumerate(order)]
    assert run_of(shuffled) == run_of(trace.spans)


@settings(max_examples=150, deadline=None)
@given(traces())
def test_one_step_per_call_and_per_emitted_call(trace: Generated) -> None:
    run = run_of(trace.spans)
    assert len(run.steps) == trace.calls
    keys = [key_of(s) for s in run.steps]
    assert sorted(keys) == sorted(trace.turn_of)  # each call once, with its own arguments
    # turns: numbered in order over the turns that made calls; a turn's emitted calls in order
    made = sorted({trace.turn_of[k] for k in keys})
    assert [s.turn for s in run.steps] == [made.index(trace.turn_of[k]) for k in keys]
    for turn in made if trace.emitted else ():  # recorded emissions: in emission order
        numbers = [int(k[1:]) for k in keys if k[0] == "n" and trace.turn_of[k] == turn]
        assert numbers == sorted(numbers)
