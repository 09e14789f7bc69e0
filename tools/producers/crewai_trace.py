"""Write an OpenInference trace of a two-agent CrewAI crew, offline.

Drives ``openinference-instrumentation-crewai`` 1.1.21 (its default wrapper mode) over
``crewai`` 1.15.44 and ``openinference-instrumentation-litellm`` 0.1.51 over ``litellm``
1.110.2 (the crew's ``LLM(..., is_litellm=True)``: CrewAI's LiteLLM route), ``openai``
2.54.0 underneath, and exports the spans with the OpenTelemetry SDK 1.45.2's in-memory
exporter (``_oi_export``). The model is a stub chat-completions server this script starts on
127.0.0.1 (an ephemeral port) serving recorded replies; any other connection is refused
(a guard on ``socket.connect``), and CrewAI's telemetry and tracing are off
(``CREWAI_DISABLE_TELEMETRY``, ``CREWAI_DISABLE_TRACKING``, ``CREWAI_TRACING_ENABLED=false``;
``LITELLM_LOCAL_MODEL_COST_MAP``: LiteLLM's bundled model list). Not run in CI; not imported
by the package.

One trace, a sequential crew ``refund_crew`` of two agents, each with its own task and tool:

1. ``Order Clerk`` (task ``lookup``, tool ``lookup_order``): calls
   ``lookup_order(order_id="A17")``, then answers ``Order A17 was delivered; total 25.00.``;
2. the hand-off: the second task (``refund``, agent ``Refund Officer``, tool
   ``issue_refund``) is given the first task's output as its context;
3. ``Refund Officer`` calls ``issue_refund(order_id="A17", amount=25.0)``, which raises
   ``RuntimeError("payment gateway timeout")`` (CrewAI hands ``Error executing tool: ...``
   back to the model), calls it again, which succeeds, and answers
   ``Refunded 25.00 on order A17.``, the crew's output.

Five model calls, tokens 150 + 180 + 200 + 240 + 270 = 1040 (each reply's ``usage``).
CrewAI's instrumentation has no retriever spans (its memory wrappers are for the
long/short-term memory classes that CrewAI 1.10 removed), so the trace has no retrieval.

Usage: ``python tools/producers/crewai_trace.py OUT_DIR`` writes
``crewai_openinference.jsonl`` (OTLP/JSON lines, one trace per line).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

os.environ.update(
    {
        "CREWAI_DISABLE_TELEMETRY": "true",
        "CREWAI_DISABLE_TRACKING": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "CREWAI_DISABLE_VERSION_CHECK": "true",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "CREWAI_STORAGE_DIR": tempfile.mkdtemp(prefix="crewai_trace_"),
        "OPENAI_API_KEY": "x",
    }
)
os.environ.pop("OTEL_SDK_DISABLED", None)

_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else address
    if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1"):
        raise ConnectionRefusedError(f"no network: {address}")
    return _connect(self, address)


socket.socket.connect = _loopback_only  # type: ignore[method-assign]

from _oi_export import provider, write_otlp_json  # noqa: E402
from openinference.instrumentation.crewai import CrewAIInstrumentor  # noqa: E402
from openinference.instrumentation.litellm import LiteLLMInstrumentor  # noqa: E402


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


REFUND_ARGS = {"order_id": "A17", "amount": 25.0}
REPLIES = [
    _reply(1, {"tool_calls": [_call("call_lookup", "lookup_order", {"order_id": "A17"})]}, 130, 20),
    _reply(2, {"content": "Order A17 was delivered; total 25.00."}, 165, 15),
    _reply(3, {"tool_calls": [_call("call_refund_1", "issue_refund", REFUND_ARGS)]}, 180, 20),
    _reply(4, {"tool_calls": [_call("call_refund_2", "issue_refund", REFUND_ARGS)]}, 220, 20),
    _reply(5, {"content": "Refunded 25.00 on order A17."}, 260, 10),
]


class Stub(BaseHTTPRequestHandler):
    """Answers every ``POST .../chat/completions`` with the next recorded reply."""

    queue: ClassVar[list[dict[str, Any]]] = list(REPLIES)
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        Stub.seen.append(request)
        if not self.path.endswith("/chat/completions") or not Stub.queue:
            self.send_response(404)
            self.end_headers()
            return
        body = json.dumps(Stub.queue.pop(0)).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main(out_dir: Path) -> None:
    tracer_provider, exporter = provider()
    LiteLLMInstrumentor().instrument(tracer_provider=tracer_provider)
    CrewAIInstrumentor().instrument(tracer_provider=tracer_provider)

    from crewai import LLM, Agent, Crew, Process, Task
    from crewai.tools import tool

    attempts = {"refund": 0}

    @tool("lookup_order")
    def lookup_order(order_id: str) -> str:
        """Look up an order by its id."""
        return json.dumps({"order_id": order_id, "status": "delivered", "total": 25.0})

    @tool("issue_refund")
    def issue_refund(order_id: str, amount: float) -> str:
        """Refund an amount on an order."""
        attempts["refund"] += 1
        if attempts["refund"] == 1:
            raise RuntimeError("payment gateway timeout")
        return json.dumps({"order_id": order_id, "refunded": amount})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    llm = LLM(
        model="openai/gpt-4o-mini",
        is_litellm=True,
        base_url=f"http://127.0.0.1:{server.server_port}/v1",
        api_key="x",
        max_retries=0,
    )
    clerk = Agent(
        role="Order Clerk",
        goal="Find the state of customer orders.",
        backstory="You look orders up.",
        tools=[lookup_order],
        llm=llm,
        allow_delegation=False,
        max_iter=5,
    )
    officer = Agent(
        role="Refund Officer",
        goal="Refund delivered orders that qualify.",
        backstory="You issue refunds.",
        tools=[issue_refund],
        llm=llm,
        allow_delegation=False,
        max_iter=5,
    )
    lookup = Task(
        name="lookup",
        description="Look up order A17.",
        expected_output="The order's status and total.",
        agent=clerk,
    )
    refund = Task(
        name="refund",
        description="Refund order A17 in full if it was delivered.",
        expected_output="What was refunded.",
        agent=officer,
        context=[lookup],
    )
    crew = Crew(
        name="refund_crew",
        agents=[clerk, officer],
        tasks=[lookup, refund],
        process=Process.sequential,
    )
    result = crew.kickoff()
    server.shutdown()
    print(result)
    print(f"{len(Stub.seen)} model requests, {len(Stub.queue)} replies left")
    write_otlp_json(exporter.get_finished_spans(), out_dir / "crewai_openinference.jsonl")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
