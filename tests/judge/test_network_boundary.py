"""Network code lives in pathgrade.judge only: no other module imports an HTTP client."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pathgrade"
NETWORK = ("httpx", "requests", "urllib.request", "http.client", "aiohttp", "socket")


def test_only_the_judge_imports_network_code() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).parts[0] == "judge":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(SRC)}: {n}"
                for n in names
                if any(n == m or n.startswith(m + ".") for m in NETWORK)
            ]
    assert offenders == []
