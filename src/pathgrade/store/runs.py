"""The run store: a folder of immutable Parquet files, one per scored run, no server.

Layout: ``<store>/<name>.parquet``, the manifest in the file's footer. Temporary files live
in ``<store>/.tmp/`` while being written. A save writes the whole file there, flushes it to
disk, then *links* it to its final name, which fails if the name exists: a run is published
all at once or not at all, a name is never overwritten, and concurrent saves (other names)
all land. A writer killed mid-write leaves only its temporary file, which no reader looks at
and a later save removes when :mod:`pathgrade.store.lease` says it is abandoned (its lease
ran out, or its process is provably gone), whichever host or container wrote it.

A store file is listed under its file name only when its manifest carries the same name
(a copied or renamed file is reported, not listed twice); a file that cannot be read is
reported as corrupt and hides nothing else (:meth:`RunStore.scan`).

The folder is ``--store``, else ``$PATHGRADE_STORE``, else ``.pathgrade/runs`` (relative to
the working directory).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pathgrade.core.errors import InputError
from pathgrade.store.lease import heartbeat, lease_seconds, sweep, tmp_name
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


@dataclass(frozen=True)
class StoreEntry:
    """One ``*.parquet`` file of the store: its manifest, or why it is not listed."""

    name: str
    path: Path
    manifest: Manifest | None
    problem: str | None = None

    def warning(self) -> str:
        """One line: the file and its problem."""
        return f"{self.path}: {self.problem}"


class RunStore:
    """A folder of stored runs (see the module docstring).

    ``tmp_lease``: seconds after which another writer's silent temporary file is abandoned
    (default ``$PATHGRADE_STORE_TMP_LEASE``, else 3600; see :mod:`pathgrade.store.lease`).
    """

    def __init__(self, root: str | Path | None = None, *, tmp_lease: float | None = None) -> None:
        self.root = store_path(root)
        self.tmp_lease = lease_seconds(tmp_lease)

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
        """The manifest of a stored run, read from the file footer only.

        Raises:
            InputError: no such run, an unreadable file, a bad manifest, or a manifest
                naming another run (a copied or renamed file).
        """
        return self._read_manifest(name, self._existing(name))

    @staticmethod
    def _read_manifest(name: str, path: Path) -> Manifest:
        try:
            metadata = pq.read_schema(path).metadata or {}
        except (OSError, pa.ArrowException) as error:
            message = " ".join(str(error).split())[:300]
            raise InputError(
                f"corrupt stored run, cannot read it: {message}", file=str(path)
            ) from None
        raw = metadata.get(MANIFEST_KEY)
        if raw is None:
            raise InputError("not a pathgrade run: no manifest in the file", file=str(path))
        manifest = manifest_from_json(raw, file=str(path))
        if manifest.name != name:
            raise InputError(
                f"the file holds the run {manifest.name!r}, not {name!r} (a copied or renamed"
                f" file): not listed; rename it to {manifest.name}{SUFFIX} or remove it",
                file=str(path),
                field="name",
            )
        return manifest

    def scan(self) -> list[StoreEntry]:
        """Every store file, sorted by name, with its manifest or its one-line problem."""
        entries: list[StoreEntry] = []
        for name in self.names():
            path = self.root / f"{name}{SUFFIX}"
            try:
                entries.append(StoreEntry(name, path, self._read_manifest(name, path)))
            except InputError as error:  # the problem without the file: "field 'x': ..."
                problem = str(InputError(error.message, line=error.line, field=error.field))
                entries.append(StoreEntry(name, path, None, problem))
        return entries

    def manifests(self) -> list[Manifest]:
        """The manifests of the runs listed (files with a problem are left out)."""
        return [e.manifest for e in self.scan() if e.manifest is not None]

    def load(self, name: str) -> StoredRun:
        """Manifest, records and traces of a stored run."""
        manifest = self.manifest(name)
        path = self.path_of(name)
        try:
            table = pq.read_table(path)
            records, traces = table_records(table, manifest.metrics)
        except (OSError, pa.ArrowException, ValueError, KeyError, TypeError) as error:
            message = " ".join(str(error).split())[:300]
            raise InputError(
                f"corrupt stored run, cannot read it: {message}", file=str(path)
            ) from None
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
        tmp = tmp_dir / tmp_name(manifest.name)
        try:
            tmp_dir.mkdir(parents=True, exist_ok=True)
            sweep(tmp_dir, self.tmp_lease)
            self._write(tmp, table, progress)
            self._publish(tmp, target, manifest.name)
        except OSError as error:
            reason = error.strerror or str(error)
            where = error.filename or tmp_dir
            raise InputError(
                f"cannot write the run store: {reason} ({where})", file=str(self.root)
            ) from None
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
        return target

    def check_writable(self, name: str | None = None) -> None:
        """Raise :class:`InputError` now if a save (of ``name``) would fail for the store:
        the folder (or its nearest existing parent) is not a writable folder, ``.tmp`` is not
        one, or ``name`` is invalid or already stored. Creates nothing."""
        if name is not None and self.exists(name):
            raise InputError(
                f"a run named {name!r} is already stored (runs are immutable: choose another"
                " name or `pathgrade runs rm` it first)",
                file=str(self.path_of(name)),
            )
        for folder in (self.root, self.root / ".tmp"):
            probe = folder
            while not probe.exists() and probe != probe.parent:
                if probe.is_symlink():  # a dangling link: mkdir would fail
                    break
                probe = probe.parent
            if not probe.is_dir():
                message = f"{probe} is not a folder: the run store cannot be written"
                raise InputError(message, file=str(folder))
            if not os.access(probe, os.W_OK | os.X_OK):
                message = f"{probe} is not writable: the run store cannot be written"
                raise InputError(message, file=str(folder))
            if probe != folder:  # the rest would be created, below a writable folder
                return

    def _write(self, tmp: Path, table: pa.Table, progress: Progress | None) -> None:
        total = table.num_rows
        with pq.ParquetWriter(tmp, table.schema, compression="zstd") as writer:
            heartbeat(tmp)
            for start in range(0, max(total, 1), ROW_GROUP):
                writer.write_table(table.slice(start, ROW_GROUP))
                heartbeat(tmp)  # other writers leave a fresh file alone (store.lease)
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
        except FileNotFoundError:
            raise InputError(
                f"the temporary file of run {name!r} was removed by another writer (silent"
                f" for more than the lease of {self.tmp_lease:g} s?); nothing was stored",
                file=str(tmp),
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

    def _existing(self, name: str) -> Path:
        path = self.path_of(name)
        if not path.is_file():
            known = ", ".join(self.names()[:10]) or "none"
            raise InputError(f"no stored run named {name!r} (stored: {known})", file=str(self.root))
        return path
