"""The house rule, enforced: pure layers never import I/O, CLI, rendering or network code."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "pathgrade"
PURE = ("metrics", "stats", "gates", "core", "cases")
FORBIDDEN = ("io", "store", "report", "judge", "engines", "cli")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_pure_layers_import_no_io() -> None:
    offenders = []
    for layer in PURE:
        for path in (SRC / layer).rglob("*.py"):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] == "pathgrade" and len(parts) > 1 and parts[1] in FORBIDDEN:
                    offenders.append(f"{path.relative_to(SRC)} imports {name}")
                if parts[0] in ("httpx", "requests", "urllib", "socket", "duckdb"):
                    offenders.append(f"{path.relative_to(SRC)} imports {name}")
    assert offenders == []


def test_pure_layers_do_not_open_files() -> None:
    offenders = []
    for layer in PURE:
        for path in (SRC / layer).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open":
                    offenders.append(str(path.relative_to(SRC)))
    assert offenders == []


def test_nothing_imports_the_cli() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if "cli" in path.relative_to(SRC).parts:
            continue
        offenders += [f"{path}: {n}" for n in _imports(path) if n.startswith("pathgrade.cli")]
    assert offenders == []
