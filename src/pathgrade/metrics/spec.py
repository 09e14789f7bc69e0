"""A metric's definition as a value: name, cut-off, parameters, direction, undefined policy.

A :class:`MetricSpec` is frozen and hashable; its printed form is its canonical name and
parses back to an equal spec::

    >>> spec = parse_spec("ap@5(denominator=gold)")
    >>> spec.name, spec.k, spec.get("denominator", "min")
    ('ap', 5, 'gold')
    >>> str(spec)
    'ap@5(denominator=gold)'
    >>> str(parse_spec("ndcg@10(gain=linear)")) == "ndcg@10(gain=linear)"
    True

The grammar is ``name [@k] [(key=value, ...)]``: ``name`` is an identifier (letters, digits,
``_`` and ``-``, starting with a letter or ``_``), ``k`` a positive integer, each ``value`` a
bare token (letters, digits, ``_ . - + :``). Whitespace around tokens is ignored; parameters
are printed sorted by key, separated by ``,`` with no spaces. Nothing is ever evaluated.

Whether higher or lower is better comes from the metric's catalogue row
(:mod:`pathgrade.metrics.catalogue`; :func:`pathgrade.metrics.registry.resolve` fills it in);
the undefined policy is the
``undefined`` parameter (``nan``: excluded from means and counted, the default; ``zero``;
``error``), so it is part of the printed form when it is not the default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal, cast

from pathgrade.core.errors import InputError

UndefinedPolicy = Literal["nan", "zero", "error"]
UNDEFINED_POLICIES: tuple[UndefinedPolicy, ...] = ("nan", "zero", "error")
#: Which way is better: ``higher``, ``lower``, or ``neither`` (no direction means anything).
Direction = Literal["higher", "lower", "neither"]

_NAME = r"[A-Za-z_][A-Za-z0-9_\-]*"
_VALUE = r"[A-Za-z0-9_.\-+:]+"
_SPEC_RE = re.compile(
    rf"^\s*(?P<name>{_NAME})\s*(?:@\s*(?P<k>[0-9]+)\s*)?(?:\((?P<params>[^()]*)\)\s*)?$"
)
_PARAM_RE = re.compile(rf"^\s*(?P<key>{_NAME})\s*=\s*(?P<value>{_VALUE})\s*$")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric as requested: ``name``, cut-off ``k`` (None: the whole list), ``params``.

    ``params`` is a tuple of ``(key, value)`` string pairs sorted by key, so two specs that
    print the same are equal and hash the same. ``direction`` does not take part in equality:
    it is a property of the metric, filled in from the catalogue by the registry.
    """

    name: str
    k: int | None = None
    params: tuple[tuple[str, str], ...] = ()
    direction: Direction = field(default="higher", compare=False)

    def __post_init__(self) -> None:
        if not re.fullmatch(_NAME, self.name):
            raise InputError(f"metric name {self.name!r} is not an identifier", field="metric")
        if self.k is not None and (isinstance(self.k, bool) or self.k < 1):
            raise InputError(f"metric {self.name!r}: cut-off must be >= 1, got {self.k!r}")
        keys = [key for key, _ in self.params]
        if len(set(keys)) != len(keys):
            raise InputError(f"metric {self.name!r}: a parameter is given twice: {keys}")
        for key, value in self.params:
            if not re.fullmatch(_NAME, key) or not re.fullmatch(_VALUE, value):
                raise InputError(f"metric {self.name!r}: bad parameter {key!r}={value!r}")
        ordered = tuple(sorted(self.params))
        if ordered != self.params:
            object.__setattr__(self, "params", ordered)
        policy = self.get("undefined", "nan")
        if policy not in UNDEFINED_POLICIES:
            raise InputError(
                f"metric {self.name!r}: undefined={policy!r}; expected one of "
                f"{', '.join(UNDEFINED_POLICIES)}"
            )

    @classmethod
    def of(cls, name: str, k: int | None = None, **params: object) -> MetricSpec:
        """Build a spec from keyword parameters: ``MetricSpec.of("ap", 5, denominator="gold")``."""
        return cls(name, k, tuple((key, _token(value)) for key, value in params.items()))

    def get(self, key: str, default: str) -> str:
        """The value of parameter ``key``, or ``default`` when it is not given."""
        for name, value in self.params:
            if name == key:
                return value
        return default

    @property
    def higher_is_better(self) -> bool:
        """True when higher is better (``direction == "higher"``)."""
        return self.direction == "higher"

    @property
    def param_dict(self) -> dict[str, str]:
        """The parameters as a new dict (a copy: the spec stays immutable)."""
        return dict(self.params)

    @property
    def undefined(self) -> UndefinedPolicy:
        """What an undefined value becomes: ``nan`` (excluded, counted), ``zero`` or ``error``."""
        return cast(UndefinedPolicy, self.get("undefined", "nan"))

    def with_params(self, **params: object) -> MetricSpec:
        """A copy with parameters added or replaced."""
        merged = self.param_dict | {key: _token(value) for key, value in params.items()}
        return replace(self, params=tuple(sorted(merged.items())))

    def __str__(self) -> str:
        text = self.name if self.k is None else f"{self.name}@{self.k}"
        if self.params:
            text += "(" + ",".join(f"{key}={value}" for key, value in self.params) + ")"
        return text

    def __repr__(self) -> str:
        return f"MetricSpec({str(self)!r})"


def _token(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_spec(text: str) -> MetricSpec:
    """Parse ``name[@k][(key=value,...)]`` into a :class:`MetricSpec` (never with ``eval``).

    Raises:
        InputError: the text does not follow the grammar (message names the text).
    """
    if not isinstance(text, str):
        raise InputError(f"a metric must be a string like 'ndcg@10', got {text!r}", field="metric")
    match = _SPEC_RE.match(text)
    if match is None:
        raise InputError(
            f"cannot parse metric {text!r}: expected name[@k][(key=value,...)], "
            "e.g. 'ndcg@10' or 'ap@5(denominator=gold)'",
            field="metric",
        )
    k = int(match["k"]) if match["k"] is not None else None
    params: list[tuple[str, str]] = []
    raw = match["params"]
    if raw is not None and raw.strip():
        for item in raw.split(","):
            pm = _PARAM_RE.match(item)
            if pm is None:
                raise InputError(
                    f"cannot parse metric {text!r}: parameter {item.strip()!r} is not key=value",
                    field="metric",
                )
            params.append((pm["key"], pm["value"]))
    return MetricSpec(match["name"], k, tuple(params))


def as_spec(value: str | MetricSpec) -> MetricSpec:
    """A spec from its text or itself."""
    return value if isinstance(value, MetricSpec) else parse_spec(value)


def params_from(mapping: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    """Sorted ``(key, value)`` string pairs from a mapping (for building specs in code)."""
    return tuple(sorted((key, _token(value)) for key, value in mapping.items()))
