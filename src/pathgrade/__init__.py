"""pathgrade: evaluate LLM agents and agentic RAG systems by the whole path.

The public API is the command line's (:mod:`pathgrade.api`): load cases, runs and a config
(:func:`load_cases`, :func:`load_runs`, :func:`load_config`), :func:`score` them in memory or
:func:`score_files` partitioned (:func:`summarize`: the command's summary of a result),
then :func:`compare`, :func:`gate`, :func:`report` and :func:`ingest`. Each returns a typed
result and prints nothing.

Names are imported on first use (module ``__getattr__``): ``import pathgrade`` loads no
NumPy, pydantic or pyarrow until a name that needs them is read.

``pathgrade.report`` is the API function; it also reads through to the rendering package of
the same name (``pathgrade.report.html`` works), which the import system would otherwise
bind over it.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module
from typing import TYPE_CHECKING, Any

from pathgrade._version import __version__
from pathgrade.core.errors import InputError

if TYPE_CHECKING:
    from pathgrade.api import (
        compare,
        gate,
        ingest,
        load_cases,
        load_config,
        load_runs,
        report,
        score,
        score_files,
        summarize,
    )
    from pathgrade.core.config import ScoringConfig
    from pathgrade.core.types import Budget, Case, Run, Step, Usage

#: Each lazily exported name -> the module that defines it.
_LAZY = {
    "Budget": "pathgrade.core.types",
    "Case": "pathgrade.core.types",
    "Run": "pathgrade.core.types",
    "Step": "pathgrade.core.types",
    "Usage": "pathgrade.core.types",
    "ScoringConfig": "pathgrade.core.config",
    "compare": "pathgrade.api",
    "gate": "pathgrade.api",
    "ingest": "pathgrade.api",
    "load_cases": "pathgrade.api",
    "load_config": "pathgrade.api",
    "load_runs": "pathgrade.api",
    "score": "pathgrade.api",
    "score_files": "pathgrade.api",
    "summarize": "pathgrade.api",
}

__all__ = [
    "Budget",
    "Case",
    "InputError",
    "Run",
    "ScoringConfig",
    "Step",
    "Usage",
    "__version__",
    "compare",
    "gate",
    "ingest",
    "load_cases",
    "load_config",
    "load_runs",
    "report",
    "score",
    "score_files",
    "summarize",
]


class _ReportEntry:
    """``pathgrade.report``: calls :func:`pathgrade.api.report`; any other attribute is the
    rendering package's (``pathgrade.report.html``, ``import pathgrade.report.text as t``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return import_module("pathgrade.api").report(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name == "__wrapped__":  # inspect.signature and help() show the API function's
            return import_module("pathgrade.api").report
        if name.startswith("__"):
            raise AttributeError(name)
        package = import_module("pathgrade.report")
        try:
            return getattr(package, name)
        except AttributeError:
            pass
        try:
            return import_module(f"pathgrade.report.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"pathgrade.report.{name}":
                raise  # the module exists; something it imports does not
            raise AttributeError(f"pathgrade.report has no attribute {name!r}") from None

    def __repr__(self) -> str:
        return "<function pathgrade.report (and the rendering package pathgrade.report)>"


class _Package(types.ModuleType):
    """The module type of ``pathgrade``: importing the rendering package ``pathgrade.report``
    leaves the attribute ``report`` the API function (the package stays in sys.modules)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "report" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pathgrade' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # read once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if not TYPE_CHECKING:
    report = _ReportEntry()
sys.modules[__name__].__class__ = _Package
