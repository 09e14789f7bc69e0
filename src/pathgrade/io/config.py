"""Load the scoring configuration from TOML.

Looked up, in order: the file given with ``--config``; ``pathgrade.toml`` in the working
directory; the ``[tool.pathgrade]`` table of ``pyproject.toml`` there; else the defaults.
The table mirrors :class:`~pathgrade.core.config.ScoringConfig`::

    [penalties]              # points taken from 100
    missing_step = 25
    [budget]
    steps = 8
    [tool_kinds]
    refund = "write"
    [matching]
    mode = "exact"
    [matching.tools.refund.fields.amount]
    mode = "numeric"
    abs_tol = 0.01
    [compare]                # not scoring: outside the config hash
    primary = ["path_score", "ndcg@10"]

A ``[redact]`` table is not scoring either: ``pathgrade cases promote`` reads it
(:mod:`pathgrade.io.redaction`), and it is left out of the scoring config (and its hash).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.config import PENALTY_KEYS, ScoringConfig
from pathgrade.core.errors import ConfigError
from pathgrade.io.toml_files import read_toml


def config_from_mapping(data: dict[str, Any], *, file: str | None = None) -> ScoringConfig:
    """Validate a config table (without its ``[redact]`` table, which is not scoring);
    errors name the file and the dotted field."""
    try:
        return ScoringConfig.model_validate({k: v for k, v in data.items() if k != "redact"})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        if first["type"] == "extra_forbidden" and tuple(first["loc"][:1]) == ("penalties",):
            message += f"; valid keys (the defect kinds): {', '.join(PENALTY_KEYS)}"
        elif first["type"] != "extra_forbidden" and isinstance(
            first.get("input"), int | float | str | bool
        ):
            message += f" (got {str(first['input'])[:60]!r})"
        raise ConfigError(message, file=file, field=where or None) from None


def _read_toml(path: Path) -> dict[str, Any]:
    """The document (errors as :func:`pathgrade.io.toml_files.read_toml` gives them)."""
    return read_toml(path, what="config", malformed="malformed TOML", error=ConfigError)


def _tool_table(data: dict[str, Any], file: str) -> dict[str, Any] | None:
    """The ``[tool.pathgrade]`` table of a ``pyproject.toml`` document (None: there is none)."""
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError("expected a table", file=file, field="tool")
    table = tool.get("pathgrade")
    if table is not None and not isinstance(table, dict):
        raise ConfigError("expected a table", file=file, field="tool.pathgrade")
    return table


def load_config(path: str | Path | None = None, *, cwd: str | Path = ".") -> ScoringConfig:
    """The config from ``path``, or found in ``cwd`` as described above, or the defaults."""
    if path is not None:
        target = Path(path)
        data = _read_toml(target)
        if target.name == "pyproject.toml":
            data = _tool_table(data, str(target)) or {}
        return config_from_mapping(data, file=str(target))
    local = Path(cwd) / "pathgrade.toml"
    if local.is_file():
        return config_from_mapping(_read_toml(local), file=str(local))
    pyproject = Path(cwd) / "pyproject.toml"
    if pyproject.is_file():
        table = _tool_table(_read_toml(pyproject), str(pyproject))
        if table is not None:
            return config_from_mapping(table, file=f"{pyproject} [tool.pathgrade]")
    return ScoringConfig()
