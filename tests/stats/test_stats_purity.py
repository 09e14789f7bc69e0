"""stats/ and gates/ stay pure: no I/O layers imported; doctests run."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

import pathgrade

ROOT = Path(pathgrade.__file__).parent
FORBIDDEN = ("io", "store", "report", "judge", "engines", "cli")
BANNED_MODULES = {"os", "time", "datetime", "pathlib", "socket", "urllib", "requests", "random"}


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).glob("*.py"))


@pytest.mark.parametrize("path", _modules("stats") + _modules("gates"), ids=lambda p: p.name)
def test_no_io_imports(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "pathgrade":
                assert len(parts) < 2 or parts[1] not in FORBIDDEN, f"{path.name} imports {name}"
            assert parts[0] not in BANNED_MODULES, f"{path.name} imports {name}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "open", f"{path.name} opens a file"


@pytest.mark.parametrize(
    "module",
    [
        "pathgrade.stats.passk",
        "pathgrade.stats.paired",
        "pathgrade.stats.holm",
        "pathgrade.stats.agreement",
    ],
)
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
