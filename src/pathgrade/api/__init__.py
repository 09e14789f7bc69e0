"""The Python API that the ``pathgrade`` command is built on: each function returns a typed
result and prints nothing; each command parses its options, calls one of them and renders.

============================  ===========================================================
function                      command
============================  ===========================================================
:func:`load_cases`            the ``CASES`` argument (``pathgrade.io.cases``)
:func:`load_runs`             the ``RUNS`` argument (``pathgrade.io.cases``)
:func:`load_config`           ``--config`` (``pathgrade.io.config``; no path: the defaults)
:func:`score`                 ``pathgrade score`` in memory (``pathgrade.evaluate``)
:func:`summarize`             ``pathgrade score``'s summary of a result (:mod:`.scoring`)
:func:`score_files`           ``pathgrade score`` partitioned (:mod:`.scoring`)
:func:`compare`               ``pathgrade compare`` (:mod:`.comparing`)
:func:`gate`                  ``pathgrade gate`` (:mod:`.gating`)
:func:`report`                ``pathgrade report`` (:mod:`.reports`)
:func:`ingest`                ``pathgrade ingest`` (:mod:`.ingesting`)
============================  ===========================================================

Names are imported on first use, as from :mod:`pathgrade`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathgrade.api.comparing import CompareResult, compare
    from pathgrade.api.gating import GateOutcome, gate
    from pathgrade.api.ingesting import Ingested, ingest, ingest_cases
    from pathgrade.api.reports import report
    from pathgrade.api.scoring import FilesScore, score_files, score_records, summarize
    from pathgrade.evaluate import score
    from pathgrade.io.cases import Loaded, load_cases, load_runs
    from pathgrade.io.config import load_config

#: Each name -> the module that defines it.
_LAZY = {
    "CompareResult": "pathgrade.api.comparing",
    "compare": "pathgrade.api.comparing",
    "GateOutcome": "pathgrade.api.gating",
    "gate": "pathgrade.api.gating",
    "Ingested": "pathgrade.api.ingesting",
    "ingest": "pathgrade.api.ingesting",
    "ingest_cases": "pathgrade.api.ingesting",
    "report": "pathgrade.api.reports",
    "FilesScore": "pathgrade.api.scoring",
    "score_files": "pathgrade.api.scoring",
    "score_records": "pathgrade.api.scoring",
    "summarize": "pathgrade.api.scoring",
    "score": "pathgrade.evaluate",
    "Loaded": "pathgrade.io.cases",
    "load_cases": "pathgrade.io.cases",
    "load_runs": "pathgrade.io.cases",
    "load_config": "pathgrade.io.config",
}

__all__ = [
    "CompareResult",
    "FilesScore",
    "GateOutcome",
    "Ingested",
    "Loaded",
    "compare",
    "gate",
    "ingest",
    "ingest_cases",
    "load_cases",
    "load_config",
    "load_runs",
    "report",
    "score",
    "score_files",
    "score_records",
    "summarize",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pathgrade.api' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
