"""What the LangSmith / LangChain producer files read to (shared by the golden-file tests).

Written by the real tracers (``tools/producers/langsmith_langgraph.py``,
``langsmith_traceable.py``, ``langsmith_chat_model.py``); the full paths, turns and call ids
are asserted in ``test_langsmith_producers.py``. Entries: file -> (format, sniffed?, per run:
(case id, [(tool, arguments, output, error)], answer, tokens, cost)), the shape of
``test_golden_files.EXPECTED``.
"""

from __future__ import annotations

from typing import Any

POLICY = (
    "Damaged items are refunded in full within 30 days.\n\n"
    "Refunds go back to the original payment method."
)
LOOKUP = (
    "lookup_order",
    {"order_id": "A17"},
    {"order_id": "A17", "status": "delivered", "total": 25.0},
)
REFUND = {"order_id": "A17", "amount": 25.0}
ERROR_TEXT = "Error: TimeoutError('payment gateway timeout')\n Please fix your mistakes."
ANSWER = "I refunded 25.00 for order A17 to your original card."
TRACEABLE_DOCS = ["kb-returns", "kb-payments"]
EXPECTED: dict[str, tuple[str, bool, list[tuple[Any, ...]]]] = {
    # tokens (212 + 48) + (305 + 22) + (352 + 22) + (398 + 17) = 1376
    "producers/langsmith_langgraph_runs.jsonl": (
        "langchain",
        True,
        [
            (
                "refund-A17",
                [
                    (*LOOKUP, None),
                    ("search_kb", {"query": "refund policy for damaged items"}, POLICY, None),
                    ("issue_refund", REFUND, ERROR_TEXT, "TimeoutError('payment gateway timeout')"),
                    ("issue_refund", REFUND, "refunded 25.00 on A17", None),
                ],
                ANSWER,
                1376.0,
                None,
            )
        ],
    ),
    "producers/langchain_langgraph_messages.jsonl": (
        "langchain",
        True,
        [
            (
                "refund-A17",
                [
                    (*LOOKUP, None),
                    ("search_kb", {"query": "refund policy for damaged items"}, POLICY, None),
                    ("issue_refund", REFUND, ERROR_TEXT, ERROR_TEXT),
                    ("issue_refund", REFUND, "refunded 25.00 on A17", None),
                ],
                ANSWER,
                1376.0,
                None,
            )
        ],
    ),
    "producers/langsmith_traceable_trees.json": (
        "langchain",
        True,
        [
            (
                "refund-A17",
                [
                    (
                        "lookup_order",
                        {"order_id": "A17"},
                        {"order_id": "A17", "status": "delivered"},
                        None,
                    ),
                    ("search_kb", {"query": "refund policy"}, TRACEABLE_DOCS, None),
                ],
                "A17 was delivered; you can return it within 30 days.",
                323.0,  # (96 + 41) + (171 + 15)
                None,
            ),
            (
                "kb-question",
                [("search_kb", {"query": "Where do refunds go?"}, TRACEABLE_DOCS, None)],
                "Refunds go back to the original payment method.",
                97.0,  # 88 + 9
                None,
            ),
        ],
    ),
    "producers/langsmith_chat_model_roots.jsonl": (
        "langchain",
        True,
        [
            ("weather-answer", [], "It is 18 degrees and sunny in Paris.", 75.0, None),  # 64 + 11
            (
                "weather-two-cities",
                [
                    ("get_weather", {"city": "Paris"}, None, None),
                    ("get_weather", {"city": "Rome"}, None, None),
                ],
                None,
                90.0,  # 52 + 38
                None,
            ),
        ],
    ),
}
