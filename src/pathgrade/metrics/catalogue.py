"""The metric catalogue: one row for every metric name pathgrade emits, in any layer.

A row says what a number *is*: its layer, whether higher or lower is better, its range, its
kind (``binary``, ``count``, ``proportion``, ``score``, ``quantity``), its unit, what happens
when it is undefined, and a one-line definition. ``compare``, ``gate``, ``report`` and the
text output read direction and kind from here and nowhere else; the retrieval registry
(:mod:`pathgrade.metrics.registry`) takes its direction, layer, summary and aliases from the
retrieval rows; ``docs/catalogue.md`` is :func:`markdown_table` (a test keeps them equal).

Names are looked up in this order:

1. a row's name or alias (``path_score``, ``P``), or a deprecated spelling of a row's name
   (``usage.latency_ms`` for ``latency_ms``: accepted, with one
   :class:`~pathgrade.core.errors.DeprecatedNameWarning` per spelling; :func:`canonical`);
2. a family pattern: ``rubric.<dimension>``, ``pass@<k>``, ``pass^<k>``;
3. a parameterised retrieval name, parsed by :func:`pathgrade.metrics.spec.parse_spec` to its
   base name (``ndcg@10`` and ``precision@5(no_gold=zero)`` are the ``ndcg`` and
   ``precision`` rows; ``P@5`` the ``precision`` row through its alias).

>>> row("precision@5(no_gold=zero)").name, direction("missing_steps"), json_kind("goal_success")
('precision', 'lower', 'bool')
>>> closest("ndgc@10")
['ndcg@10']

Pure: no I/O; the table is a module constant.
"""

from __future__ import annotations

import difflib
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import get_args

from pathgrade.core.errors import DeprecatedNameWarning, InputError
from pathgrade.core.results import MetricKind
from pathgrade.metrics.catalogue_rows import JSON_KINDS, ROWS, Kind, Layer, MetricRow
from pathgrade.metrics.spec import Direction, parse_spec

__all__ = [
    "DIRECTIONS",
    "JSON_KINDS",
    "KINDS",
    "LAYERS",
    "Direction",
    "Kind",
    "Layer",
    "MetricRow",
    "canonical",
    "closest",
    "deprecated_names",
    "direction",
    "find",
    "is_known",
    "json_kind",
    "markdown_table",
    "names",
    "row",
    "rows",
]

DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
KINDS: tuple[Kind, ...] = get_args(Kind)
#: The layers, in the order the docs list them.
LAYERS: tuple[Layer, ...] = get_args(Layer)


def _build() -> tuple[tuple[MetricRow, ...], dict[str, MetricRow]]:
    by_name: dict[str, MetricRow] = {}
    for item in ROWS:
        for key in (item.name, *item.aliases, *item.deprecated):
            if key in by_name:
                raise ValueError(f"metric name {key!r} is catalogued twice")
            by_name[key] = item
    # The defect rows equal core.config.PENALTY_KEYS: tests/metrics/test_catalogue.py checks
    # it, so that this pure table does not import the pydantic config (start-up, issue 21).
    return ROWS, by_name


_ROWS, _BY_NAME = _build()
_FAMILIES = tuple(r for r in _ROWS if r.pattern)
#: Each deprecated spelling -> the one name it stands for.
_DEPRECATED: Mapping[str, str] = {old: r.name for r in _ROWS for old in r.deprecated}


def _note_deprecated(old: str, new: str) -> None:
    # One call site, so the warnings registry shows each spelling's note once per process.
    warnings.warn(
        f"metric name {old!r} is deprecated: it is {new!r}, the same quantity; write {new!r}"
        " (docs/catalogue.md)",
        DeprecatedNameWarning,
        stacklevel=1,
    )


def canonical(name: str) -> str:
    """The one name of ``name``: a deprecated spelling becomes its row's name, with a
    :class:`~pathgrade.core.errors.DeprecatedNameWarning`; any other name is returned as it is
    (known or not).

    >>> canonical("path_score"), canonical("ndcg@10")
    ('path_score', 'ndcg@10')
    """
    new = _DEPRECATED.get(name)
    if new is None:
        return name
    _note_deprecated(name, new)
    return new


def deprecated_names() -> Mapping[str, str]:
    """Every deprecated spelling and the one name it stands for (``usage.cost`` -> ``cost``)."""
    return dict(_DEPRECATED)


def find(name: str) -> MetricRow | None:
    """The row of ``name`` (see the module docstring for the lookup order), or None."""
    hit = _BY_NAME.get(name)
    if hit is not None:
        if name in _DEPRECATED:
            _note_deprecated(name, hit.name)
        return hit
    for family in _FAMILIES:
        if re.fullmatch(family.pattern, name):
            return family
    try:
        spec = parse_spec(name)
    except InputError:
        return None
    base = _BY_NAME.get(spec.name)
    return base if base is not None and base.parameterised else None


def row(name: str) -> MetricRow:
    """The row of ``name``. Raises :class:`InputError` naming the closest known names."""
    hit = find(name)
    if hit is None:
        near = closest(name)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise InputError(
            f"unknown metric {name!r}{hint} (every metric is listed in docs/catalogue.md)",
            field="metric",
        )
    return hit


def is_known(name: str) -> bool:
    """Whether the catalogue has a row for ``name``."""
    return find(name) is not None


def direction(name: str) -> Direction:
    """``higher``, ``lower`` or ``neither`` (raises :class:`InputError` for unknown names)."""
    return row(name).direction


def json_kind(name: str) -> MetricKind:
    """How ``name``'s value is typed in JSON (raises for unknown names)."""
    return row(name).json_kind


def rows(layer: str | None = None) -> tuple[MetricRow, ...]:
    """Every row in table order (within a layer: the order the layer emits them)."""
    return tuple(r for r in _ROWS if layer is None or r.layer == layer)


def names(layer: str | None = None) -> list[str]:
    """Row names in table order, optionally of one layer (trajectory: output order)."""
    return [r.name for r in rows(layer)]


def closest(name: str, n: int = 3) -> list[str]:
    """Up to ``n`` known names closest to ``name`` (difflib), for error messages.

    A parameterised name whose base is unknown is matched on its base and keeps its suffix:
    ``ndgc@10`` -> ``ndcg@10``.
    """
    try:
        spec = parse_spec(name)
    except InputError:
        spec = None
    if spec is not None and (spec.k is not None or spec.params):
        bases = sorted({k for k, r in _BY_NAME.items() if r.parameterised})
        near = difflib.get_close_matches(spec.name, bases, n=n)
        if near:
            return [str(replace(spec, name=base)) for base in near]
    near = difflib.get_close_matches(name, sorted(_BY_NAME), n=n)
    return list(dict.fromkeys(_DEPRECATED.get(k, k) for k in near))


def _number(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}"


def _range(item: MetricRow) -> str:
    right = ")" if math.isinf(item.hi) else "]"
    left = "(" if math.isinf(item.lo) else "["
    return f"{left}{_number(item.lo)}, {_number(item.hi)}{right}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if text else "-"


_POLICY_TEXT: Mapping[str, str] = {"nan": "null", "zero": "0", "error": "error"}


def markdown_table() -> str:
    """Every row as Markdown, one table per layer (``docs/catalogue.md`` is this text).

    The ``undefined`` column says what an undefined value becomes (``null``: excluded from
    means and counted) and when it happens.
    """
    lines: list[str] = []
    header = "| name | better | kind | range | unit | undefined | definition |"
    for layer in LAYERS:
        lines += ["", f"### {layer}", "", header, "|---|---|---|---|---|---|---|"]
        for item in rows(layer):
            name = f"`{item.name}`" + "".join(f" (`{a}`)" for a in item.aliases)
            name += "".join(f" (`{old}`, deprecated)" for old in item.deprecated)
            when = item.undefined_when or "its layer does not apply"
            cells = (
                name,
                item.direction,
                item.kind,
                _range(item),
                item.unit,
                f"{_POLICY_TEXT[item.undefined]}: {when}",
                item.definition,
            )
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines[1:]) + "\n"
