"""What a judge call leaves behind: per-attempt records, per-item outcomes, client counters.

The small parsers of a chat-completions reply and of a ``Retry-After`` header live in
:mod:`pathgrade.openai_compat` (shared with the replay endpoint agent) and are re-exported
here. Nothing here holds or prints the API key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pathgrade.openai_compat import content_of, parse_retry_after, usage_of

__all__ = [
    "CallRecord",
    "ClientStats",
    "JudgeOutcome",
    "Source",
    "content_of",
    "parse_retry_after",
    "usage_of",
]

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
    #: What failed: ``http`` (a non-200 status), ``bad_body`` (a 200 that is not a JSON
    #: object), or a :data:`pathgrade.judge.http.ErrorKind` (``timeout``, ``deadline``,
    #: ``too_large``, ``encoding``, ``transport``); None for a successful attempt.
    error_kind: str | None = None

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
