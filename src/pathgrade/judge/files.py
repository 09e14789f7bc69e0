"""The judge's files: chunk texts in, judged runs and call logs out.

A chunks file (``--chunks``) gives the text of the context units, one JSON object a line:
``{"id": "runbook-7", "version_id": "v3", "text": "..."}`` (``version_id`` optional). The judge
can only label support against text it is shown, so a unit without text is shown as such.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.records import iter_records
from pathgrade.judge.cache import atomic_write_bytes
from pathgrade.judge.redact import Redactor


@dataclass(frozen=True)
class Chunks:
    """Chunk texts by (id, version); a text stored without a version serves any version."""

    texts: Mapping[tuple[str, str | None], str] = field(default_factory=dict)

    def text(self, chunk_id: str, version_id: str | None = None) -> str | None:
        """The text of this version of the chunk, else its unversioned text, else None."""
        found = self.texts.get((chunk_id, version_id))
        return found if found is not None else self.texts.get((chunk_id, None))

    def any_text(self, chunk_id: str) -> str | None:
        """A text of the chunk in whatever version (for gold evidence, which has no version)."""
        found = self.texts.get((chunk_id, None))
        if found is not None:
            return found
        versions = sorted(
            (v, t) for (i, v), t in self.texts.items() if i == chunk_id and v is not None
        )
        return versions[-1][1] if versions else None

    @classmethod
    def from_mapping(cls, texts: Mapping[str, str]) -> Chunks:
        """Unversioned texts by id."""
        return cls({(k, None): v for k, v in texts.items()})


def load_chunks(path: str | Path) -> Chunks:
    """Read a chunks file; errors name the file, line and field."""
    name = str(path)
    texts: dict[tuple[str, str | None], str] = {}
    for line, value in iter_records(path):
        if isinstance(value, InputError):
            raise value
        if not isinstance(value, dict):
            raise InputError("expected a JSON object", file=name, line=line)
        chunk_id, version, text = value.get("id"), value.get("version_id"), value.get("text")
        if not isinstance(chunk_id, str) or not chunk_id:
            raise InputError("expected a non-empty string", file=name, line=line, field="id")
        if version is not None and not isinstance(version, str):
            raise InputError("expected a string or null", file=name, line=line, field="version_id")
        if not isinstance(text, str):
            raise InputError("expected a string", file=name, line=line, field="text")
        if (chunk_id, version) in texts:
            raise InputError(
                f"duplicate chunk {chunk_id!r} version {version!r}", file=name, line=line
            )
        texts[(chunk_id, version)] = text
    return Chunks(texts)


def run_record(run: Run) -> dict[str, Any]:
    """A run as a JSON object that :func:`pathgrade.io.cases.load_runs` reads back."""
    return run.model_dump(mode="json", exclude_defaults=True)


def write_runs(path: str | Path, runs: Iterable[Run], redactor: Redactor | None = None) -> int:
    """Write runs as JSONL atomically, each record passed through ``redactor``; the count."""
    redact = redactor or Redactor()
    lines = [orjson.dumps(redact(run_record(run))) + b"\n" for run in runs]
    atomic_write_bytes(Path(path), b"".join(lines))
    return len(lines)


def write_jsonl(
    path: str | Path, records: Iterable[Mapping[str, Any]], redactor: Redactor | None = None
) -> int:
    """Write JSON objects as JSONL atomically, each passed through ``redactor``; the count."""
    redact = redactor or Redactor()
    lines = [orjson.dumps(redact(dict(r)), option=orjson.OPT_SORT_KEYS) + b"\n" for r in records]
    atomic_write_bytes(Path(path), b"".join(lines))
    return len(lines)
