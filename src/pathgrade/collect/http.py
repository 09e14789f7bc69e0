"""The collector's HTTP server: ``POST /v1/traces`` (OTLP/HTTP) and ``GET /stats``.

A threading ``http.server`` (one thread a connection, keep-alive), bound to loopback unless
told otherwise. A body larger than the limit is refused from its ``Content-Length`` (413)
before it is read; a request without one gets 411.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

from pathgrade.collect.decode import RequestError
from pathgrade.collect.replies import Reply, error_reply
from pathgrade.collect.service import Collector

__all__ = ["CollectorServer"]

log = logging.getLogger("pathgrade.collect")
TRACES_PATH = "/v1/traces"


class _Handler(BaseHTTPRequestHandler):
    server: CollectorServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # faults are logged once, by the collector, in one line each

    def _send(self, reply: Reply, close: bool = False) -> None:
        self.send_response(reply.status)
        for key, value in reply.headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(reply.body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(reply.body)

    def do_GET(self) -> None:
        if self.path != "/stats":
            self._send(error_reply("application/json", 404, "not found"))
            return
        stats = dataclasses.asdict(self.server.collector.counters)
        stats["held_spans"] = self.server.collector.buffer.spans
        self._send(Reply(200, (("Content-Type", "application/json"),), orjson.dumps(stats)))

    def do_POST(self) -> None:
        collector = self.server.collector
        content_type = self.headers.get("Content-Type")
        if self.path.split("?", 1)[0] != TRACES_PATH:
            self._send(error_reply(content_type, 404, f"no such path (use {TRACES_PATH})"))
            return
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            log.warning("collect: 411 a request without a Content-Length")
            self._send(error_reply(content_type, 411, "Content-Length required"), close=True)
            return
        if int(length) > collector.config.max_body:
            error = RequestError(413, f"body of {length} bytes is past the limit")
            log.warning("collect: 413 %s", error.message)
            collector.count("bad_requests")
            self._send(error_reply(content_type, 413, error.message), close=True)
            return
        body = self.rfile.read(int(length))
        if len(body) < int(length):
            log.warning("collect: 400 body shorter than its Content-Length")
            self._send(error_reply(content_type, 400, "body cut short"), close=True)
            return
        reply = collector.accept(
            body,
            content_type,
            self.headers.get("Content-Encoding"),
            self.headers.get("Authorization"),
        )
        self._send(reply)


class CollectorServer(ThreadingHTTPServer):
    """The HTTP server of one :class:`Collector`; :meth:`start` serves in a thread."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, collector: Collector) -> None:
        self.collector = collector
        super().__init__((collector.config.host, collector.config.port), _Handler)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def start(self) -> None:
        """Serve in a background thread and start the collector's flusher."""
        self.collector.start()
        self._thread = threading.Thread(target=self.serve_forever, name="pathgrade-collect")
        self._thread.start()

    def stop(self) -> int:
        """Stop serving, then save everything the collector holds; the runs saved."""
        self.shutdown()
        if self._thread is not None:
            self._thread.join()
        self.server_close()
        return self.collector.stop()
