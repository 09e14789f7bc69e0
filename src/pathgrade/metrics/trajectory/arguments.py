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
- ``semantic``: field by field (top-level names); two strings are equal when ``normalized``
  says so, or when the field is free text (:mod:`~pathgrade.metrics.trajectory.evidence`:
  the tools file's schema, else the documented heuristic), no guard decides otherwise
  (:mod:`pathgrade.semantic.guards`: ids always, and ``[matching.semantic] guards``), and the
  cosine of their embeddings is ``>= threshold`` (the tool's ``threshold``, else
  ``[matching.semantic] threshold``, default ``SEMANTIC_THRESHOLD``); with a ``band``, a
  cosine inside it is *uncertain*: the judge decides (``cascade``) or the pair is undefined
  (:mod:`~pathgrade.metrics.trajectory.semantic_fields`); other values and non-free-text
  fields as ``normalized``; objects and lists element-wise.
- ``judge``: as ``semantic``, with the LLM judge's verdict in place of the cosine; a
  ``judge_error`` is no match here and makes the pair *undefined* (:meth:`ToolMatcher.undefined`,
  counted by :func:`pathgrade.score`).

Per-field overrides (top-level argument names) take the field modes ``exact``, ``normalized``,
``fuzzy``, ``numeric`` (``|a - b| <= max(abs_tol, rel_tol * |reference|)``), ``ignore``
(the field is skipped, present or not), ``semantic`` and ``judge`` (the field is free text
whatever its schema: the override says so; strings only for ``semantic``, any value for
``judge``), or the name of a plug-in matcher (``(reference_value, agent_value) -> bool``).
Embeddings and verdicts are read from an :class:`~pathgrade.metrics.trajectory.evidence.
ArgumentEvidence` passed as the ``semantic`` plug-in (made before scoring by
:mod:`pathgrade.semantic`); a plain callable named ``semantic`` is used as a plug-in, as before.

Modes that are equivalence relations (``exact``, ``normalized``, ``ignore``, with only such
field overrides) give every call a *key*: two calls match exactly when their keys are equal,
which lets the engine compare whole batches with integer codes. The others are compared pair
by pair with :meth:`ToolMatcher.match`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from pathgrade.core.config import (
    CALL_MODES,
    FIELD_MODES,
    SEMANTIC_THRESHOLD,
    FieldMatch,
    MatchingConfig,
    SemanticConfig,
)
from pathgrade.core.errors import ConfigError
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence
from pathgrade.metrics.trajectory.frozen_values import DICT_TAG
from pathgrade.metrics.trajectory.frozen_values import (  # re-exported: callers import them here
    freeze as freeze,
)
from pathgrade.metrics.trajectory.frozen_values import (
    normalize_text as normalize_text,
)
from pathgrade.metrics.trajectory.semantic_fields import (
    EVIDENCE_MODES,
    PLAIN,
    FieldDetail,
    SemanticField,
    SemanticOptions,
    cosine_threshold,
    evidence_of,
    need_evidence,
    options_of,
    single_threshold,
)
from pathgrade.metrics.trajectory.value_matching import fuzzy_equal, numeric_equal

ValueMatcher = Callable[[Any, Any], bool]
_KEYABLE = frozenset({"exact", "normalized", "ignore"})
_SCORERS: dict[str, Callable[..., float]] = {
    "token_set_ratio": fuzz.token_set_ratio,
    "token_sort_ratio": fuzz.token_sort_ratio,
    "ratio": fuzz.ratio,
    "partial_ratio": fuzz.partial_ratio,
    "WRatio": fuzz.WRatio,
}


@dataclass(frozen=True)
class FieldMatcher:
    """How one field's values are compared; ``key`` is None for non-equivalence modes."""

    mode: str
    compare: ValueMatcher
    keyable: bool
    semantic: SemanticField | None = None

    def detail(self, name: str, ref: Any, agent: Any) -> FieldDetail:
        """How ``ref`` and ``agent`` compare under this override."""
        if self.semantic is not None:
            compare = self.semantic.semantic if self.mode == "semantic" else self.semantic.judge
            return compare(ref, agent)
        return FieldDetail(name, self.mode, bool(self.compare(ref, agent)))

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
    tool: str = ""
    evidence: ArgumentEvidence | None = None
    semantic_threshold: float = SEMANTIC_THRESHOLD
    options: SemanticOptions = PLAIN

    def _semantic(self, name: str) -> SemanticField:
        assert self.evidence is not None  # checked when the matcher set is built
        return SemanticField(
            self.evidence, self.tool, name, self.semantic_threshold, False, self.options
        )

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
        return (DICT_TAG, tuple(sorted(items)))

    def _value_equal(self, ref: Any, agent: Any, name: str = "") -> bool:
        if self.mode == "semantic":
            return self._semantic(name).semantic(ref, agent).matched
        if self.mode == "judge":
            return self._semantic(name).judge(ref, agent).matched
        if self.mode == "fuzzy":
            return fuzzy_equal(ref, agent, self.scorer, self.threshold)
        if self.mode == "normalized":
            return freeze(ref, normalized=True) == freeze(agent, normalized=True)
        return freeze(ref) == freeze(agent)

    def match(self, ref: Any, agent: Any) -> bool:
        """Whether the agent's arguments match the reference's under this tool's mode."""
        if self.mode == "ignore":
            return True
        if self.mode == "subset":
            return self._subset(ref, agent)
        by_field = self.fields or self.mode in EVIDENCE_MODES
        if not by_field or not (isinstance(ref, dict) and isinstance(agent, dict)):
            return self._value_equal(ref, agent)
        names = set(ref) | set(agent)
        for name in names:
            override = self.fields.get(name)
            if override is not None and override.mode == "ignore":
                continue
            r, a = ref.get(name, _MISSING), agent.get(name, _MISSING)
            if r is _MISSING or a is _MISSING:
                return False
            if not (override.compare(r, a) if override else self._value_equal(r, a, name)):
                return False
        return True

    def explain(self, ref: Any, agent: Any) -> tuple[FieldDetail, ...]:
        """Field by field (top-level names, sorted), which mode decided and whether it
        matched, with the cosine of ``semantic`` strings; one entry named ``""`` when the
        arguments are not two objects. Agrees with :meth:`match` (all matched = a match,
        ``subset`` aside: there a field only the agent has is not listed)."""
        if self.mode == "ignore":
            return ()
        if not (isinstance(ref, dict) and isinstance(agent, dict)):
            return (self._detail("", None, ref, agent),)
        names = sorted(set(ref) if self.mode == "subset" else set(ref) | set(agent))
        out = []
        for name in names:
            override = self.fields.get(name)
            if override is not None and override.mode == "ignore":
                continue
            r, a = ref.get(name, _MISSING), agent.get(name, _MISSING)
            if r is _MISSING or a is _MISSING:
                out.append(FieldDetail(name, override.mode if override else self.mode, False))
            else:
                out.append(self._detail(name, override, r, a))
        return tuple(out)

    def _detail(self, name: str, override: FieldMatcher | None, r: Any, a: Any) -> FieldDetail:
        if override is not None:
            return override.detail(name, r, a)
        if self.mode == "semantic":
            return self._semantic(name).semantic(r, a)
        if self.mode == "judge":
            return self._semantic(name).judge(r, a)
        if self.mode == "subset":
            return FieldDetail(name, "exact", freeze(r) == freeze(a))
        return FieldDetail(name, self.mode, self._value_equal(r, a, name))

    def undefined(self, ref: Any, agent: Any) -> bool:
        """Whether comparing these arguments reads a ``judge_error`` or an uncertain field
        left undecided (the match is undefined)."""
        if self.evidence is None:
            return False
        if self.evidence.verdicts is None and not self._may_be_uncertain():
            return False
        return any(d.undefined for d in self.explain(ref, agent))

    def _may_be_uncertain(self) -> bool:
        fields = (f.semantic for f in self.fields.values() if f.semantic is not None)
        return self.options.banded or any(f.options.banded for f in fields)

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
    semantic: SemanticField | None = None,
) -> FieldMatcher:
    mode = spec.mode
    compare: ValueMatcher
    if mode in EVIDENCE_MODES and semantic is not None:
        how = semantic.semantic if mode == "semantic" else semantic.judge

        def compare(r: Any, a: Any) -> bool:
            return how(r, a).matched

        return FieldMatcher(mode=mode, compare=compare, keyable=False, semantic=semantic)
    if mode == "exact":

        def compare(r: Any, a: Any) -> bool:
            return freeze(r) == freeze(a)
    elif mode == "normalized":

        def compare(r: Any, a: Any) -> bool:
            return freeze(r, normalized=True) == freeze(a, normalized=True)
    elif mode == "fuzzy":
        threshold = spec.threshold if spec.threshold is not None else default_threshold

        def compare(r: Any, a: Any) -> bool:
            return fuzzy_equal(r, a, scorer, threshold)
    elif mode == "numeric":
        abs_tol, rel_tol = spec.abs_tol, spec.rel_tol

        def compare(r: Any, a: Any) -> bool:
            return numeric_equal(r, a, abs_tol, rel_tol)
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
        evidence = evidence_of(plugins)
        semantic_config = config.semantic or SemanticConfig()
        base = semantic_config.bounds[1] if config.semantic is not None else SEMANTIC_THRESHOLD
        options = options_of(semantic_config)
        self._check_call_mode(config.mode, "matching.mode", plugins, evidence, options)
        self._default = ToolMatcher(
            config.mode, config.fuzzy_threshold, self._scorer, {}, "", evidence, base, options
        )
        self._by_tool: dict[str, ToolMatcher] = {}
        for tool, spec in config.tools.items():
            mode = spec.mode or config.mode
            where = f"matching.tools.{tool}"
            threshold = spec.threshold if spec.threshold is not None else config.fuzzy_threshold
            tool_cosine = cosine_threshold(spec.threshold, base, mode, where)
            tool_options = single_threshold(options, spec.threshold)
            self._check_call_mode(mode, where + ".mode", plugins, evidence, tool_options)
            fields = {}
            for name, f in spec.fields.items():
                semantic = None
                if f.mode in EVIDENCE_MODES:
                    own = single_threshold(tool_options, f.threshold)
                    need_evidence(evidence, f.mode, f"{where}.fields.{name}.mode", own)
                    cosine = cosine_threshold(
                        f.threshold, tool_cosine, f.mode, f"{where}.fields.{name}"
                    )
                    semantic = SemanticField(evidence, tool, name, cosine, True, own)  # type: ignore[arg-type]
                fields[name] = _field_matcher(name, f, self._scorer, threshold, plugins, semantic)
            self._by_tool[tool] = ToolMatcher(
                mode, threshold, self._scorer, fields, tool, evidence, tool_cosine, tool_options
            )

    @staticmethod
    def _check_call_mode(
        mode: str,
        where: str,
        plugins: Mapping[str, ValueMatcher],
        evidence: ArgumentEvidence | None,
        options: SemanticOptions,
    ) -> None:
        if mode in EVIDENCE_MODES:
            need_evidence(evidence, mode, where, options)
        if mode not in CALL_MODES:
            hint = " (semantic matching is a plug-in: set it per field)" if mode in plugins else ""
            raise ConfigError(
                f"unknown argument matching mode {mode!r}: use one of {', '.join(CALL_MODES)}"
                + hint,
                field=where,
            )

    def for_tool(self, tool: str) -> ToolMatcher:
        """The matcher used for calls of ``tool``."""
        matcher = self._by_tool.get(tool)
        if matcher is None:
            default = self._default
            if default.mode not in EVIDENCE_MODES:
                return default
            matcher = self._by_tool[tool] = ToolMatcher(
                default.mode, default.threshold, self._scorer, {}, tool, default.evidence,
                default.semantic_threshold, default.options,
            )  # fmt: skip
        return matcher

    @property
    def all_keyable(self) -> bool:
        """True when every tool's matching is an equivalence (the batch fast path)."""
        return self._default.keyable and all(m.keyable for m in self._by_tool.values())
