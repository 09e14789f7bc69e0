"""Write LangSmith runs and LangChain messages of a LangGraph ReAct agent, offline.

Drives ``langgraph``'s ``create_react_agent`` over ``langchain-openai``'s ``ChatOpenAI`` (on an
``httpx.MockTransport`` serving recorded chat-completions replies: no network), traced by
``langchain_core``'s ``LangChainTracer`` into a ``langsmith.Client`` whose HTTP session is
:class:`_langsmith_fake.FakeLangSmith`. The runs are then read back with the client's own
``list_runs`` and written as ``Run.model_dump_json()``, one flat run per line (``parent_run_id``,
``trace_id``, ``dotted_order``), as a ``list_runs`` export is. Not run in CI; not imported by
the package.

The trace ``refund-A17``: the first model response asks for two calls at once,
``lookup_order`` and ``search_kb`` (``create_retriever_tool`` over a retriever, with
``response_format="content_and_artifact"``: the tool run wraps a ``retriever`` run, and the
tool message carries the documents as its artifact); the second asks for ``issue_refund``,
which raises (``ToolNode(handle_tool_errors=True)`` hands the error back to the model as a
``status: "error"`` tool message); the third asks for ``issue_refund`` again, which succeeds;
the fourth answers.

Usage: ``python tools/producers/langsmith_langgraph.py OUT_DIR`` writes
``langsmith_langgraph_runs.jsonl`` and ``langchain_langgraph_messages.jsonl`` (the agent's
final messages through ``messages_to_dict``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
from _langsmith_fake import chat_transport, client, tool_call
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.messages import messages_to_dict
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import create_retriever_tool, tool
from langchain_core.tracers import LangChainTracer
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import ToolNode, create_react_agent

CASE = "refund-A17"
REPLIES: list[dict[str, Any]] = [
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            tool_call("call_lookup", "lookup_order", {"order_id": "A17"}),
            tool_call("call_kb", "search_kb", {"query": "refund policy for damaged items"}),
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            tool_call("call_refund_1", "issue_refund", {"order_id": "A17", "amount": 25.0})
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            tool_call("call_refund_2", "issue_refund", {"order_id": "A17", "amount": 25.0})
        ],
    },
    {"role": "assistant", "content": "I refunded 25.00 for order A17 to your original card."},
]
USAGE = [(212, 48), (305, 22), (352, 22), (398, 17)]


class KnowledgeBase(BaseRetriever):
    """Two policy documents: one id on the Document, one in its metadata (as vector stores do)."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [
            Document(
                id="kb-refunds",
                page_content="Damaged items are refunded in full within 30 days.",
                metadata={"score": 0.91},
            ),
            Document(
                page_content="Refunds go back to the original payment method.",
                metadata={"id": "kb-payments", "score": 0.64},
            ),
        ]


@tool
def lookup_order(order_id: str) -> dict[str, Any]:
    """Look up an order by id."""
    return {"order_id": order_id, "status": "delivered", "total": 25.0}


ATTEMPTS: list[str] = []


@tool
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an amount on an order."""
    ATTEMPTS.append(order_id)
    if len(ATTEMPTS) == 1:
        raise TimeoutError("payment gateway timeout")
    return f"refunded {amount:.2f} on {order_id}"


def main(out: Path) -> None:
    ls, _ = client()
    seen: list[Any] = []
    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="offline",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx.Client(transport=chat_transport(REPLIES, USAGE, seen)),
    )
    search_kb = create_retriever_tool(
        KnowledgeBase(),
        "search_kb",
        "Search the refund policy knowledge base.",
        response_format="content_and_artifact",
    )
    tools = ToolNode([lookup_order, search_kb, issue_refund], handle_tool_errors=True)
    agent = create_react_agent(model, tools)
    tracer = LangChainTracer(client=ls, project_name="pathgrade-producers")
    state = agent.invoke(
        {"messages": [("user", "Order A17 arrived damaged; please refund it.")]},
        config={"callbacks": [tracer], "metadata": {"pathgrade.case_id": CASE}},
    )
    tracer.wait_for_futures()
    (root,) = ls.list_runs(is_root=True)
    runs = list(ls.list_runs(trace_id=root.trace_id))
    with (out / "langsmith_langgraph_runs.jsonl").open("w") as handle:
        for run in runs:
            handle.write(run.model_dump_json() + "\n")
    line = {"case_id": CASE, "messages": messages_to_dict(state["messages"])}
    (out / "langchain_langgraph_messages.jsonl").write_text(json.dumps(line) + "\n")
    print(f"{len(runs)} runs, {len(seen)} model calls")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
