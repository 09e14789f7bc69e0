"""Load a tools file (``--tools tools.json``): JSON Schemas of the tools' arguments.

Three accepted shapes (JSON):

1. OpenAI function calling, a list: ``[{"type": "function", "function": {"name": ...,
   "description": ..., "parameters": {...}}}, ...]``; the flat form of the Responses API
   (``{"type": "function", "name": ..., "parameters": ...}``) is accepted too.
2. A plain map from tool name to the JSON Schema of its arguments: ``{"refund": {...}}``.
3. A wrapper object ``{"tools": <1 or 2>, "dangerous": ["refund", ...], "requires_approval":
   ["refund", ...]}``. An object is read as this form exactly when its ``"tools"`` value is a
   list or an object and every other key is ``"dangerous"`` or ``"requires_approval"``.

A tool is **dangerous** when the wrapper's ``dangerous`` list names it, or when its entry says
``"x-dangerous": true`` (inside ``function`` or next to it in the list form; inside the schema
in the map form, where JSON Schema ignores the unknown ``x-`` keyword). A tool without
``parameters`` takes no arguments (``{"type": "object", "properties": {}}``). A tool
**requires approval** (each call approved first: the system layer's ``unapproved_action``)
when the wrapper's ``requires_approval`` list names it, or its entry says
``"x-requires-approval": true`` (where ``x-dangerous`` may be).

Every schema is checked against its metaschema when loaded; a bad one is a one-line
:class:`InputError` naming the file, the line of the tool's name (best effort) and the tool.
The file is read as every JSON input is (:mod:`pathgrade.io.jsonl`): orjson, a leading byte
order mark skipped, at most the line limit in bytes, at most 128 levels of nesting.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson

from pathgrade.core.errors import InputError
from pathgrade.io.jsonl import BOM, check_depth, line_limit
from pathgrade.metrics.tool.schemas import NO_PARAMETERS, ToolSet, ToolSpec, schema_problem
from pathgrade.metrics.tool.validators import BUILTIN_VALIDATORS, ENTRY_POINT_GROUP, Validator

DANGEROUS_KEY = "x-dangerous"
APPROVAL_KEY = "x-requires-approval"
_WRAPPER_KEYS = frozenset({"tools", "dangerous", "requires_approval"})


def _line_of(text: str, name: str) -> int | None:
    """The 1-based line where ``"name"`` first appears as a JSON string (best effort)."""
    at = text.find(orjson.dumps(name).decode())
    return None if at < 0 else text.count("\n", 0, at) + 1


def _is_wrapper(data: dict[str, Any]) -> bool:
    return isinstance(data.get("tools"), list | dict) and set(data) <= _WRAPPER_KEYS


def _names(data: dict[str, Any], key: str, file: str | None) -> set[str]:
    listed = data.get(key, [])
    if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
        raise InputError(f"{key!r} must be a list of tool names", file=file, field=key)
    return set(listed)


def _flag(entry: Any, fallback: Any, name: str, where: str, file: str | None, text: str) -> bool:
    """An entry's ``x-requires-approval`` (else ``fallback``'s), a boolean."""
    found = entry.get(APPROVAL_KEY) if isinstance(entry, dict) else None
    if found is None and isinstance(fallback, dict):
        found = fallback.get(APPROVAL_KEY)
    if found is None:
        return False
    if not isinstance(found, bool):
        raise InputError(
            f"tool {name!r}: {APPROVAL_KEY!r} must be true or false",
            file=file,
            line=_line_of(text, name),
            field=f"{where}.{APPROVAL_KEY}",
        )
    return found


def parse_tools(data: Any, *, file: str | None = None, text: str = "") -> ToolSet:
    """Build a :class:`ToolSet` from parsed JSON (see the module docstring for the shapes)."""
    extra_dangerous: set[str] = set()
    approvals: set[str] = set()
    if isinstance(data, dict) and _is_wrapper(data):
        approvals = _names(data, "requires_approval", file)
        listed = data.get("dangerous", [])
        if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
            raise InputError(
                "'dangerous' must be a list of tool names", file=file, field="dangerous"
            )
        extra_dangerous = set(listed)
        data, prefix = data["tools"], "tools"
    else:
        prefix = ""
    entries: list[tuple[str, str, Any, bool, str | None]] = []  # field, name, schema, danger, doc
    if isinstance(data, list):
        for i, item in enumerate(data):
            where = f"{prefix}[{i}]"
            if not isinstance(item, dict):
                raise InputError("a tool entry must be an object", file=file, field=where)
            function = item.get("function", item)
            if not isinstance(function, dict):
                raise InputError("'function' must be an object", file=file, field=where)
            name = function.get("name")
            if not isinstance(name, str) or not name:
                raise InputError("a tool needs a non-empty 'name'", file=file, field=where)
            danger = function.get(DANGEROUS_KEY, item.get(DANGEROUS_KEY, False))
            if not isinstance(danger, bool):
                raise InputError(
                    f"tool {name!r}: {DANGEROUS_KEY!r} must be true or false",
                    file=file,
                    line=_line_of(text, name),
                    field=f"{where}.{DANGEROUS_KEY}",
                )
            schema = function.get("parameters", dict(NO_PARAMETERS))
            description = function.get("description")
            doc = description if isinstance(description, str) else None
            if _flag(function, item, name, where, file, text):
                approvals.add(name)
            entries.append((f"{where}.parameters", name, schema, danger, doc))
    elif isinstance(data, dict):
        for name, schema in data.items():
            where = f"{prefix}.{name}" if prefix else name
            danger = schema.get(DANGEROUS_KEY, False) if isinstance(schema, dict) else False
            if not isinstance(danger, bool):
                raise InputError(
                    f"tool {name!r}: {DANGEROUS_KEY!r} must be true or false",
                    file=file,
                    line=_line_of(text, name),
                    field=f"{where}.{DANGEROUS_KEY}",
                )
            if _flag(schema, None, name, where, file, text):
                approvals.add(name)
            entries.append((where, name, schema, danger, None))
    else:
        raise InputError(
            "a tools file must hold a list of OpenAI function tools or a {name: schema} object",
            file=file,
        )
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    for where, name, schema, danger, doc in entries:
        line = _line_of(text, name)
        if name in seen:
            raise InputError(f"tool {name!r} is defined twice", file=file, line=line, field=where)
        seen.add(name)
        try:
            problem = schema_problem(schema)
        except RecursionError:
            problem = "nested too deeply to check"
        if problem is not None:
            raise InputError(
                f"tool {name!r}: not a valid JSON Schema: {problem}",
                file=file,
                line=line,
                field=where,
            )
        specs.append(
            ToolSpec(name, schema, danger or name in extra_dangerous, doc, name in approvals)
        )
    for key, names in (("dangerous", extra_dangerous), ("requires_approval", approvals)):
        unknown = sorted(names - seen)
        if unknown:
            raise InputError(
                f"{key!r} names tools that are not defined: {', '.join(unknown)}",
                file=file,
                field=key,
            )
    return ToolSet.of(specs)


def load_tools(path: str | Path) -> ToolSet:
    """Read and check a tools file; errors are :class:`InputError` naming the file."""
    name = str(path)
    limit = line_limit()
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(limit + 1).removeprefix(BOM)
    except OSError as error:
        raise InputError(f"cannot read tools file: {error.strerror}", file=name) from None
    if len(raw) > limit:
        raise InputError(f"larger than {limit:,} bytes (PATHGRADE_MAX_LINE_BYTES)", file=name)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise InputError(f"malformed JSON: {error}", file=name) from None
    check_depth(data, name, None)
    return parse_tools(data, file=name, text=raw.decode("utf-8", errors="replace"))


def entry_point_validators() -> dict[str, Validator]:
    """Validators published by installed packages under the ``pathgrade.validators`` group."""
    found: dict[str, Validator] = {}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in BUILTIN_VALIDATORS or entry.name in found:
            raise InputError(f"validator plug-in {entry.name!r} is defined twice")
        try:
            loaded: Callable[..., Any] = entry.load()
        except Exception as error:  # a broken plug-in must name itself, whatever it raised
            raise InputError(
                f"validator plug-in {entry.name!r} ({entry.value}) failed to load: {error}"
            ) from None
        if not callable(loaded):
            raise InputError(f"validator plug-in {entry.name!r} ({entry.value}) is not callable")
        found[entry.name] = loaded
    return found
