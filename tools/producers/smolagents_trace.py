"""Write OpenInference traces of two smolagents agents, offline.

Drives ``openinference-instrumentation-smolagents`` 0.1.43 over ``smolagents`` 1.26.0
(``OpenAIModel``: the ``openai`` 3.63.0 client pointed at a stand-in chat-completions host on
127.0.0.1, :mod:`_chat_stub`, serving recorded replies with their usage: no network) and
exports the spans with the ``opentelemetry-sdk`` 1.45.2 in-memory exporter
(:mod:`_oi_export`, encoded by ``opentelemetry-exporter-otlp-proto-common`` 1.45.2). Not run
in CI; not imported by the package. smolagents has no retriever: ``search_policy`` is a plain
tool returning documents with ids.

Two traces:

1. ``ToolCallingAgent`` (``refund A17``): the first model response asks for two calls at once,
   ``lookup_order(order_id="A17")`` and ``search_policy(query="refund policy for damaged
   items")`` (smolagents runs them in threads); the second asks for
   ``issue_refund(order_id="A17", amount=25.0)``, which raises ``RuntimeError("payment gateway
   timeout")`` (smolagents hands the error back to the model and goes on); the third asks for
   the same call again, which succeeds; the fourth calls the built-in ``final_answer`` tool
   with ``answer="Refunded 25.00 on order A17."``. Usage 120+40, 260+22, 300+22, 340+12
   (1116 tokens).
2. ``CodeAgent`` (``refund B22``): the model writes Python. Step 1 runs
   ``lookup_order(order_id="B22")``; step 2 ``issue_refund(order_id="B22", amount=12.5)``,
   which raises (the code step fails, the error goes back to the model); step 3 calls it
   again and then ``final_answer("Refunded 12.50 on order B22.")``. Usage 200+30, 250+25,
   300+35 (840 tokens).

Usage: ``python tools/producers/smolagents_trace.py OUT_DIR`` writes
``smolagents_openinference.jsonl`` (OTLP/JSON lines, one trace per line). Run it in a network
namespace of its own (``unshare -n``, loopback up) to be sure nothing leaves the machine.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from _chat_stub import ChatStub, chat_reply, tool_call
from _oi_export import provider, write_otlp_json
from openinference.instrumentation.smolagents import SmolagentsInstrumentor
from smolagents import CodeAgent, OpenAIModel, ToolCallingAgent, tool

KB = [
    {"id": "kb-refunds", "text": "Damaged items are refunded in full within 30 days."},
    {"id": "kb-payments", "text": "Refunds go back to the original payment method."},
]
ORDERS = {
    "A17": {"order_id": "A17", "status": "delivered", "total": 25.0},
    "B22": {"order_id": "B22", "status": "delivered", "total": 12.5},
}
ATTEMPTS: dict[str, int] = {}


@tool
def lookup_order(order_id: str) -> dict:
    """Look up an order by its id.

    Args:
        order_id: The order's id, e.g. "A17".
    """
    return ORDERS[order_id]


@tool
def search_policy(query: str) -> list:
    """Search the refund policy base; returns documents with their ids.

    Args:
        query: What to look for.
    """
    return [dict(doc) for doc in KB]


@tool
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an amount on an order.

    Args:
        order_id: The order's id.
        amount: The amount to refund.
    """
    ATTEMPTS[order_id] = ATTEMPTS.get(order_id, 0) + 1
    if ATTEMPTS[order_id] == 1:
        raise RuntimeError("payment gateway timeout")
    return json.dumps({"order_id": order_id, "refunded": amount})


TOOL_CALLING_REPLIES = [
    chat_reply(
        1,
        {
            "tool_calls": [
                tool_call("call_lookup", "lookup_order", {"order_id": "A17"}),
                tool_call("call_kb", "search_policy", {"query": "refund policy for damaged items"}),
            ]
        },
        120,
        40,
    ),
    chat_reply(
        2,
        {
            "tool_calls": [
                tool_call("call_refund_1", "issue_refund", {"order_id": "A17", "amount": 25.0})
            ]
        },
        260,
        22,
    ),
    chat_reply(
        3,
        {
            "tool_calls": [
                tool_call("call_refund_2", "issue_refund", {"order_id": "A17", "amount": 25.0})
            ]
        },
        300,
        22,
    ),
    chat_reply(
        4,
        {
            "tool_calls": [
                tool_call("call_final", "final_answer", {"answer": "Refunded 25.00 on order A17."})
            ]
        },
        340,
        12,
    ),
]


def _code(number: int, thought: str, code: str, prompt: int, completion: int) -> dict[str, Any]:
    content = f"Thought: {thought}\n<code>\n{code}\n</code>"
    return chat_reply(number, {"content": content}, prompt, completion)


CODE_REPLIES = [
    _code(
        11,
        "Look the order up first.",
        'order = lookup_order(order_id="B22")\nprint(order)',
        200,
        30,
    ),
    _code(
        12,
        "The order was delivered; refund its total.",
        'refund = issue_refund(order_id="B22", amount=12.5)\nprint(refund)',
        250,
        25,
    ),
    _code(
        13,
        "The gateway timed out; try once more, then answer.",
        'refund = issue_refund(order_id="B22", amount=12.5)\n'
        'final_answer("Refunded 12.50 on order B22.")',
        300,
        35,
    ),
]


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    SmolagentsInstrumentor().instrument(tracer_provider=tracer_provider)
    with ChatStub(TOOL_CALLING_REPLIES + CODE_REPLIES) as stub:
        model = OpenAIModel(
            model_id="gpt-4o-mini",
            api_base=f"{stub.url}/v1",
            api_key="x",
            client_kwargs={"max_retries": 0},
        )
        agent = ToolCallingAgent(
            tools=[lookup_order, search_policy, issue_refund],
            model=model,
            max_steps=6,
            verbosity_level=0,
        )
        answer = agent.run("Refund order A17 if the policy allows it.")
        assert answer == "Refunded 25.00 on order A17.", answer

        coder = CodeAgent(
            tools=[lookup_order, issue_refund],
            model=model,
            max_steps=6,
            verbosity_level=0,
        )
        answer = coder.run("Refund order B22 in full.")
        assert answer == "Refunded 12.50 on order B22.", answer
        stub.check()

    write_otlp_json(exporter.get_finished_spans(), out_dir / "smolagents_openinference.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
