"""What the OpenInference / Phoenix golden files read to (shared by the golden-file tests).

The producer files (``producers/openinference_*``) were written by the real instrumentations
(``tools/producers/openinference_langgraph.py``, ``openinference_openai_agents.py``,
``openinference_phoenix_export.py``); the top-level seeds are cut from them by
``tools/producers/openinference_seeds.py``. Entries: file -> (format, sniffed?, per run:
(case id, [(tool, arguments, output, error)], answer, tokens, cost)), the shape of
``test_golden_files.EXPECTED``.
"""

from __future__ import annotations

from typing import Any

LANGGRAPH = "5eed0000000000000000000000000001"
RAG = "5eed0000000000000000000000000002"
AGENTS = "5eed0000000000000000000000000001"
BLOCKED = "5eed0000000000000000000000000002"
LOOKUP = (
    "lookup_order",
    {"order_id": "A17"},
    {"order_id": "A17", "status": "delivered", "total": 25.0},
    None,
)
POLICY = (
    "Damaged items are refunded in full within 30 days.\n\n"
    "Refunds go back to the original payment method."
)
REFUND_ARGS = {"order_id": "A17", "amount": 25.0}
#: LangGraph ReAct agent: lookup_order (one argument: filled from the model's call) and
#: search_kb (a retriever tool: one step with its RETRIEVER span) in one response; the
#: refund's error comes from the serialized ToolMessage (status "error"); then success.
LANGGRAPH_STEPS = [
    LOOKUP,
    ("search_kb", {"query": "refund policy for damaged items"}, POLICY, None),
    ("issue_refund", REFUND_ARGS, "payment gateway timeout", "payment gateway timeout"),
    ("issue_refund", REFUND_ARGS, {"order_id": "A17", "refunded": 25.0}, None),
]
#: LCEL chain: the retrieval is a RETRIEVER span only; its output is the document ids.
RAG_STEPS = [
    ("KnowledgeBase", {"query": "Are damaged items refunded?"}, ["kb-refunds", "kb-payments"], None)
]
RAG_ANSWER = "Damaged items are refunded in full within 30 days."
AGENTS_ERROR = (
    "Error running tool (non-fatal): {'tool_name': 'issue_refund', 'error': 'Tool execution"
    " failed. Error details are redacted.'}"
)
#: OpenAI Agents: search_kb is a RETRIEVER span (tool_span_kinds); the handoff (its span and
#: the model's transfer_to_billing call) is not a step, as in the openai-agents reader; the
#: failed refund, then the retry.
AGENTS_STEPS = [
    LOOKUP,
    ("search_kb", {"query": "refunds for damaged items"}, ["kb-refunds", "kb-payments"], None),
    (
        "issue_refund",
        REFUND_ARGS,
        "An error occurred while running the tool. Please try again.",
        AGENTS_ERROR,
    ),
    ("issue_refund", REFUND_ARGS, "refund R-1 of 25.00 for A17", None),
]
# tokens: LangGraph 160 + 282 + 322 + 352 = 1116 (the seed keeps three calls: 764);
# the RAG chain 90 + 14 = 104; OpenAI Agents 150 + 192 + 220 + 260 + 271 = 1093 (seed: 562).
LANGGRAPH_RUNS = [
    (LANGGRAPH, LANGGRAPH_STEPS, "Refunded 25.00 on order A17.", 1116.0, None),
    (RAG, RAG_STEPS, RAG_ANSWER, 104.0, None),
]
EXPECTED: dict[str, tuple[str, bool, list[tuple[Any, ...]]]] = {
    # the seeds: the LangGraph trace up to the third model call (its refund call has no span)
    "openinference_langgraph.jsonl": (
        "openinference",
        True,
        [
            (
                LANGGRAPH,
                [*LANGGRAPH_STEPS[:3], ("issue_refund", REFUND_ARGS, None, None)],
                "Refunded 25.00 on order A17.",
                764.0,
                None,
            )
        ],
    ),
    "openinference_openai_agents.jsonl": (
        "openinference",
        True,
        [(AGENTS, AGENTS_STEPS[:3], None, 562.0, None)],
    ),
    "phoenix_spans.jsonl": ("openinference", True, [(RAG, RAG_STEPS, RAG_ANSWER, 104.0, None)]),
    # the files the producers wrote
    "producers/openinference_langgraph_otlp.jsonl": ("openinference", True, LANGGRAPH_RUNS),
    "producers/openinference_openai_agents_otlp.jsonl": (
        "openinference",
        True,
        [
            (AGENTS, AGENTS_STEPS, "Refunded 25.00 EUR for order A17.", 1093.0, None),
            (BLOCKED, [], None, None, None),  # the guardrail tripped: no model call
        ],
    ),
    "producers/openinference_phoenix_spans.jsonl": ("openinference", True, LANGGRAPH_RUNS),
    # Phoenix's dataframe lists the later trace first
    "producers/openinference_phoenix_spans.parquet": ("phoenix", True, LANGGRAPH_RUNS[::-1]),
}
