"""The scripted judge of the semantic tests, served on 127.0.0.1 (``judge_url``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import pytest

from .test_judge_mode import _Judge


@pytest.fixture
def judge_url() -> Iterator[str]:
    """The base URL of a chat-completions stub answering by ``_Judge``'s script."""
    _Judge.asked = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
