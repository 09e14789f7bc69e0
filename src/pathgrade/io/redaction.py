"""The ``[redact]`` table of the configuration (``pathgrade cases promote``).

Found where the scoring config is (:mod:`pathgrade.io.config`): the file given, else
``pathgrade.toml`` in the working directory, else ``[tool.pathgrade.redact]`` of
``pyproject.toml`` there; none: the defaults (no fields, every pattern kind)::

    [redact]
    fields = ["password", "ssn"]     # any JSON key of that name: its value replaced whole
    kinds = ["email", "phone", "card", "api_key", "jwt", "token", "secret"]   # the default
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pathgrade.core.errors import ConfigError
from pathgrade.io.toml_files import read_toml
from pathgrade.production.redact import KINDS


@dataclass(frozen=True)
class RedactSettings:
    """The field names replaced whole, and the pattern kinds applied."""

    fields: tuple[str, ...] = ()
    kinds: tuple[str, ...] = KINDS


def _names(table: dict[str, Any], key: str, file: str) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(
            f"expected a list of non-empty strings, got {value!r}"[:200],
            file=file,
            field=f"redact.{key}",
        )
    return tuple(value)


def redact_settings(table: Any, *, file: str) -> RedactSettings:
    """Validate a ``[redact]`` table (``None``: the defaults)."""
    if table is None:
        return RedactSettings()
    if not isinstance(table, dict):
        raise ConfigError("expected a table", file=file, field="redact")
    unknown = sorted(set(table) - {"fields", "kinds"})
    if unknown:
        raise ConfigError(
            "unknown key (known: fields, kinds)", file=file, field=f"redact.{unknown[0]}"
        )
    kinds = _names(table, "kinds", file)
    for kind in kinds or ():
        if kind not in KINDS:
            raise ConfigError(
                f"unknown kind {kind!r}; known: {', '.join(KINDS)}", file=file, field="redact.kinds"
            )
    return RedactSettings(_names(table, "fields", file) or (), KINDS if kinds is None else kinds)


def load_redact_settings(
    path: str | Path | None = None, *, cwd: str | Path = "."
) -> RedactSettings:
    """The ``[redact]`` settings of ``path``, or of the config found in ``cwd``."""
    if path is None:
        local = Path(cwd) / "pathgrade.toml"
        pyproject = Path(cwd) / "pyproject.toml"
        if local.is_file():
            path = local
        elif pyproject.is_file():
            path = pyproject
        else:
            return RedactSettings()
    target = Path(path)
    data = read_toml(target, what="config", malformed="malformed TOML", error=ConfigError)
    if target.name == "pyproject.toml":
        tool = data.get("tool")
        table = tool.get("pathgrade") if isinstance(tool, dict) else None
        if not isinstance(table, dict):
            return RedactSettings()
        data = table
    return redact_settings(data.get("redact"), file=str(target))


__all__ = ["RedactSettings", "load_redact_settings", "redact_settings"]
