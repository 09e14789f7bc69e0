"""What the Pydantic AI and Strands producer files hold: the scenario their scripts drove.

The files (``tests/golden/ingest/producers/pydantic_ai_*.jsonl``, ``strands_otel*.jsonl``)
were written by ``tools/producers/pydantic_ai_trace.py`` and ``tools/producers/strands_trace.py``
(library versions: those scripts' docstrings and ``tests/golden/ingest/README.md``). Every
value here is hand-written from the scenario the scripts played (their recorded model replies
and their tools), not from what a reader makes of the files:
``test_producers_pydantic_strands.py`` checks the readers against them, one check at a time.

The scenario (one trace per file, ``refund-A17``): agent ``support`` asks for
``lookup_order`` and a knowledge-base search in one response, then delegates to agent
``billing`` through a tool; ``billing`` calls ``issue_refund``, which raises ("payment
gateway timeout"), then again with success, and answers; ``support`` answers. Six model
calls: (120 + 40) + (200 + 30) + (80 + 15) + (115 + 15) + (140 + 10) + (290 + 20) = 1075
tokens.
"""

from __future__ import annotations

from typing import Any

#: file (under tests/golden/ingest) -> the format it is written in
FILES: dict[str, str] = {
    "producers/pydantic_ai_otel.jsonl": "otel-genai",
    "producers/pydantic_ai_openinference.jsonl": "openinference",
    "producers/strands_otel.jsonl": "otel-genai",
    "producers/strands_otel_latest.jsonl": "otel-genai",
}
PYDANTIC = ("producers/pydantic_ai_otel.jsonl", "producers/pydantic_ai_openinference.jsonl")
STRANDS = ("producers/strands_otel.jsonl", "producers/strands_otel_latest.jsonl")

TRACE_ID = "5eed0000000000000000000000000001"  # _oi_export.CountingIds: the first trace
REFUND = {"order_id": "A17", "amount": 25.0}
BILLING_REQUEST = "Refund 25.00 EUR on order A17."

#: tool steps in call order: (tool, arguments as the tool received them, agent that called it)
PYDANTIC_STEPS: list[tuple[str, dict[str, Any], str]] = [
    ("lookup_order", {"order_id": "A17"}, "support"),
    ("search_kb", {"query": "refund policy for damaged items"}, "support"),
    # the delegation: a support tool whose body runs the billing agent
    ("ask_billing", {"request": BILLING_REQUEST}, "support"),
    ("issue_refund", REFUND, "billing"),  # raised ModelRetry("payment gateway timeout")
    ("issue_refund", REFUND, "billing"),
]
#: Strands: the retrieval is MemoryManager's ``search_memory`` tool (its ``memory.search``
#: span inside), the delegation ``billing.as_tool()`` (one ``input`` argument).
STRANDS_STEPS: list[tuple[str, dict[str, Any], str]] = [
    ("lookup_order", {"order_id": "A17"}, "support"),
    ("search_memory", {"query": "refund policy for damaged items"}, "support"),
    ("billing", {"input": BILLING_REQUEST}, "support"),
    ("issue_refund", REFUND, "billing"),  # raised RuntimeError("payment gateway timeout")
    ("issue_refund", REFUND, "billing"),
]
FAILED_STEP = 3  # the first issue_refund
ERROR_TEXT = "payment gateway timeout"
#: the ids of the two documents the search returned (pydantic-ai: in search_kb's result;
#: Strands: in each memory entry's metadata)
RETRIEVED_IDS = ["kb-refunds", "kb-payments"]
ANSWER = "Refunded 25.00 EUR on order A17 (refund R-1)."
TOKENS = 1075.0


def steps_of(name: str) -> list[tuple[str, dict[str, Any], str]]:
    return PYDANTIC_STEPS if name in PYDANTIC else STRANDS_STEPS
