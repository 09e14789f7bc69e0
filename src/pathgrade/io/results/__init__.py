"""Results files: the result record (:mod:`~pathgrade.io.results.schema`), written by
``pathgrade score --out`` and every engine (:mod:`~pathgrade.io.results.writer`), read by
``compare``, ``gate`` and ``runs add`` (:mod:`~pathgrade.io.results.reader`).

One JSON object per line, one line per scored run; ``null`` is an undefined metric (never a
zero). Readers accept every ``schema_version`` up to :data:`SCHEMA_VERSION` and refuse newer
ones with a one-line error naming the file, the line and the field.
"""

from pathgrade.io.results.reader import (
    iter_results,
    jsonl_records,
    read_results,
    validate_record,
)
from pathgrade.io.results.schema import SCHEMA_VERSION, ResultRecord
from pathgrade.io.results.writer import (
    iter_records_jsonl,
    records_jsonl,
    write_jsonl,
    write_results,
)

__all__ = [
    "SCHEMA_VERSION",
    "ResultRecord",
    "iter_records_jsonl",
    "iter_results",
    "jsonl_records",
    "read_results",
    "records_jsonl",
    "validate_record",
    "write_jsonl",
    "write_results",
]
