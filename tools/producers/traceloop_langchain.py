"""Write a Traceloop (OpenLLMetry) trace of a LangGraph ReAct agent with tools and a retriever.

Drives OpenLLMetry's ``opentelemetry-instrumentation-langchain`` 0.62.4
(``opentelemetry-semantic-conventions-ai`` 0.5.1; its LangChain callback handler, with
``TRACELOOP_TRACE_CONTENT=true``: inputs and outputs recorded) over a ``langgraph`` 1.2.24
(``langgraph-prebuilt`` 1.1.3) ReAct ``StateGraph`` (``MessagesState``, a model node
``agent``, a ``ToolNode`` ``tools``, ``tools_condition``) on ``langchain-openai`` 1.8.1
``ChatOpenAI`` (``openai`` 3.63.0) and ``langchain-core`` 1.8.3. The chat model's
``httpx2.Client`` has a ``MockTransport`` serving recorded chat-completions replies: no
network (fake key, a 127.0.0.1 base URL that is never connected to). No ``traceloop-sdk``:
the instrumentor gets the OpenTelemetry SDK's (1.45.2) tracer provider with an in-memory
exporter (``_oi_export.provider``), and the spans are written as OTLP/JSON lines, one trace
per line (``_oi_export.write_otlp_json``). Not run in CI; not imported by the package.

One trace, ``refund-A17`` (the compiled graph ``LangGraph``; the ``ToolNode`` with
``handle_tool_errors=True``, which LangGraph 1.x needs to hand any tool exception back):

- reply 1 asks for ``lookup_order {"order_id": "A17"}`` and ``search_kb {"query": "refund
  policy for damaged items"}`` in one response; ``search_kb`` is ``create_retriever_tool``
  over ``KnowledgeBase``, a retriever returning two documents whose ids are in their
  ``metadata`` (``kb-refunds``, ``kb-payments``): a tool span around a retriever span;
- reply 2 asks for ``issue_refund {"order_id": "A17", "amount": 25.0}``, which raises
  ``RuntimeError("payment gateway timeout")``: the tool run fails (its callback
  ``on_tool_error``), and the ``ToolNode`` hands the error back to the model as a tool message
  with ``status="error"``;
- reply 3 asks for ``issue_refund`` again, which succeeds (``{"refund_id": "R-1"}``);
- reply 4 answers ``Refunded 25.00 on order A17 (refund R-1).``
- usage: (120+40) + (260+22) + (300+22) + (340+12) = 1116 tokens.

Environment (outside the repository; one ``pip install`` command, wrapped here)::

    python3 -m venv /tmp/venv_traceloop_lc
    /tmp/venv_traceloop_lc/bin/pip install "opentelemetry-instrumentation-langchain==0.62.4"
        "langchain-core==1.8.3" "langgraph==1.2.24" "langchain-openai==1.8.1"
        "opentelemetry-sdk==1.45.2" "opentelemetry-exporter-otlp-proto-common==1.45.2"

Usage: ``python tools/producers/traceloop_langchain.py OUT_DIR`` (with that environment's
Python) writes ``traceloop_langchain.jsonl``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.update(
    {
        "TRACELOOP_TRACE_CONTENT": "true",
        "TRACELOOP_TELEMETRY": "false",
        "TRACELOOP_METRICS_ENABLED": "false",
        "TRACELOOP_LOGGING_ENABLED": "false",
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
    }
)

import httpx2
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.messages import HumanMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import create_retriever_tool, tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from opentelemetry.instrumentation.langchain import LangchainInstrumentor

sys.path.insert(0, str(Path(__file__).parent))
from _oi_export import provider, write_otlp_json

QUESTION = "Please refund order A17, it arrived damaged."
ANSWER = "Refunded 25.00 on order A17 (refund R-1)."

KB = [
    Document(
        page_content="Damaged items are refunded in full within 30 days.",
        metadata={"id": "kb-refunds", "source": "policy.md"},
    ),
    Document(
        page_content="Refunds go back to the original payment method.",
        metadata={"id": "kb-payments", "source": "payments.md"},
    ),
]


class KnowledgeBase(BaseRetriever):
    """Returns the two policy documents, ids in their metadata (as most vector stores do)."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return list(KB)


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up by its id."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})


ATTEMPTS = {"refund": 0}


@tool
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an amount on an order (the gateway times out the first time)."""
    ATTEMPTS["refund"] += 1
    if ATTEMPTS["refund"] == 1:
        raise RuntimeError("payment gateway timeout")
    return json.dumps({"refund_id": "R-1"})


search_kb = create_retriever_tool(KnowledgeBase(), "search_kb", "Search the refund policy base.")


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def reply(number: int, message: dict[str, Any], prompt: int, completion: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                "message": {"role": "assistant", "content": None, **message},
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


REFUND = {"order_id": "A17", "amount": 25.0}
REPLIES = [
    reply(
        1,
        {
            "tool_calls": [
                call("call_lookup", "lookup_order", {"order_id": "A17"}),
                call("call_kb", "search_kb", {"query": "refund policy for damaged items"}),
            ]
        },
        120,
        40,
    ),
    reply(2, {"tool_calls": [call("call_refund_1", "issue_refund", REFUND)]}, 260, 22),
    reply(3, {"tool_calls": [call("call_refund_2", "issue_refund", REFUND)]}, 300, 22),
    reply(4, {"content": ANSWER}, 340, 12),
]


def serve(replies: list[dict[str, Any]]) -> httpx2.Client:
    """An HTTP client whose every chat-completions request gets the next recorded reply."""
    queue = list(replies)

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        return httpx2.Response(200, json=queue.pop(0))

    return httpx2.Client(transport=httpx2.MockTransport(handler))


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    LangchainInstrumentor().instrument(tracer_provider=tracer_provider)
    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=serve(REPLIES),
        max_retries=0,
        temperature=0,
    )
    tools = [lookup_order, search_kb, issue_refund]
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    # The ReAct loop as LangGraph's own guide builds it (``create_react_agent`` adds four
    # more task spans per model call, each holding the whole conversation: a file too big).
    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools, handle_tool_errors=True))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    state = graph.compile().invoke({"messages": [HumanMessage(QUESTION)]})
    for message in state["messages"]:
        print(type(message).__name__, str(message.content)[:80], getattr(message, "status", ""))
    assert state["messages"][-1].content == ANSWER
    write_otlp_json(exporter.get_finished_spans(), out_dir / "traceloop_langchain.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
