"""Reading cases for ``pathgrade split`` and writing one JSONL file per split.

Cases are read as plain JSON objects (JSONL, or one JSON array, as every JSON input is read:
:mod:`pathgrade.io.jsonl`), so any extra field (group, service, created_at) survives the split
unchanged; each must have a non-empty ``case_id``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.io.jsonl import check_depth, iter_records

__all__ = ["read_case_objects", "write_splits"]


def read_case_objects(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line, object)`` per case (line 1-based, of the record's first character), read as
    :func:`pathgrade.io.jsonl.iter_records` reads every JSONL file or JSON array."""
    name = str(path)
    items: list[tuple[int, Any]] = []
    for number, value in iter_records(path):
        if isinstance(value, InputError):
            raise value
        check_depth(value, name, number)  # the splits are written back as JSON
        items.append((number, value))
    out: list[tuple[int, dict[str, Any]]] = []
    seen: dict[str, int] = {}
    for number, item in items:
        if not isinstance(item, dict):
            raise InputError("expected a JSON object", file=name, line=number)
        case_id = item.get("case_id")
        if not isinstance(case_id, str) or not case_id:
            raise InputError(
                f"expected a non-empty string, got {case_id!r}",
                file=name,
                line=number,
                field="case_id",
            )
        if case_id in seen:
            raise InputError(
                f"duplicate case_id {case_id!r} (first on line {seen[case_id]})",
                file=name,
                line=number,
                field="case_id",
            )
        seen[case_id] = number
        out.append((number, item))
    if not out:
        raise InputError("cases file is empty", file=name)
    return out


def write_splits(
    directory: str | Path,
    names: Sequence[str],
    cases: Sequence[dict[str, Any]],
    assignment: Sequence[int],
) -> list[Path]:
    """Write ``<directory>/<name>.jsonl`` for every split name (empty splits too)."""
    target = Path(directory)
    try:
        target.mkdir(parents=True, exist_ok=True)
        paths = []
        for index, split in enumerate(names):
            path = target / f"{split}.jsonl"
            with path.open("wb") as handle:
                for case, chosen in zip(cases, assignment, strict=True):
                    if chosen == index:
                        handle.write(orjson.dumps(case) + b"\n")
            paths.append(path)
    except OSError as error:
        raise InputError(f"cannot write splits: {error.strerror}", file=str(target)) from None
    return paths
