"""Temporary files of store writers, and when one writer may remove another's.

A save writes ``<store>/.tmp/.<run>.<writer>.tmp`` and links it to ``<run>.parquet`` at the
end. ``<writer>`` is ``<host>_<namespace>_<pid>_<random>``: the host name (letters, digits
and ``-``), a 12-hex digest of the kernel boot id and the PID namespace (``x`` where these
cannot be read), the process id and 16 random hex digits, so two writers never share a name.
While writing, the writer refreshes the file's modification time (a heartbeat).

Another writer's temporary file is removed only when

* its modification time is older than the *lease* (default one hour, ``tmp_lease`` or
  ``$PATHGRADE_STORE_TMP_LEASE`` seconds): a writer that has not written for that long is
  taken to be gone, wherever it ran; or
* it was written in this very PID namespace of this boot (same digest) by a process that no
  longer exists: ``os.kill(pid, 0)`` answers for this namespace only, so it is asked nothing
  about writers in other containers, on other hosts (NFS, a shared CI cache) or of other
  boots.

A live writer in another namespace therefore keeps its file for the lease, however fresh
its process id looks to this one.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import platform
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from pathgrade.core.errors import InputError

#: Seconds without a heartbeat after which another writer's temporary file is abandoned.
DEFAULT_TMP_LEASE = 3600.0
LEASE_ENV = "PATHGRADE_STORE_TMP_LEASE"
TMP_SUFFIX = ".tmp"
_WRITER = re.compile(
    r"(?P<host>[A-Za-z0-9-]{1,32})_(?P<ns>[0-9a-f]{12}|x)_(?P<pid>\d+)_[0-9a-f]{16}"
)


def _namespace() -> str:
    """A digest of this kernel boot and PID namespace, or ``x`` when they cannot be read."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
        pid_ns = os.readlink("/proc/self/ns/pid")
    except (OSError, UnicodeDecodeError):
        return "x"
    return hashlib.sha256(f"{boot}\0{pid_ns}".encode()).hexdigest()[:12]


def _host() -> str:
    return (re.sub(r"[^A-Za-z0-9-]", "-", platform.node()) or "host")[:32]


def writer_id() -> str:
    """This writer's id: ``<host>_<namespace>_<pid>_<random>`` (see the module docstring)."""
    return f"{_host()}_{_namespace()}_{os.getpid()}_{uuid.uuid4().hex[:16]}"


def tmp_name(run: str) -> str:
    """The file name of a new temporary file for ``run``, unique to this writer."""
    return f".{run}.{writer_id()}{TMP_SUFFIX}"


def lease_seconds(value: float | None = None) -> float:
    """The lease: ``value``, else ``$PATHGRADE_STORE_TMP_LEASE``, else one hour."""
    field = "tmp_lease"
    if value is None:
        text = os.environ.get(LEASE_ENV)
        if not text:
            return DEFAULT_TMP_LEASE
        field = LEASE_ENV
        try:
            value = float(text)
        except ValueError:
            value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise InputError(
            f"the temporary-file lease must be a positive number of seconds, got {value!r}",
            field=field,
        )
    return value


@dataclass(frozen=True)
class Writer:
    """Who wrote a temporary file, parsed from its name."""

    namespace: str
    pid: int


def writer_of(path: Path) -> Writer | None:
    """The writer named in a temporary file's name, or None for any other name."""
    stem = path.name[: -len(TMP_SUFFIX)] if path.name.endswith(TMP_SUFFIX) else ""
    match = _WRITER.fullmatch(stem.rpartition(".")[2])
    if match is None:
        return None
    return Writer(match["ns"], int(match["pid"]))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # exists (another user's) or cannot tell: keep the file
    return True


def abandoned(path: Path, lease: float, now: float | None = None) -> bool:
    """Whether another writer may remove the temporary file ``path`` (module docstring)."""
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return False
    if (time.time() if now is None else now) - mtime > lease:
        return True
    writer = writer_of(path)
    if writer is None or writer.namespace == "x" or writer.namespace != _namespace():
        return False
    return writer.pid != os.getpid() and not _pid_alive(writer.pid)


def sweep(tmp_dir: Path, lease: float) -> int:
    """Remove the abandoned temporary files in ``tmp_dir``; how many were removed."""
    removed = 0
    for leftover in tmp_dir.glob(f".*{TMP_SUFFIX}"):
        if abandoned(leftover, lease):
            with contextlib.suppress(OSError):  # gone already, or not ours to remove
                leftover.unlink()
                removed += 1
    return removed


def heartbeat(path: Path) -> None:
    """Refresh the modification time of this writer's temporary file."""
    with contextlib.suppress(FileNotFoundError):
        os.utime(path)
