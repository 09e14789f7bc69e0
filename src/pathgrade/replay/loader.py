"""Load an agent given as ``module:callable`` or ``path/to/file.py:callable``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.replay.harness import Agent


def load_agent(spec: str) -> Agent:
    """The callable named by ``spec``; :class:`InputError` when it cannot be found.

    ``pkg.module:name`` imports a module; ``dir/agent.py:name`` loads a file. A dotted
    ``name`` walks attributes (``module:Class.method``).
    """
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise InputError(
            f"agent must be 'module:callable' or 'file.py:callable', got {spec!r}", field="--agent"
        )
    module: Any
    try:
        if target.endswith(".py"):
            path = Path(target)
            if not path.is_file():
                raise InputError(f"agent file {target!r} not found", field="--agent")
            name = f"pathgrade_replay_agent_{abs(hash(path.resolve()))}"
            loader = importlib.util.spec_from_file_location(name, path)
            if loader is None or loader.loader is None:
                raise InputError(f"cannot load agent file {target!r}", field="--agent")
            module = importlib.util.module_from_spec(loader)
            sys.modules[name] = module
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except ImportError as error:
        raise InputError(
            f"cannot import agent module {target!r}: {error}", field="--agent"
        ) from None
    value: Any = module
    for part in attr.split("."):
        if not hasattr(value, part):
            raise InputError(f"{target!r} has no attribute {attr!r}", field="--agent")
        value = getattr(value, part)
    if not callable(value):
        raise InputError(f"{spec!r} is not callable", field="--agent")
    agent: Agent = value
    return agent
