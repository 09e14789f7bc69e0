"""Write an OpenInference trace of a DSPy ReAct agent with a ColBERTv2 retriever, offline.

Drives ``openinference-instrumentation-dspy`` 0.1.48 over ``dspy`` 3.4.1, together with
``openinference-instrumentation-litellm`` 0.1.51 over ``litellm`` 1.110.2 (the pairing
OpenInference documents for DSPy: the DSPy instrumentation records no token counts, the
LiteLLM one does). ``dspy.LM("openai/gpt-4o-mini", engine="litellm")`` (DSPy's default engine
would use its bundled ``lm15`` client, which LiteLLM's instrumentation does not see) is
pointed at a stand-in chat-completions host on 127.0.0.1 (:mod:`_chat_stub`) serving recorded
ChatAdapter replies with their usage; the same host answers ``dspy.ColBERTv2``'s search
requests (``GET /api/search?query=&k=``, the hosted ColBERTv2 server's JSON: ``topk`` with
``pid``, ``text``, ``score``). No network; DSPy's caches are off. Spans from the
``opentelemetry-sdk`` 1.45.2 in-memory exporter (:mod:`_oi_export`). Not run in CI; not
imported by the package.

One trace, ``dspy.ReAct("question -> answer")`` with three tools:

1. ``search_kb(query="refund policy for damaged items")``: calls ``dspy.ColBERTv2`` (k=2),
   which returns passages 101 (score 21.5) and 205 (score 18.25);
2. ``lookup_order(order_id="A17")``;
3. ``issue_refund(order_id="A17", amount=25.0)``: raises ``RuntimeError("payment gateway
   timeout")`` (ReAct puts "Execution error in issue_refund: ..." in the trajectory and goes
   on);
4. ``issue_refund(order_id="A17", amount=25.0)`` again: succeeds;
5. ReAct's own ``finish`` tool (no arguments), then the ``ChainOfThought`` extract step writes
   the answer "Refunded 25.00 on order A17.".

Six model calls, usage 300+40, 380+35, 450+38, 520+36, 590+20, 640+30 (3079 tokens).

Usage: ``python tools/producers/dspy_trace.py OUT_DIR`` writes ``dspy_openinference.jsonl``
(OTLP/JSON lines, one trace per line). Run it in a network namespace of its own
(``unshare -n``, loopback up) to be sure nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no cost-map download
os.environ.setdefault("DSPY_CACHEDIR", tempfile.mkdtemp(prefix="dspy-cache-"))

import dspy
from _chat_stub import ChatStub, chat_reply
from _oi_export import provider, write_otlp_json
from openinference.instrumentation.dspy import DSPyInstrumentor
from openinference.instrumentation.litellm import LiteLLMInstrumentor

PASSAGES = [
    {"pid": 101, "text": "Damaged items are refunded in full within 30 days.", "score": 21.5},
    {"pid": 205, "text": "Refunds go back to the original payment method.", "score": 18.25},
]
ORDERS = {"A17": {"order_id": "A17", "status": "delivered", "total": 25.0}}
ATTEMPTS = {"refund": 0}
RETRIEVER: dict[str, Any] = {}


def search_kb(query: str) -> list[str]:
    """Search the refund policy base; returns the best passages."""
    found = RETRIEVER["colbert"](query, k=2)
    return [f"[{doc['pid']}] {doc['long_text']}" for doc in found]


def lookup_order(order_id: str) -> dict[str, Any]:
    """Look up an order by its id."""
    return ORDERS[order_id]


def issue_refund(order_id: str, amount: float) -> str:
    """Refund an amount on an order."""
    ATTEMPTS["refund"] += 1
    if ATTEMPTS["refund"] == 1:
        raise RuntimeError("payment gateway timeout")
    return json.dumps({"order_id": order_id, "refunded": amount})


def _fields(**fields: Any) -> str:
    """A ChatAdapter completion: ``[[ ## name ## ]]`` sections, then ``completed``."""
    parts = [f"[[ ## {name} ## ]]\n{value}" for name, value in fields.items()]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


def _step(number: int, thought: str, tool: str, args: dict[str, Any], p: int, c: int) -> Any:
    content = _fields(next_thought=thought, next_tool_name=tool, next_tool_args=json.dumps(args))
    return chat_reply(number, {"content": content}, p, c)


REFUND = {"order_id": "A17", "amount": 25.0}
REPLIES = [
    _step(
        1,
        "Check the refund policy first.",
        "search_kb",
        {"query": "refund policy for damaged items"},
        300,
        40,
    ),
    _step(
        2,
        "Damaged items are refundable; look the order up.",
        "lookup_order",
        {"order_id": "A17"},
        380,
        35,
    ),
    _step(3, "The order was delivered for 25.00; refund it.", "issue_refund", REFUND, 450, 38),
    _step(4, "The gateway timed out; try the refund again.", "issue_refund", REFUND, 520, 36),
    _step(5, "The refund went through.", "finish", {}, 590, 20),
    chat_reply(
        6,
        {
            "content": _fields(
                reasoning="The policy allows a full refund and the second attempt succeeded.",
                answer="Refunded 25.00 on order A17.",
            )
        },
        640,
        30,
    ),
]


def colbert_search(query: dict[str, str]) -> dict[str, Any]:
    assert query == {"query": "refund policy for damaged items", "k": "2"}, query
    ranked = [{**p, "rank": i + 1, "prob": 0.5} for i, p in enumerate(PASSAGES)]
    return {"query": query["query"], "topk": ranked, "latency": 3.2}


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    DSPyInstrumentor().instrument(tracer_provider=tracer_provider)
    LiteLLMInstrumentor().instrument(tracer_provider=tracer_provider)
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with ChatStub(REPLIES, {"/api/search": colbert_search}) as stub:
        RETRIEVER["colbert"] = dspy.ColBERTv2(url=f"{stub.url}/api/search")
        lm = dspy.LM(
            "openai/gpt-4o-mini",
            engine="litellm",
            api_base=f"{stub.url}/v1",
            api_key="x",
            cache=False,
            num_retries=0,
        )
        dspy.configure(lm=lm, adapter=dspy.ChatAdapter())
        agent = dspy.ReAct("question -> answer", tools=[search_kb, lookup_order, issue_refund])
        prediction = agent(question="Refund order A17 if the policy allows it.")
        assert prediction.answer == "Refunded 25.00 on order A17.", prediction
        stub.check()
    write_otlp_json(exporter.get_finished_spans(), out_dir / "dspy_openinference.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
