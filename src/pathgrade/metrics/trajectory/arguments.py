"""Argument matching: when does an agent's call match a reference call?

Modes for a whole call (``matching.mode``, or per tool):

- ``exact``: deep equality after JSON normalisation. ``1`` equals ``1.0``; ``"1"`` does not
  equal ``1``; ``true`` does not equal ``1``; object key order does not matter.
- ``normalized``: as ``exact`` after Unicode NFKC, case folding and whitespace folding of every
  string, and numeric strings read as numbers (``" 10.0 "`` equals ``10``).
- ``fuzzy``: same keys and shape; string values match when the rapidfuzz scorer (default
  ``token_set_ratio`` on ``rapidfuzz.utils.default_process``-ed text) is ``>= threshold``
  (default 90); other values as ``exact``.
- ``subset``: every field of the reference call is present in the agent's call and matches
  (extra agent fields are allowed); positional arguments match position by position for the
  reference's length.
- ``ignore``: the tool alone decides.

Per-field overrides (top-level argument names) take the field modes ``exact``, ``normalized``,
``fuzzy``, ``numeric`` (``|a - b| <= max(abs_tol, rel_tol * |reference|)``) and ``ignore``
(the field is skipped, present or not), or the name of a plug-in matcher
(``(reference_value, agent_value) -> bool``), which is how semantic matching plugs in.

Modes that are equivalence relations (``exact``, ``normalized``, ``ignore``, with only such
field overrides) give every call a *key*: two calls match exactly when their keys are equal,
which lets the engine compare whole batches with integer codes. The others are compared pair
by pair with :meth:`ToolMatcher.match`.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

from pathgrade.core.config import CALL_MODES, FIELD_MODES, FieldMatch, MatchingConfig
from pathgrade.core.errors import ConfigError

ValueMatcher = Callable[[Any, Any], bool]
_KEYABLE = frozenset({"exact", "normalized", "ignore"})
_BOOL_TAG = "\x00bool"
_LIST_TAG = "\x00list"
_DICT_TAG = "\x00dict"
_SCORERS: dict[str, Callable[..., float]] = {
    "token_set_ratio": fuzz.token_set_ratio,
    "token_sort_ratio": fuzz.token_sort_ratio,
    "ratio": fuzz.ratio,
    "partial_ratio": fuzz.partial_ratio,
    "WRatio": fuzz.WRatio,
}


def normalize_text(text: str) -> str:
    """NFKC, case folding, whitespace runs to one space, stripped."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _as_number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def freeze(value: Any, *, normalized: bool = False) -> Hashable:
    """A hashable form of a JSON value; equal forms mean equal under ``exact``/``normalized``.

    Python already makes ``1 == 1.0`` (with equal hashes); booleans are tagged so that
    ``true`` never equals ``1``.
    """
    if isinstance(value, bool):
        return (_BOOL_TAG, value)
    if isinstance(value, str):
        if not normalized:
            return value
        number = _as_number(value)
        return number if number is not None else normalize_text(value)
    if isinstance(value, dict):
        return (
            _DICT_TAG,
            tuple(sorted((k, freeze(v, normalized=normalized)) for k, v in value.items())),
        )
    if isinstance(value, list | tuple):
        return (_LIST_TAG, tuple(freeze(v, normalized=normalized) for v in value))
    if isinstance(value, float) and math.isnan(value):
        return "\x00nan"
    return value  # type: ignore[no-any-return]


def _fuzzy_equal(ref: Any, agent: Any, scorer: Callable[..., float], threshold: float) -> bool:
    if isinstance(ref, str) and isinstance(agent, str):
        if ref == agent:
            return True
        a, b = default_process(ref), default_process(agent)
        if not a or not b:
            return False
        return scorer(a, b) >= threshold
    if isinstance(ref, dict) and isinstance(agent, dict):
        return ref.keys() == agent.keys() and all(
            _fuzzy_equal(ref[k], agent[k], scorer, threshold) for k in ref
        )
    if isinstance(ref, list | tuple) and isinstance(agent, list | tuple):
        return len(ref) == len(agent) and all(
            _fuzzy_equal(r, a, scorer, threshold) for r, a in zip(ref, agent, strict=True)
        )
    return freeze(ref) == freeze(agent)


def _numeric_equal(ref: Any, agent: Any, abs_tol: float, rel_tol: float) -> bool:
    def number(value: Any) -> float | None:
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, str):
            return _as_number(value.strip())
        return None

    r, a = number(ref), number(agent)
    if r is None or a is None:
        return freeze(ref) == freeze(agent)
    return abs(r - a) <= max(abs_tol, rel_tol * abs(r))


@dataclass(frozen=True)
class FieldMatcher:
    """How one field's values are compared; ``key`` is None for non-equivalence modes."""

    mode: str
    compare: ValueMatcher
    keyable: bool

    def key(self, value: Any) -> Hashable:
        return freeze(value, normalized=self.mode == "normalized")


_MISSING = object()


@dataclass(frozen=True)
class ToolMatcher:
    """Argument matcher of one tool (see module docstring)."""

    mode: str
    threshold: float
    scorer: Callable[..., float]
    fields: Mapping[str, FieldMatcher] = field(default_factory=dict)

    @property
    def keyable(self) -> bool:
        """True when matching is an equivalence, so :meth:`key` decides it."""
        return self.mode in _KEYABLE and all(f.keyable for f in self.fields.values())

    @property
    def identifies(self) -> bool:
        """True when equal keys also mean the same call (no argument is ignored)."""
        return self.mode != "ignore" and all(f.mode != "ignore" for f in self.fields.values())

    def key(self, arguments: Any) -> Hashable:
        """The equivalence key of a call's arguments (only when :attr:`keyable`)."""
        if self.mode == "ignore":
            return ()
        normalized = self.mode == "normalized"
        if not self.fields or not isinstance(arguments, dict):
            return freeze(arguments, normalized=normalized)
        items = []
        for name, value in arguments.items():
            override = self.fields.get(name)
            if override is None:
                items.append((name, freeze(value, normalized=normalized)))
            elif override.mode != "ignore":
                items.append((name, override.key(value)))
        return (_DICT_TAG, tuple(sorted(items)))

    def _value_equal(self, ref: Any, agent: Any) -> bool:
        if self.mode == "fuzzy":
            return _fuzzy_equal(ref, agent, self.scorer, self.threshold)
        if self.mode == "normalized":
            return freeze(ref, normalized=True) == freeze(agent, normalized=True)
        return freeze(ref) == freeze(agent)

    def match(self, ref: Any, agent: Any) -> bool:
        """Whether the agent's arguments match the reference's under this tool's mode."""
        if self.mode == "ignore":
            return True
        if self.mode == "subset":
            return self._subset(ref, agent)
        if not self.fields or not (isinstance(ref, dict) and isinstance(agent, dict)):
            return self._value_equal(ref, agent)
        names = set(ref) | set(agent)
        for name in names:
            override = self.fields.get(name)
            if override is not None and override.mode == "ignore":
                continue
            r, a = ref.get(name, _MISSING), agent.get(name, _MISSING)
            if r is _MISSING or a is _MISSING:
                return False
            if not (override.compare(r, a) if override else self._value_equal(r, a)):
                return False
        return True

    def _subset(self, ref: Any, agent: Any) -> bool:
        if isinstance(ref, list | tuple) and isinstance(agent, list | tuple):
            return len(agent) >= len(ref) and all(
                freeze(r) == freeze(a) for r, a in zip(ref, agent, strict=False)
            )
        if not (isinstance(ref, dict) and isinstance(agent, dict)):
            return freeze(ref) == freeze(agent)
        for name, r in ref.items():
            override = self.fields.get(name)
            if override is not None and override.mode == "ignore":
                continue
            if name not in agent:
                return False
            a = agent[name]
            if not (override.compare(r, a) if override else freeze(r) == freeze(a)):
                return False
        return True


def _field_matcher(
    name: str,
    spec: FieldMatch,
    scorer: Callable[..., float],
    default_threshold: float,
    plugins: Mapping[str, ValueMatcher],
) -> FieldMatcher:
    mode = spec.mode
    compare: ValueMatcher
    if mode == "exact":

        def compare(r: Any, a: Any) -> bool:
            return freeze(r) == freeze(a)
    elif mode == "normalized":

        def compare(r: Any, a: Any) -> bool:
            return freeze(r, normalized=True) == freeze(a, normalized=True)
    elif mode == "fuzzy":
        threshold = spec.threshold if spec.threshold is not None else default_threshold

        def compare(r: Any, a: Any) -> bool:
            return _fuzzy_equal(r, a, scorer, threshold)
    elif mode == "numeric":
        abs_tol, rel_tol = spec.abs_tol, spec.rel_tol

        def compare(r: Any, a: Any) -> bool:
            return _numeric_equal(r, a, abs_tol, rel_tol)
    elif mode == "ignore":

        def compare(r: Any, a: Any) -> bool:
            return True
    elif mode in plugins:
        compare = plugins[mode]
    else:
        raise ConfigError(
            f"unknown field matching mode {mode!r}: use one of {', '.join(FIELD_MODES)} or a"
            " registered plug-in matcher",
            field=f"matching.fields.{name}.mode",
        )
    return FieldMatcher(mode=mode, compare=compare, keyable=mode in _KEYABLE)


class MatcherSet:
    """The matcher of every tool, built once from a :class:`MatchingConfig`."""

    def __init__(
        self, config: MatchingConfig, plugins: Mapping[str, ValueMatcher] | None = None
    ) -> None:
        plugins = dict(plugins or {})
        self._scorer = _SCORERS[config.fuzzy_scorer]
        self._check_call_mode(config.mode, "matching.mode", plugins)
        self._default = ToolMatcher(config.mode, config.fuzzy_threshold, self._scorer)
        self._by_tool: dict[str, ToolMatcher] = {}
        for tool, spec in config.tools.items():
            mode = spec.mode or config.mode
            self._check_call_mode(mode, f"matching.tools.{tool}.mode", plugins)
            threshold = spec.threshold if spec.threshold is not None else config.fuzzy_threshold
            fields = {
                name: _field_matcher(name, f, self._scorer, threshold, plugins)
                for name, f in spec.fields.items()
            }
            self._by_tool[tool] = ToolMatcher(mode, threshold, self._scorer, fields)

    @staticmethod
    def _check_call_mode(mode: str, where: str, plugins: Mapping[str, ValueMatcher]) -> None:
        if mode not in CALL_MODES:
            hint = " (semantic matching is a plug-in: set it per field)" if mode in plugins else ""
            raise ConfigError(
                f"unknown argument matching mode {mode!r}: use one of {', '.join(CALL_MODES)}"
                + hint,
                field=where,
            )

    def for_tool(self, tool: str) -> ToolMatcher:
        """The matcher used for calls of ``tool``."""
        return self._by_tool.get(tool, self._default)

    @property
    def all_keyable(self) -> bool:
        """True when every tool's matching is an equivalence (the batch fast path)."""
        return self._default.keyable and all(m.keyable for m in self._by_tool.values())
