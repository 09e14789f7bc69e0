"""Readers fill the run's token split and model (``_usage``): sums over model calls, unknown
never 0; pinned on the real producers' files, whose calls' counts are written below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.config import Price
from pathgrade.io.ingest import FORMATS, IngestOptions
from pathgrade.io.ingest._usage import model_metadata, split_sum
from pathgrade.metrics.system.usage import run_usage

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"

#: file -> (format, per run: (input tokens, output tokens, model)).
PRODUCERS: dict[str, tuple[str, list[tuple[Any, Any, Any]]]] = {
    # refund: inputs 120 + 200 + 240 + 260 = 820, outputs 30 + 15 + 15 + 10 = 70 (the four
    # replies of otel_golden's docstring); warranty: 90 + 150 = 240, 25 + 12 = 37
    "producers/otel_openai_v2_spans.jsonl": (
        "otel-genai",
        [(820.0, 70.0, "gpt-4o-mini"), (240.0, 37.0, "gpt-4o-mini")],
    ),
    # MCP refund: 120 + 200 + 240 = 560, 30 + 15 + 14 = 59; B9: 90 + 120 = 210, 12 + 8 = 20
    "producers/otel_mcp.jsonl": (
        "otel-genai",
        [(560.0, 59.0, "gpt-4o-mini"), (210.0, 20.0, "gpt-4o-mini")],
    ),
    # Traceloop's gen_ai.usage.prompt_tokens/completion_tokens: the refund conversation again
    "producers/traceloop_openai_mcp.jsonl": ("otel-genai", [(820.0, 70.0, "gpt-4o-mini")]),
    "producers/openllmetry_openai_legacy.jsonl": ("otel-genai", [(820.0, 70.0, "gpt-4o-mini")]),
    # Agents SDK generation usage: 120/30, 180/12, 200/20, 240/20, 260/11 -> 1000, 93; the
    # guardrail trace makes no model call: unknown, not 0
    "producers/openai_agents_sdk.jsonl": (
        "openai-agents",
        [(1000.0, 93.0, "gpt-4o-mini"), (None, None, None)],
    ),
    # OpenInference llm.token_count.prompt/completion over the same replies
    "producers/openinference_openai_agents_otlp.jsonl": (
        "openinference",
        [(1000.0, 93.0, "gpt-4o-mini"), (None, None, None)],
    ),
    "producers/langfuse_trace.json": ("langfuse", [(480.0, 72.0, "gpt-4o-mini-2024-07-18")]),
    "producers/inspect_ai_log.json": ("inspect-ai", [(30.0, 10.0, "mockllm/model")] * 6),
    # ADK usageMetadata promptTokenCount / candidatesTokenCount (no model_version recorded)
    "producers/adk_session.json": ("adk", [(120.0, 30.0, None)]),
    # LangSmith runs: token_usage prompt/completion of each model run, ls_model_name
    "producers/langsmith_langgraph_runs.jsonl": ("langchain", [(1267.0, 109.0, "gpt-4o-mini")]),
    # the same agent's messages: usage_metadata per AI message, response_metadata.model_name
    "producers/langchain_langgraph_messages.jsonl": (
        "langchain",
        [(1267.0, 109.0, "gpt-4o-mini-2024-07-18")],
    ),
}


def _read(name: str, fmt: str) -> list[Any]:
    options = IngestOptions()
    runs = list(FORMATS[fmt].read(GOLDEN / name, options))
    assert options.skipped == []
    return runs


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_producer_files_give_the_split_and_model(name: str) -> None:
    fmt, expected = PRODUCERS[name]
    found = []
    for run in _read(name, fmt):
        usage = run.usage
        split = (usage.input_tokens, usage.output_tokens) if usage else (None, None)
        found.append((*split, run.metadata.get("model")))
    assert found == expected


def test_calls_without_the_split_contribute_nothing() -> None:
    # openai_agents.jsonl's first trace: generations 100/20, total 200, total 150, 50/10:
    # tokens 120 + 200 + 150 + 60 = 530; the split only of the two that record it:
    # 100 + 50 = 150 input, 20 + 10 = 30 output.
    run = _read("openai_agents.jsonl", "openai-agents")[0]
    assert run.usage is not None and run.usage.tokens == 530.0
    assert (run.usage.input_tokens, run.usage.output_tokens) == (150.0, 30.0)


def test_a_traced_split_prices_the_run() -> None:
    # 1000 input at $0.15 and 93 output at $0.60 per million: (150 + 55.8) / 1e6
    run = _read("producers/openai_agents_sdk.jsonl", "openai-agents")[0]
    prices = {"gpt-4o-mini": Price(input_per_mtok=0.15, output_per_mtok=0.60)}
    found = run_usage(run, prices)
    assert found.cost_source == "priced" and found.cost == pytest.approx(205.8e-6)
    assert run_usage(run, {}).cost_source == "unknown_model"


def _agents_trace(tmp_path: Path, models: list[str | None]) -> Path:
    spans: list[dict[str, Any]] = [{"object": "trace", "id": "trace_1", "workflow_name": "w"}]
    for i, model in enumerate(models):
        data: dict[str, Any] = {"type": "generation", "output": [], "usage": {"total_tokens": 5}}
        if model is not None:
            data["model"] = model
        spans.append(
            {
                "object": "trace.span",
                "id": f"span_{i}",
                "trace_id": "trace_1",
                "parent_id": None,
                "started_at": f"2025-03-01T12:00:0{i}+00:00",
                "ended_at": f"2025-03-01T12:00:0{i}.5+00:00",
                "span_data": data,
            }
        )
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in spans))
    return path


def test_one_model_is_the_run_s_several_are_listed(tmp_path: Path) -> None:
    read = FORMATS["openai-agents"].read
    one = next(iter(read(_agents_trace(tmp_path, ["a", None, "a"]), IngestOptions())))
    assert one.metadata["model"] == "a" and "models" not in one.metadata
    # totals only: the split is unknown (None), never 0
    assert one.usage is not None and one.usage.tokens == 15.0
    assert one.usage.input_tokens is None and one.usage.output_tokens is None
    two = next(iter(read(_agents_trace(tmp_path, ["a", "b", "a"]), IngestOptions())))
    assert "model" not in two.metadata and two.metadata["models"] == ["a", "b"]
    assert run_usage(two, {"a": Price(input_per_mtok=1, output_per_mtok=1)}).cost is None


SIDE = st.one_of(st.none(), st.integers(0, 10**6).map(float))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(SIDE, SIDE), max_size=8))
def test_split_sum_is_the_sum_of_what_is_recorded(splits: list[tuple[Any, Any]]) -> None:
    inputs, outputs = split_sum(splits)
    for side, found in ((0, inputs), (1, outputs)):
        known = [s[side] for s in splits if s[side] is not None]
        assert found == (sum(known) if known else None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))))
def test_model_metadata_never_names_one_model_for_a_mixed_run(models: list[Any]) -> None:
    found = model_metadata(models)
    distinct = {m for m in models if m}
    assert ("model" in found) == (len(distinct) == 1)
    assert set(found.get("models", [])) == (distinct if len(distinct) > 1 else set())
