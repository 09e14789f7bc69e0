"""Parse and check the judge's JSON replies.

:func:`parse_object` turns a reply into a JSON object (a surrounding Markdown code fence is
tolerated); each ``check_*`` function validates one prompt's shape and returns the typed value.
Anything else raises :class:`VerdictError`, which makes the client ask once for a repair.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

import orjson

ClaimLabel = Literal["supported", "unsupported", "not_verifiable"]
Winner = Literal["A", "B", "tie"]
_LABELS: dict[str, bool | None] = {"supported": True, "unsupported": False, "not_verifiable": None}


class VerdictError(ValueError):
    """A reply that is not the JSON object the prompt asked for."""


def parse_object(content: str | None) -> dict[str, Any]:
    """The JSON object in ``content`` (an enclosing ```` ```json ```` fence is removed)."""
    if content is None:
        raise VerdictError("the reply has no content")
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise VerdictError(f"not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise VerdictError(f"expected a JSON object, got {type(value).__name__}")
    return value


def _bool(verdict: dict[str, Any], name: str) -> bool:
    value = verdict.get(name)
    if not isinstance(value, bool):
        raise VerdictError(f"'{name}' must be true or false, got {value!r}")
    return value


@dataclass(frozen=True)
class JudgedClaim:
    """One claim as the judge labelled it (``supported`` None: not verifiable)."""

    text: str
    supported: bool | None
    key: bool


def check_claims(verdict: dict[str, Any]) -> tuple[JudgedClaim, ...]:
    """``{"claims": [{"text", "label", "key"}]}`` -> claims (``key`` defaults to true)."""
    items = verdict.get("claims")
    if not isinstance(items, list):
        raise VerdictError("'claims' must be a list")
    out: list[JudgedClaim] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise VerdictError(f"claims[{index}] must be an object")
        text, label, key = item.get("text"), item.get("label"), item.get("key", True)
        if not isinstance(text, str) or not text.strip():
            raise VerdictError(f"claims[{index}].text must be a non-empty string")
        if label not in _LABELS:
            raise VerdictError(
                f"claims[{index}].label must be supported, unsupported or not_verifiable,"
                f" got {label!r}"
            )
        if not isinstance(key, bool):
            raise VerdictError(f"claims[{index}].key must be true or false")
        out.append(JudgedClaim(text.strip(), _LABELS[label], key))
    return tuple(out)


def check_support(verdict: dict[str, Any]) -> bool | None:
    """``{"label": "supported" | "unsupported" | "not_verifiable"}`` -> True / False / None."""
    label = verdict.get("label")
    if label not in _LABELS:
        raise VerdictError(
            f"'label' must be supported, unsupported or not_verifiable, got {label!r}"
        )
    return _LABELS[label]


def check_entailment(verdict: dict[str, Any]) -> bool:
    """``{"entails": bool}``."""
    return _bool(verdict, "entails")


def check_goal(verdict: dict[str, Any]) -> bool:
    """``{"reached": bool}``."""
    return _bool(verdict, "reached")


def check_trajectory(verdict: dict[str, Any]) -> bool:
    """``{"accurate": bool}``."""
    return _bool(verdict, "accurate")


def check_pairwise(verdict: dict[str, Any]) -> Winner:
    """``{"winner": "A" | "B" | "tie"}`` (case-insensitive)."""
    value = verdict.get("winner")
    if isinstance(value, str):
        folded = value.strip().upper()
        if folded in ("A", "B"):
            return "A" if folded == "A" else "B"
        if folded == "TIE":
            return "tie"
    raise VerdictError(f"'winner' must be A, B or tie, got {value!r}")


def score_checker(levels: Collection[float]) -> Callable[[dict[str, Any]], float]:
    """A checker for ``{"score": level}`` accepting only the given levels."""
    allowed = sorted(float(level) for level in levels)

    def check(verdict: dict[str, Any]) -> float:
        value = verdict.get("score")
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = float(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise VerdictError(f"'score' must be a number, got {value!r}")
        if float(value) not in allowed:
            raise VerdictError(f"'score' must be one of {allowed}, got {value!r}")
        return float(value)

    return check


def reason_of(verdict: dict[str, Any] | None, limit: int = 500) -> str | None:
    """The verdict's ``reason`` (or ``reasoning``), cut to ``limit`` characters."""
    if verdict is None:
        return None
    value = verdict.get("reason", verdict.get("reasoning"))
    return value[:limit] if isinstance(value, str) else None
