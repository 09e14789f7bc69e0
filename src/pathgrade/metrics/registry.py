"""One explicit table of metrics: what each is called, its direction, its parameters.

Built-in metrics are rows of :data:`BUILTIN`; a duplicate name (or alias) is an error. Plug-ins
register through the entry-point group ``pathgrade.metrics``: each entry point loads to a
:class:`MetricInfo` or an iterable of them. Plug-ins are loaded lazily, the first time a name is
not found among the built-ins (or when :meth:`Registry.names` is asked for everything).

:func:`resolve` checks a spec against its row (known name, cut-off allowed, known parameters
with allowed values) and returns it with ``higher_is_better`` filled in; the printed form is
unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from importlib.metadata import entry_points
from typing import Literal

from pathgrade.core.errors import InputError
from pathgrade.metrics.spec import UNDEFINED_POLICIES, MetricSpec, as_spec

ENTRY_POINT_GROUP = "pathgrade.metrics"
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
    """One row of the registry."""

    name: str
    layer: str
    higher_is_better: bool
    summary: str
    cutoff: Cutoff = "optional"
    params: tuple[ParamDef, ...] = ()
    aliases: tuple[str, ...] = ()
    trec_eval: str = ""

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
_R = "retrieval"

#: The built-in metrics. Add a row to add a metric; a duplicate name is an error.
BUILTIN: tuple[MetricInfo, ...] = (
    MetricInfo("precision", _R, True, "relevant in the top K / K", "optional",
               (_REL, _NO_GOLD), ("P",), "P_K (set_P without K)"),
    MetricInfo("recall", _R, True, "relevant in the top K / |G|", "optional",
               (_REL, _NO_GOLD), ("R",), "recall_K (set_recall without K)"),
    MetricInfo("hit_rate", _R, True, "1 if a relevant document is in the top K", "optional",
               (_REL, _NO_GOLD), ("success", "hit"), "success_K"),
    MetricInfo("mrr", _R, True, "1 / rank of the first relevant document within K", "optional",
               (_REL, _NO_GOLD), ("recip_rank",), "recip_rank (without K)"),
    MetricInfo("ap", _R, True, "average precision over the top K", "optional",
               (_REL, _NO_GOLD,
                _p("denominator", "min", "min", "gold", doc="min(|G|, K) or |G|")),
               (), "map_cut_K with denominator=gold; map without K"),
    MetricInfo("map", _R, True, "average precision over the whole ranking, / |G|", "none",
               (_REL, _NO_GOLD), (), "map"),
    MetricInfo("dcg", _R, True, "discounted cumulative gain of the top K", "optional",
               (_GAIN, _NO_GOLD), (), "(no trec_eval equivalent printed by default)"),
    MetricInfo("ndcg", _R, True, "DCG / ideal DCG of the top K", "optional",
               (_GAIN, _NO_GOLD), (), "ndcg_cut_K (ndcg without K) with gain=linear"),
    MetricInfo("num_rel", _R, True, "number of relevant documents |G|", "none",
               (_REL, _NO_GOLD), (), "num_rel"),
    MetricInfo("num_rel_ret", _R, True, "relevant documents retrieved (within K)", "optional",
               (_REL, _NO_GOLD), (), "num_rel_ret"),
    MetricInfo("num_ret", _R, True, "documents retrieved (within K)", "optional",
               (_NO_GOLD,), (), "num_ret"),
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
        """Check ``spec`` against its row; return it with ``higher_is_better`` filled in."""
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
        return replace(spec, higher_is_better=row.higher_is_better)


#: The process-wide registry of built-in metrics (plug-ins added lazily).
REGISTRY = Registry(BUILTIN)


def resolve(spec: str | MetricSpec, layer: str | None = None) -> MetricSpec:
    """:meth:`Registry.resolve` on the default registry."""
    return REGISTRY.resolve(spec, layer)


def info(name: str) -> MetricInfo:
    """:meth:`Registry.get` on the default registry."""
    return REGISTRY.get(name)
