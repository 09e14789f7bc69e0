"""The manifest of a stored run: what was scored, by which pathgrade, with which inputs.

A manifest is a small JSON object kept in the run's Parquet footer (key
:data:`MANIFEST_KEY`), so a run and its provenance are one file, written atomically::

    {"schema_version": 1, "name": "pr-42", "created": "2025-01-31T12:00:00+00:00",
     "pathgrade_version": "0.1.0", "config_hash": "sha256:...",
     "inputs": {"cases.jsonl": "sha256:...", "runs.jsonl": "sha256:..."},
     "labels": {"git_commit": "abc123", "model": "gpt-x"},
     "runs": 200, "metrics": {"path_score": "score", ...}, "summary": {...}}

Readers accept every ``schema_version`` up to :data:`STORE_SCHEMA_VERSION` (older manifests
are upgraded in :func:`manifest_from_json`) and reject newer ones with a clear error.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from pathgrade._version import __version__
from pathgrade.core.errors import InputError

#: The layout this pathgrade writes; every earlier one still reads.
STORE_SCHEMA_VERSION = 1
#: Parquet footer key holding the manifest JSON.
MANIFEST_KEY = b"pathgrade.manifest"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_LABEL_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")


def check_name(name: str) -> str:
    """A run name is a file name: letters, digits, ``.``, ``_``, ``-``; no path separators."""
    if not _NAME.fullmatch(name) or name.endswith(".parquet"):
        raise InputError(
            f"invalid run name {name!r}: use letters, digits, '.', '_' and '-' (at most 128,"
            " starting with a letter or digit)",
            field="name",
        )
    return name


def parse_labels(items: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``["model=gpt-x", "git=abc"]`` -> ``{"model": "gpt-x", "git": "abc"}``."""
    labels: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not _LABEL_KEY.fullmatch(key):
            raise InputError(
                f"invalid label {item!r}: expected key=value with a key of letters, digits, '_'",
                field="label",
            )
        labels[key] = value
    return labels


def file_hash(path: str | Path) -> str:
    """``sha256:<hex>`` of a file's bytes."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as error:
        raise InputError(f"cannot read input file: {error.strerror}", file=str(path)) from None
    return f"sha256:{digest.hexdigest()}"


def text_hash(text: str | bytes) -> str:
    """``sha256:<hex>`` of a canonical text (a config serialised as JSON, say)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


@dataclass(frozen=True)
class Manifest:
    """Provenance of one stored run (see the module docstring for the JSON form)."""

    name: str
    runs: int
    metrics: Mapping[str, str]
    created: str = ""
    pathgrade_version: str = __version__
    config_hash: str | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    summary: Mapping[str, Any] = field(default_factory=dict)
    schema_version: int = STORE_SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "name": self.name,
            "created": self.created,
            "pathgrade_version": self.pathgrade_version,
            "config_hash": self.config_hash,
            "inputs": dict(self.inputs),
            "labels": dict(self.labels),
            "runs": self.runs,
            "metrics": dict(self.metrics),
            "summary": dict(self.summary),
        }

    def to_json(self) -> bytes:
        return orjson.dumps(self.to_dict(), option=orjson.OPT_SERIALIZE_NUMPY)


def now_utc() -> str:
    """The current time, ISO 8601 with an explicit UTC offset, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def manifest_from_json(raw: bytes, *, file: str) -> Manifest:
    """Parse (and, for older ``schema_version`` values, upgrade) a manifest."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise InputError(f"malformed run manifest: {error}", file=file) from None
    if not isinstance(doc, dict):
        raise InputError("run manifest is not a JSON object", file=file)
    version = doc.get("schema_version")
    if not isinstance(version, int) or version < 1:
        raise InputError(
            f"run manifest has no valid schema_version (got {version!r})",
            file=file,
            field="schema_version",
        )
    if version > STORE_SCHEMA_VERSION:
        raise InputError(
            f"unsupported store schema_version {version} (this pathgrade reads up to"
            f" {STORE_SCHEMA_VERSION}; upgrade pathgrade)",
            file=file,
            field="schema_version",
        )
    for key in ("name", "metrics"):
        if key not in doc:
            raise InputError("run manifest misses a required field", file=file, field=key)
    return Manifest(
        name=str(doc["name"]),
        runs=int(doc.get("runs", 0)),
        metrics={str(k): str(v) for k, v in dict(doc["metrics"]).items()},
        created=str(doc.get("created") or ""),
        pathgrade_version=str(doc.get("pathgrade_version") or "unknown"),
        config_hash=doc.get("config_hash"),
        inputs={str(k): str(v) for k, v in dict(doc.get("inputs") or {}).items()},
        labels={str(k): str(v) for k, v in dict(doc.get("labels") or {}).items()},
        summary=dict(doc.get("summary") or {}),
        schema_version=version,
    )
