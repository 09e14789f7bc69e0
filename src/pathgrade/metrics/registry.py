"""One explicit table of computable metrics: their cut-off and parameters.

Built-in metrics are rows of :data:`BUILTIN`; a duplicate name (or alias) is an error. A
built-in row holds only what computing the metric needs (cut-off, parameters, the trec_eval
measure it equals); its layer, direction, summary and aliases are read from its row of the
metric catalogue (:mod:`pathgrade.metrics.catalogue`), the one place they are written.
Plug-ins register through the entry-point group ``pathgrade.metrics``: each entry point loads
to a :class:`MetricInfo` (which then carries its own direction) or an iterable of them.
Plug-ins are loaded lazily, the first time a name is not found among the built-ins (or when
:meth:`Registry.names` is asked for everything).

:func:`resolve` checks a spec against its row (known name, cut-off allowed, known parameters
with allowed values) and returns it with ``direction`` filled in; the printed form is
unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

from pathgrade.core.errors import InputError
from pathgrade.metrics import catalogue
from pathgrade.metrics.spec import UNDEFINED_POLICIES, Direction, MetricSpec, as_spec

ENTRY_POINT_GROUP = "pathgrade.metrics"


def entry_points(group: str) -> Any:
    """The installed entry points of ``group`` (importlib.metadata, imported only when needed)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


Cutoff = Literal["optional", "required", "none"]


@dataclass(frozen=True, slots=True)
class ParamDef:
    """An allowed parameter: its default, and its allowed values (``choices``) or ``kind``."""

    key: str
    default: str
    choices: tuple[str, ...] = ()
    kind: Literal["choice", "number"] = "choice"
    doc: str = ""

    def check(self, metric: str, value: str) -> None:
        """Raise :class:`InputError` when ``value`` is not allowed."""
        if self.kind == "number":
            try:
                float(value)
            except ValueError:
                raise InputError(
                    f"metric {metric!r}: {self.key}={value!r} is not a number", field="metric"
                ) from None
        elif value not in self.choices:
            raise InputError(
                f"metric {metric!r}: {self.key}={value!r}; expected one of "
                f"{', '.join(self.choices)}",
                field="metric",
            )


_UNDEFINED = ParamDef(
    "undefined", "nan", UNDEFINED_POLICIES, doc="nan (excluded, counted), zero, or error"
)


@dataclass(frozen=True, slots=True)
class MetricInfo:
    """One row of the registry (``direction``: ``higher``, ``lower`` or ``neither``)."""

    name: str
    layer: str
    direction: Direction
    summary: str
    cutoff: Cutoff = "optional"
    params: tuple[ParamDef, ...] = ()
    aliases: tuple[str, ...] = ()
    trec_eval: str = ""

    @property
    def higher_is_better(self) -> bool:
        """True when higher is better."""
        return self.direction == "higher"

    def param(self, key: str) -> ParamDef:
        """The definition of parameter ``key`` (``undefined`` is allowed everywhere)."""
        for item in self.params:
            if item.key == key:
                return item
        if key == "undefined":
            return _UNDEFINED
        allowed = ", ".join([p.key for p in self.params] + ["undefined"])
        raise InputError(
            f"metric {self.name!r} has no parameter {key!r}; allowed: {allowed}", field="metric"
        )

    def value(self, spec: MetricSpec, key: str) -> str:
        """The value of ``key`` in ``spec``, or this metric's default for it."""
        return spec.get(key, self.param(key).default)


def _p(key: str, default: str, *choices: str, doc: str = "") -> ParamDef:
    return ParamDef(key, default, tuple(choices), "choice", doc)


def _num(key: str, default: str, doc: str = "") -> ParamDef:
    return ParamDef(key, default, (), "number", doc)


_REL = _num("rel", "1", "relevance threshold: a document is relevant when gain >= rel")
_NO_GOLD = _p(
    "no_gold", "skip", "skip", "zero", "unanswerable", "error", doc="queries with no gold"
)
_GAIN = _p("gain", "exp", "exp", "linear", doc="exp: 2**g - 1; linear: g")


def _builtin(name: str, cutoff: Cutoff, params: tuple[ParamDef, ...], trec_eval: str) -> MetricInfo:
    """A built-in row: layer, direction, summary and aliases from the catalogue."""
    row = catalogue.row(name)
    return MetricInfo(
        row.name, row.layer, row.direction, row.definition, cutoff, params, row.aliases, trec_eval
    )


_DENOMINATOR = _p("denominator", "min", "min", "gold", doc="min(|G|, K) or |G|")

#: The built-in metrics. Add a row to add a metric (and its row to the catalogue); a duplicate
#: name is an error.
BUILTIN: tuple[MetricInfo, ...] = (
    _builtin("precision", "optional", (_REL, _NO_GOLD), "P_K (set_P without K)"),
    _builtin("recall", "optional", (_REL, _NO_GOLD), "recall_K (set_recall without K)"),
    _builtin("hit_rate", "optional", (_REL, _NO_GOLD), "success_K"),
    _builtin("mrr", "optional", (_REL, _NO_GOLD), "recip_rank (without K)"),
    _builtin("ap", "optional", (_REL, _NO_GOLD, _DENOMINATOR),
             "map_cut_K with denominator=gold; map without K"),
    _builtin("map", "none", (_REL, _NO_GOLD), "map"),
    _builtin("dcg", "optional", (_GAIN, _NO_GOLD), "(no trec_eval equivalent printed by default)"),
    _builtin("ndcg", "optional", (_GAIN, _NO_GOLD), "ndcg_cut_K (ndcg without K) with gain=linear"),
    _builtin("num_rel", "none", (_REL, _NO_GOLD), "num_rel"),
    _builtin("num_rel_ret", "optional", (_REL, _NO_GOLD), "num_rel_ret"),
    _builtin("num_ret", "optional", (_NO_GOLD,), "num_ret"),
)  # fmt: skip


class Registry:
    """A table of :class:`MetricInfo` by name and alias; plug-ins are loaded on first miss."""

    def __init__(self, rows: Iterable[MetricInfo] = (), *, plugins: bool = True) -> None:
        self._rows: dict[str, MetricInfo] = {}
        self._plugins_pending = plugins
        for row in rows:
            self.add(row)

    def add(self, row: MetricInfo) -> None:
        """Add one row. Raises ValueError when its name or an alias is already taken."""
        for key in (row.name, *row.aliases):
            if key in self._rows:
                raise ValueError(
                    f"metric name {key!r} is registered twice "
                    f"({self._rows[key].layer} and {row.layer})"
                )
        for key in (row.name, *row.aliases):
            self._rows[key] = row

    def _load_plugins(self) -> None:
        if not self._plugins_pending:
            return
        self._plugins_pending = False
        for point in entry_points(group=ENTRY_POINT_GROUP):
            loaded = point.load()
            rows = [loaded] if isinstance(loaded, MetricInfo) else list(loaded)
            for row in rows:
                if not isinstance(row, MetricInfo):
                    raise TypeError(f"entry point {point.name!r} gave {type(row).__name__}")
                self.add(row)

    def get(self, name: str) -> MetricInfo:
        """The row for ``name`` (or an alias). Raises InputError listing known names."""
        row = self._rows.get(name)
        if row is None:
            self._load_plugins()
            row = self._rows.get(name)
        if row is None:
            raise InputError(
                f"unknown metric {name!r}; known: {', '.join(self.names())}", field="metric"
            )
        return row

    def names(self, layer: str | None = None) -> list[str]:
        """Canonical names (no aliases), sorted; optionally of one layer."""
        self._load_plugins()
        return sorted({r.name for r in self._rows.values() if layer is None or r.layer == layer})

    def __iter__(self) -> Iterator[MetricInfo]:
        self._load_plugins()
        seen: dict[str, MetricInfo] = {r.name: r for r in self._rows.values()}
        return iter(sorted(seen.values(), key=lambda r: r.name))

    def resolve(self, spec: str | MetricSpec, layer: str | None = None) -> MetricSpec:
        """Check ``spec`` against its row; return it with ``direction`` filled in."""
        spec = as_spec(spec)
        row = self.get(spec.name)
        if layer is not None and row.layer != layer:
            raise InputError(
                f"metric {str(spec)!r} is a {row.layer} metric, not a {layer} metric",
                field="metric",
            )
        if row.cutoff == "none" and spec.k is not None:
            raise InputError(f"metric {row.name!r} takes no cut-off: {spec}", field="metric")
        if row.cutoff == "required" and spec.k is None:
            raise InputError(f"metric {row.name!r} needs a cut-off, e.g. {row.name}@10")
        for key, value in spec.params:
            row.param(key).check(str(spec), value)
        return replace(spec, direction=row.direction)


#: The process-wide registry of built-in metrics (plug-ins added lazily).
REGISTRY = Registry(BUILTIN)


def resolve(spec: str | MetricSpec, layer: str | None = None) -> MetricSpec:
    """:meth:`Registry.resolve` on the default registry."""
    return REGISTRY.resolve(spec, layer)


def info(name: str) -> MetricInfo:
    """:meth:`Registry.get` on the default registry."""
    return REGISTRY.get(name)
