"""The docstring examples of the tool and answer layers run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "pathgrade.metrics.answer.text",
    "pathgrade.metrics.answer.grounding",
    "pathgrade.metrics.answer.abstention",
    "pathgrade.metrics.tool.state",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
