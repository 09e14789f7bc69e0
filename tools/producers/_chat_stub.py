"""A stand-in model host on 127.0.0.1 for the producer scripts that cannot take an HTTP client.

:class:`ChatStub` serves recorded OpenAI chat-completions replies, in order, to every
``POST .../chat/completions`` (and keeps the request bodies it got), and answers ``GET``
requests on the extra routes it is given (a path -> a function of the query parameters
returning a JSON body), e.g. a ColBERTv2 search endpoint. It listens on a free port of
127.0.0.1 only; a request past the last reply, or to an unknown route, gets a 500 and is
noted in :attr:`ChatStub.unexpected`, which the scripts check at the end.

Not run in CI; not imported by the package.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

Route = Callable[[dict[str, str]], Any]


class ChatStub:
    def __init__(
        self, replies: Sequence[Mapping[str, Any]], routes: Mapping[str, Route] | None = None
    ) -> None:
        self.replies = list(replies)
        self.routes = dict(routes or {})
        self.requests: list[dict[str, Any]] = []
        self.unexpected: list[str] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    if not self.path.endswith("/chat/completions") or not stub.replies:
                        stub.unexpected.append(f"POST {self.path}")
                        self._send(500, {"error": {"message": "no recorded reply"}})
                        return
                    stub.requests.append(body)
                    reply = stub.replies.pop(0)
                self._send(200, reply)

            def do_GET(self) -> None:
                url = urlparse(self.path)
                route = stub.routes.get(url.path)
                if route is None:
                    stub.unexpected.append(f"GET {self.path}")
                    self._send(500, {"error": True, "message": "unknown route"})
                    return
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                self._send(200, route(query))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ChatStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def check(self) -> None:
        """Every reply served, nothing unexpected asked."""
        assert not self.unexpected, self.unexpected
        assert not self.replies, f"{len(self.replies)} recorded replies left unserved"


def chat_reply(
    number: int,
    message: Mapping[str, Any],
    prompt: int,
    completion: int,
    model: str = "gpt-4o-mini",
) -> dict[str, Any]:
    """A chat-completions body: one choice holding ``message``, and its usage."""
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": model,
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


def tool_call(call_id: str, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
