"""Retrieval kernels stay pure (no io/cli/store imports) and their doctests hold."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pathgrade.metrics.retrieval.evaluate as evaluate_module
import pathgrade.metrics.spec as spec_module


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
    for module in (spec_module, evaluate_module):
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0, module.__name__
