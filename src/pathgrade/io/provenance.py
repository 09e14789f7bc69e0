"""The provenance of a scoring of files: the hashes of the files pathgrade read.

``pathgrade score`` (every engine), ``compare --cases`` and ``runs`` record, in every result
record, :func:`scoring_provenance`: the scoring semantics, the config hash
(:func:`pathgrade.core.record_provenance.config_hash`), the hash of the cases file's bytes, and
the controlled variables: ``tool_schema`` (the hash of the ``--tools`` file, when given)
overridden by the ``--label NAME=VALUE`` labels. Each run's trace model is added when
scoring (:func:`pathgrade.score`).

Cases read from a pipe or a device (``/dev/stdin``) cannot be read twice: their hash is
not taken from the bytes before loading (which would consume them) but from the cases as
loaded, with :func:`~pathgrade.core.record_provenance.cases_hash` (the Python API's hash,
:func:`with_loaded_cases`). The same cases therefore hash differently from a file and from a
pipe; compare names that difference like any other.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import Provenance, short_hash
from pathgrade.core.record_provenance import cases_hash, measured, variables_of
from pathgrade.core.types import Case

__all__ = ["file_hash", "is_stream", "scoring_provenance", "with_loaded_cases"]


def is_stream(path: str | Path) -> bool:
    """Whether ``path`` is something other than a regular file (a pipe, a device): what can
    be read only once. A path that cannot be examined is not a stream (its loader names it)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def file_hash(path: str | Path) -> str:
    """``sha256:<hex>`` of a file's bytes."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", file=str(path)) from None
    return f"sha256:{digest.hexdigest()}"


def scoring_provenance(
    config: ScoringConfig,
    cases: str | Path,
    *,
    tools: str | Path | None = None,
    labels: Mapping[str, str] | None = None,
) -> Provenance:
    """What a scoring of the ``cases`` file with ``config`` (and the ``tools`` file) records
    (module docstring); ``labels`` win over what pathgrade finds."""
    found = {"tool_schema": short_hash(file_hash(tools)) if tools is not None else None}
    digest = None if is_stream(cases) else file_hash(cases)  # a pipe: with_loaded_cases
    return measured(config, cases=digest, variables=variables_of(labels, found))


def with_loaded_cases(provenance: Provenance, cases: Iterable[Case]) -> Provenance:
    """``provenance`` with the hash of the loaded ``cases`` when it has none (cases read from a
    pipe: module docstring)."""
    if provenance.cases is not None:
        return provenance
    return dataclasses.replace(provenance, cases=short_hash(cases_hash(cases)))
