"""Write proposed cases (``pathgrade cases mine``) as cases JSONL.

Each record is checked against the case model before it is written, so a proposal always
loads back as a case (``pathgrade score`` reads it unchanged).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import orjson

from pathgrade.cases.mine import Mined
from pathgrade.core.types import Case
from pathgrade.io.ingest.writing import write_lines


def mined_cases(mined: Iterable[Mined]) -> list[Case]:
    """The proposed cases, validated."""
    return [Case.model_validate(m.record) for m in mined]


def write_mined(mined: Iterable[Mined], path: str | Path | None) -> int:
    """Write the proposed cases to ``path`` (``None`` or ``-``: standard output); the count."""
    records = [m.record for m in mined]
    for record in records:
        Case.model_validate(record)
    return write_lines((orjson.dumps(r) for r in records), path, "proposed cases")
