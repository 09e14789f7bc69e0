"""What the OpenAI Agents SDK and Langfuse golden files read to (for test_golden_files).

file -> (format, detected?, per run: case id, [(tool, arguments, output, error)], answer,
tokens, cost). The numbers are those of test_openai_agents.py and test_langfuse.py.
"""

from __future__ import annotations

from typing import Any

_LANGFUSE_STEPS = [
    ("search", {"query": "capital of France"}, ["d1", "d2"], None),
    ("lookup", {"city": "Paris"}, {"pop": 2}, "timeout"),
]
# tokens 50 + 65 + 8 = 123; cost 0.001 + 0.002 + 0.004 + 0.0001 = 0.0071
_LANGFUSE_RUN = ("lf-1", _LANGFUSE_STEPS, "Paris.", 123.0, 0.0071)
_PRODUCED_LANGFUSE_STEPS = [
    ("search_kb", {"query": "refund window", "top_k": 2}, ["kb-12", "kb-40"], None),
    (
        "lookup_order",
        {"order_id": "A17"},
        "error: order service unavailable",
        "order service unavailable",
    ),
    ("calculator", {"expression": "25 * 0.5"}, 12.5, None),
]
_PRODUCED_ANSWER = "You can get 12.50 EUR back within 30 days."
_ORDER = {"order_id": "A17", "amount": 25.0}
_B22 = {"order_id": "B22", "amount": 25.0}
_ON_RESUME = "Tool execution was manually rejected by user on resume."  # REJECTED_ON_RESUME

EXPECTED: dict[str, tuple[str, bool, list[tuple[Any, ...]]]] = {
    "openai_agents.jsonl": (
        "openai-agents",
        True,
        [
            (
                "oa-1",
                [
                    ("lookup", {"order": "A1"}, "paid", None),
                    ("policy", {}, "30 days", None),
                    ("refund", {"order": "A1", "amount": 5}, "declined", "card expired"),
                    ("fetch_doc", {"id": "d9"}, {"text": "policy"}, None),
                ],
                "Refund declined: card expired.",
                530.0,  # 100 + 20 + 200 + 150 + 50 + 10
                None,
            ),
            (
                "trace_0af7651916cd43dd8448eb211c80319c",
                [("clock", {}, "12:00", None)],
                None,
                22.0,  # 15 + 7
                None,
            ),
        ],
    ),
    "producers/openai_agents_sdk.jsonl": (
        "openai-agents",
        True,
        [
            (
                "refund-A17",
                [
                    (
                        "lookup_order",
                        {"order_id": "A17"},
                        {"order_id": "A17", "status": "delivered", "total": 25.0},
                        None,
                    ),
                    (
                        "get_policy",
                        {"topic": "refunds"},
                        "Refunds within 30 days of delivery.",
                        None,
                    ),
                    (
                        "issue_refund",
                        _ORDER,
                        "refund failed: payment gateway timeout",
                        "payment gateway timeout",
                    ),
                    ("issue_refund", _ORDER, "refund R-1 of 25.00 for A17", None),
                ],
                "Refunded 25.00 EUR for order A17.",
                1093.0,  # 150 + 192 + 220 + 260 + 271
                None,
            ),
            ("blocked-1", [], None, None, None),
        ],
    ),
    "producers/openai_agents_sdk_approvals.jsonl": (
        "openai-agents",
        True,
        [
            (
                "approve-A17",
                [
                    (
                        "lookup_order",
                        {"order_id": "A17"},
                        {"order_id": "A17", "status": "delivered", "total": 25.0},
                        None,
                    ),
                    ("issue_refund", _ORDER, "refund of 25.00 for A17", None),
                ],
                "Refunded 25.00 EUR for order A17.",
                441.0,  # 130 + 140 + 171
                None,
            ),
            (
                "reject-A17",
                [("issue_refund", _ORDER, "Refunds over 20 EUR need a manager.", _ON_RESUME)],
                "The refund of order A17 was not approved.",
                292.0,  # 130 + 162
                None,
            ),
            (
                "always-approve",
                [
                    ("issue_refund", _ORDER, "refund of 25.00 for A17", None),
                    ("issue_refund", _B22, "refund of 25.00 for B22", None),
                ],
                "Refunded orders A17 and B22.",
                449.0,  # 130 + 140 + 179
                None,
            ),
            (
                "always-reject",
                [
                    ("issue_refund", _ORDER, "Refunds are paused today.", _ON_RESUME),
                    (
                        "issue_refund",
                        _B22,
                        "Refunds are paused today.",
                        "Tool execution for call_refund_b was manually rejected by user.",
                    ),
                ],
                "Neither refund was approved.",
                448.0,  # 130 + 140 + 178
                None,
            ),
            ("pending-A17", [], None, 130.0, None),
        ],
    ),
    "langfuse_full_trace.json": ("langfuse", True, [_LANGFUSE_RUN]),
    "langfuse_pages.jsonl": ("langfuse", True, [_LANGFUSE_RUN]),
    "producers/langfuse_trace.json": (
        "langfuse",
        True,
        [("kb-refund", _PRODUCED_LANGFUSE_STEPS, _PRODUCED_ANSWER, 552.0, None)],
    ),
    "producers/langfuse_observations_page.json": (
        "langfuse",
        True,
        [
            (
                "73b0a03e607b38158d135fc6ac2c537b",
                _PRODUCED_LANGFUSE_STEPS,
                _PRODUCED_ANSWER,
                552.0,  # (90 + 18) + (160 + 40) + (230 + 14)
                None,
            )
        ],
    ),
}
