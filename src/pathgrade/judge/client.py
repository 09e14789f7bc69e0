"""The judge client: OpenAI-compatible chat completions over ``httpx``, with retries and a cache.

One :meth:`JudgeClient.judge` call turns a rendered prompt into a checked verdict, or into a
``judge_error`` for that item; it never raises for a failed call, so the rest of a run goes on.

* Requests: ``POST {base_url}/chat/completions`` with ``model``, ``messages``, temperature 0,
  ``seed`` and ``response_format: {"type": "json_object"}`` by default; at most
  ``concurrency`` requests in flight (a semaphore); each attempt is bounded by
  :func:`~pathgrade.judge.http.post_bounded`: ``timeout`` seconds per read, ``deadline``
  seconds in all, ``max_response_bytes`` of decoded body (a larger body fails at once).
* Retries on 429, 5xx, timeouts (per read or the deadline) and transport errors, up to
  ``max_retries`` times, with
  exponential backoff and jitter drawn from the ``rng`` passed in:
  ``d = min(backoff_max, backoff_base * 2**n)``, wait ``d/2 + U(0, d/2)``; a ``Retry-After``
  header (seconds or an HTTP date, capped at ``retry_after_max``) is honoured as a lower bound.
  Any other 4xx fails at once.
* A reply that is not the JSON the prompt asked for gets one repair turn (the reply and the
  problem are sent back); a second bad reply is a ``judge_error``.
* Per HTTP attempt a :class:`CallRecord` keeps the status, latency, ``model``,
  ``system_fingerprint``, token usage and cost. The API key is sent only in the
  ``Authorization`` header; every reply is passed through the client's
  :class:`~pathgrade.judge.redact.Redactor` as soon as it is decoded (so no verdict, model
  name or fingerprint can carry the key further), as are error texts and cache entries.
* With a :class:`~pathgrade.judge.cache.JudgeCache`, a verdict is looked up before any call
  and stored after a successful one (errors are not stored). With a
  :class:`~pathgrade.judge.cache.Recording` (offline mode) no request is ever made.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, TypeVar

import httpx
import orjson

from pathgrade.judge.cache import JudgeCache, Recording, cache_key
from pathgrade.judge.config import JudgeConfig
from pathgrade.judge.http import ACCEPT_ENCODING, AttemptError, post_bounded
from pathgrade.judge.outcome import CallRecord, ClientStats, JudgeOutcome
from pathgrade.judge.prompts import Prompt
from pathgrade.judge.redact import Redactor, public_url
from pathgrade.judge.verdicts import VerdictError, parse_object
from pathgrade.openai_compat import (
    RetryPolicy,
    content_of,
    cost_of,
    parse_retry_after,
    request_headers,
    retryable_status,
    usage_of,
)

T = TypeVar("T")

REPAIR_MESSAGE = (
    "Your reply could not be used: {problem}. Reply again with only the JSON object in the"
    " shape the instructions give, and nothing else."
)


class _CallFailedError(Exception):
    def __init__(self, message: str, records: list[CallRecord]) -> None:
        super().__init__(message)
        self.message = message
        self.records = records


class JudgeClient:
    """Judge items through an OpenAI-compatible endpoint; use as ``async with``.

    Args:
        config: endpoint, model, sampling, retries.
        cache: verdicts on disk (optional).
        recording: recorded verdicts; when given, the client is offline and makes no request.
        rng: the jitter source (pass a seeded ``random.Random``); default ``Random(0)``.
        sleep: the coroutine used to wait between retries (tests record the delays).
        transport: an ``httpx`` transport (optional).
    """

    def __init__(
        self,
        config: JudgeConfig,
        *,
        cache: JudgeCache | None = None,
        recording: Recording | None = None,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.cache = cache
        self.recording = recording
        self.stats = ClientStats()
        self._rng = rng if rng is not None else random.Random(0)
        self._sleep = sleep
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._semaphore = asyncio.Semaphore(config.concurrency)
        self._retry = RetryPolicy(
            config.max_retries, config.backoff_base, config.backoff_max, config.retry_after_max
        )
        #: Applied to everything derived from a reply, and by the CLI to all it writes.
        self.redactor = Redactor.for_endpoint(config.api_key, config.base_url)

    def __repr__(self) -> str:
        mode = "offline" if self.offline else "live"
        return f"JudgeClient({self.config.model!r} at {public_url(self.config.base_url)!r}, {mode})"

    @property
    def offline(self) -> bool:
        return self.recording is not None

    async def __aenter__(self) -> JudgeClient:
        if not self.offline and self._http is None:
            self._http = httpx.AsyncClient(
                headers={
                    **request_headers(self.config.api_key),
                    "Accept-Encoding": ACCEPT_ENCODING,
                },
                timeout=httpx.Timeout(self.config.timeout),
                transport=self._transport,
                limits=httpx.Limits(max_connections=self.config.concurrency),
                trust_env=False,
            )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def key_for(self, prompt: Prompt) -> str:
        """The cache key of ``prompt`` under this client's model and sampling."""
        return cache_key(
            model=self.config.model,
            model_version=self.config.model_version,
            base_url=self.config.base_url,
            messages=prompt.messages,
            sampling=self.config.sampling(),
            prompt_id=prompt.id,
            prompt_version=prompt.version,
        )

    def _redact(self, text: str, limit: int = 200) -> str:
        return self.redactor.text(text, limit)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        return self._retry.delay(attempt, retry_after, self._rng)

    async def judge(
        self, prompt: Prompt, check: Callable[[dict[str, Any]], T], *, item: str
    ) -> JudgeOutcome[T]:
        """Judge one item; a failure is returned as ``JudgeOutcome.error``, never raised."""
        self.stats.items += 1
        key = self.key_for(prompt)
        if self.recording is not None:
            return self._replay(self.recording, prompt, check, item, key)
        if self.cache is not None:
            entry = self.cache.get(key)
            if entry is not None:
                try:
                    value = check(entry["verdict"])
                except (VerdictError, TypeError):
                    pass  # an entry the checker rejects is a miss; it is overwritten below
                else:
                    return JudgeOutcome(
                        item, prompt.name, key, value, entry["verdict"], source="cache",
                        system_fingerprint=entry.get("system_fingerprint"),
                    )  # fmt: skip
        return await self._live(prompt, check, item, key)

    def _replay(
        self,
        recording: Recording,
        prompt: Prompt,
        check: Callable[[dict[str, Any]], T],
        item: str,
        key: str,
    ) -> JudgeOutcome[T]:
        record = recording.lookup(key, item)
        if record is None:
            self.stats.errors += 1
            return JudgeOutcome(item, prompt.name, key, error="offline: no recorded verdict")
        try:
            value = check(record["verdict"])
        except VerdictError as problem:
            self.stats.errors += 1
            return JudgeOutcome(
                item, prompt.name, key, error=f"offline: recorded verdict rejected: {problem}"
            )
        self.stats.offline += 1
        return JudgeOutcome(item, prompt.name, key, value, record["verdict"], source="offline")

    async def _live(
        self, prompt: Prompt, check: Callable[[dict[str, Any]], T], item: str, key: str
    ) -> JudgeOutcome[T]:
        messages = list(prompt.messages)
        calls: list[CallRecord] = []
        for repair in (False, True):
            body = {"model": self.config.model, "messages": messages, **self.config.sampling()}
            try:
                data, records = await self._post(body, item, prompt.name, repair)
            except _CallFailedError as failure:
                calls += failure.records
                self.stats.errors += 1
                return JudgeOutcome(
                    item, prompt.name, key, error=failure.message, calls=tuple(calls)
                )
            calls += records
            content = content_of(data)
            try:
                verdict = parse_object(content)
                value = check(verdict)
            except VerdictError as problem:
                if repair:
                    self.stats.errors += 1
                    message = f"malformed verdict after one repair: {self._redact(str(problem))}"
                    return JudgeOutcome(item, prompt.name, key, error=message, calls=tuple(calls))
                self.stats.repairs += 1
                messages += [
                    {"role": "assistant", "content": content or ""},
                    {"role": "user", "content": REPAIR_MESSAGE.format(problem=problem)},
                ]
                continue
            fingerprint = records[-1].system_fingerprint
            if self.cache is not None:
                entry = {
                    "item": item,
                    "prompt": prompt.name,
                    "model": records[-1].model,
                    "system_fingerprint": fingerprint,
                    "usage": records[-1].usage,
                    "verdict": verdict,
                }
                self.cache.put(key, self.redactor(entry))
            return JudgeOutcome(
                item, prompt.name, key, value, verdict, source="live", calls=tuple(calls),
                system_fingerprint=fingerprint,
            )  # fmt: skip
        raise AssertionError("unreachable")  # pragma: no cover

    async def _post(
        self, body: dict[str, Any], item: str, prompt: str, repair: bool
    ) -> tuple[dict[str, Any], list[CallRecord]]:
        if self._http is None:
            raise RuntimeError("use the JudgeClient as 'async with JudgeClient(...) as client'")
        payload = orjson.dumps(body)
        records: list[CallRecord] = []
        attempts = self.config.max_retries + 1
        error, kind = "no attempt made", "none"
        for attempt in range(attempts):
            retry_after: float | None = None
            status: int | None = None
            start = time.perf_counter()
            try:
                async with self._semaphore:
                    self.stats.requests += 1
                    reply = await post_bounded(
                        self._http,
                        self.config.endpoint,
                        payload,
                        deadline=self.config.deadline,
                        max_bytes=self.config.max_response_bytes,
                    )
            except AttemptError as problem:
                error, kind, retryable = problem.message, problem.kind, problem.retryable
            else:
                status = reply.status
                latency = (time.perf_counter() - start) * 1000.0
                if status == 200:
                    try:
                        data = orjson.loads(reply.body)
                        if not isinstance(data, dict):
                            raise TypeError
                    except (orjson.JSONDecodeError, TypeError):
                        error = "HTTP 200 but the body is not a JSON object"
                        where = (item, prompt, attempt, repair, status, latency)
                        records.append(self._record(*where, error=error, kind="bad_body"))
                        raise _CallFailedError(error, records) from None
                    data = self.redactor(data)  # nothing derived from a reply holds the key
                    records.append(
                        self._record(item, prompt, attempt, repair, status, latency, data)
                    )
                    return data, records
                error, kind = f"HTTP {status}: {self._redact(reply.text)}", "http"
                retryable = retryable_status(status)
                if retryable:
                    retry_after = parse_retry_after(reply.headers.get("retry-after"))
            latency = (time.perf_counter() - start) * 1000.0
            records.append(
                self._record(item, prompt, attempt, repair, status, latency, error=error, kind=kind)
            )
            if not retryable or attempt == attempts - 1:
                break
            self.stats.retries += 1
            await self._sleep(self._backoff(attempt, retry_after))
        raise _CallFailedError(f"{error} (after {len(records)} attempt(s))", records)

    def _record(
        self,
        item: str,
        prompt: str,
        attempt: int,
        repair: bool,
        status: int | None,
        latency: float,
        data: dict[str, Any] | None = None,
        *,
        error: str | None = None,
        kind: str | None = None,
    ) -> CallRecord:
        usage = usage_of(data)
        cost = self._cost(usage)
        model = data.get("model") if data is not None else None
        fingerprint = data.get("system_fingerprint") if data is not None else None
        model = model if isinstance(model, str) else None
        fingerprint = fingerprint if isinstance(fingerprint, str) else None
        if usage is not None:
            self.stats.prompt_tokens += usage.get("prompt_tokens", 0)
            self.stats.completion_tokens += usage.get("completion_tokens", 0)
        if cost is not None:
            self.stats.cost = (self.stats.cost or 0.0) + cost
        if fingerprint is not None:
            self.stats.fingerprints.add(fingerprint)
        if model is not None:
            self.stats.models.add(model)
        return CallRecord(
            item, prompt, attempt + 1, repair, status, round(latency, 3), model, fingerprint,
            usage, cost, error, kind,
        )  # fmt: skip

    def _cost(self, usage: dict[str, int] | None) -> float | None:
        return cost_of(usage, self.config.price_input_per_1k, self.config.price_output_per_1k)
