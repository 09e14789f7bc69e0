"""The runs a report reads: a stored run by name, or a results file (which has no traces)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.store import RunStore, resolve_results

__all__ = ["LoadedRun", "load_run"]


class LoadedRun:
    """A run to report on: records, trace excerpts (or ``None``) and manifest (if stored)."""

    def __init__(
        self,
        name: str,
        records: list[dict[str, Any]],
        traces: Sequence[Mapping[str, Any] | None],
        manifest: dict[str, Any] | None,
    ) -> None:
        self.name, self.records, self.traces, self.manifest = name, records, traces, manifest

    def __repr__(self) -> str:
        return f"LoadedRun(name={self.name!r}, runs={len(self.records)})"

    @property
    def summary(self) -> Mapping[str, Any]:
        """The stored run summary (empty for a results file)."""
        return (self.manifest or {}).get("summary") or {}


def load_run(name_or_path: str, store: str | Path | None = None) -> LoadedRun:
    """A stored run by name, or a results file (which has no traces)."""
    target = RunStore(store)
    if not Path(name_or_path).is_file():
        try:
            stored = target.exists(name_or_path)
        except InputError:
            stored = False
        if stored:
            run = target.load(name_or_path)
            return LoadedRun(run.manifest.name, run.records, run.traces, run.manifest.to_dict())
    records = resolve_results(name_or_path, target)
    return LoadedRun(str(name_or_path), records, [None] * len(records), None)
