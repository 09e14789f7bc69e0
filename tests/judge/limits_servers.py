"""Misbehaving HTTP servers on 127.0.0.1 for the deadline and size-cap tests (judge and replay).

Each server answers every request with one behaviour and stops by itself: a drip ends after
``lifetime`` seconds even if no client hangs up, and the accept loop ends when the test's
``with`` block does. No real network.
"""

from __future__ import annotations

import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Behaviour = Callable[[socket.socket], None]
#: A drip never lasts longer than this, whatever the client does (the server is bounded).
LIFETIME = 4.0
JSON_REPLY = (
    b'{"choices": [{"message": {"role": "assistant", "content": "{\\"entails\\": true}"}}]}'
)


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return
        body += chunk


def _serve(server: socket.socket, behaviour: Behaviour, stop: threading.Event) -> None:
    server.settimeout(0.05)
    while not stop.is_set():
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        threading.Thread(target=_answer, args=(conn, behaviour), daemon=True).start()


def _answer(conn: socket.socket, behaviour: Behaviour) -> None:
    try:
        conn.settimeout(LIFETIME)
        _read_request(conn)
        behaviour(conn)
    except OSError:
        pass  # the client gave up: what the deadline tests expect
    finally:
        conn.close()


@contextmanager
def serving(behaviour: Behaviour) -> Iterator[str]:
    """Run a server with ``behaviour``; yields its base URL (``http://127.0.0.1:PORT/v1``)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    stop = threading.Event()
    thread = threading.Thread(target=_serve, args=(server, behaviour, stop), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()


def _drip(conn: socket.socket, data: bytes, interval: float) -> None:
    """Send ``data`` one byte per ``interval`` seconds, for at most :data:`LIFETIME` seconds."""
    end = time.monotonic() + LIFETIME
    for byte in data:
        if time.monotonic() > end:
            return
        conn.sendall(bytes([byte]))
        time.sleep(interval)


def drip_body(conn: socket.socket) -> None:
    """Headers at once, then a body that never completes in time: a byte every 50 ms."""
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    )
    _drip(conn, b" " * 100_000, 0.05)


def drip_headers(conn: socket.socket) -> None:
    """A status line and headers that trickle in (each read is quick; the whole is not)."""
    _drip(conn, b"HTTP/1.1 200 OK\r\n" + b"X-Slow: 1\r\n" * 10_000, 0.05)


def gzip_bytes(data_size: int, level: int = 6) -> bytes:
    """gzip of ``data_size`` zero bytes, built in 16 MiB pieces."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    piece = bytes(16 << 20)
    parts = []
    left = data_size
    while left > 0:
        parts.append(compressor.compress(piece[: min(left, len(piece))]))
        left -= len(piece)
    parts.append(compressor.flush())
    return b"".join(parts)


def encoded_reply(body: bytes, encoding: str) -> Behaviour:
    """A 200 whose (small) body is sent at once with ``Content-Encoding: encoding``."""

    def behaviour(conn: socket.socket) -> None:
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Encoding: {encoding}\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        conn.sendall(head.encode() + body)

    return behaviour
