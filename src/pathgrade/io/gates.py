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
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.gates.model import Gate, GateSet, GateSettings

__all__ = ["load_gates", "parse_gates"]

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


def parse_gates(document: dict[str, Any], file: str = "<gates>") -> GateSet:
    """A :class:`GateSet` from an already parsed TOML document."""
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
    return GateSet(tuple(gates), settings)


def load_gates(path: str | Path) -> GateSet:
    """Read and validate a gates TOML file; errors name the file and the field."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise InputError(f"cannot read gates file: {error.strerror}", file=name) from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"invalid TOML: {error}", file=name) from None
    return parse_gates(document, name)
