"""Write LangSmith run trees of ``@traceable`` functions and a wrapped OpenAI client, offline.

Drives ``langsmith``'s ``@traceable`` and ``wrap_openai`` over the ``openai`` client (on an
``httpx.MockTransport`` serving recorded chat-completions replies: no network), traced into a
``langsmith.Client`` whose HTTP session is :class:`_langsmith_fake.FakeLangSmith`. Each trace
is read back with the client's own ``read_run(root_id, load_child_runs=True)`` (nested
``child_runs``) and written as ``Run.model_dump(mode="json")``; the file is one JSON array of
the root runs. Not run in CI; not imported by the package.

Two traces:

1. ``refund-A17``: ``support_agent`` (a chain returning ``{"answer": ...}``) calls the model,
   which asks for ``lookup_order`` and ``search_kb`` at once; ``lookup_order`` is a
   ``run_type="tool"`` function, ``search_kb`` a ``run_type="retriever"`` function returning
   LangSmith's document dicts (``page_content``, ``type``, ``metadata.id``); no tool run
   wraps the retriever. The second model call answers.
2. ``kb-question``: ``rag_answer`` (a chain returning a string: ``outputs.output``) runs the
   retriever ``search_kb`` and then the model; no tool calls.

Usage: ``python tools/producers/langsmith_traceable.py OUT_DIR`` writes
``langsmith_traceable_trees.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import openai
from _langsmith_fake import chat_transport, client, tool_call
from langsmith import traceable, tracing_context
from langsmith.wrappers import wrap_openai

REPLIES: list[dict[str, Any]] = [
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            tool_call("call_lookup", "lookup_order", {"order_id": "A17"}),
            tool_call("call_kb", "search_kb", {"query": "refund policy"}),
        ],
    },
    {"role": "assistant", "content": "A17 was delivered; you can return it within 30 days."},
    {"role": "assistant", "content": "Refunds go back to the original payment method."},
]
USAGE = [(96, 41), (171, 15), (88, 9)]
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("lookup_order", "search_kb")
]


@traceable(run_type="tool", name="lookup_order")
def lookup_order(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "status": "delivered"}


@traceable(run_type="retriever", name="search_kb")
def search_kb(query: str) -> list[dict[str, Any]]:
    return [
        {
            "page_content": "Items can be returned within 30 days.",
            "type": "Document",
            "metadata": {"id": "kb-returns", "score": 0.88},
        },
        {
            "page_content": "Refunds go back to the original payment method.",
            "type": "Document",
            "metadata": {"id": "kb-payments", "score": 0.52},
        },
    ]


def main(out: Path) -> None:
    ls, _ = client()
    seen: list[Any] = []
    oai = wrap_openai(
        openai.OpenAI(
            api_key="offline",
            base_url="http://127.0.0.1:9/v1",
            http_client=httpx.Client(transport=chat_transport(REPLIES, USAGE, seen)),
        )
    )
    functions = {"lookup_order": lookup_order, "search_kb": search_kb}

    @traceable(name="support_agent")
    def support_agent(question: str) -> dict[str, Any]:
        messages: list[Any] = [{"role": "user", "content": question}]
        while True:
            reply = (
                oai.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
                .choices[0]
                .message
            )
            if not reply.tool_calls:
                return {"answer": reply.content}
            messages.append(reply.model_dump(exclude_none=True))
            for call in reply.tool_calls:
                result = functions[call.function.name](**json.loads(call.function.arguments))
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
                )

    @traceable(name="rag_answer")
    def rag_answer(question: str) -> str:
        context = "\n".join(d["page_content"] for d in search_kb(question))
        prompt = [{"role": "system", "content": context}, {"role": "user", "content": question}]
        reply = oai.chat.completions.create(model="gpt-4o-mini", messages=prompt)
        return reply.choices[0].message.content or ""

    for case, function, question in [
        ("refund-A17", support_agent, "Can I get a refund for order A17?"),
        ("kb-question", rag_answer, "Where do refunds go?"),
    ]:
        with tracing_context(
            enabled=True,
            client=ls,
            project_name="pathgrade-producers",
            metadata={"pathgrade.case_id": case},
        ):
            function(question)
    ls.flush()
    roots = sorted(ls.list_runs(is_root=True), key=lambda r: r.start_time)
    trees = [ls.read_run(r.id, load_child_runs=True).model_dump(mode="json") for r in roots]
    (out / "langsmith_traceable_trees.json").write_text(json.dumps(trees, indent=1) + "\n")
    print(f"{len(trees)} traces, {len(seen)} model calls")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
