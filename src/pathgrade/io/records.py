"""Read JSON records from a JSONL file or a JSON array, keeping the line of each record.

The judge's chunk and recording files are read by the one JSON reader of every input,
:func:`pathgrade.io.jsonl.iter_records` (lines split on ``\\n`` only, a bounded line length,
a leading BOM skipped, the same number and nesting limits); this module keeps the name
its callers import.
"""

from __future__ import annotations

from pathgrade.io.jsonl import iter_records

__all__ = ["iter_records"]
