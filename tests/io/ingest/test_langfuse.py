"""Langfuse export reader: hand-written API JSON and an export from a Langfuse SDK run."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest import IngestOptions, detect, langfuse
from pathgrade.io.ingest._langfuse_values import answer_text

from .helpers import write_lines

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
BASE = dt.datetime(2025, 3, 1, 12, 0, 0, tzinfo=dt.UTC)
TRACE = "7f3c2b1a9e8d4c6b5a4f3e2d1c0b9a87"


def iso(ms: int) -> str:
    """The API's time format (``Z``, milliseconds) ``ms`` milliseconds after BASE."""
    return (BASE + dt.timedelta(milliseconds=ms)).isoformat(timespec="milliseconds")[:-6] + "Z"


def observation(
    oid: str, type_: str, name: str, parent: str | None, start: int, end: int, **more: Any
) -> dict[str, Any]:
    return {
        "id": oid,
        "traceId": TRACE,
        "type": type_,
        "name": name,
        "parentObservationId": parent,
        "startTime": iso(start),
        "endTime": iso(end),
        "level": "DEFAULT",
        **more,
    }


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def observations() -> list[dict[str, Any]]:
    """An agent: one model response asks for a retrieval and a tool (which fails), a second
    answers; an embedding under the retriever, an event."""
    return [
        observation("o1", "AGENT", "planner", None, 0, 2000, output="Paris is the capital."),
        observation(
            "o2",
            "GENERATION",
            "chat",
            "o1",
            10,
            300,
            output={
                "role": "assistant",
                "content": None,
                "tool_calls": [call("c1", "search", '{"q": "x"}'), call("c2", "lookup", "{}")],
            },
            usageDetails={"input": 40, "output": 10, "total": 50},
            costDetails={"input": 0.001, "output": 0.002},
        ),
        observation(
            "o3",
            "RETRIEVER",
            "search",
            "o1",
            310,
            400,
            input="capital of France",
            output=[
                {"id": "d1", "score": 0.9},
                {"page_content": "...", "metadata": {"id": "d2", "score": 0.5}},
            ],
        ),
        observation(
            "o4",
            "EMBEDDING",
            "embed",
            "o3",
            320,
            330,
            usageDetails={"input": 8},
            costDetails={"total": 0.0001},
        ),
        observation(
            "o5",
            "TOOL",
            "lookup",
            "o1",
            305,
            500,
            input={"args": [], "kwargs": {"city": "Paris"}},
            output={"pop": 2},
            level="ERROR",
            statusMessage="timeout",
        ),
        observation(
            "o6",
            "GENERATION",
            "chat",
            "o1",
            600,
            900,
            input={"messages": [{"role": "tool", "tool_call_id": "c1", "content": "d1 d2"}]},
            output="Paris.",
            usage={"input": 60, "output": 5, "total": 65},
            calculatedTotalCost=0.004,
        ),
        observation("o7", "EVENT", "log", "o1", 950, 950),
    ]


def trace_object(observations_: list[Any]) -> dict[str, Any]:
    return {
        "id": TRACE,
        "timestamp": iso(0),
        "name": "qa",
        "sessionId": "s-1",
        "userId": "u-1",
        "tags": ["geo"],
        "metadata": {"pathgrade.case_id": "lf-1"},
        "input": {"question": "capital of France?"},
        "output": {"answer": "Paris."},
        "htmlPath": f"/project/p/traces/{TRACE}",
        "observations": observations_,
    }


def write_full_trace(path: Path) -> Path:
    """``GET /api/public/traces/{id}``: one JSON document (observations in any order)."""
    items = observations()
    path.write_bytes(orjson.dumps(trace_object(items[::-1]), option=orjson.OPT_INDENT_2) + b"\n")
    return path


def write_pages(path: Path) -> Path:
    """A traces page (observation ids only) and an observations page, one per line."""
    items = observations()
    meta = {"page": 1, "limit": 50, "totalItems": len(items), "totalPages": 1}
    traces = {"data": [trace_object([o["id"] for o in items])], "meta": {**meta, "totalItems": 1}}
    return write_lines(path, [traces, {"data": items, "meta": meta}])


def check_golden_run(run: Run) -> None:
    assert (run.case_id, run.run_id) == ("lf-1", TRACE)
    # search and lookup were asked for by one response (turn 0), in that order; the
    # retrieval is a step whose output is its document ids, the tool failed (level ERROR).
    steps = [(s.tool, s.arguments, s.output, s.error, s.call_id, s.turn) for s in run.steps]
    assert steps == [
        ("search", {"query": "capital of France"}, ["d1", "d2"], None, "c1", 0),
        ("lookup", {"city": "Paris"}, {"pop": 2}, "timeout", "c2", 0),
    ]
    assert [s.metadata["agent"] for s in run.steps] == ["planner", "planner"]
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("d1", 0.9), ("d2", 0.5)]
    assert run.answer == "Paris."  # the trace output's "answer" field wins over the root's
    # Tokens 50 + 65 + 8 = 123; cost (0.001 + 0.002) + 0.004 + 0.0001 = 0.0071; latency:
    # the root agent, 2000 ms.
    assert run.usage is not None
    assert run.usage.tokens == 123.0 and run.usage.cost == pytest.approx(0.0071)
    assert run.usage.latency_ms == pytest.approx(2000.0)
    meta = {k: run.metadata[k] for k in ("session_id", "user_id", "trace_name", "tags")}
    assert meta == {"session_id": "s-1", "user_id": "u-1", "trace_name": "qa", "tags": ["geo"]}


def test_golden_full_trace(tmp_path: Path) -> None:
    path = write_full_trace(tmp_path / "t.json")
    assert detect(path).name == "langfuse"
    options = IngestOptions()
    (run,) = list(langfuse.read(path, options))
    assert options.skipped == []
    check_golden_run(run)


def test_golden_pages_read_to_the_same_run(tmp_path: Path) -> None:
    path = write_pages(tmp_path / "t.jsonl")
    assert detect(path).name == "langfuse"
    (run,) = list(langfuse.read(path))
    check_golden_run(run)


@pytest.mark.parametrize(
    ("name", "write"),
    [("langfuse_full_trace.json", write_full_trace), ("langfuse_pages.jsonl", write_pages)],
)
def test_golden_files_are_what_the_tests_write(tmp_path: Path, name: str, write: Any) -> None:
    assert (GOLDEN / name).read_bytes() == write(tmp_path / name).read_bytes()


def test_retrieval_steps_off(tmp_path: Path) -> None:
    path = write_full_trace(tmp_path / "t.json")
    (run,) = list(langfuse.read(path, IngestOptions(retrieval_steps=False)))
    assert [s.tool for s in run.steps] == ["lookup"]
    assert [d.id for d in run.retrieved or ()] == ["d1", "d2"]


def test_untyped_observations_steps_from_the_model_calls(tmp_path: Path) -> None:
    # Older SDKs: SPAN and GENERATION only, tool calls only in the generation's output.
    items = [
        observation("a", "SPAN", "root", None, 0, 100, output={"output": "done"}),
        observation(
            "b",
            "GENERATION",
            "chat",
            "a",
            1,
            50,
            output=[
                {"role": "assistant", "tool_calls": [{"id": "k1", "name": "f", "args": {"x": 1}}]}
            ],
            usage={"input": 3, "output": 4},
        ),
        observation("c", "SPAN", "f", "a", 51, 60),
    ]
    path = write_lines(tmp_path / "t.jsonl", items)
    (run,) = list(langfuse.read(path))
    assert [(s.tool, s.arguments, s.call_id) for s in run.steps] == [("f", {"x": 1}, "k1")]
    # no trace object: the trace id is the case id; the root span's output is the answer
    assert run.case_id == TRACE and run.answer == "done"
    assert run.usage is not None and run.usage.tokens == 7.0  # 3 + 4


def test_a_trace_without_observations(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [trace_object([])])
    (run,) = list(langfuse.read(path))
    assert (run.case_id, run.steps, run.answer) == ("lf-1", (), "Paris.")


def test_observation_ids_without_the_observations(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [{"data": [trace_object(["o1", "o2"])]}])
    with pytest.raises(InputError, match="lists 2 observation ids but none of the observations"):
        list(langfuse.read(path))


def test_answer_text_shapes() -> None:
    answer = answer_text
    assert answer("x") == "x" and answer("  ") is None
    assert answer({"answer": "a", "sources": [1]}) == "a"
    assert answer({"only": "o"}) == "o" and answer({"status": "ok", "n": 1}) is None
    assert answer({"role": "assistant", "content": [{"type": "text", "text": "t"}]}) == "t"
    assert answer([{"role": "user", "content": "q"}, {"role": "assistant", "content": "r"}]) == "r"
    assert answer({"output": {"content": "deep"}}) == "deep"
    assert answer(5) is None and answer(None) is None


def test_sniff() -> None:
    assert langfuse.sniff(b'{"id": "o", "parentObservationId": null}')
    assert langfuse.sniff(b'{"startTime": "2025-01-01T00:00:00Z", "type": "GENERATION"}')
    assert langfuse.sniff(b'{"htmlPath": "/project/p/traces/t"}')
    assert not langfuse.sniff(b'{"start_time": "2025", "run_type": "llm"}')
    assert not langfuse.sniff(b'{"object": "trace.span", "span_data": {"type": "agent"}}')


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"id": 5}, "id"),
        ({"startTime": "soon"}, "startTime"),
        ({"level": 3}, "level"),
        ({"type": "GENERATION", "usageDetails": [1]}, "usageDetails"),
        ({"type": "GENERATION", "output": {"tool_calls": 1}}, "tool_calls"),
        ({"type": "RETRIEVER", "output": [{"id": "d", "metadata": 2}]}, "metadata"),
    ],
)
def test_bad_values_name_the_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    good = observation("g", "TOOL", "t", None, 0, 1) | {"traceId": "other"}
    bad = observation("b", "TOOL", "t", None, 0, 1) | change
    path = write_lines(tmp_path / "t.jsonl", [good, bad])
    with pytest.raises(InputError) as caught:
        list(langfuse.read(path))
    assert caught.value.line == 2 and field in str(caught.value.field)
    options = IngestOptions(skip_invalid=True)
    assert [r.run_id for r in langfuse.read(path, options)] == ["other"]
    assert len(options.skipped) == 1


def test_a_bad_observation_drops_its_whole_trace_object(tmp_path: Path) -> None:
    items: list[Any] = observations()
    items[3] = 7  # not an object
    path = write_lines(tmp_path / "t.jsonl", [trace_object(items)])
    options = IngestOptions(skip_invalid=True)
    assert list(langfuse.read(path, options)) == []
    assert options.skipped[0].field == "observations[3]"
    assert "expected an object, got a number" in str(options.skipped[0])


# --- an export from a Langfuse SDK run (tools/producers/langfuse_trace.py) -----------------

PRODUCED = GOLDEN / "producers"


@pytest.mark.parametrize("name", ["langfuse_trace.json", "langfuse_observations_page.json"])
def test_the_sdk_export_reads_to_the_full_path(name: str) -> None:
    path = PRODUCED / name
    assert detect(path).name == "langfuse"
    options = IngestOptions()
    (run,) = list(langfuse.read(path, options))
    assert options.skipped == []
    steps = [(s.tool, s.arguments, s.output, s.error, s.call_id, s.turn) for s in run.steps]
    assert steps == [
        (
            "search_kb",
            {"query": "refund window", "top_k": 2},
            ["kb-12", "kb-40"],
            None,
            "call_kb",
            0,
        ),
        # the failed tool recorded no output: the tool message the model was shown gives it
        (
            "lookup_order",
            {"order_id": "A17"},
            "error: order service unavailable",
            "order service unavailable",
            "call_order",
            1,
        ),
        ("calculator", {"expression": "25 * 0.5"}, 12.5, None, "call_calc", 1),
    ]
    assert {s.metadata["agent"] for s in run.steps} == {"support-agent"}
    assert [(d.id, d.score) for d in run.retrieved or ()] == [("kb-12", 0.82), ("kb-40", 0.41)]
    assert run.answer == "You can get 12.50 EUR back within 30 days."
    # Tokens (90+18) + (160+40) + (230+14) = 552; no costs (the server prices them).
    assert run.usage is not None and run.usage.tokens == 552.0 and run.usage.cost is None
    # Latency: the root agent observation, 22:22:41.096547 - 22:22:40.967478 = 129.069 ms
    # (within 1 microsecond: spans.time_ns goes through a float timestamp).
    assert run.usage.latency_ms == pytest.approx(129.069, abs=1e-3)
    if name == "langfuse_trace.json":  # the trace object names the case and the session
        assert run.case_id == "kb-refund" and run.metadata["session_id"] == "session-42"
        assert run.metadata["tags"] == ["refunds"]
    else:  # an observations page alone: no trace object, the trace id is the case id
        assert run.case_id == run.run_id


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(order=st.permutations(range(len(observations()))), split=st.integers(0, 7))
def test_the_run_does_not_depend_on_the_observation_order(
    tmp_path: Path, order: list[int], split: int
) -> None:
    # Observations in any order, some inside the trace object and the rest on their own
    # lines before it, read to the golden run.
    items = [observations()[i] for i in order]
    path = write_lines(tmp_path / "p.jsonl", [*items[split:], trace_object(items[:split])])
    (run,) = list(langfuse.read(path))
    check_golden_run(run)
