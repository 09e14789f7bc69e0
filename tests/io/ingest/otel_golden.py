"""What the OTel GenAI / MCP / OpenLLMetry golden files read to (shared by the golden tests).

The producer files (``producers/otel_*``, ``producers/traceloop_*``, ``producers/openllmetry_*``)
were written by the real libraries (``tools/producers/otel_openai_v2.py``, ``otel_mcp.py``,
``traceloop_openai_mcp.py``, ``openllmetry_openai_legacy.py``); the top-level seeds are cut from
them by ``tools/producers/otel_seeds.py``. Entries: file -> (format, sniffed?, per run: (case id,
[(tool, arguments, output, error)], answer, tokens, cost)), the shape of
``test_golden_files.EXPECTED``.

Tokens are input + output per model call, summed: the refund conversation's four replies are
(120 + 30) + (200 + 15) + (240 + 15) + (260 + 10) = 890; its first two, 150 + 215 = 365; the
warranty one (90 + 25) + (150 + 12) = 277; the MCP refund (A17) 150 + 215 + (240 + 14) = 619,
and B9 (90 + 12) + (120 + 8) = 230.
"""

from __future__ import annotations

from typing import Any

A17 = {"order_id": "A17"}
LOOKUP = ("lookup_order", A17, {"order_id": "A17", "status": "delivered"}, None)
SEARCH = ("search_kb", {"query": "refunds for damaged items"}, ["kb-refunds", "kb-warranty"], None)
#: The client-level refund: the first refund's result is an error *text* (an OpenAI tool
#: message has no error flag, so the step is not failed), the second succeeds.
REFUND_TEXT = ("issue_refund", A17, "Error: payment gateway timeout", None)
REFUND_OK = ("issue_refund", A17, {"refund_id": "R-1"}, None)
#: A refund whose only record is the model's emitted call (its result is in a later call).
REFUND_ASKED = ("issue_refund", A17, None, None)
ANSWER = "Refunded order A17 (refund R-1)."
CLIENT_REFUND = ("refund-A17", [LOOKUP, SEARCH, REFUND_TEXT, REFUND_OK], ANSWER, 890.0, None)
CLIENT_REFUND_CUT = ("refund-A17", [LOOKUP, SEARCH, REFUND_ASKED], None, 365.0, None)
#: App spans: a retrieval before the first model call (tool = data source, its query and
#: top_k), ``search_kb`` wrapping a retrieval (one step), a tool span that raised.
WARRANTY = (
    "warranty-B2",
    [
        (
            "kb",
            {"query": "Is order B2 still under warranty?", "top_k": 3},
            ["kb-refunds", "kb-warranty"],
            None,
        ),
        ("search_kb", {"query": "warranty for order B2"}, ["policy-warranty-2y"], None),
        (
            "check_warranty",
            {"order_id": "B2"},
            "Error: warranty service unavailable",
            "warranty service unavailable",
        ),
    ],
    "Order B2 is under warranty until 2026.",
    277.0,
    None,
)
MCP_RESULT = {
    "content": [{"type": "text", "text": "Error executing tool issue_refund"}],
    "isError": True,
    "resultType": "complete",
}
MCP_B9 = (
    "refund-B9",
    [("issue_refund", {"order_id": "B9"}, MCP_RESULT, "Error executing tool issue_refund")],
    "The refund of order B9 failed.",
    230.0,
    None,
)
TRACELOOP_FAILED = (
    "issue_refund",
    A17,
    "Error executing tool issue_refund: payment gateway timeout",
    "Error executing tool issue_refund: payment gateway timeout",
)

EXPECTED: dict[str, tuple[str, bool, list[tuple[Any, ...]]]] = {
    "producers/otel_openai_v2_spans.jsonl": ("otel-genai", True, [CLIENT_REFUND, WARRANTY]),
    "producers/otel_openai_v2_logs.jsonl": ("otel-genai", True, [CLIENT_REFUND]),
    "producers/otel_mcp.jsonl": (
        "otel-genai",
        True,
        [
            (
                "refund-A17",
                [
                    LOOKUP,
                    # the MCP spans record no result: the text the model was shown
                    ("search_kb", SEARCH[1], "kb-refunds\nkb-warranty", None),
                    ("issue_refund", A17, MCP_RESULT, "Error executing tool issue_refund"),
                ],
                "The refund of order A17 failed: the gateway timed out.",
                619.0,
                None,
            ),
            MCP_B9,
        ],
    ),
    "producers/otel_mcp_server.jsonl": (
        "otel-genai",
        True,
        [
            (
                "5eed0000000000000000000000000002",
                [
                    ("lookup_order", {}, None, None),
                    ("search_kb", {}, None, None),
                    ("issue_refund", {}, None, "tool_error"),
                ],
                None,
                None,
                None,
            ),
            (
                "5eed0000000000000000000000000004",
                [("issue_refund", {}, None, "tool_error")],
                None,
                None,
                None,
            ),
        ],
    ),
    "producers/traceloop_openai_mcp.jsonl": (
        "otel-genai",
        True,
        [("refund-A17", [LOOKUP, SEARCH, TRACELOOP_FAILED, REFUND_OK], ANSWER, 890.0, None)],
    ),
    "producers/openllmetry_openai_legacy.jsonl": ("otel-genai", True, [CLIENT_REFUND]),
    "otel_openai_v2_seed.jsonl": ("otel-genai", True, [CLIENT_REFUND_CUT, WARRANTY]),
    "otel_openai_v2_logs_seed.jsonl": ("otel-genai", True, [CLIENT_REFUND_CUT]),
    "otel_mcp_seed.jsonl": (
        "otel-genai",
        True,
        [
            (
                "refund-A17",
                [("lookup_order", A17, None, None), ("search_kb", SEARCH[1], None, None)],
                None,
                150.0,
                None,
            ),
            MCP_B9,
        ],
    ),
    "traceloop_seed.jsonl": (
        "otel-genai",
        True,
        [("refund-A17", [LOOKUP, SEARCH, TRACELOOP_FAILED], ANSWER, 365.0, None)],
    ),
    "openllmetry_legacy_seed.jsonl": ("otel-genai", True, [CLIENT_REFUND_CUT]),
}
