"""SQL across stored runs with DuckDB, in process (no server); read-only by default.

Every listed stored run's file is exposed as one view, ``runs`` (columns unioned by name: a
run without a metric has ``null`` there)::

    from pathgrade.store import query
    query('SELECT run_name, avg("metrics.path_score") FROM runs GROUP BY 1')

**Read-only by default.** The SQL must be exactly one query statement (DuckDB's own parser
decides: ``SELECT``, ``WITH ... SELECT``, ``VALUES``, ``FROM runs``, ``DESCRIBE``/``SHOW``);
anything else (``COPY``, ``ATTACH``, ``INSTALL``, ``LOAD``, ``SET``, ``PRAGMA``, ``CREATE``,
``EXPLAIN``, several statements) is refused before it runs. The view is made over the store's
files, which are then DuckDB's only ``allowed_paths``; ``enable_external_access`` is turned
off and the configuration locked, so a query reads no other file or URL (``read_csv(
'/etc/passwd')`` is refused) and loads no extension. ``unsafe=True`` (``runs query
--unsafe``) gives the plain connection: any SQL, several statements (the last one's rows are
returned), files and extensions as DuckDB allows.

Store files that cannot be listed (:meth:`RunStore.scan`: corrupt, copies) are left out of
the view, and so is a file whose data turns out corrupt while a read-only query runs (the
query is run again without it); each is named in :attr:`QueryResult.warnings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from pathgrade.core.errors import InputError
from pathgrade.store.runs import RunStore


@dataclass(frozen=True)
class QueryResult:
    """Column names and rows of a query, and one line per store file left out."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    warnings: list[str] = field(default_factory=list)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _listed(target: RunStore) -> tuple[list[str], list[str]]:
    """The absolute paths of the listed runs' files, and a warning per file left out."""
    files, warnings = [], []
    for entry in target.scan():
        if entry.manifest is None:
            warnings.append(f"{entry.warning()} (left out of the query)")
        else:
            files.append(str(entry.path.absolute()))
    if not files:
        raise InputError("the run store is empty: nothing to query", file=str(target.root))
    return files, warnings


def _open(files: list[str], *, unsafe: bool) -> duckdb.DuckDBPyConnection:
    """A connection with the view ``runs`` over ``files``, locked down unless ``unsafe``."""
    con = duckdb.connect(":memory:")
    listed = ", ".join(_quoted(f) for f in files)
    try:
        con.execute(
            f"CREATE VIEW runs AS SELECT * FROM read_parquet([{listed}], union_by_name=true)"
        )
        if not unsafe:
            try:
                con.execute(f"SET allowed_paths = [{listed}]")
            except duckdb.CatalogException:  # no such setting: fail closed, never open
                raise InputError(
                    f"read-only queries need DuckDB 1.2 or later (installed:"
                    f" {duckdb.__version__}); upgrade it, or use --unsafe / unsafe=True",
                    field="sql",
                ) from None
            con.execute("SET autoinstall_known_extensions = false")
            con.execute("SET autoload_known_extensions = false")
            con.execute("SET enable_external_access = false")
            con.execute("SET lock_configuration = true")
    except (duckdb.Error, InputError):
        con.close()
        raise
    return con


def connect(
    store: str | Path | RunStore | None = None, *, unsafe: bool = False
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the view ``runs`` over the store's listed files,
    read-only unless ``unsafe`` (see the module docstring; statements are not checked here:
    :func:`query` checks them)."""
    target = store if isinstance(store, RunStore) else RunStore(store)
    files, _ = _listed(target)
    try:
        return _open(files, unsafe=unsafe)
    except duckdb.Error as error:
        raise _failure(error) from None


def check_read_only(sql: str) -> None:
    """Raise :class:`InputError` unless ``sql`` is exactly one query statement."""
    statements = _statements(sql, strict=True) or []
    if not statements:
        raise InputError("no SQL statement given", field="sql")
    if len(statements) > 1:
        raise InputError(
            f"exactly one SQL statement is allowed, got {len(statements)} (read-only store;"
            " --unsafe / unsafe=True runs several)",
            field="sql",
        )
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise InputError(
            f"only a query (SELECT, WITH ... SELECT) is allowed, got a {kind.name} statement"
            " (read-only store; --unsafe / unsafe=True allows it)",
            field="sql",
        )


def _statements(sql: str, *, strict: bool) -> list[duckdb.Statement] | None:
    """DuckDB's statements of ``sql``; a parse error raises (``strict``) or gives None (for
    DuckDB to report when it runs)."""
    try:
        return list(duckdb.extract_statements(sql))
    except duckdb.Error as error:
        if strict:
            raise _failure(error) from None
        return None


def _failure(error: duckdb.Error) -> InputError:
    message = " ".join(str(error).split("\n", 1)[0].split())
    if isinstance(error, duckdb.PermissionException):
        message += " (queries read only the store's runs; --unsafe / unsafe=True lifts this)"
    return InputError(f"query failed: {message}", field="sql")


def query(
    sql: str, store: str | Path | RunStore | None = None, *, unsafe: bool = False
) -> QueryResult:
    """Run one read-only SQL query against the view ``runs`` (any SQL with ``unsafe``).

    Raises:
        InputError: an empty store, a statement that is not one query (unless ``unsafe``),
            or any DuckDB error (one line).
    """
    if not unsafe:
        check_read_only(sql)
    elif _statements(sql, strict=False) == []:
        raise InputError("no SQL statement given", field="sql")
    target = store if isinstance(store, RunStore) else RunStore(store)
    files, warnings = _listed(target)
    while files:
        con: duckdb.DuckDBPyConnection | None = None
        try:
            con = _open(files, unsafe=unsafe)
            cursor = con.execute(sql)
            described = cursor.description if cursor is not None else None
            columns = [d[0] for d in described or ()]
            rows = cursor.fetchall() if described else []
            return QueryResult(columns, rows, warnings)
        except duckdb.Error as error:
            bad = None if unsafe else _corrupt_file(error, files, con)
            if bad is None:  # a read-only query has no effects: it can run again without it
                raise _failure(error) from None
            warnings.append(_left_out(bad, error))
            files.remove(bad)
        finally:
            if con is not None:
                con.close()
    raise InputError("no readable run in the store: nothing to query", file=str(target.root))


#: Errors about the SQL itself, never about a store file.
_SQL_ERRORS = (
    duckdb.ParserException,
    duckdb.BinderException,
    duckdb.CatalogException,
    duckdb.PermissionException,
    duckdb.ConversionException,
    duckdb.OutOfRangeException,
    duckdb.InterruptException,
    duckdb.OutOfMemoryException,
)


def _corrupt_file(
    error: duckdb.Error, files: list[str], con: duckdb.DuckDBPyConnection | None
) -> str | None:
    """The store file behind a DuckDB error: the one it names, else (for an error that is
    not about the SQL) the first whose every column fails to read through ``con``."""
    if isinstance(error, _SQL_ERRORS):
        return None
    text = str(error)
    named = [f for f in files if f in text]
    if named or con is None:
        return max(named, key=len) if named else None
    for path in files:
        try:  # every page of every column: hash forces the values to be decoded
            con.execute(f"SELECT max(hash(COLUMNS(*))) FROM read_parquet({_quoted(path)})")
            con.fetchall()
        except duckdb.Error:
            return path
    return None


def _left_out(path: str, error: duckdb.Error) -> str:
    reason = " ".join(str(error).split("\n", 1)[0].split())[:300]
    return f"{path}: corrupt stored run, left out of the query: {reason}"


__all__ = ["QueryResult", "check_read_only", "connect", "query"]
