"""Loading a gates file (TOML) into a :class:`pathgrade.gates.GateSet`.

Format (see ``docs/experiments.md`` and ``examples/gates.toml``)::

    [settings]            # optional: bootstrap of the ci_* rules
    seed = 0
    resamples = 10000
    ci_method = "percentile"

    [[gate]]
    name = "ndcg@5 up by at least 2%"   # optional; generated from the fields otherwise
    metric = "ndcg@5"
    rule = "min_relative_change"
    threshold = 0.02
    statistic = "mean"                   # optional
    hard = false                         # optional
    tolerance = 0.0                      # not_below/not_above_baseline only
    confidence = 0.95                    # ci_* rules only

Unknown keys and mistyped values are errors naming the file and the field
(``gates.toml: field 'gate[2].threshold': expected a number, got "high"``).

Every ``metric`` must be a name pathgrade defines (:func:`check_metric_name`), so that a typo
cannot make a gate pass vacuously: a row of the metric catalogue
(:mod:`pathgrade.metrics.catalogue`: ``path_score``, ``latency_ms``, ``rubric.<dim>``),
``defects.<kind>`` for a defect kind, ``usage.steps``, a parameterised
retrieval name whose parameters the registry accepts (``recall@20``, ``ndcg@10(gain=linear)``),
or a metric of an installed plug-in (entry-point group ``pathgrade.metrics``), or
``changed_variables``, a check of the sides' provenance (the number of controlled variables
that changed; :data:`pathgrade.gates.model.CHANGED_VARIABLES`). An unknown name
is one line naming the file, the gate and the closest valid names
(``gates.toml: field 'gate[3].metric': unknown defect kind 'defects.wasted_stpe'; did you mean
defects.wasted_step? ...``). A defined name that the data lacks fails the gate at evaluation.
``usage.latency_ms``, ``usage.tokens`` and ``usage.cost`` are deprecated spellings of
``latency_ms``, ``tokens`` and ``cost``: the gate reads the same values under the one name,
and the spelling gets a one-line note
(:class:`~pathgrade.core.errors.DeprecatedNameWarning`).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.gates.model import PROVENANCE_CHECKS, Gate, GateSet, GateSettings
from pathgrade.io.toml_files import read_toml
from pathgrade.metrics import catalogue, registry
from pathgrade.metrics.spec import parse_spec

__all__ = ["check_metric_name", "load_gates", "parse_gates"]

_GATE_KEYS: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "metric": (str,),
    "rule": (str,),
    "threshold": (int, float),
    "statistic": (str,),
    "tolerance": (int, float),
    "hard": (bool,),
    "confidence": (int, float),
}
_SETTINGS_KEYS: dict[str, tuple[type, ...]] = {
    "seed": (int,),
    "resamples": (int,),
    "ci_method": (str,),
}
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean"}


def _check(
    table: dict[str, Any], allowed: dict[str, tuple[type, ...]], where: str, file: str
) -> None:
    for key, value in table.items():
        if key not in allowed:
            raise InputError(
                f"unknown key, expected one of: {', '.join(allowed)}",
                file=file,
                field=f"{where}{key}",
            )
        types = allowed[key]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            expected = _TYPE_NAMES[types[-1]]
            raise InputError(
                f"expected {expected}, got {value!r}", file=file, field=f"{where}{key}"
            )


_PREFIXED = {"defects.": ("defects", "defect kind"), "usage.": ("usage", "usage field")}
_CATALOGUE_NOTE = "every name is listed in docs/catalogue.md"


def _plugin_names() -> list[str]:
    """Canonical names of the metrics installed plug-ins register (none by default)."""
    builtin = {info.name for info in registry.BUILTIN}
    return [name for name in registry.REGISTRY.names() if name not in builtin]


def _registered(name: str) -> bool:
    """Whether ``name`` parses to a metric of the registry (built-in or plug-in) whose
    cut-off and parameters it accepts."""
    try:
        registry.resolve(parse_spec(name))
    except InputError:
        return False
    return True


def check_metric_name(name: str, *, file: str | None = None, field: str = "metric") -> None:
    """Raise a one-line :class:`InputError` (naming ``file``, ``field`` and the closest valid
    names) unless ``name`` is a metric pathgrade defines (module docstring)."""
    name = catalogue.canonical(name)
    for prefix, (layer, what) in _PREFIXED.items():
        if name.startswith(prefix):
            known = catalogue.names(layer)
            if name in known:
                return
            # A near miss of a deprecated spelling (usage.latncy_ms) suggests the one name.
            spellings = {k: k for k in known}
            spellings.update(
                (old, new) for old, new in catalogue.deprecated_names().items()
                if old.startswith(prefix)
            )  # fmt: skip
            suffixes = {k.removeprefix(prefix): v for k, v in spellings.items()}
            near = difflib.get_close_matches(name.removeprefix(prefix), list(suffixes), n=3)
            hint = (
                f"did you mean {', '.join(dict.fromkeys(suffixes[k] for k in near))}?"
                if near
                else f"expected one of {', '.join(known)}"
            )
            raise InputError(
                f"unknown {what} {name!r}; {hint} ({_CATALOGUE_NOTE})", file=file, field=field
            )
    if name in PROVENANCE_CHECKS:
        return
    row = catalogue.find(name)
    if row is not None and not row.parameterised:
        return
    if _registered(name):
        return
    if row is not None:  # a retrieval row with a cut-off or parameter the registry refuses
        try:
            registry.resolve(parse_spec(name))
        except InputError as error:
            raise InputError(error.message, file=file, field=field) from None
    near = catalogue.closest(name)
    if not near:
        near = difflib.get_close_matches(name, [*_plugin_names(), *PROVENANCE_CHECKS], n=3)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise InputError(
        f"unknown metric {name!r}{hint} ({_CATALOGUE_NOTE}; plug-in metrics count too)",
        file=file,
        field=field,
    )


def parse_gates(
    document: dict[str, Any], file: str = "<gates>", *, check_names: bool = True
) -> GateSet:
    """A :class:`GateSet` from an already parsed TOML document.

    With ``check_names`` (the default), every gate's metric must be a defined name
    (:func:`check_metric_name`); the error names ``gate[i].metric``.
    """
    unknown = set(document) - {"settings", "gate"}
    if unknown:
        raise InputError(
            "unknown top-level key, expected [settings] and [[gate]] tables",
            file=file,
            field=sorted(unknown)[0],
        )
    settings_table = document.get("settings", {})
    if not isinstance(settings_table, dict):
        raise InputError("expected a table [settings]", file=file, field="settings")
    _check(settings_table, _SETTINGS_KEYS, "settings.", file)
    try:
        settings = GateSettings(**settings_table)
    except ValueError as error:
        key, _, message = str(error).partition(": ")
        raise InputError(message, file=file, field=f"settings.{key}") from None
    tables = document.get("gate")
    if not isinstance(tables, list) or not tables:
        raise InputError("no gates: add at least one [[gate]] table", file=file, field="gate")
    gates: list[Gate] = []
    for index, table in enumerate(tables, start=1):
        where = f"gate[{index}]."
        if not isinstance(table, dict):
            raise InputError("expected a [[gate]] table", file=file, field=f"gate[{index}]")
        _check(table, _GATE_KEYS, where, file)
        for required in ("metric", "rule"):
            if required not in table:
                raise InputError("missing required key", file=file, field=f"{where}{required}")
        values: dict[str, Any] = {
            k: float(v) if k in ("threshold", "tolerance", "confidence") else v
            for k, v in table.items()
        }
        try:
            gates.append(Gate(**values))
        except ValueError as error:
            key, _, message = str(error).partition(": ")
            raise InputError(message, file=file, field=f"{where}{key}") from None
        if check_names:
            check_metric_name(table["metric"], file=file, field=f"{where}metric")
    return GateSet(tuple(gates), settings)


def load_gates(path: str | Path) -> GateSet:
    """Read and validate a gates TOML file; errors name the file and the field (a file that
    cannot be read or parsed: as :func:`pathgrade.io.toml_files.read_toml` says)."""
    document = read_toml(path, what="gates file", malformed="invalid TOML")
    return parse_gates(document, str(path))
