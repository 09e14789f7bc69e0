"""Bounded reading of Inspect AI's ``.eval`` log archive (a zip file).

An ``.eval`` log holds ``header.json`` (the EvalLog without its samples),
``samples/<id>_epoch_<n>.json`` (one EvalSample each), ``summaries.json``,
``reductions.json`` and a ``_journal/`` directory. Inspect writes the members compressed
with zstd (zip method 93) since 0.3.1xx, deflate or stored before; zstd members need the
``zstandard`` package (imported when such a member is read).

The archive is untrusted: every member is decompressed to at most
:func:`~pathgrade.io.jsonl.line_limit` bytes (64 MiB, ``PATHGRADE_MAX_LINE_BYTES``) whatever
its header claims, so a zip bomb is an :class:`InputError` naming the member; a truncated or
corrupt archive, a missing ``header.json``, an encrypted member, an unknown compression
method, a bad CRC and a member that is not JSON are one-line errors too. Errors about one
member name the file as ``<path>:<member>``.
"""

from __future__ import annotations

import importlib
import io
import re
import struct
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.io.jsonl import MAX_LINE_BYTES_ENV, line_limit

ZIP_MAGIC = b"PK\x03\x04"
HEADER = "header.json"
_ZSTD = 93
_CHUNK = 1 << 20
#: Archives with more members than this are refused (a central directory is read whole).
MAX_MEMBERS = 1_000_000
_SAMPLE = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d{1,18})\.json$")
_MEMBER_NAMES = (b"_journal/", b"header.json", b"samples/")


def looks_like_eval(head: bytes) -> bool:
    """A zip archive whose first bytes name an Inspect member (``_journal/``, ``samples/``,
    ``header.json``): local file headers store member names uncompressed."""
    return head.startswith(ZIP_MAGIC) and any(name in head for name in _MEMBER_NAMES)


def sample_name(member: str) -> tuple[str, int] | None:
    """``(sample id, epoch)`` of a ``samples/<id>_epoch_<n>.json`` member name, else ``None``."""
    found = _SAMPLE.match(member)
    return (found["id"], int(found["epoch"])) if found else None


class EvalArchive:
    """An open ``.eval`` archive: its header and its sample members, each read bounded."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.limit = line_limit()
        try:
            self._zip = zipfile.ZipFile(path)
        except zipfile.BadZipFile as error:
            raise InputError(
                f"not a readable .eval zip archive ({error})", file=self.path
            ) from None
        except OSError as error:
            raise InputError(
                f"cannot read file: {error.strerror or error}", file=self.path
            ) from None
        except NotImplementedError as error:  # a "version needed to extract" above 6.3
            raise InputError(f"unsupported zip archive ({error})", file=self.path) from None
        except (ValueError, EOFError, OverflowError, struct.error) as error:
            raise InputError(f"corrupt .eval zip archive ({error})", file=self.path) from None
        infos = self._zip.infolist()
        if len(infos) > MAX_MEMBERS:
            self._zip.close()
            raise InputError(f"more than {MAX_MEMBERS:,} members in the archive", file=self.path)
        self._infos = {info.filename: info for info in infos}

    def __enter__(self) -> EvalArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self._zip.close()

    def where(self, member: str) -> str:
        """The file name errors about ``member`` carry: ``<path>:<member>``."""
        return f"{self.path}:{member}"

    def header(self) -> Mapping[str, Any]:
        """The parsed ``header.json`` (an object), or an :class:`InputError`."""
        if HEADER not in self._infos:
            raise InputError(
                "no header.json: not an Inspect AI .eval log, or one whose eval has not"
                " finished (only _journal/ written)",
                file=self.path,
            )
        value = self.load(HEADER)
        if not isinstance(value, dict):
            raise InputError("expected a JSON object", file=self.where(HEADER), line=1)
        return value

    def samples(self) -> list[str]:
        """The sample members, in archive order."""
        return [name for name in self._infos if sample_name(name) is not None]

    def load(self, member: str) -> Any:
        """The JSON value of one member (bounded; an :class:`InputError` when bad)."""
        data = self._bytes(self._infos[member])
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as error:
            raise InputError(f"malformed JSON: {error}", file=self.where(member), line=1) from None

    def _bytes(self, info: zipfile.ZipInfo) -> bytes:
        where = self.where(info.filename)
        if info.flag_bits & 0x1:
            raise InputError("the member is encrypted", file=where)
        if info.compress_size > self.limit or info.file_size > self.limit:
            raise self._too_large(where)
        try:
            if info.compress_type == _ZSTD:
                data = self._zstd(info, where)
            else:
                with self._zip.open(info) as handle:
                    data = _read_at_most(handle, self.limit + 1)
        except InputError:
            raise
        except NotImplementedError as error:  # a compression method or zip version
            raise InputError(
                f"unsupported zip member (method {info.compress_type}: {error})", file=where
            ) from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError) as e:
            raise InputError(f"corrupt member ({type(e).__name__}: {e})", file=where) from None
        if len(data) > self.limit:
            raise self._too_large(where)
        return data

    def _zstd(self, info: zipfile.ZipInfo, where: str) -> bytes:
        try:
            zstd: Any = importlib.import_module("zstandard")
        except ImportError:
            raise InputError(
                "the member is compressed with zstd (zip method 93), as Inspect AI writes"
                " .eval logs: install the zstandard package to read it",
                file=where,
            ) from None
        raw = self._raw(info, where)
        try:
            reader = zstd.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
            data = _read_at_most(reader, self.limit + 1)
        except zstd.ZstdError as error:
            raise InputError(f"corrupt zstd member ({error})", file=where) from None
        if len(data) <= self.limit and zlib.crc32(data) != info.CRC:
            raise InputError("corrupt member (bad CRC-32)", file=where)
        return data

    def _raw(self, info: zipfile.ZipInfo, where: str) -> bytes:
        """The compressed bytes of a member, read after its local file header."""
        with Path(self.path).open("rb") as handle:
            handle.seek(info.header_offset)
            local = handle.read(30)
            if len(local) < 30 or local[:4] != ZIP_MAGIC:
                raise InputError("corrupt member (bad local file header)", file=where)
            name_length, extra_length = struct.unpack("<HH", local[26:30])
            handle.seek(info.header_offset + 30 + name_length + extra_length)
            raw = handle.read(info.compress_size)
        if len(raw) < info.compress_size:
            raise InputError("truncated member", file=where)
        return raw

    def _too_large(self, where: str) -> InputError:
        return InputError(
            f"the member is larger than {self.limit:,} bytes when decompressed"
            f" (set {MAX_LINE_BYTES_ENV} to allow more)",
            file=where,
        )


def _read_at_most(handle: Any, size: int) -> bytes:
    """At most ``size`` bytes from a binary stream, read in chunks until EOF."""
    parts: list[bytes] = []
    total = 0
    while total < size:
        chunk = handle.read(min(_CHUNK, size - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts)
