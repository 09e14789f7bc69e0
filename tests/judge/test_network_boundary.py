"""Network code lives in three places only: the judge package, the replay endpoint client
and the semantic matcher's embeddings endpoint backend.

No other module imports an HTTP client; in particular the replay harness, fixtures and the
tool-calling loop stay network-free (the loop talks to the endpoint through
``pathgrade.replay.endpoint`` only), and ``pathgrade.openai_compat`` stays pure.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pathgrade"
NETWORK = ("httpx", "requests", "urllib.request", "http.client", "aiohttp", "socket")
#: Where network imports are allowed: a whole package, or exactly one module.
ALLOWED_PACKAGES = ("judge",)
ALLOWED_MODULES = ("replay/endpoint.py", "semantic/backends.py")


def _network_imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return [n for n in names if any(n == m or n.startswith(m + ".") for m in NETWORK)]


def test_only_the_judge_replay_and_embedding_endpoints_import_network_code() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        relative = path.relative_to(SRC)
        if relative.parts[0] in ALLOWED_PACKAGES or relative.as_posix() in ALLOWED_MODULES:
            continue
        offenders += [f"{relative}: {name}" for name in _network_imports(path)]
    assert offenders == []


def test_the_allowed_modules_exist_and_do_use_the_network() -> None:
    # An exemption for a module that no longer talks to the network is stale: remove it.
    for module in ALLOWED_MODULES:
        assert _network_imports(SRC / module), module
