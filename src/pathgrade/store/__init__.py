"""Persisted runs: one immutable Parquet file per scored run, with its manifest.

See :mod:`pathgrade.store.runs` for the layout and the atomic write, and
:mod:`pathgrade.store.query` for SQL across runs.
"""

from pathgrade.core.record_provenance import config_hash
from pathgrade.store.manifest import STORE_SCHEMA_VERSION, Manifest, parse_labels
from pathgrade.store.query import QueryResult, query
from pathgrade.store.runs import RunStore, StoredRun, StoreEntry, store_path
from pathgrade.store.save import resolve_results, save_records, save_scored

__all__ = [
    "STORE_SCHEMA_VERSION",
    "Manifest",
    "QueryResult",
    "RunStore",
    "StoreEntry",
    "StoredRun",
    "config_hash",
    "parse_labels",
    "query",
    "resolve_results",
    "save_records",
    "save_scored",
    "store_path",
]
