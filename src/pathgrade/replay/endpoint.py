"""The HTTP side of the endpoint agent: ``POST {base_url}/chat/completions`` with retries.

This is the one module outside :mod:`pathgrade.judge` that talks to the network (a test
walks the imports). It sends a request body and returns the decoded reply with its latency,
token usage and cost; the tool-calling loop itself is :mod:`pathgrade.replay.tool_loop`.

* A synchronous interface (the harness calls agents synchronously) over an
  ``httpx.AsyncClient`` run on the client's own event loop thread, so that each attempt is
  bounded as the judge's are (:func:`pathgrade.judge.http.post_bounded`): ``timeout`` seconds
  per read, ``deadline`` seconds in all, ``max_response_bytes`` of decoded body; a slower
  or larger reply is an :class:`EndpointError` (a replay error: the run is flagged, the next
  goes on). ``trust_env=False`` (no proxy or netrc from the environment).
* Retries on 429, 5xx, timeouts and transport errors with the judge's policy
  (:class:`~pathgrade.openai_compat.RetryPolicy`: exponential backoff, jitter from a seeded
  ``random.Random``, ``Retry-After`` honoured as a lower bound and capped). Any other 4xx
  fails at once.
* The API key comes from ``PATHGRADE_AGENT_API_KEY`` (never a command-line option, never the
  judge's key: the agent under test may sit at another provider). It is sent only in the
  ``Authorization`` header, excluded from ``repr`` and :meth:`EndpointConfig.public`, and
  redacted (with the base URL's credentials, :class:`~pathgrade.judge.redact.Redactor`) from
  every reply as soon as it is decoded and from every error text, so the replayed runs and
  what the CLI prints cannot carry it.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import TracebackType
from typing import Any, TypeVar

import httpx
import orjson

from pathgrade.core.errors import ConfigError
from pathgrade.judge.http import (
    ACCEPT_ENCODING,
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RESPONSE_BYTES,
    AttemptError,
    post_bounded,
)
from pathgrade.judge.redact import Redactor, public_url
from pathgrade.openai_compat import (
    RetryPolicy,
    chat_completions_url,
    cost_of,
    parse_retry_after,
    request_headers,
    retryable_status,
    sampling_params,
    usage_of,
)
from pathgrade.replay.sse import assemble_stream

T = TypeVar("T")

ENV_API_KEY = "PATHGRADE_AGENT_API_KEY"


class EndpointError(RuntimeError):
    """A request that failed for good (after retries, or at once on a 4xx); key-free text."""


@dataclass(frozen=True)
class EndpointConfig:
    """How to reach the agent's model and how to sample from it.

    Attributes:
        base_url: the OpenAI-compatible root; requests go to ``{base_url}/chat/completions``.
        model: the model name sent in each request.
        api_key: the bearer token (never printed; excluded from ``repr`` and ``public()``).
        temperature: sampling temperature (default 0).
        seed: the ``seed`` request parameter (default 0; None leaves it out).
        max_tokens: the completion limit (None leaves it out).
        timeout: seconds each read (and the connect) of an HTTP attempt may take.
        deadline: seconds of wall time one HTTP attempt may take in all, body included.
        max_response_bytes: the most bytes of a decoded reply body (larger: not retried).
        retry: retries and backoff (the judge's defaults).
        price_input_per_1k: cost of 1000 prompt tokens (None: cost not recorded).
        price_output_per_1k: cost of 1000 completion tokens.
        stream: ask for a streamed reply (``"stream": true`` with usage), assembled into the
            one reply a plain request gets (:mod:`pathgrade.replay.sse`); ``deadline`` bounds
            the whole stream, so a stream that drips is a failed attempt like a slow body.
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False, compare=False)
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int | None = None
    timeout: float = 60.0
    deadline: float = DEFAULT_DEADLINE
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    price_input_per_1k: float | None = None
    price_output_per_1k: float | None = None
    stream: bool = False

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"expected an http(s) URL, got {public_url(self.base_url)!r}", field="--endpoint"
            )
        if not self.model.strip():
            raise ConfigError("the model name is empty", field="--model")
        positive = {
            "--timeout": self.timeout,
            "--deadline": self.deadline,
            "--max-response-bytes": self.max_response_bytes,
        }
        for option, value in positive.items():
            if not value > 0:
                raise ConfigError(f"must be > 0, got {value!r}", field=option)
        if self.retry.max_retries < 0:
            raise ConfigError(
                f"must be >= 0, got {self.retry.max_retries!r}", field="--max-retries"
            )
        if not self.temperature >= 0:
            raise ConfigError(f"must be >= 0, got {self.temperature!r}", field="temperature")

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.public().items() if k != "api_key_set"}
        return "EndpointConfig(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return chat_completions_url(self.base_url)

    def sampling(self) -> dict[str, Any]:
        """The sampling parameters sent with every request."""
        return sampling_params(self.temperature, self.seed, self.max_tokens)

    def public(self) -> dict[str, Any]:
        """Settings safe to write into runs: no API key, no credentials or query in the URL."""
        out = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("api_key", "retry", "base_url")
        }
        out["base_url"] = public_url(self.base_url)
        out["api_key_set"] = self.api_key is not None
        return out

    @classmethod
    def from_env(
        cls, base_url: str, model: str, env: Mapping[str, str] | None = None, **settings: Any
    ) -> EndpointConfig:
        """A config whose API key is ``PATHGRADE_AGENT_API_KEY`` (``env`` defaults to
        ``os.environ``); an empty variable means no key."""
        source = os.environ if env is None else env
        return cls(base_url, model, api_key=source.get(ENV_API_KEY) or None, **settings)


@dataclass(frozen=True)
class Completion:
    """One successful chat-completions reply and what it cost."""

    data: dict[str, Any]
    latency_ms: float
    attempts: int
    usage: dict[str, int] | None = None
    cost: float | None = None

    @property
    def tokens(self) -> int | None:
        """Total tokens (``total_tokens``, else prompt + completion), None when not reported."""
        if self.usage is None:
            return None
        if "total_tokens" in self.usage:
            return self.usage["total_tokens"]
        return self.usage.get("prompt_tokens", 0) + self.usage.get("completion_tokens", 0)


class _LoopThread:
    """An event loop on a daemon thread, on which a synchronous caller runs coroutines."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="pathgrade-endpoint", daemon=True
        )
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and wait for its result (cancelled if interrupted)."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


class EndpointClient:
    """Posts chat-completions requests to one endpoint; use as ``with EndpointClient(...)``.

    Args:
        config: endpoint, model, sampling, retries, deadline and size cap.
        rng: the jitter source; default ``random.Random(0)``.
        sleep: the function used to wait between retries (tests record the delays).
        transport: an ``httpx`` async transport (optional).
    """

    def __init__(
        self,
        config: EndpointConfig,
        *,
        rng: random.Random | None = None,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.requests = 0
        self.retries = 0
        #: Applied to every decoded reply and error text.
        self.redactor = Redactor.for_endpoint(config.api_key, config.base_url)
        self._rng = rng if rng is not None else random.Random(0)
        self._sleep = sleep
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._loop: _LoopThread | None = None

    def __repr__(self) -> str:
        return f"EndpointClient({self.config.model!r} at {self.config.public()['base_url']!r})"

    @property
    def model(self) -> str:
        return self.config.model

    def __enter__(self) -> EndpointClient:
        if self._http is None:
            self._loop = _LoopThread()
            self._http = httpx.AsyncClient(
                headers={
                    **request_headers(self.config.api_key),
                    "Accept-Encoding": ACCEPT_ENCODING,
                },
                timeout=httpx.Timeout(self.config.timeout),
                transport=self._transport,
                trust_env=False,
            )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._http is not None and self._loop is not None:
            try:
                self._loop.run(self._http.aclose())
            finally:
                self._loop.close()
        self._http, self._loop = None, None

    def complete(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> Completion:
        """Send ``messages`` (and ``tools`` when there are any); the reply (redacted).

        Raises:
            EndpointError: the request failed for good; the text never holds the API key.
        """
        if self._http is None or self._loop is None:
            raise RuntimeError("use the EndpointClient as 'with EndpointClient(...) as client'")
        body: dict[str, Any] = {"model": self.config.model, "messages": list(messages)}
        if tools:
            body["tools"] = list(tools)
        body.update(self.config.sampling())
        if self.config.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        payload = orjson.dumps(body)
        policy = self.config.retry
        error = "no attempt made"
        for attempt in range(policy.max_retries + 1):
            retry_after: float | None = None
            start = time.perf_counter()
            self.requests += 1
            try:
                reply = self._loop.run(
                    post_bounded(
                        self._http,
                        self.config.endpoint,
                        payload,
                        deadline=self.config.deadline,
                        max_bytes=self.config.max_response_bytes,
                    )
                )
            except AttemptError as problem:
                error, retryable = problem.message, problem.retryable
            else:
                latency = (time.perf_counter() - start) * 1000.0
                if reply.status == 200:
                    return self._completion(reply.body, latency, attempt + 1)
                error = f"HTTP {reply.status}: {self._redact(reply.text)}"
                retryable = retryable_status(reply.status)
                if retryable:
                    retry_after = parse_retry_after(reply.headers.get("retry-after"))
            if not retryable or attempt == policy.max_retries:
                raise EndpointError(f"{error} (after {attempt + 1} attempt(s))")
            self.retries += 1
            self._sleep(policy.delay(attempt, retry_after, self._rng))
        raise EndpointError(error)  # pragma: no cover - the loop always returns or raises

    def _completion(self, content: bytes, latency: float, attempts: int) -> Completion:
        data: Any
        if self.config.stream:
            try:
                data = assemble_stream(content)
            except ValueError as problem:
                raise EndpointError(f"HTTP 200 but the stream is broken: {problem}") from None
        else:
            try:
                data = orjson.loads(content)
            except orjson.JSONDecodeError:
                data = None
        if not isinstance(data, dict):
            raise EndpointError("HTTP 200 but the body is not a JSON object")
        data = self.redactor(data)  # nothing derived from a reply holds the key
        usage = usage_of(data)
        cost = cost_of(usage, self.config.price_input_per_1k, self.config.price_output_per_1k)
        return Completion(data, round(latency, 3), attempts, usage, cost)

    def _redact(self, text: str) -> str:
        return self.redactor.text(text, 200)
