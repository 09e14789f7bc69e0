"""A local OpenAI-compatible stub server (real HTTP on 127.0.0.1, port 0), shared by the judge
tests and the replay endpoint-agent tests (fixtures ``stub`` and ``api_key``). No real network.

Also the ``--fuzz-long`` option and the ``fuzz_settings`` fixture of the fuzz tests
(``tests/fuzz/``).

Rules match a request by a substring of its item-specific user message (the last user turn
that is not a repair request; in a tool-calling loop, the case query) and, optionally, of its
system message; each rule replays its replies in order and repeats the last one. A reply is a
text answer, a message with ``tool_calls`` (:meth:`Stub.tool_calls`), or a raw body and
status. Every request is recorded (body and headers), and the largest number of requests in
flight is tracked.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

#: Examples per fuzz test (tests/fuzz/): bounded in CI, many more with ``--fuzz-long``.
FUZZ_EXAMPLES = 30
FUZZ_LONG_EXAMPLES = 3_000


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long",
        action="store_true",
        default=False,
        help=f"run the fuzz tests (tests/fuzz/) with {FUZZ_LONG_EXAMPLES} examples each"
        f" instead of {FUZZ_EXAMPLES}",
    )


@pytest.fixture
def fuzz_settings(request: pytest.FixtureRequest) -> settings:
    """Hypothesis settings for a fuzz test: apply to the test's inner ``@given`` function."""
    long = bool(request.config.getoption("--fuzz-long"))
    return settings(
        max_examples=FUZZ_LONG_EXAMPLES if long else FUZZ_EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


API_KEY = "sk-test-SECRET-9f8e7d6c5b4a"
USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
REPAIR_PREFIX = "Your reply could not be used"


@dataclass
class Reply:
    status: int = 200
    content: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    body: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    usage: dict[str, int] | None = field(default_factory=lambda: dict(USAGE))


def verdict(obj: Any, **kwargs: Any) -> Reply:
    return Reply(content=json.dumps(obj), **kwargs)


def completion(
    content: str | None,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, int] | None = USAGE,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    out: dict[str, Any] = {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model-2024-01-01",
        "system_fingerprint": "fp_stub_1",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
    }
    if usage is not None:
        out["usage"] = usage
    return out


def tool_call(name: str, arguments: Any, call_id: str) -> dict[str, Any]:
    """One entry of ``tool_calls``; ``arguments`` that is not a string is sent as JSON text."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


@dataclass
class Rule:
    match: tuple[str, ...]
    system: str | None
    replies: list[Reply]
    hits: int = 0


class Stub:
    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.url = ""

    def on(self, match: str | tuple[str, ...], *replies: Reply, system: str | None = None) -> Rule:
        parts = (match,) if isinstance(match, str) else match
        rule = Rule(parts, system, list(replies))
        self.rules.insert(0, rule)  # later rules win
        return rule

    @staticmethod
    def reply(**kwargs: Any) -> Reply:
        return Reply(**kwargs)

    @staticmethod
    def verdict(obj: Any, **kwargs: Any) -> Reply:
        return verdict(obj, **kwargs)

    @staticmethod
    def tool_calls(*calls: tuple[str, Any, str], **kwargs: Any) -> Reply:
        """An assistant message asking for ``(name, arguments, call id)`` calls at once."""
        return Reply(tool_calls=[tool_call(*call) for call in calls], **kwargs)

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.max_in_flight = 0

    def _target(self, body: dict[str, Any]) -> tuple[str, str]:
        messages = body.get("messages", [])
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        users = [
            m["content"]
            for m in messages
            if m["role"] == "user" and not str(m["content"]).startswith(REPAIR_PREFIX)
        ]
        return system, users[-1] if users else ""

    def pick(self, body: dict[str, Any]) -> Reply:
        system, user = self._target(body)
        with self.lock:
            for rule in self.rules:
                if all(part in user for part in rule.match) and (
                    rule.system is None or rule.system in system
                ):
                    reply = rule.replies[min(rule.hits, len(rule.replies) - 1)]
                    rule.hits += 1
                    return reply
        return Reply(status=404, body='{"error": "no stub rule matches"}')


def stream_events(made: dict[str, Any]) -> bytes:
    """``made`` (a reply object) as the server-sent events of a streamed reply: the role, the
    content three characters a chunk, each tool call's id and name then its arguments in two
    pieces, the finish reason, the usage chunk and ``[DONE]`` (the OpenAI protocol)."""
    choice = made["choices"][0]
    message = choice["message"]
    deltas: list[dict[str, Any]] = [{"role": "assistant"}]
    text = message.get("content") or ""
    deltas += [{"content": text[i : i + 3]} for i in range(0, len(text), 3)]
    for index, call in enumerate(message.get("tool_calls") or ()):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        head = {"index": index, "id": call["id"], "type": "function"}
        deltas.append({"tool_calls": [{**head, "function": {"name": call["function"]["name"]}}]})
        for piece in (arguments[:half], arguments[half:]):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    base = {
        "id": made["id"],
        "object": "chat.completion.chunk",
        "model": made["model"],
        "system_fingerprint": made["system_fingerprint"],
    }
    chunks = [
        {**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    chunks.append(
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}
    )
    if made.get("usage") is not None:
        chunks.append({**base, "choices": [], "usage": made["usage"]})
    lines = [b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks]
    return b": stub stream\n\n" + b"".join(lines) + b"data: [DONE]\n\n"


def _handler(stub: Stub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # else each reply waits for the client's delayed ACK

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            body = json.loads(raw)
            with stub.lock:
                stub.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                stub.in_flight += 1
                stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
            try:
                reply = stub.pick(body)
                if reply.delay:
                    time.sleep(reply.delay)
                kind = "application/json"
                if reply.body is not None:
                    payload = reply.body.encode()
                else:
                    answer = reply.content if reply.tool_calls else reply.content or ""
                    made = completion(answer, reply.tool_calls, reply.usage)
                    payload = json.dumps(made).encode()
                    if body.get("stream"):
                        payload, kind = stream_events(made), "text/event-stream"
                self.send_response(reply.status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)
            finally:
                with stub.lock:
                    stub.in_flight -= 1

    return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # listen backlog above the concurrency any test uses
    daemon_threads = True


@pytest.fixture
def stub() -> Iterator[Stub]:
    server_stub = Stub()
    server = _Server(("127.0.0.1", 0), _handler(server_stub))
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    server_stub.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield server_stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def api_key() -> str:
    return API_KEY
