"""What a judge call leaves behind: per-attempt records, per-item outcomes, client counters.

Also the small parsers of a chat-completions reply (``usage``, the message content) and of a
``Retry-After`` header. Nothing here holds or prints the API key.
"""

from __future__ import annotations

import email.utils
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")
Source = Literal["live", "cache", "offline"]


@dataclass(frozen=True)
class CallRecord:
    """One HTTP attempt: what came back and what it cost (never the API key)."""

    item: str
    prompt: str
    attempt: int
    repair: bool
    status: int | None
    latency_ms: float
    model: str | None = None
    system_fingerprint: str | None = None
    usage: dict[str, int] | None = None
    cost: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class JudgeOutcome(Generic[T]):
    """A checked verdict (``value``) or a ``judge_error`` (``error``) for one item."""

    item: str
    prompt: str
    key: str
    value: T | None = None
    verdict: dict[str, Any] | None = None
    error: str | None = None
    source: Source | None = None
    calls: tuple[CallRecord, ...] = ()
    system_fingerprint: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class ClientStats:
    """Counters over every item the client judged."""

    items: int = 0
    errors: int = 0
    requests: int = 0
    retries: int = 0
    repairs: int = 0
    offline: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    fingerprints: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["fingerprints"] = sorted(self.fingerprints)
        out["models"] = sorted(self.models)
        return out


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
    raw = data.get("usage") if data is not None else None
    if not isinstance(raw, dict):
        return None
    names = ("prompt_tokens", "completion_tokens", "total_tokens")
    out = {n: raw[n] for n in names if isinstance(raw.get(n), int) and not isinstance(raw[n], bool)}
    return out or None


def content_of(data: dict[str, Any]) -> str | None:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None
