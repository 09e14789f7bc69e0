"""An in-process stand-in for the LangSmith API, for the LangSmith producer scripts (offline).

A ``langsmith.Client`` whose ``requests`` session is served by :class:`FakeLangSmith`: the
tracer's ``POST /runs`` and ``PATCH /runs/{id}`` bodies (the exact JSON the client sends)
are stored, a patch merged over its post as the service does; ``GET /runs/{id}`` and
``POST /runs/query`` (filters ``trace``, ``is_root``, ``id``; ``select``) answer from that
store, so the client's own ``read_run(..., load_child_runs=True)`` and ``list_runs(...)``
build the exported objects. The store adds only what the service assigns on ingest:
``session_id`` (one fixed project id) in place of ``session_name``, and attachments kept
apart (none here). Service-computed fields (token and cost totals, ``status``, feedback) are
not invented: they stay absent. Not imported by the package.

Also: :func:`chat_transport`, an ``httpx.MockTransport`` that serves recorded OpenAI
chat-completions replies in order (no network).
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import requests
from langsmith import Client
from requests.adapters import BaseAdapter
from requests.models import PreparedRequest, Response

PROJECT_ID = "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
_RUN = re.compile(r"/runs/([0-9a-f-]{36})$")


class FakeLangSmith(BaseAdapter):
    """Serves the LangSmith endpoints the tracer and the run readers use (see module doc)."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: dict[str, dict[str, Any]] = {}

    def _reply(self, request: PreparedRequest, body: Any, status: int = 200) -> Response:
        response = Response()
        response.status_code = status
        response._content = json.dumps(body).encode()
        response.headers["content-type"] = "application/json"
        response.request = request
        response.url = request.url or ""
        return response

    def _store(self, body: dict[str, Any]) -> None:
        run = self.runs.setdefault(str(body["id"]), {})
        run.update(body)
        run.pop("session_name", None)
        run.pop("attachments", None)  # stored apart; the service returns ``s3_urls`` instead
        run["session_id"] = PROJECT_ID

    def _query(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        found = list(self.runs.values())
        if body.get("trace"):
            found = [r for r in found if r.get("trace_id") == str(body["trace"])]
        if body.get("id"):
            wanted = {str(i) for i in body["id"]}
            found = [r for r in found if r["id"] in wanted]
        if "is_root" in body:
            found = [r for r in found if (r.get("parent_run_id") is None) == body["is_root"]]
        found = sorted(found, key=lambda r: r.get("dotted_order", ""))
        if body.get("select"):  # the fields asked for (the client's default omits ``serialized``)
            wanted = {*body["select"], "id"}
            found = [{k: v for k, v in r.items() if k in wanted} for r in found]
        return found

    def send(self, request: PreparedRequest, **kwargs: Any) -> Response:
        path = (request.path_url or "").split("?")[0]
        raw = request.body.decode() if isinstance(request.body, bytes) else request.body
        body = json.loads(raw) if raw else {}
        if request.method == "POST" and path.endswith("/runs"):
            self._store(body)
            return self._reply(request, {})
        if request.method == "PATCH" and (match := _RUN.search(path)):
            self._store({**body, "id": match.group(1)})
            return self._reply(request, {})
        if request.method == "GET" and (match := _RUN.search(path)):
            return self._reply(request, self.runs[match.group(1)])
        if request.method == "POST" and path.endswith("/runs/query"):
            return self._reply(request, {"runs": self._query(body), "cursors": {"next": None}})
        if request.method == "GET" and path.endswith("/info"):
            return self._reply(request, {})
        return self._reply(request, {"detail": f"not served: {request.method} {path}"}, 404)

    def close(self) -> None:
        """Nothing to release."""


def client() -> tuple[Client, FakeLangSmith]:
    """A LangSmith client posting each run as it starts and ends to a :class:`FakeLangSmith`."""
    fake = FakeLangSmith()
    session = requests.Session()
    ls = Client(
        api_url="http://127.0.0.1:9", api_key="offline", session=session, auto_batch_tracing=False
    )
    ls.session.mount("http://", fake)
    return ls, fake


def chat_transport(
    replies: list[dict[str, Any]], usage: list[tuple[int, int]], seen: list[Any]
) -> httpx.MockTransport:
    """Recorded chat-completions replies, served in order; the requests go to ``seen``."""

    def handler(request: httpx.Request) -> httpx.Response:
        index = len(seen)
        seen.append(json.loads(request.content))
        prompt, completion = usage[index]
        message = replies[index]
        return httpx.Response(
            200,
            json={
                "id": f"chatcmpl-{index}",
                "object": "chat.completion",
                "created": 1714557600 + index,
                "model": "gpt-4o-mini-2024-07-18",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                        "message": message,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            },
        )

    return httpx.MockTransport(handler)


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI tool call as a recorded reply writes it (arguments as a JSON string)."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
