"""A content-addressed on-disk cache of judge verdicts, and recorded verdicts for offline mode.

The cache key is the SHA-256 of the canonical JSON of everything that determines a verdict:
the model name and version tag, the base URL, the messages, the sampling parameters and the
prompt id and version. The API key is never part of a key or of an entry. Only successful
verdicts are stored (errors are retried on the next run). Entries are written atomically
(a temporary file in the same directory, then ``os.replace``), so a crash never leaves a
half-written entry; an unreadable entry is a miss.

Layout: ``<dir>/<key[:2]>/<key>.json``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.io.records import iter_records

CACHE_SCHEMA_VERSION = 1


def cache_key(
    *,
    model: str,
    model_version: str | None,
    base_url: str,
    messages: Sequence[Mapping[str, Any]],
    sampling: Mapping[str, Any],
    prompt_id: str,
    prompt_version: int,
) -> str:
    """The hex SHA-256 of the canonical (sorted-key) JSON of the inputs."""
    material = {
        "model": model,
        "model_version": model_version,
        "base_url": base_url.rstrip("/"),
        "messages": list(messages),
        "sampling": dict(sampling),
        "prompt": {"id": prompt_id, "version": prompt_version},
    }
    return hashlib.sha256(orjson.dumps(material, option=orjson.OPT_SORT_KEYS)).hexdigest()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class JudgeCache:
    """Verdicts on disk, keyed by :func:`cache_key`; counts hits and misses."""

    directory: Path
    hits: int = 0
    misses: int = 0
    writes: int = 0

    def __post_init__(self) -> None:
        self.directory = Path(self.directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry for ``key``, or None (a miss); counts the lookup."""
        try:
            entry = orjson.loads(self._path(key).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            entry = None
        if not isinstance(entry, dict) or entry.get("key") != key or "verdict" not in entry:
            self.misses += 1
            return None
        self.hits += 1
        return entry

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        """Store a successful verdict (``entry`` must hold ``verdict``)."""
        record = {"schema_version": CACHE_SCHEMA_VERSION, "key": key, **entry}
        atomic_write_bytes(self._path(key), orjson.dumps(record, option=orjson.OPT_SORT_KEYS))
        self.writes += 1

    @property
    def hit_rate(self) -> float | None:
        """hits / lookups; None before the first lookup."""
        lookups = self.hits + self.misses
        return None if lookups == 0 else self.hits / lookups

    def stats(self) -> dict[str, Any]:
        """Hits, misses, writes and the hit rate, for reports."""
        return {
            "directory": str(self.directory),
            "hits": self.hits,
            "misses": self.misses,
            "writes": self.writes,
            "hit_rate": self.hit_rate,
        }


@dataclass
class Recording:
    """Recorded verdicts that replace judge calls (offline mode).

    Each record is ``{"item": ..., "key": ..., "prompt": "claims@1", "verdict": {...}}``; a
    lookup matches the cache key first (a verdict recorded from the same request), then the
    item name (hand-written demos). ``item`` or ``key`` may be left out, not both.
    """

    by_key: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_item: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str | None = None

    def lookup(self, key: str, item: str) -> dict[str, Any] | None:
        """The recorded verdict for this request, or None."""
        return self.by_key.get(key) or self.by_item.get(item)

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        """Read a recording (JSONL or a JSON array); errors name the file and line."""
        name = str(path)
        recording = cls(source=name)
        for line, value in iter_records(path):
            if isinstance(value, InputError):
                raise value
            if not isinstance(value, dict):
                raise InputError("expected a JSON object", file=name, line=line)
            if not isinstance(value.get("verdict"), dict):
                raise InputError("expected a JSON object", file=name, line=line, field="verdict")
            key, item = value.get("key"), value.get("item")
            if not isinstance(key, str) and not isinstance(item, str):
                raise InputError("a record needs a string 'key' or 'item'", file=name, line=line)
            if isinstance(key, str):
                recording.by_key[key] = value
            if isinstance(item, str):
                recording.by_item[item] = value
        return recording


class CachedVerdicts(Recording):
    """A judge cache read as a recording (offline replay of cached verdicts): a lookup is by
    the request's cache key only, so a verdict is replayed only for the same request (model,
    base URL, messages, sampling, prompt version); a miss is an offline ``judge_error``."""

    def __init__(self, cache: JudgeCache) -> None:
        super().__init__(source=str(cache.directory))
        self.cache = cache

    def lookup(self, key: str, item: str) -> dict[str, Any] | None:
        """The cached verdict for this request, or None (``item`` is not used)."""
        return self.cache.get(key)
