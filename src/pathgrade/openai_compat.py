"""The OpenAI chat-completions wire format, shared by the judge and the replay endpoint agent.

Pure helpers, no I/O: the reply parsers (:func:`usage_of`, :func:`message_of`,
:func:`content_of`), the ``Retry-After`` parser, the retry policy (which statuses are retried,
exponential backoff with jitter from an explicit ``random.Random``), and the redaction of an
API key from text that may be shown. The HTTP clients that use them live in
:mod:`pathgrade.judge.client` and :mod:`pathgrade.replay.endpoint`.
"""

from __future__ import annotations

import email.utils
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True)
class RetryPolicy:
    """How failed requests are retried.

    Attributes:
        max_retries: retries after the first attempt on 429, 5xx, timeouts and transport errors.
        backoff_base: first backoff delay in seconds (doubled per retry, with jitter).
        backoff_max: upper bound of one backoff delay.
        retry_after_max: upper bound on an honoured ``Retry-After``.
    """

    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    retry_after_max: float = 120.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based).

        ``d = min(backoff_max, backoff_base * 2**attempt)``; wait ``d/2 + U(0, d/2)``, and at
        least ``min(retry_after, retry_after_max)`` when the server sent ``Retry-After``.
        """
        ceiling = min(self.backoff_max, self.backoff_base * 2.0**attempt)
        wait = ceiling / 2 + rng.uniform(0.0, ceiling / 2)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.retry_after_max))
        return wait


def chat_completions_url(base_url: str) -> str:
    """The chat-completions URL of an OpenAI-compatible ``base_url``."""
    return base_url.rstrip("/") + "/chat/completions"


def request_headers(api_key: str | None) -> dict[str, str]:
    """JSON content type, plus a bearer token when there is a key."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def sampling_params(temperature: float, seed: int | None, max_tokens: int | None) -> dict[str, Any]:
    """The sampling parameters of a request; ``seed`` and ``max_tokens`` only when set."""
    params: dict[str, Any] = {"temperature": temperature}
    if seed is not None:
        params["seed"] = seed
    if max_tokens is not None:
        params["max_tokens"] = max_tokens
    return params


def retryable_status(status: int) -> bool:
    """429 and 5xx are retried; any other non-200 status fails at once."""
    return status == 429 or status >= 500


def redact(text: str, secret: str | None, limit: int = 200) -> str:
    """``text`` on one line, ``secret`` replaced by ``***``, cut to ``limit`` characters."""
    if secret:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date)."""
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def usage_of(data: dict[str, Any] | None) -> dict[str, int] | None:
    """The integer token counts of a reply's ``usage`` (None when it has none)."""
    raw = data.get("usage") if data is not None else None
    if not isinstance(raw, dict):
        return None
    names = ("prompt_tokens", "completion_tokens", "total_tokens")
    out = {n: raw[n] for n in names if isinstance(raw.get(n), int) and not isinstance(raw[n], bool)}
    return out or None


def message_of(data: dict[str, Any]) -> dict[str, Any] | None:
    """The first choice's ``message`` object, or None when the reply has none."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    return message if isinstance(message, dict) else None


def content_of(data: dict[str, Any]) -> str | None:
    """The first choice's text content (None when it is absent or not a string)."""
    message = message_of(data)
    content = message.get("content") if message is not None else None
    return content if isinstance(content, str) else None


def cost_of(
    usage: dict[str, int] | None,
    price_input_per_1k: float | None,
    price_output_per_1k: float | None,
) -> float | None:
    """The cost of ``usage`` at the given prices per 1000 tokens (None without prices)."""
    if usage is None or (price_input_per_1k is None and price_output_per_1k is None):
        return None
    return (
        usage.get("prompt_tokens", 0) * (price_input_per_1k or 0.0)
        + usage.get("completion_tokens", 0) * (price_output_per_1k or 0.0)
    ) / 1000.0
