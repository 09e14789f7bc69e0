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
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.config import PENALTY_KEYS, ScoringConfig
from pathgrade.core.errors import ConfigError


def config_from_mapping(data: dict[str, Any], *, file: str | None = None) -> ScoringConfig:
    """Validate a config table; errors name the file and the dotted field."""
    try:
        return ScoringConfig.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        if first["type"] == "extra_forbidden" and tuple(first["loc"][:1]) == ("penalties",):
            message += f"; valid keys (the defect kinds): {', '.join(PENALTY_KEYS)}"
        raise ConfigError(message, file=file, field=where or None) from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"cannot read config: {error.strerror}", file=str(path)) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"malformed TOML: {error}", file=str(path)) from None


def load_config(path: str | Path | None = None, *, cwd: str | Path = ".") -> ScoringConfig:
    """The config from ``path``, or found in ``cwd`` as described above, or the defaults."""
    if path is not None:
        target = Path(path)
        data = _read_toml(target)
        if target.name == "pyproject.toml":
            data = data.get("tool", {}).get("pathgrade", {})
        return config_from_mapping(data, file=str(target))
    local = Path(cwd) / "pathgrade.toml"
    if local.is_file():
        return config_from_mapping(_read_toml(local), file=str(local))
    pyproject = Path(cwd) / "pyproject.toml"
    if pyproject.is_file():
        table = _read_toml(pyproject).get("tool", {}).get("pathgrade")
        if table is not None:
            return config_from_mapping(table, file=f"{pyproject} [tool.pathgrade]")
    return ScoringConfig()
