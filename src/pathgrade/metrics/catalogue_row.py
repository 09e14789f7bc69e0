"""The row type of the metric catalogue: one :class:`MetricRow` per emitted metric name (its
layer, direction, kind, range, unit, undefined policy and definition). The rows themselves are
in :mod:`pathgrade.metrics.catalogue_rows`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pathgrade.core.results import MetricKind
from pathgrade.metrics.spec import Direction, UndefinedPolicy

Kind = Literal["binary", "count", "proportion", "score", "quantity"]
Layer = Literal[
    "trajectory",
    "retrieval",
    "tool",
    "answer",
    "abstention",
    "trials",
    "usage",
    "defects",
    "judge",
    "system",
    "conversation",
]

INF = math.inf
_KIND_RANGE: dict[str, tuple[float, float]] = {
    "binary": (0.0, 1.0),
    "count": (0.0, INF),
    "proportion": (0.0, 1.0),
    "quantity": (0.0, INF),
}
#: How a value of each kind is typed in JSON (:func:`pathgrade.core.results.json_value`):
#: binary as ``bool``, count as ``int``, proportion as a ``rate`` number, the rest as numbers.
JSON_KINDS: Mapping[Kind, MetricKind] = {
    "binary": "bool",
    "count": "count",
    "proportion": "rate",
    "score": "score",
    "quantity": "score",
}


@dataclass(frozen=True, slots=True)
class MetricRow:
    """One metric: what it is called, where it comes from, and how to read its value.

    Attributes:
        name: the emitted name; for a family, its pattern spelled ``rubric.<dimension>``.
        layer: the layer that emits it.
        direction: ``higher`` or ``lower`` is better; ``neither`` where no direction means
            anything (a property of the gold, a correlation whose ideal is 0).
        kind: ``binary`` (0/1), ``count`` (a non-negative integer), ``proportion`` (a ratio
            in [0, 1]), ``score`` (a number on its own scale), ``quantity`` (a measured
            amount in ``unit``).
        definition: the one-line definition.
        undefined_when: when the value is undefined (empty: whenever its layer does not apply).
        unit: what one unit of the value is (empty: dimensionless).
        bounds: the range ``(lo, hi)`` (``hi`` may be ``inf``, ``lo`` ``-inf``); by default
            [0, 1] for binary and proportion, [0, inf) for count and quantity; a ``score``
            must give its own.
        aliases: other accepted spellings (retrieval: ``P`` for ``precision``).
        deprecated: old spellings still accepted on input, each read as this row with a
            one-line :class:`~pathgrade.core.errors.DeprecatedNameWarning` (``usage.latency_ms``
            for ``latency_ms``); never emitted.
        pattern: for a family, the regular expression its names match in full.
        undefined: what an undefined value becomes; ``nan`` = ``null`` in JSON, excluded from
            every mean and counted (``undefined`` in summaries and comparisons).
    """

    name: str
    layer: Layer
    direction: Direction
    kind: Kind
    definition: str
    undefined_when: str = ""
    unit: str = ""
    bounds: tuple[float, float] | None = None
    aliases: tuple[str, ...] = ()
    pattern: str = ""
    undefined: UndefinedPolicy = "nan"
    deprecated: tuple[str, ...] = ()

    @property
    def range(self) -> tuple[float, float]:
        """``(lo, hi)``: ``bounds``, else the kind's default."""
        if self.bounds is not None:
            return self.bounds
        if self.kind not in _KIND_RANGE:
            raise ValueError(f"catalogue row {self.name!r}: a score needs explicit bounds")
        return _KIND_RANGE[self.kind]

    @property
    def lo(self) -> float:
        return self.range[0]

    @property
    def hi(self) -> float:
        return self.range[1]

    @property
    def parameterised(self) -> bool:
        """Takes ``@k`` and ``(key=value)`` parameters (the retrieval metrics)."""
        return self.layer == "retrieval"

    @property
    def higher_is_better(self) -> bool:
        """True when higher is better (False for ``lower`` and ``neither``)."""
        return self.direction == "higher"

    @property
    def json_kind(self) -> MetricKind:
        """How a value is typed in JSON (:data:`JSON_KINDS`)."""
        return JSON_KINDS[self.kind]


H: Direction = "higher"
L: Direction = "lower"
N: Direction = "neither"
#: The undefined policy of an amount the run and its steps may not record.
UNKNOWN_TOTAL = "neither the run nor any step recorded it"
