"""The two sides of a comparison as the API takes them: a results file, a stored run's name,
or result records already in memory."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pathgrade.store import resolve_results

#: A side: a results file or a stored run name (``str`` or path), or its records.
Results = str | os.PathLike[str] | Sequence[Mapping[str, Any]]


def side(
    results: Results, store: str | Path | None, default_name: str
) -> tuple[list[dict[str, Any]], str]:
    """``(records, name)`` of a side: a path to an existing file is read, any other text is
    a run of ``store`` (default: ``$PATHGRADE_STORE``, else ``.pathgrade/runs``)
    (:func:`pathgrade.store.resolve_results`); records in memory are named
    ``default_name`` in messages."""
    if isinstance(results, str | os.PathLike):
        return resolve_results(os.fspath(results), store), os.fspath(results)
    return [dict(record) for record in results], default_name
