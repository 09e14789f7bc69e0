"""Results files written by ``pathgrade score --out`` and read by ``compare`` and ``gate``.

One JSON object per line, one line per scored run::

    {"schema_version": 1, "case_id": ..., "run_id": ..., "trial": 0, "group": ...,
     "reference_index": 0, "metrics": {name: number | bool | null, ...},
     "defects": [{"kind", "penalty", "detail", ...}], "alignment": [...],
     "usage": {"steps", "tokens", "cost", "latency_ms"}}

``null`` is an undefined metric (never a zero). Readers accept any ``schema_version`` up to
:data:`SCHEMA_VERSION` and reject newer ones with a clear error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError

SCHEMA_VERSION = 1
REQUIRED_FIELDS = ("case_id", "metrics")


def write_results(path: str | Path, records: Iterable[Mapping[str, Any]]) -> int:
    """Write records as JSONL atomically (temporary file, then rename); returns the count."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    count = 0
    with tmp.open("wb") as handle:
        for record in records:
            handle.write(orjson.dumps(record, option=orjson.OPT_SERIALIZE_NUMPY))
            handle.write(b"\n")
            count += 1
    tmp.replace(target)
    return count


def iter_results(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield result records, validating each; errors name the file and line."""
    name = str(path)
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 - closed by the with below; errors first
    except OSError as error:
        raise InputError(f"cannot read results file: {error.strerror}", file=name) from None
    with handle:
        seen = False
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError as error:
                raise InputError(f"malformed JSON: {error}", file=name, line=number) from None
            if not isinstance(record, dict):
                raise InputError("expected a JSON object", file=name, line=number)
            for field in REQUIRED_FIELDS:
                if field not in record:
                    raise InputError("missing required field", file=name, line=number, field=field)
            if not isinstance(record["metrics"], dict):
                raise InputError("expected an object", file=name, line=number, field="metrics")
            version = record.get("schema_version", 1)
            if not isinstance(version, int) or version > SCHEMA_VERSION:
                raise InputError(
                    f"unsupported schema_version {version!r} (this pathgrade reads up to"
                    f" {SCHEMA_VERSION})",
                    file=name,
                    line=number,
                    field="schema_version",
                )
            seen = True
            yield record
        if not seen:
            raise InputError("results file is empty", file=name)


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """All records of a results file (see :func:`iter_results`)."""
    return list(iter_results(path))
