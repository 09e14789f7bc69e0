"""Reading a TOML file (a scoring config, a gates file) with one-line errors.

Every way a file can fail is an :class:`~pathgrade.core.errors.InputError` (or the subclass
the caller asks for) naming the file: it cannot be read (missing, a directory), it is larger
than :data:`MAX_TOML_BYTES` (a config is small; ``/dev/zero`` is not read forever), it is
compressed (gzip, bzip2, xz, zstd, zip: decompress it first), it is not UTF-8, it is not
TOML, or it nests arrays and tables too deeply for the parser (10,000 levels). A leading
UTF-8 byte order mark is skipped.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError

__all__ = ["MAX_TOML_BYTES", "read_toml"]

#: The largest TOML file read, in bytes.
MAX_TOML_BYTES = 16 << 20

_COMPRESSED = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"PK\x03\x04": "zip",
}


def read_toml(
    path: str | Path,
    *,
    what: str = "file",
    malformed: str = "malformed TOML",
    error: type[InputError] = InputError,
) -> dict[str, Any]:
    """The TOML document of ``path``; ``error`` (one line naming the file) if it cannot be
    read (``cannot read <what>: ...``) or parsed (``<malformed>: ...``)."""
    name = str(path)
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(MAX_TOML_BYTES + 1)
    except OSError as failure:
        raise error(f"cannot read {what}: {failure.strerror}", file=name) from None
    if len(raw) > MAX_TOML_BYTES:
        raise error(f"{malformed}: larger than {MAX_TOML_BYTES:,} bytes", file=name)
    for magic, kind in _COMPRESSED.items():
        if raw.startswith(magic):
            raise error(f"{malformed}: this is a {kind} file; decompress it first", file=name)
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as failure:
        raise error(
            f"{malformed}: not UTF-8 text (byte {failure.start}: {failure.reason})", file=name
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as failure:
        raise error(f"{malformed}: {failure}", file=name) from None
    except RecursionError:
        raise error(f"{malformed}: arrays or tables nested too deeply", file=name) from None
