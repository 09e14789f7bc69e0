"""One bounded HTTP attempt: a total deadline and a cap on the decoded body size.

Used by the judge client and by the replay endpoint client. ``httpx``'s timeout applies to
each read, so a server that sends a byte a second keeps a request alive forever, and its
content decoders inflate each received chunk whole (a small gzip bomb, nested encodings
worse, becomes gigabytes). :func:`post_bounded` therefore:

* runs the whole attempt (connect, send, headers, body) under ``asyncio.timeout(deadline)``:
  the attempt ends ``deadline`` seconds after it starts, whatever the server does between
  bytes; the per-read ``timeout`` still applies inside it;
* asks for ``Accept-Encoding: gzip, deflate`` only, reads the raw body and inflates it here,
  chunk by chunk, with ``zlib``'s ``max_length``: no stage ever produces more than
  ``max_bytes + 1`` bytes, so memory stays O(``max_bytes``) for any body. The raw body is
  capped at ``max_bytes`` too, as is a declared ``Content-Length`` (checked before reading).

A failure is an :class:`AttemptError` with a ``kind``: ``timeout`` (a read or connect took
longer than ``timeout``), ``deadline``, ``too_large``, ``encoding`` (an unsupported or
corrupt ``Content-Encoding``) or ``transport``. ``timeout``, ``deadline`` and ``transport``
are retried by the callers; ``too_large`` and ``encoding`` are not (the same server would
send the same body).
"""

from __future__ import annotations

import asyncio
import zlib
from dataclasses import dataclass
from typing import Literal

import httpx

#: Default wall time of one attempt, seconds.
DEFAULT_DEADLINE = 60.0
#: Default cap on a decoded response body: 10 MiB.
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
#: The content codings this module can inflate within the cap.
ACCEPT_ENCODING = "gzip, deflate"

ErrorKind = Literal["timeout", "deadline", "too_large", "encoding", "transport"]
RETRYABLE: frozenset[ErrorKind] = frozenset({"timeout", "deadline", "transport"})
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class AttemptError(Exception):
    """One HTTP attempt that failed before a full response was read; the text is key-free."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


@dataclass(frozen=True)
class Reply:
    """A response read in full: status, headers and the decoded body."""

    status: int
    headers: httpx.Headers
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def _too_large(max_bytes: int) -> AttemptError:
    return AttemptError("too_large", f"response body over the {max_bytes:,}-byte limit")


class _Stage:
    """One content coding, inflated with an output budget."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.inflater = zlib.decompressobj(_WBITS[coding])
        self.produced = 0
        # "deflate" is sent both zlib-wrapped (as specified) and raw: until the first output
        # the input is kept, to be tried raw if the zlib wrapper turns out wrong.
        self.pending: bytearray | None = bytearray() if coding == "deflate" else None

    def _inflate(self, data: bytes, max_bytes: int) -> bytes:
        out = self.inflater.decompress(data, max_bytes - self.produced + 1)
        self.produced += len(out)
        if self.produced > max_bytes or self.inflater.unconsumed_tail:
            raise _too_large(max_bytes)
        return out

    def feed(self, data: bytes, max_bytes: int) -> bytes:
        if self.pending is not None:
            self.pending += data
        try:
            out = self._inflate(data, max_bytes)
        except zlib.error:
            if self.pending is None:
                raise self._corrupt() from None
            self.inflater, kept, self.pending = (
                zlib.decompressobj(-zlib.MAX_WBITS),
                self.pending,
                None,
            )
            try:
                out = self._inflate(bytes(kept), max_bytes)
            except zlib.error:
                raise self._corrupt() from None
        if out:
            self.pending = None  # the form is settled
        return out

    def _corrupt(self) -> AttemptError:
        return AttemptError("encoding", f"the body is not valid {self.coding} data")


class BoundedDecoder:
    """The codings of a ``Content-Encoding`` header, undone in reverse order of application,
    each stage producing at most ``max_bytes`` in all (else ``too_large``).

    Raises:
        AttemptError: ``encoding`` for a coding other than gzip, deflate or identity.
    """

    def __init__(self, header: str | None) -> None:
        codings = [c.strip().lower() for c in (header or "").split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        for coding in codings:
            if coding not in _WBITS:
                raise AttemptError("encoding", f"unsupported Content-Encoding {coding[:40]!r}")
        self.stages = [_Stage(c) for c in reversed(codings)]

    def feed(self, data: bytes, max_bytes: int) -> bytes:
        """The decoded bytes of the next raw chunk ``data``."""
        for stage in self.stages:
            data = stage.feed(data, max_bytes)
        return data


async def _read(response: httpx.Response, max_bytes: int) -> bytes:
    decoder = BoundedDecoder(response.headers.get("content-encoding"))
    declared = response.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > max_bytes:
        raise _too_large(max_bytes)
    raw_total = 0
    body = bytearray()
    async for chunk in response.aiter_raw():
        raw_total += len(chunk)
        if raw_total > max_bytes:
            raise _too_large(max_bytes)
        body += decoder.feed(chunk, max_bytes)
        if len(body) > max_bytes:
            raise _too_large(max_bytes)
    return bytes(body)


async def post_bounded(
    http: httpx.AsyncClient,
    url: str,
    content: bytes,
    *,
    deadline: float,
    max_bytes: int,
) -> Reply:
    """POST ``content`` to ``url`` and read the whole response within ``deadline`` seconds and
    ``max_bytes`` decoded bytes.

    Raises:
        AttemptError: the attempt failed (see the module docstring for the kinds).
    """
    try:
        async with asyncio.timeout(deadline):
            async with http.stream("POST", url, content=content) as response:
                body = await _read(response, max_bytes)
                return Reply(response.status_code, response.headers, body)
    except TimeoutError:
        raise AttemptError("deadline", f"deadline of {deadline:g} s exceeded") from None
    except httpx.TimeoutException:
        timeout = http.timeout.read
        limit = f" after {timeout:g} s" if timeout is not None else ""
        raise AttemptError("timeout", f"timed out{limit}") from None
    except httpx.TransportError as problem:
        raise AttemptError("transport", f"transport error ({type(problem).__name__})") from None
