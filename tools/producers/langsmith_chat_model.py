"""Write LangSmith runs whose root is a chat model call (no chain around it), offline.

Drives ``langchain-openai``'s ``ChatOpenAI`` (on an ``httpx.MockTransport`` serving recorded
chat-completions replies: no network) directly, traced by ``langchain_core``'s
``LangChainTracer`` into a ``langsmith.Client`` whose HTTP session is
:class:`_langsmith_fake.FakeLangSmith`; the root runs are read back with the client's own
``list_runs(is_root=True)`` and written as ``Run.model_dump_json()``, one per line. Not run
in CI; not imported by the package.

Two traces, one model run each:

1. ``weather-answer``: the model is shown an earlier ``get_weather`` call and its result
   (a tool message in ``inputs.messages``) and answers in text;
2. ``weather-two-cities``: the model asks for ``get_weather`` twice at once (Paris, Rome):
   the calls are only in ``outputs.generations[0][0].message.kwargs.tool_calls``.

Usage: ``python tools/producers/langsmith_chat_model.py OUT_DIR`` writes
``langsmith_chat_model_roots.jsonl``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
from _langsmith_fake import chat_transport, client, tool_call
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.tracers import LangChainTracer
from langchain_openai import ChatOpenAI

REPLIES: list[dict[str, Any]] = [
    {"role": "assistant", "content": "It is 18 degrees and sunny in Paris."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            tool_call("call_paris", "get_weather", {"city": "Paris"}),
            tool_call("call_rome", "get_weather", {"city": "Rome"}),
        ],
    },
]
USAGE = [(64, 11), (52, 38)]


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"sunny in {city}"


def main(out: Path) -> None:
    ls, _ = client()
    seen: list[Any] = []
    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="offline",
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx.Client(transport=chat_transport(REPLIES, USAGE, seen)),
    ).bind_tools([get_weather])
    tracer = LangChainTracer(client=ls, project_name="pathgrade-producers")
    history = [
        HumanMessage("What is the weather in Paris?"),
        AIMessage(
            "",
            tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_earlier"}],
        ),
        ToolMessage("18 degrees, sunny", tool_call_id="call_earlier"),
    ]
    for case, messages in [
        ("weather-answer", history),
        ("weather-two-cities", [HumanMessage("Weather in Paris and in Rome?")]),
    ]:
        model.invoke(
            messages, config={"callbacks": [tracer], "metadata": {"pathgrade.case_id": case}}
        )
    tracer.wait_for_futures()
    roots = sorted(ls.list_runs(is_root=True), key=lambda r: r.start_time)
    with (out / "langsmith_chat_model_roots.jsonl").open("w") as handle:
        for run in roots:
            handle.write(run.model_dump_json() + "\n")
    print(f"{len(roots)} root model runs, {len(seen)} model calls")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
