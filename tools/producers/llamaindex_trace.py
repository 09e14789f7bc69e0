"""Write an OpenInference trace of a LlamaIndex ``FunctionAgent`` with a RAG tool, offline.

Drives ``openinference-instrumentation-llama-index`` 4.6.1 over ``llama-index-core`` 0.14.25
(``llama-index-workflows`` 2.26.1; ``FunctionAgent``, ``FunctionTool``, ``QueryEngineTool``
over a ``VectorStoreIndex`` whose nodes carry their ids, embedded by a fake embedding model:
a ``MockEmbedding`` whose vectors count five words, so that the two documents score
differently) and ``llama-index-llms-openai`` 0.8.3 (``OpenAI`` on ``openai`` 2.54.0, its sync
and async ``httpx`` clients on an ``httpx.MockTransport`` serving recorded chat-completions
replies: no network), and exports the spans with the OpenTelemetry SDK 1.45.2's in-memory
exporter (``_oi_export``). Instrumented before the index is built, so the file has two
traces: the index build (embedding spans only), then the agent's run. Not run in CI; not
imported by the package.

The run (the second trace), the agent ``refund_agent`` (``streaming=False``), one tool call per
model response:

1. ``lookup_order(order_id="A17")``;
2. ``search_policy(input="refund policy for damaged items")``: the query engine retrieves
   the two nodes ``kb-refunds`` (cosine 2/sqrt(6), about 0.816) and ``kb-payments``
   (1/sqrt(12), about 0.289: the embedded text includes the ``source: payments.md`` metadata
   line) (``RETRIEVER`` spans: ``VectorIndexRetriever.aretrieve`` with the documents, around
   ``._aretrieve``) and asks the model to synthesize (the third recorded reply);
3. ``issue_refund(order_id="A17", amount=25.0)`` raises ``RuntimeError("payment gateway
   timeout")`` (the agent hands the error back to the model as the tool's output);
4. ``issue_refund`` again, which succeeds;
5. the answer ``Refunded 25.00 on order A17.``

Six model calls, tokens 150 + 190 + 80 + 230 + 270 + 300 = 1220 (each reply's ``usage``).

Usage: ``python tools/producers/llamaindex_trace.py OUT_DIR`` writes
``llamaindex_openinference.jsonl`` (OTLP/JSON lines, one trace per line).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
from _oi_export import provider, write_otlp_json
from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import TextNode
from llama_index.core.tools import FunctionTool, QueryEngineTool
from llama_index.llms.openai import OpenAI
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _reply(number: int, message: dict[str, Any], prompt: int, completion: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, **message},
                "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


POLICY = "Damaged items are refunded in full within 30 days."
REFUND_ARGS = {"order_id": "A17", "amount": 25.0}
REPLIES = [
    _reply(1, {"tool_calls": [_call("call_lookup", "lookup_order", {"order_id": "A17"})]}, 130, 20),
    _reply(
        2,
        {
            "tool_calls": [
                _call("call_kb", "search_policy", {"input": "refund policy for damaged items"})
            ]
        },
        170,
        20,
    ),
    _reply(3, {"content": POLICY}, 70, 10),  # the query engine's synthesis
    _reply(4, {"tool_calls": [_call("call_refund_1", "issue_refund", REFUND_ARGS)]}, 210, 20),
    _reply(5, {"tool_calls": [_call("call_refund_2", "issue_refund", REFUND_ARGS)]}, 250, 20),
    _reply(6, {"content": "Refunded 25.00 on order A17."}, 290, 10),
]

NODES = [
    TextNode(id_="kb-refunds", text=POLICY, metadata={"source": "policy.md"}),
    TextNode(
        id_="kb-payments",
        text="Refunds go back to the original payment method.",
        metadata={"source": "payments.md"},
    ),
]


class KeywordEmbedding(MockEmbedding):
    """A fake embedding model: how often each of five words occurs (no model, no network)."""

    @classmethod
    def class_name(cls) -> str:
        return "KeywordEmbedding"

    def _vector(self, text: str) -> list[float]:
        lower = text.lower()
        return [float(lower.count(word)) for word in VOCABULARY]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)


VOCABULARY = ("refund", "damaged", "payment", "method", "days")


def lookup_order(order_id: str) -> str:
    """Look up an order by its id."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})


ATTEMPTS = {"refund": 0}


def issue_refund(order_id: str, amount: float) -> str:
    """Refund an amount on an order."""
    ATTEMPTS["refund"] += 1
    if ATTEMPTS["refund"] == 1:
        raise RuntimeError("payment gateway timeout")
    return json.dumps({"order_id": order_id, "refunded": amount})


def clients(replies: list[dict[str, Any]]) -> tuple[httpx.Client, httpx.AsyncClient]:
    """HTTP clients whose every chat-completions request gets the next recorded reply."""
    queue = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        return httpx.Response(200, json=queue.pop(0))

    transport = httpx.MockTransport(handler)
    return httpx.Client(transport=transport), httpx.AsyncClient(transport=transport)


async def run(agent: FunctionAgent) -> Any:
    return await agent.run(user_msg="Refund order A17 if the policy allows it.")


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    LlamaIndexInstrumentor().instrument(tracer_provider=tracer_provider)
    sync_client, async_client = clients(REPLIES)
    llm = OpenAI(
        model="gpt-4o-mini",
        api_key="x",
        api_base="http://127.0.0.1:9/v1",
        http_client=sync_client,
        async_http_client=async_client,
        max_retries=0,
    )
    Settings.llm = llm
    Settings.embed_model = KeywordEmbedding(embed_dim=len(VOCABULARY))
    index = VectorStoreIndex(NODES)
    search_policy = QueryEngineTool.from_defaults(
        index.as_query_engine(similarity_top_k=2),
        name="search_policy",
        description="Search the refund policy base.",
    )
    agent = FunctionAgent(
        name="refund_agent",
        description="Handles refunds.",
        tools=[
            FunctionTool.from_defaults(lookup_order),
            search_policy,
            FunctionTool.from_defaults(issue_refund),
        ],
        llm=llm,
        system_prompt="You handle refunds. Check the order and the policy first.",
        streaming=False,
    )
    result = asyncio.run(run(agent))
    print(result)
    write_otlp_json(exporter.get_finished_spans(), out_dir / "llamaindex_openinference.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
