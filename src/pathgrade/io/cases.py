"""Load cases and runs files into the typed model, with errors that name file, line, field.

With ``skip_invalid``, bad records are collected (as :class:`InputError`) and the valid ones
are kept; without it the first bad record raises. Identical step records are validated once
and share one frozen ``Step`` (:mod:`pathgrade.io.step_pool`); pass one pool to both loaders
to share steps between a cases file and its runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.gc_pause import paused_gc
from pathgrade.core.types import Case, FieldError, Run
from pathgrade.io.jsonl import iter_records
from pathgrade.io.step_pool import StepPool

Model = TypeVar("Model", bound=BaseModel)


@dataclass
class Loaded(Generic[Model]):
    """Valid records (with their lines) and the errors of the skipped ones."""

    items: list[Model] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    skipped: list[InputError] = field(default_factory=list)


def _field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def validation_error(error: ValidationError, *, file: str, line: int) -> InputError:
    """The first problem of a pydantic error as a one-line :class:`InputError`: its field
    (for a problem across fields, the :class:`~pathgrade.core.types.FieldError`'s field)
    and message, with the value received when it is short (never a whole record)."""
    problems = error.errors()
    # Of the problems of the first field, the deepest: for a union (ids or {id: gain}), the
    # branch that got furthest says what is wrong, not "should be a valid tuple".
    field = problems[0]["loc"][:1]
    first = max((p for p in problems if p["loc"][:1] == field), key=lambda p: len(p["loc"]))
    # Drop pydantic's internal tags (e.g. union branches such as 'str' or 'function-before').
    # A step's grammar fields are written as its own fields (``Step.grammar`` stores them).
    loc = tuple(
        p
        for p in first["loc"]
        if isinstance(p, int) or not (p in _UNION_TAGS or "[" in p or p == "grammar")
    )
    message = first["msg"].removeprefix("Value error, ")  # the validator's own words
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, FieldError):
        message = str(cause)
        loc += (cause.field,)
    elif first["type"] == "extra_forbidden":
        message = "unknown field"
    elif "input" in first and first["type"] != "missing":
        shown = repr(first["input"])
        if not isinstance(first["input"], dict | list | tuple) or len(shown) <= 60:
            message += f" (got {shown[:60]}{'...' if len(shown) > 60 else ''})"
    more = len(problems) - 1
    if more:
        message += f" (+{more} more problem{'s' if more > 1 else ''})"
    return InputError(message, file=file, line=line, field=_field_path(loc) or None)


_UNION_TAGS = {
    "str",
    "list",
    "dict",
    "function-before",
    "function-after",
    "tuple",
    "none",
    "retrieved-id",
    "retrieved-item",
    "float",
    "int",
    "bool",
}


def parse_record(
    value: Any, model: type[Model], *, file: str, line: int, pool: StepPool | None = None
) -> Model:
    """Validate one decoded record (or re-raise the :class:`InputError` that stands for it);
    with a ``pool``, its steps are shared with identical steps validated before."""
    if isinstance(value, InputError):
        raise value
    if not isinstance(value, dict):
        raise InputError(
            f"expected a JSON object, got {type(value).__name__}", file=file, line=line
        )
    pooled, pending = (value, []) if pool is None else pool.prepare(value, model)
    try:
        item = model.model_validate(pooled)
    except ValidationError as error:
        reported = error
        if pooled is not value:  # report the record as written, not with pooled steps in it
            try:
                model.model_validate(value)
            except ValidationError as original:
                reported = original
        raise validation_error(reported, file=file, line=line) from None
    if pool is not None and pending:
        return pool.add(item, pending)
    return item


def check_known_case(run: Run, cases: Mapping[str, Any], *, file: str, line: int) -> None:
    """A run must name a case of the cases file."""
    if run.case_id not in cases:
        raise InputError(
            f"unknown case_id {run.case_id!r} (no such case in the cases file)",
            file=file,
            line=line,
            field="case_id",
        )


def _load(
    path: str | Path,
    model: type[Model],
    *,
    skip_invalid: bool,
    check: Callable[[Model, int], None] | None = None,
    pool: StepPool | None = None,
    gc_pause: bool,
    max_line_bytes: int | None = None,
) -> Loaded[Model]:
    name = str(path)
    pool = StepPool() if pool is None else pool
    loaded: Loaded[Model] = Loaded()
    with paused_gc(gc_pause):
        for line, value in iter_records(path, max_line_bytes=max_line_bytes):
            try:
                item = parse_record(value, model, file=name, line=line, pool=pool)
                if check is not None:
                    check(item, line)
            except InputError as error:
                if not skip_invalid:
                    raise
                loaded.skipped.append(error)
                continue
            loaded.items.append(item)
            loaded.lines.append(line)
    if not loaded.items and not loaded.skipped:
        raise InputError("file has no records", file=name)
    return loaded


def load_cases(
    path: str | Path,
    *,
    skip_invalid: bool = False,
    pool: StepPool | None = None,
    gc_pause: bool = False,
    max_line_bytes: int | None = None,
) -> Loaded[Case]:
    """Load a cases file; ``case_id`` must be unique. Steps are pooled in ``pool`` (a new
    one when not given). With ``gc_pause``, the cyclic garbage collector is paused while
    the records are validated (about three times faster; a change to the whole process
    while the call runs, so off unless asked for: see :mod:`pathgrade.core.gc_pause`).
    The file's form, encoding and limits (``max_line_bytes``: a line's longest length in
    bytes, default :func:`pathgrade.io.jsonl.line_limit`) are those of
    :mod:`pathgrade.io.jsonl`."""
    seen: dict[str, int] = {}
    name = str(path)

    def unique(case: Case, line: int) -> None:
        if case.case_id in seen:
            raise InputError(
                f"duplicate case_id {case.case_id!r} (first on line {seen[case.case_id]})",
                file=name,
                line=line,
                field="case_id",
            )
        seen[case.case_id] = line

    return _load(
        path,
        Case,
        skip_invalid=skip_invalid,
        check=unique,
        pool=pool,
        gc_pause=gc_pause,
        max_line_bytes=max_line_bytes,
    )


def load_runs(
    path: str | Path,
    cases: Mapping[str, Any] | None = None,
    *,
    skip_invalid: bool = False,
    pool: StepPool | None = None,
    gc_pause: bool = False,
    max_line_bytes: int | None = None,
) -> Loaded[Run]:
    """Load a runs file; with ``cases``, every run must name a known ``case_id``. Steps are
    pooled in ``pool`` (a new one when not given); ``gc_pause`` and ``max_line_bytes`` as in
    :func:`load_cases`."""
    name = str(path)

    def known(run: Run, line: int) -> None:
        if cases is not None:
            check_known_case(run, cases, file=name, line=line)

    return _load(
        path,
        Run,
        skip_invalid=skip_invalid,
        check=known,
        pool=pool,
        gc_pause=gc_pause,
        max_line_bytes=max_line_bytes,
    )
