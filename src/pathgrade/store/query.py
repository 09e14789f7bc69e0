"""SQL across stored runs with DuckDB, in process (no server).

Every stored run's file is exposed as one view, ``runs`` (columns unioned by name: a run
without a metric has ``null`` there)::

    from pathgrade.store import query
    query('SELECT run_name, avg("metrics.path_score") FROM runs GROUP BY 1')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from pathgrade.core.errors import InputError
from pathgrade.store.runs import RunStore


@dataclass(frozen=True)
class QueryResult:
    """Column names and rows of a query."""

    columns: list[str]
    rows: list[tuple[Any, ...]]


def connect(store: str | Path | RunStore | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the view ``runs`` over the store's files."""
    target = store if isinstance(store, RunStore) else RunStore(store)
    files = [str(target.path_of(n)) for n in target.names()]
    if not files:
        raise InputError("the run store is empty: nothing to query", file=str(target.root))
    con = duckdb.connect(":memory:")
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    con.execute(f"CREATE VIEW runs AS SELECT * FROM read_parquet([{listed}], union_by_name=true)")
    return con


def query(sql: str, store: str | Path | RunStore | None = None) -> QueryResult:
    """Run one SQL statement against the view ``runs``; errors become :class:`InputError`."""
    con = connect(store)
    try:
        cursor = con.execute(sql)
        columns = [d[0] for d in cursor.description or ()]
        return QueryResult(columns, cursor.fetchall())
    except duckdb.Error as error:
        raise InputError(f"query failed: {error}".splitlines()[0], field="sql") from None
    finally:
        con.close()


__all__ = ["QueryResult", "connect", "query"]
