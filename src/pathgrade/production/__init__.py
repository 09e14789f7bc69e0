"""Feeding production traces back into the evaluation set (seed 003, section 12.1: failed
traces return to the cases "after redaction and review").

- :mod:`.redact`: replace personal data and secrets with stable placeholders (pure);
- :mod:`.promote`: turn chosen stored runs into draft cases whose reference is the observed
  path, marked unreviewed (``pathgrade cases promote``).

See docs/production.md.
"""

from __future__ import annotations

from pathgrade.production.promote import (
    REFERENCE_STATUS,
    UNREVIEWED,
    Promoted,
    promote,
    promoted_case_id,
)
from pathgrade.production.redact import KINDS, Redactor, redact

__all__ = [
    "KINDS",
    "REFERENCE_STATUS",
    "UNREVIEWED",
    "Promoted",
    "Redactor",
    "promote",
    "promoted_case_id",
    "redact",
]
