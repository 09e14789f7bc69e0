"""Loading an example script (``examples/...``, not a package module) as a module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str) -> ModuleType:
    """The script at ``path`` as module ``name``, registered in ``sys.modules`` first (its
    dataclasses look their module up while it loads)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
