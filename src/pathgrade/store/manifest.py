"""The manifest of a stored run: what was scored, by which pathgrade, with which inputs.

A manifest is a small JSON object kept in the run's Parquet footer (key
:data:`MANIFEST_KEY`), so a run and its provenance are one file, written atomically::

    {"schema_version": 1, "name": "pr-42", "created": "2025-01-31T12:00:00+00:00",
     "pathgrade_version": "0.1.0", "config_hash": "sha256:...",
     "inputs": {"cases.jsonl": "sha256:...", "runs.jsonl": "sha256:..."},
     "labels": {"git_commit": "abc123", "model": "gpt-x"},
     "variables": {"git_commit": "abc123", "model": "gpt-x", "tool_schema": "sha256:..."},
     "runs": 200, "metrics": {"path_score": "score", ...}, "summary": {...}}

``config_hash`` is :func:`pathgrade.core.record_provenance.config_hash` (the one the records'
``provenance.config`` shortens); ``variables`` are the controlled variables every record's
``provenance`` shares (the labels, the tools file's hash, the traces' model), ``labels``
the labels given when the run was stored.

Readers accept every ``schema_version`` up to :data:`STORE_SCHEMA_VERSION` (older manifests
are upgraded in :func:`manifest_from_json`) and reject newer ones with a clear error. An
optional field added later (``variables``) keeps the version: older manifests read without.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NoReturn

import orjson

from pathgrade._version import __version__
from pathgrade.core.errors import InputError
from pathgrade.core.record_provenance import sha256_of
from pathgrade.io.provenance import file_hash

__all__ = [
    "MANIFEST_KEY",
    "STORE_SCHEMA_VERSION",
    "Manifest",
    "check_name",
    "file_hash",
    "manifest_from_json",
    "now_utc",
    "parse_labels",
    "text_hash",
]

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


def text_hash(text: str | bytes) -> str:
    """``sha256:<hex>`` of a canonical text (a config serialised as JSON, say)."""
    return sha256_of(text)


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
    variables: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "name": self.name,
            "created": self.created,
            "pathgrade_version": self.pathgrade_version,
            "config_hash": self.config_hash,
            "inputs": dict(self.inputs),
            "labels": dict(self.labels),
            "variables": dict(self.variables),
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
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
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
    runs = doc.get("runs", 0)
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 0:
        _wrong_type("runs", "a non-negative integer", runs, file)
    summary = doc.get("summary") or {}
    if not isinstance(summary, dict):
        _wrong_type("summary", "an object", summary, file)
    config = doc.get("config_hash")
    if config is not None and not isinstance(config, str):
        _wrong_type("config_hash", "a string or null", config, file)
    return Manifest(
        name=_text(doc, "name", file),
        runs=runs,
        metrics=_text_map(doc, "metrics", file),
        created=_text(doc, "created", file),
        pathgrade_version=_text(doc, "pathgrade_version", file) or "unknown",
        config_hash=config,
        inputs=_text_map(doc, "inputs", file),
        labels=_text_map(doc, "labels", file),
        summary=summary,
        schema_version=version,
        variables=_text_map(doc, "variables", file),
    )


def _wrong_type(key: str, expected: str, got: object, file: str) -> NoReturn:
    raise InputError(
        f"run manifest: expected {expected}, got {type(got).__name__}", file=file, field=key
    )


def _text(doc: Mapping[str, Any], key: str, file: str) -> str:
    """A string field of a manifest (null or absent: ``""``)."""
    value = doc.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        _wrong_type(key, "a string", value, file)
    return value


def _text_map(doc: Mapping[str, Any], key: str, file: str) -> dict[str, str]:
    """An object field of a manifest whose values are strings (null or absent: ``{}``)."""
    value = doc.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        _wrong_type(key, "an object", value, file)
    for item, text in value.items():
        if not isinstance(text, str):
            raise InputError(
                f"run manifest: expected a string, got {type(text).__name__}",
                file=file,
                field=f"{key}.{item}",
            )
    return dict(value)
