"""The run store: a folder of immutable Parquet files, one per scored run, no server.

Layout: ``<store>/<name>.parquet``, the manifest in the file's footer. Temporary files live
in ``<store>/.tmp/`` while being written. A save writes the whole file there, flushes it to
disk, then *links* it to its final name, which fails if the name exists: a run is published
all at once or not at all, a name is never overwritten, and concurrent saves (other names)
all land. A writer killed mid-write leaves only its temporary file, which no reader looks at
and the next save removes once its process is gone.

The folder is ``--store``, else ``$PATHGRADE_STORE``, else ``.pathgrade/runs`` (relative to
the working directory).
"""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pathgrade.core.errors import InputError
from pathgrade.store.manifest import MANIFEST_KEY, Manifest, check_name, manifest_from_json
from pathgrade.store.table import records_table, table_records

DEFAULT_STORE = Path(".pathgrade") / "runs"
STORE_ENV = "PATHGRADE_STORE"
SUFFIX = ".parquet"
#: Rows per Parquet row group.
ROW_GROUP = 2048

Progress = Callable[[int, int], None]


def store_path(store: str | Path | None = None) -> Path:
    """The store folder: the argument, else ``$PATHGRADE_STORE``, else ``.pathgrade/runs``."""
    if store is not None:
        return Path(store)
    env = os.environ.get(STORE_ENV)
    return Path(env) if env else DEFAULT_STORE


@dataclass(frozen=True)
class StoredRun:
    """One stored run: its manifest, result records and trace excerpts (``None`` if absent)."""

    manifest: Manifest
    records: list[dict[str, Any]]
    traces: list[dict[str, Any] | None]
    path: Path

    def __repr__(self) -> str:
        return f"StoredRun(name={self.manifest.name!r}, runs={len(self.records)})"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunStore:
    """A folder of stored runs (see the module docstring)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = store_path(root)

    def __repr__(self) -> str:
        return f"RunStore({str(self.root)!r})"

    def path_of(self, name: str) -> Path:
        return self.root / f"{check_name(name)}{SUFFIX}"

    def exists(self, name: str) -> bool:
        return self.path_of(name).is_file()

    def names(self) -> list[str]:
        """Stored run names, sorted."""
        if not self.root.is_dir():
            return []
        return sorted(
            p.name[: -len(SUFFIX)]
            for p in self.root.iterdir()
            if p.name.endswith(SUFFIX) and not p.name.startswith(".") and p.is_file()
        )

    def manifest(self, name: str) -> Manifest:
        """The manifest of a stored run, read from the file footer only."""
        path = self._existing(name)
        try:
            metadata = pq.read_schema(path).metadata or {}
        except (OSError, pa.ArrowInvalid) as error:
            raise InputError(f"cannot read stored run: {error}", file=str(path)) from None
        raw = metadata.get(MANIFEST_KEY)
        if raw is None:
            raise InputError("not a pathgrade run: no manifest in the file", file=str(path))
        return manifest_from_json(raw, file=str(path))

    def manifests(self) -> list[Manifest]:
        return [self.manifest(name) for name in self.names()]

    def load(self, name: str) -> StoredRun:
        """Manifest, records and traces of a stored run."""
        manifest = self.manifest(name)
        path = self.path_of(name)
        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowInvalid) as error:
            raise InputError(f"cannot read stored run: {error}", file=str(path)) from None
        records, traces = table_records(table, manifest.metrics)
        return StoredRun(manifest, records, traces, path)

    def remove(self, name: str) -> None:
        """Delete a stored run (one atomic unlink)."""
        self._existing(name).unlink()

    def save(
        self,
        manifest: Manifest,
        records: Sequence[Mapping[str, Any]],
        traces: Sequence[Mapping[str, Any] | None] | None = None,
        *,
        progress: Progress | None = None,
    ) -> Path:
        """Write a new run atomically; an existing name is an error (runs are immutable)."""
        target = self.path_of(manifest.name)
        if target.exists():
            raise InputError(
                f"a run named {manifest.name!r} is already stored (runs are immutable:"
                " choose another name or `pathgrade runs rm` it first)",
                file=str(target),
            )
        table = records_table(
            manifest.name, records, manifest.metrics, traces, manifest.schema_version
        )
        metadata = dict(table.schema.metadata or {})
        metadata[MANIFEST_KEY] = manifest.to_json()
        table = table.replace_schema_metadata(metadata)
        tmp_dir = self.root / ".tmp"
        tmp_dir.mkdir(parents=True, exist_ok=True)
        self._sweep(tmp_dir)
        tmp = tmp_dir / f".{manifest.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
        try:
            self._write(tmp, table, progress)
            self._publish(tmp, target, manifest.name)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        return target

    @staticmethod
    def _write(tmp: Path, table: pa.Table, progress: Progress | None) -> None:
        total = table.num_rows
        with pq.ParquetWriter(tmp, table.schema, compression="zstd") as writer:
            for start in range(0, max(total, 1), ROW_GROUP):
                writer.write_table(table.slice(start, ROW_GROUP))
                if progress is not None:
                    progress(min(start + ROW_GROUP, total), total)
        with tmp.open("rb+") as handle:
            os.fsync(handle.fileno())

    def _publish(self, tmp: Path, target: Path, name: str) -> None:
        try:
            os.link(tmp, target)  # atomic, and refuses to replace an existing run
        except FileExistsError:
            raise InputError(
                f"a run named {name!r} was stored by another process meanwhile", file=str(target)
            ) from None
        except OSError as error:
            if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
                raise
            if target.exists():  # no hard links here: a rename, checked first
                message = f"a run named {name!r} is already stored"
                raise InputError(message, file=str(target)) from None
            tmp.replace(target)
        self._sync_dir()

    def _sync_dir(self) -> None:
        with contextlib.suppress(OSError):
            fd = os.open(self.root, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    @staticmethod
    def _sweep(tmp_dir: Path) -> None:
        """Remove temporary files left by writers that are no longer running."""
        for leftover in tmp_dir.glob(".*.tmp"):
            parts = leftover.name.split(".")
            try:
                pid = int(parts[-3])
            except (IndexError, ValueError):
                continue
            if pid != os.getpid() and not _pid_alive(pid):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()

    def _existing(self, name: str) -> Path:
        path = self.path_of(name)
        if not path.is_file():
            known = ", ".join(self.names()[:10]) or "none"
            raise InputError(f"no stored run named {name!r} (stored: {known})", file=str(self.root))
        return path
