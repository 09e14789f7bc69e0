"""Retrieval kernels stay pure (no io/cli/store imports) and their doctests hold."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys


def test_metrics_do_not_import_io_or_cli() -> None:
    code = (
        "import sys, pathgrade.metrics.retrieval, pathgrade.metrics.registry;"
        "bad = [m for m in sys.modules if m.startswith(('pathgrade.io', 'pathgrade.cli',"
        " 'pathgrade.store', 'pathgrade.report', 'pathgrade.judge', 'pathgrade.engines'))];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_doctests() -> None:
    # import_module: the package re-exports a function named ``evaluate``
    for name in ("pathgrade.metrics.spec", "pathgrade.metrics.retrieval.evaluate"):
        module = importlib.import_module(name)
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0, module.__name__
