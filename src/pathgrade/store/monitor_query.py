"""The collected runs of one collector, read from the store for ``pathgrade monitor``.

A collector ``NAME`` saves its batches as ``NAME.<window start, UTC, YYYYmmddTHHMMSS>.<n>``
(:func:`pathgrade.collect.batches.batch_name`); each run of a batch is placed at its batch's
window start (runs carry no time of their own). Stored runs named ``NAME.`` + anything else
are left out, with a warning. The values are read through the store's DuckDB view
(:func:`pathgrade.store.query.connect`); the statistics are
:func:`pathgrade.stats.monitor.monitor`'s.

Breakdowns (``by``): ``tool`` (each run's calls from its trace excerpt: tool and whether
its error is set), ``label:KEY`` (the stored run's label ``KEY``: ``runs list`` shows them)
and ``variable:KEY`` (the record's provenance variable ``KEY``, e.g. ``variable:model``,
which a trace's model gives). A run without that label or variable is in group
``(none)``. The store keeps no agent version of its own: label the batches, or name the
variable, that holds it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

from pathgrade.core.errors import InputError
from pathgrade.store.manifest import Manifest
from pathgrade.store.query import connect
from pathgrade.store.runs import RunStore
from pathgrade.store.table import METRIC_PREFIX

__all__ = ["NONE_GROUP", "CollectedRuns", "check_by", "collected_runs"]

#: The group of a run without the label or variable a breakdown names.
NONE_GROUP = "(none)"
_STAMP = "%Y%m%dT%H%M%S"


@dataclass(frozen=True)
class CollectedRuns:
    """One entry per collected run: its window start (seconds since the epoch, UTC), its
    values by score name (``nan``: undefined), its group, its calls (``by="tool"`` only)."""

    starts: list[int]
    values: dict[str, list[float]]
    groups: list[str] | None
    calls: list[list[tuple[str, bool]]] | None
    batches: int
    warnings: list[str] = field(default_factory=list)


def check_by(by: str | None) -> tuple[str, str] | None:
    """``by`` parsed to ``(kind, key)``: ``("tool", "")``, ``("label", KEY)`` or
    ``("variable", KEY)``; an :class:`InputError` for anything else."""
    if by is None:
        return None
    if by == "tool":
        return ("tool", "")
    kind, _, key = by.partition(":")
    if kind in ("label", "variable") and key:
        return (kind, key)
    hint = ""
    if by in ("agent-version", "agent_version", "version"):
        hint = (
            "; the store records no agent version: use --by label:KEY (a stored run's label)"
            " or --by variable:KEY (a provenance variable) that holds it"
        )
    raise InputError(f"--by is tool, label:KEY or variable:KEY, got {by!r}{hint}", field="--by")


def _batches(name: str, target: RunStore, warnings: list[str]) -> dict[str, tuple[int, Manifest]]:
    """The collector's batches: stored name -> (window start, manifest)."""
    pattern = re.compile(rf"^{re.escape(name)}\.([0-9]{{8}}T[0-9]{{6}})\.([0-9]+)$")
    found: dict[str, tuple[int, Manifest]] = {}
    collectors: set[str] = set()
    other = 0
    for entry in target.scan():
        if entry.manifest is None:
            warnings.append(f"{entry.warning()} (left out)")
            continue
        collector = entry.manifest.labels.get("collector")
        if collector is not None:
            collectors.add(collector)
        match = pattern.match(entry.name)
        if match is None:
            if entry.name.startswith(name + ".") and collector in (None, name):
                other += 1
            continue
        try:
            stamp = datetime.strptime(match.group(1), _STAMP).replace(tzinfo=UTC)
        except ValueError:
            other += 1
            continue
        found[entry.name] = (int(stamp.timestamp()), entry.manifest)
    if other:
        warnings.append(
            f"{other} stored runs named {name}.* are not batches"
            f" ({name}.YYYYmmddTHHMMSS.n): left out"
        )
    if not found:
        known = f" (collectors in the store: {', '.join(sorted(collectors))})" if collectors else ""
        raise InputError(
            f"no collected runs of {name!r}: no stored run is named"
            f" {name}.<YYYYmmddTHHMMSS>.<n>{known}",
            file=str(target.root),
        )
    return found


def _steps(trace: str | None) -> list[tuple[str, bool]] | None:
    if trace is None:
        return None
    steps = orjson.loads(trace).get("steps") or []
    return [(str(s.get("tool")), bool(s.get("error"))) for s in steps]


def _variable(provenance: str | None, key: str) -> str:
    if provenance is None:
        return NONE_GROUP
    value = (orjson.loads(provenance).get("variables") or {}).get(key)
    return NONE_GROUP if value is None else str(value)


def collected_runs(
    name: str,
    store: str | Path | RunStore | None = None,
    *,
    scores: Sequence[str],
    by: str | None = None,
) -> CollectedRuns:
    """The collected runs of collector ``name`` with the values of ``scores``.

    Raises:
        InputError: no batch of ``name`` in the store, a bad ``by``, or a query error.
    """
    kind = check_by(by)
    target = store if isinstance(store, RunStore) else RunStore(store)
    warnings: list[str] = []
    batches = _batches(name, target, warnings)
    con = connect(target)
    try:
        present = {row[0] for row in con.execute("DESCRIBE runs").fetchall()}
        wanted = [s for s in scores if METRIC_PREFIX + s in present]
        extra = {"tool": "trace", "variable": "provenance"}.get(kind[0] if kind else "")
        selected = ["run_name", *(f'"{METRIC_PREFIX}{s}"' for s in wanted)]
        if extra is not None:
            selected.append(extra if extra in present else f"NULL AS {extra}")
        rows = con.execute(
            f"SELECT {', '.join(selected)} FROM runs WHERE list_contains(?, run_name)"
            " ORDER BY run_name, case_id, run_id, trial",
            [sorted(batches)],
        ).fetchall()
    finally:
        con.close()
    nan = float("nan")
    values: dict[str, list[float]] = {
        s: [nan if row[1 + j] is None else float(row[1 + j]) for row in rows]
        for j, s in enumerate(wanted)
    }
    starts = [batches[row[0]][0] for row in rows]
    groups: list[str] | None = None
    calls: list[list[tuple[str, bool]]] | None = None
    if kind is not None and kind[0] == "label":
        groups = [batches[row[0]][1].labels.get(kind[1], NONE_GROUP) for row in rows]
    elif kind is not None and kind[0] == "variable":
        groups = [_variable(row[-1], kind[1]) for row in rows]
    elif kind is not None:
        found = [_steps(row[-1]) for row in rows]
        missing = sum(1 for steps in found if steps is None)
        if missing:
            warnings.append(
                f"{missing} collected runs have no trace excerpt: left out of --by tool"
            )
        calls = [steps or [] for steps in found]
    return CollectedRuns(starts, values, groups, calls, len(batches), warnings)
