"""The provenance of a scoring of files: the hashes of the files pathgrade read.

``pathgrade score`` (every engine), ``compare --cases`` and ``runs`` record, in every result
record, :func:`scoring_provenance`: the scoring semantics, the config hash
(:func:`pathgrade.core.record_provenance.config_hash`), the hash of the cases file's bytes, and
the controlled variables: ``tool_schema`` (the hash of the ``--tools`` file, when given)
overridden by the ``--label NAME=VALUE`` labels. Each run's trace model is added when
scoring (:func:`pathgrade.score`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import Provenance, short_hash
from pathgrade.core.record_provenance import measured, variables_of

__all__ = ["file_hash", "scoring_provenance"]


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
    return measured(config, cases=file_hash(cases), variables=variables_of(labels, found))
