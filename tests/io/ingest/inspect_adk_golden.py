"""What the Inspect AI and Google ADK golden files read to (for test_golden_files).

file -> (format, detected?, per run: case id, [(tool, arguments, output, error)], answer,
tokens, cost). The numbers are those of test_inspect_ai.py and test_adk.py.
"""

from __future__ import annotations

from typing import Any

# tokens 120 + (10 + 2) = 132 over two models; cost 0.002 (one model reports it)
_ADD = (
    "add",
    [
        ("add", {"x": 3, "y": 4}, "7", None),
        ("lookup", {"q": "sum"}, {"hits": 2}, None),
        ("divide", {"x": 7, "y": 0}, None, "division by zero"),
    ],
    "7",
    132.0,
    0.002,
)
# the real log: 15 + 25 = 40 tokens a sample; epoch 2 repeats epoch 1's replies
_REAL_INSPECT = [
    ("add", [("add", {"x": 3, "y": 4}, "7", None)], "7", 40.0, None),
    ("divide", [("divide", {"x": 1, "y": 0}, None, "division by zero")], "undefined", 40.0, None),
    (
        "both",
        [("add", {"x": 2, "y": 5}, "7", None), ("multiply", {"x": 2, "y": 5}, "10", None)],
        "7 and 10",
        40.0,
        None,
    ),
]
_ORDER = {"order_id": "A17", "amount": 10.5}
_LOOKUP = ("lookup_order", {"order_id": "A17"}, {"order_id": "A17", "status": "shipped"}, None)
_TRANSFER = ("transfer_to_agent", {"agent_name": "billing"}, {"result": None}, None)

EXPECTED: dict[str, tuple[str, bool, list[tuple[Any, ...]]]] = {
    "inspect_ai_log.json": (
        "inspect-ai",
        True,
        [
            _ADD,
            ("err", [("search", {}, [1, 2], None)], None, None, None),
            ("2", [], "Paris.", 10.0, None),  # 8 + 2 tokens (no total)
        ],
    ),
    "producers/inspect_ai_log.json": ("inspect-ai", True, _REAL_INSPECT * 2),
    "producers/inspect_ai_log.eval": ("inspect-ai", True, _REAL_INSPECT * 2),
    "adk_session.json": (
        "adk",
        True,
        # tokens 60 + (40 + 5) + 30 = 135
        [
            (
                "refund-7",
                [
                    ("get_order", {"id": 7}, {"status": "delivered"}, None),
                    ("kb_search", {"query": "refund policy"}, {"result": ["doc-1"]}, None),
                    (
                        "refund",
                        {"id": 7, "amount": 10.5},
                        {"isError": True, "content": [{"type": "text", "text": "gateway timeout"}]},
                        "gateway timeout",
                    ),
                ],
                "Refund failed; try later.",
                135.0,
                None,
            )
        ],
    ),
    "adk_evalset_result.json": (
        "adk",
        True,
        [
            ("c1", [("roll_die", {"sides": 6}, {"result": 4}, None)], "You rolled 4.", None, None),
            (
                "c1",
                [("roll_die", {"sides": 20}, {"error": "too many sides"}, "too many sides")],
                "No.",
                None,
                None,
            ),
        ],
    ),
    "adk_dice.test.json": ("adk", True, []),  # gold only: cases, no runs
    "producers/adk.evalset.json": ("adk", True, []),  # gold only
    "producers/adk_session.json": (
        "adk",
        True,
        # six model responses of 25 tokens
        [
            (
                "c2e479e8-e29a-4013-bc9c-5392c9c8c642",
                [
                    _LOOKUP,
                    _TRANSFER,
                    (
                        "refund",
                        _ORDER,
                        {"error": "payment gateway timeout"},
                        "payment gateway timeout",
                    ),
                    ("refund", _ORDER, {"order_id": "A17", "refunded": 10.5}, None),
                ],
                "Refunded A17.",
                150.0,
                None,
            )
        ],
    ),
    "producers/adk.evalset_result.json": (
        "adk",
        True,
        # the inference re-run: refund succeeds at once; five responses (125), two (50)
        [
            (
                "refund_A17",
                [
                    _LOOKUP,
                    _TRANSFER,
                    ("refund", _ORDER, {"order_id": "A17", "refunded": 10.5}, None),
                ],
                "Refunded A17.",
                125.0,
                None,
            ),
            (
                "where_B2",
                [
                    (
                        "lookup_order",
                        {"order_id": "B2"},
                        {"order_id": "B2", "status": "shipped"},
                        None,
                    )
                ],
                "Order B2 has shipped.",
                50.0,
                None,
            ),
        ],
    ),
}
