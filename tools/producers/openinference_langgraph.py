"""Write OpenInference traces of a LangGraph agent and a LangChain RAG chain, offline.

Drives ``openinference-instrumentation-langchain`` over ``langgraph`` and ``langchain-openai``
(``ChatOpenAI`` on an ``httpx.MockTransport`` serving recorded chat-completions replies: no
network) and exports the spans with the OpenTelemetry SDK's in-memory exporter. Not run in
CI; not imported by the package.

Two traces:

1. ``refund-A17`` (a LangGraph ``StateGraph``: model node + ``ToolNode``): the first model
   response asks for two calls at once, ``lookup_order`` (a one-argument tool: OpenInference
   records ``input.value`` as the bare string) and ``search_kb`` (``create_retriever_tool``
   over a retriever whose documents carry their ids only in ``metadata``); the second asks
   for ``issue_refund``, which raises a ``ToolException`` that LangChain hands back to the
   model as an error tool message (``handle_tool_error=True``: the tool run itself ends
   normally); the third asks for ``issue_refund`` again, which succeeds; the fourth answers.
2. ``kb-question`` (an LCEL chain ``retriever | prompt | model``): the retrieval is a
   ``RETRIEVER`` span only, no tool span.

Usage: ``python tools/producers/openinference_langgraph.py OUT_DIR`` writes
``openinference_langgraph_otlp.jsonl`` (OTLP/JSON lines, one trace per line).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import httpx
from _oi_export import provider, write_otlp_json
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.messages import AnyMessage, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import ToolException, create_retriever_tool, tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition
from openinference.instrumentation.langchain import LangChainInstrumentor

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
    """Look up an order by its id."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})


ATTEMPTS = {"refund": 0}


@tool
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an amount on an order."""
    ATTEMPTS["refund"] += 1
    if ATTEMPTS["refund"] == 1:
        raise ToolException("payment gateway timeout")
    return json.dumps({"order_id": order_id, "refunded": amount})


issue_refund.handle_tool_error = True
search_kb = create_retriever_tool(KnowledgeBase(), "search_kb", "Search the policy base.")


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


REPLIES = [
    _reply(
        1,
        {
            "tool_calls": [
                _call("call_lookup", "lookup_order", {"order_id": "A17"}),
                _call("call_kb", "search_kb", {"query": "refund policy for damaged items"}),
            ]
        },
        120,
        40,
    ),
    _reply(
        2,
        {
            "tool_calls": [
                _call("call_refund_1", "issue_refund", {"order_id": "A17", "amount": 25.0})
            ]
        },
        260,
        22,
    ),
    _reply(
        3,
        {
            "tool_calls": [
                _call("call_refund_2", "issue_refund", {"order_id": "A17", "amount": 25.0})
            ]
        },
        300,
        22,
    ),
    _reply(4, {"content": "Refunded 25.00 on order A17."}, 340, 12),
    _reply(5, {"content": "Damaged items are refunded in full within 30 days."}, 90, 14),
]


def serve(replies: list[dict[str, Any]]) -> httpx.Client:
    """An HTTP client whose every chat-completions request gets the next recorded reply."""
    queue = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions"), request.url
        return httpx.Response(200, json=queue.pop(0))

    return httpx.Client(transport=httpx.MockTransport(handler))


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    LangChainInstrumentor().instrument(tracer_provider=tracer_provider)
    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="x",
        base_url="http://127.0.0.1:9/v1",
        http_client=serve(REPLIES),
        max_retries=0,
    )
    tools = [lookup_order, search_kb, issue_refund]
    bound = model.bind_tools(tools)

    def agent(state: State) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(State)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    app = graph.compile()
    app.invoke({"messages": [HumanMessage("Refund order A17 if the policy allows it.")]})

    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the context:\n{context}"), ("human", "{question}")]
    )
    retriever = KnowledgeBase()
    chain = (
        {
            "context": retriever | (lambda docs: "\n".join(d.page_content for d in docs)),
            "question": lambda question: question,
        }
        | prompt
        | model
        | StrOutputParser()
    )
    chain.invoke("Are damaged items refunded?")

    spans = exporter.get_finished_spans()
    write_otlp_json(spans, out_dir / "openinference_langgraph_otlp.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
