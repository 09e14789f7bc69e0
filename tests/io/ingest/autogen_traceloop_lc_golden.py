"""What the AutoGen and Traceloop-LangChain producer files hold: the scenarios their scripts drove.

The files (``tests/golden/ingest/producers/autogen_openinference.jsonl``, ``autogen_otel.jsonl``,
``traceloop_langchain.jsonl``) were written by ``tools/producers/autogen_trace.py`` and
``tools/producers/traceloop_langchain.py`` (library versions: those scripts' docstrings and
``tests/golden/ingest/README.md``). Every value here is hand-written from the scenario the
scripts played (their recorded model replies and their tools), not from what a reader makes
of the files: ``test_producers_autogen_traceloop_lc.py`` checks the readers against them, one
check at a time.

AutoGen (both files, one trace): a ``Swarm`` of ``triage`` and ``billing``. ``triage`` asks
for ``lookup_order`` and ``search_kb`` in one response, then hands off to ``billing``
(``transfer_to_billing``: AutoGen's hand-off, not an application tool, so not a step, as with
the OpenAI Agents SDK's hand-offs); ``billing`` calls ``issue_refund``, which raises
("payment gateway timeout"), then again with success, and answers. Five model calls:
(120 + 30) + (200 + 12) + (180 + 20) + (230 + 20) + (260 + 14) = 1086 tokens. AutoGen has no
retriever concept: ``search_kb`` is a plain tool, nothing is a retrieval.

Traceloop LangChain (one trace): a LangGraph ReAct graph; the model asks for ``lookup_order``
and ``search_kb`` (a retriever tool over two documents whose ids are in their metadata) in
one response, then ``issue_refund`` (raises "payment gateway timeout"; the ToolNode hands the
error back), then ``issue_refund`` again (succeeds), then answers. Four model calls:
(120 + 40) + (260 + 22) + (300 + 22) + (340 + 12) = 1116 tokens.
"""

from __future__ import annotations

from typing import Any

AUTOGEN_OI = "producers/autogen_openinference.jsonl"
AUTOGEN_OTEL = "producers/autogen_otel.jsonl"
TRACELOOP_LC = "producers/traceloop_langchain.jsonl"
#: file (under tests/golden/ingest) -> the format it is written in
FILES: dict[str, str] = {
    AUTOGEN_OI: "openinference",
    AUTOGEN_OTEL: "otel-genai",
    TRACELOOP_LC: "otel-genai",
}
AUTOGEN = (AUTOGEN_OI, AUTOGEN_OTEL)

TRACE_ID = "5eed0000000000000000000000000001"  # _oi_export.CountingIds: the first trace
REFUND = {"order_id": "A17", "amount": 25.0}
LOOKUP_RESULT = {"order_id": "A17", "status": "delivered", "total": 25.0}
REFUND_RESULT = {"refund_id": "R-1"}

#: tool steps in call order: (call id, tool, arguments as the tool received them)
AUTOGEN_STEPS: list[tuple[str, str, dict[str, Any]]] = [
    ("call_lookup", "lookup_order", {"order_id": "A17"}),
    ("call_kb", "search_kb", {"query": "refunds for damaged items"}),
    ("call_refund_1", "issue_refund", REFUND),  # raised RuntimeError("payment gateway timeout")
    ("call_refund_2", "issue_refund", REFUND),
]
TRACELOOP_STEPS: list[tuple[str, str, dict[str, Any]]] = [
    ("call_lookup", "lookup_order", {"order_id": "A17"}),
    ("call_kb", "search_kb", {"query": "refund policy for damaged items"}),
    ("call_refund_1", "issue_refund", REFUND),  # raised RuntimeError("payment gateway timeout")
    ("call_refund_2", "issue_refund", REFUND),
]
FAILED_CALL = "call_refund_1"
ERROR_TEXT = "payment gateway timeout"

#: what each call gave back, by call id (JSON text decoded): the tool's return value, and for
#: the failed call the text the framework handed back to the model in its place
AUTOGEN_OUTPUTS: dict[str, Any] = {
    "call_lookup": LOOKUP_RESULT,
    "call_kb": ["kb-refunds", "kb-warranty"],
    "call_refund_1": "payment gateway timeout",  # AutoGen: str(exception), is_error=True
    "call_refund_2": REFUND_RESULT,
}
TRACELOOP_OUTPUTS: dict[str, Any] = {
    "call_lookup": LOOKUP_RESULT,
    # create_retriever_tool joins the documents' page_content
    "call_kb": (
        "Damaged items are refunded in full within 30 days.\n\n"
        "Refunds go back to the original payment method."
    ),
    # LangGraph's ToolNode(handle_tool_errors=True) message
    "call_refund_1": "Error: RuntimeError('payment gateway timeout')\n Please fix your mistakes.",
    "call_refund_2": REFUND_RESULT,
}

#: AutoGen: the agent whose turn each call was in (by call id)
AUTOGEN_AGENTS: dict[str, str] = {
    "call_lookup": "triage",
    "call_kb": "triage",
    "call_refund_1": "billing",
    "call_refund_2": "billing",
}

#: retrieved document ids: AutoGen retrieves nothing; the LangChain retriever's two
#: documents (ids in their metadata)
RETRIEVED_IDS: dict[str, list[str]] = {
    AUTOGEN_OI: [],
    AUTOGEN_OTEL: [],
    TRACELOOP_LC: ["kb-refunds", "kb-payments"],
}
ANSWER = "Refunded 25.00 on order A17 (refund R-1)."
TOKENS: dict[str, float] = {AUTOGEN_OI: 1086.0, AUTOGEN_OTEL: 1086.0, TRACELOOP_LC: 1116.0}


def steps_of(name: str) -> list[tuple[str, str, dict[str, Any]]]:
    return AUTOGEN_STEPS if name in AUTOGEN else TRACELOOP_STEPS


def outputs_of(name: str) -> dict[str, Any]:
    return AUTOGEN_OUTPUTS if name in AUTOGEN else TRACELOOP_OUTPUTS
