"""Labelled pairs files for ``pathgrade matcher-agreement``: reading and validation.

One pair a line, JSON: ``{"tool": str, "field": str, "reference": value, "agent": value,
"equivalent": bool, "kind": str, "domain": str}``; ``kind`` and ``domain`` are optional (no
per-kind or per-domain figures, no leave-one-domain-out, without them), other keys are
ignored. ``kind`` is one of :data:`KINDS` (definitions in examples/semantic/README.md).
Several files, or a directory (its ``*.jsonl`` files, sorted by name), are read as one set.

Refused, as one :class:`~pathgrade.core.errors.InputError` naming the file, the line and the
field: a line that is not a JSON object, a missing or mistyped field, a missing label
(``equivalent`` absent or not a boolean), an unknown ``kind``, and a duplicated pair (the same
``tool``, ``field``, ``reference`` and ``agent`` as an earlier line, in any of the files:
the error names the earlier one).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError

#: What a pair tests (examples/semantic/README.md has the definitions).
KINDS: tuple[str, ...] = (
    "paraphrase",
    "near_miss",
    "negation",
    "different_entity",
    "different_number",
    "id",
)


@dataclass(frozen=True)
class LabelledPair:
    """One labelled pair of argument values (``kind``/``domain`` None when not given)."""

    tool: str
    field: str
    reference: Any
    agent: Any
    equivalent: bool
    kind: str | None = None
    domain: str | None = None


def pair_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named: a file as given, a directory as its ``*.jsonl`` files, sorted."""
    out: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = sorted(path.glob("*.jsonl"))
            if not found:
                raise InputError("a directory of pairs holds no *.jsonl file", file=str(path))
            out.extend(found)
        elif path.is_file():
            out.append(path)
        else:
            raise InputError("no such file or directory", file=str(path))
    return out


def _key(value: Any) -> bytes:
    """A canonical form of a JSON value, to find duplicated pairs."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _pair(row: Any, file: str, line: int) -> LabelledPair:
    if not isinstance(row, dict):
        raise InputError("a pair must be a JSON object", file=file, line=line)
    for name in ("tool", "field"):
        if not isinstance(row.get(name), str):
            got = "nothing" if name not in row else repr(row[name])
            raise InputError(f"must be a string, got {got}", file=file, line=line, field=name)
    for name in ("reference", "agent"):
        if name not in row:
            raise InputError("is missing", file=file, line=line, field=name)
    if "equivalent" not in row:
        raise InputError("is missing (the label)", file=file, line=line, field="equivalent")
    if not isinstance(row["equivalent"], bool):
        raise InputError(
            f"must be a bool (true or false), got {row['equivalent']!r}",
            file=file,
            line=line,
            field="equivalent",
        )
    kind = row.get("kind")
    if kind is not None and kind not in KINDS:
        raise InputError(
            f"unknown kind {kind!r}, expected one of {', '.join(KINDS)}",
            file=file,
            line=line,
            field="kind",
        )
    domain = row.get("domain")
    if domain is not None and not (isinstance(domain, str) and domain):
        raise InputError(
            f"must be a non-empty string, got {domain!r}", file=file, line=line, field="domain"
        )
    return LabelledPair(
        row["tool"], row["field"], row["reference"], row["agent"], row["equivalent"], kind, domain
    )


def load_pairs(*paths: str | Path) -> list[LabelledPair]:
    """The pairs of one or more JSONL files or directories, read as one set, in order.

    Raises:
        InputError: a bad line (file, line and field named), a pair given twice, no pairs.
    """
    if not paths:
        raise InputError("no pairs file given")
    out: list[LabelledPair] = []
    seen: dict[tuple[str, str, bytes, bytes], str] = {}
    files = pair_files(paths)
    for path in files:
        file = str(path)
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not text.strip():
                continue
            try:
                row = orjson.loads(text)
            except orjson.JSONDecodeError as error:
                raise InputError(f"not JSON: {error}", file=file, line=number) from None
            pair = _pair(row, file, number)
            key = (pair.tool, pair.field, _key(pair.reference), _key(pair.agent))
            if key in seen:
                raise InputError(
                    f"duplicated pair: the same tool, field, reference and agent as {seen[key]}",
                    file=file,
                    line=number,
                    field="agent",
                )
            seen[key] = f"{file}:{number}"
            out.append(pair)
    if not out:
        raise InputError("no labelled pairs", file=", ".join(str(p) for p in files))
    return out
