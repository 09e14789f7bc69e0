"""Builders of LangSmith runs for the reader tests (flat runs as ``list_runs`` writes them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pathgrade.core.types import Run
from pathgrade.io.ingest import detect, langchain

from .helpers import write_lines


def t(seconds: float) -> str:
    return f"2024-05-01T10:00:{seconds:06.3f}+00:00"


def run(
    run_id: str,
    run_type: str,
    name: str,
    parent: str | None = None,
    start: float = 0.0,
    end: float = 1.0,
    **fields: Any,
) -> dict[str, Any]:
    """A flat run as ``list_runs`` writes it."""
    return {
        "id": run_id,
        "name": name,
        "run_type": run_type,
        "parent_run_id": parent,
        "trace_id": "trace-1",
        "start_time": t(start),
        "end_time": t(end),
        **fields,
    }


def ai(content: str = "", calls: tuple[tuple[str, dict[str, Any], str], ...] = ()) -> Any:
    """An ``AIMessage`` as ``dumpd`` writes it (``inputs.messages``, ``generations[].message``)."""
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {
            "content": content,
            "type": "ai",
            "tool_calls": [
                {"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in calls
            ],
        },
    }


def generations(message: Any, **extra: Any) -> dict[str, Any]:
    return {
        "generations": [[{"text": "", "type": "ChatGeneration", "message": message}]],
        "type": "LLMResult",
        **extra,
    }


def usage_extra(total: int) -> dict[str, Any]:
    return {"metadata": {"usage_metadata": {"total_tokens": total}}}


def read(tmp_path: Path, lines: list[Any]) -> list[Run]:
    path = write_lines(tmp_path / "runs.jsonl", lines)
    assert detect(path).name == "langchain"
    return list(langchain.read(path))


def steps(run_: Run) -> list[tuple[Any, ...]]:
    return [(s.tool, s.arguments, s.output, s.error, s.turn) for s in run_.steps]


def agent_trace() -> list[dict[str, Any]]:
    """The issue's example: the model asks for ``lookup_order`` and ``search_kb`` at once;
    ``search_kb`` is a retriever run (no tool run), then the model answers."""
    calls = (("lookup_order", {"order_id": "A17"}, "c1"), ("search_kb", {"query": "refunds"}, "c2"))
    return [
        run("root", "chain", "support", start=0, end=9, outputs={"answer": "Refunded."}),
        run(
            "m1",
            "llm",
            "ChatOpenAI",
            "root",
            1,
            2,
            outputs=generations(ai("", calls)),
            extra=usage_extra(100),
        ),
        # file order is not time order
        run(
            "r1",
            "retriever",
            "search_kb",
            "root",
            3.5,
            4,
            inputs={"query": "refunds"},
            outputs={
                "documents": [
                    {"page_content": "a", "metadata": {"id": "kb-12", "score": 0.9}},
                    {"id": "kb-3", "page_content": "b", "metadata": {}},
                    {"page_content": "no id", "metadata": {}},
                ]
            },
        ),
        run(
            "t1",
            "tool",
            "lookup_order",
            "root",
            3,
            3.2,
            inputs={"order_id": "A17"},
            outputs={"output": {"status": "delivered"}},
            extra={"tool_call_id": "c1"},
        ),
        run(
            "m2",
            "llm",
            "ChatOpenAI",
            "root",
            5,
            6,
            outputs=generations(ai("Refunded.")),
            extra=usage_extra(40),
        ),
    ]
