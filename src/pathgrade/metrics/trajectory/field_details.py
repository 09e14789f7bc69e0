"""Per-field details of aligned pairs: which mode compared each argument field, what it
measured, the threshold, and whether the field matched (the ``fields`` list of an aligned
step in a result record).

A tool's arguments are *compared field by field* when its matcher has field overrides or
its call mode is ``semantic`` or ``judge`` (:mod:`~pathgrade.metrics.trajectory.arguments`);
only then, and only for a pair of the same tool, does an aligned step carry ``fields``
(:func:`pair_fields`); otherwise the key is absent, so records of configs without field
modes are unchanged. Each entry is :meth:`FieldDetail.to_dict
<pathgrade.metrics.trajectory.semantic_fields.FieldDetail.to_dict>`:

* ``semantic``: ``similarity`` = the cosine, ``threshold`` = the cosine threshold (absent
  when no cosine decided: equal after normalisation, not free text, or the number guard);
* ``judge``: ``verdict`` and ``judge_id`` (the judge cache key), or ``judge_error`` with
  ``match: null`` (undefined: never a silent match or mismatch);
* ``fuzzy``: ``similarity`` = the rapidfuzz score (0-100) of the two strings after
  ``default_process`` (100 when equal as given, 0 when one is empty after processing),
  ``threshold`` = the ratio threshold;
* ``numeric``: ``difference`` = ``|reference - agent|``, ``threshold`` =
  ``max(abs_tol, rel_tol * |reference|)``;
* ``exact``, ``normalized``, ``ignore`` (a field the override skips: ``match: true``) and
  plug-in matchers: the mode and the match only.

The details are computed after scoring, from the alignment and the steps, and only for
configs that use field modes (:func:`uses_field_modes`): the default scoring path pays
nothing. Runs scored against a reference written with the path grammar carry no
``fields`` (their aligned reference steps are the run's instance of the grammar, which the
result does not keep).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pathgrade.core.config import FieldMatch, MatchingConfig
from pathgrade.core.results import AlignedStep, Defect, ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.metrics.trajectory.arguments import MatcherSet, ToolMatcher
from pathgrade.metrics.trajectory.grammar import scored_path
from pathgrade.metrics.trajectory.semantic_fields import FieldDetail
from pathgrade.metrics.trajectory.value_matching import fuzzy_ratio, number_of

_BY_FIELD_MODES = frozenset({"semantic", "judge"})

Details = Callable[[int], tuple[tuple[Defect, ...], tuple[AlignedStep, ...]]]


def uses_field_modes(matching: MatchingConfig) -> bool:
    """Whether any tool's arguments are compared field by field: a field override, or a
    ``semantic``/``judge`` call mode (global or per tool)."""
    if matching.mode in _BY_FIELD_MODES:
        return True
    return any(spec.fields or spec.mode in _BY_FIELD_MODES for spec in matching.tools.values())


def by_field(matcher: ToolMatcher) -> bool:
    """Whether ``matcher`` compares arguments field by field (module docstring)."""
    if matcher.mode == "ignore":
        return False
    return bool(matcher.fields) or matcher.mode in _BY_FIELD_MODES


def _enriched(
    detail: FieldDetail, spec: FieldMatch | None, matcher: ToolMatcher, ref: Any, agent: Any
) -> FieldDetail:
    """``detail`` with the fuzzy ratio or the numeric difference and their thresholds."""
    if detail.mode == "fuzzy":
        threshold = spec.threshold if spec is not None and spec.threshold is not None else None
        threshold = matcher.threshold if threshold is None else threshold
        ratio = fuzzy_ratio(ref, agent, matcher.scorer)
        return replace(detail, similarity=ratio, threshold=threshold)
    if detail.mode == "numeric" and spec is not None:
        r, a = number_of(ref), number_of(agent)
        if r is None or a is None:
            return detail
        return replace(
            detail, difference=abs(r - a), threshold=max(spec.abs_tol, spec.rel_tol * abs(r))
        )
    return detail


_MISSING = object()


def pair_fields(
    matcher: ToolMatcher, specs: Mapping[str, FieldMatch], ref: Any, agent: Any
) -> tuple[FieldDetail, ...] | None:
    """The details of one same-tool pair (sorted by field name; ignored fields listed with
    mode ``ignore``), or None when ``matcher`` does not compare field by field."""
    if not by_field(matcher):
        return None
    details = matcher.explain(ref, agent)
    if not (isinstance(ref, dict) and isinstance(agent, dict)):
        return details
    out = []
    for detail in details:
        r, a = ref.get(detail.name, _MISSING), agent.get(detail.name, _MISSING)
        if r is _MISSING or a is _MISSING:
            out.append(detail)
        else:
            out.append(_enriched(detail, specs.get(detail.name), matcher, r, a))
    names = set(ref) if matcher.mode == "subset" else set(ref) | set(agent)
    for name in names:
        override = matcher.fields.get(name)
        if override is not None and override.mode == "ignore":
            out.append(FieldDetail(name, "ignore", True))
    return tuple(sorted(out, key=lambda d: d.name))


class FieldDetails:
    """The ``fields`` of every aligned pair of a scored batch, computed on demand per run."""

    def __init__(
        self,
        cases: Mapping[str, Case],
        runs: Sequence[Run],
        matching: MatchingConfig,
        plugins: Mapping[str, Any] | None,
        result: ScoreResult,
    ) -> None:
        self._cases, self._runs, self._result = cases, runs, result
        self._matching = matching
        self._matchers = MatcherSet(matching, plugins)

    def alignment(self, run: int, steps: tuple[AlignedStep, ...]) -> tuple[AlignedStep, ...]:
        """``steps`` (run ``run``'s alignment) with ``fields`` on each pair compared field by
        field (the others unchanged)."""
        ref_index = int(self._result.reference_index[run])
        if ref_index < 0:
            return steps
        the_run = self._runs[run]
        written = self._cases[the_run.case_id].reference_paths()[ref_index]
        path = scored_path(written, self._result.reference_branch.get(run))
        out = []
        for entry in steps:
            i, j = entry.reference_step, entry.agent_step
            if i is None or j is None or not entry.tool_match:
                out.append(entry)
                continue
            ref, agent = path[i], the_run.steps[j]
            spec = self._matching.tools.get(ref.tool)
            found = pair_fields(
                self._matchers.for_tool(ref.tool),
                spec.fields if spec is not None else {},
                ref.arguments,
                agent.arguments,
            )
            if found is None:
                out.append(entry)
            else:
                out.append(replace(entry, fields=tuple(d.to_dict() for d in found)))
        return tuple(out)

    def details(self, details: Details) -> Details:
        """``details`` with :meth:`alignment` applied to each run's alignment."""

        def with_fields(run: int) -> tuple[tuple[Defect, ...], tuple[AlignedStep, ...]]:
            defects, steps = details(run)
            return defects, self.alignment(run, steps)

        return with_fields


def with_field_details(
    result: ScoreResult,
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    matching: MatchingConfig,
    plugins: Mapping[str, Any] | None = None,
) -> ScoreResult:
    """``result`` whose aligned pairs carry ``fields`` (a new result; the record writer then
    serialises each run's objects, as ``fields`` are not among the alignment columns);
    ``result`` itself when no tool's arguments are compared field by field."""
    if not uses_field_modes(matching):
        return result
    found = FieldDetails(cases, runs, matching, plugins, result)
    return replace(result, details=found.details(result.details), alignment_columns=None)
