"""Reading a faults file (``faults.toml``) into a :class:`~pathgrade.replay.faults.FaultPlan`.

::

    seed = 7                 # optional: the seed of probability draws (default 0)

    [[fault]]
    tool = "refund"          # optional: every tool when left out
    kind = "timeout"         # timeout, error, mcp_is_error, empty_result, truncated_result,
                             # permission_denied
    nth = [1, 2]             # optional: an integer or a list (1-based); every call when left out
    probability = 0.5        # optional: in [0, 1] (default 1)
    message = "..."          # optional: the error text
    status = 502             # optional, kind "error": a 5xx code (default 503)
    keep = 0.25              # optional, kind "truncated_result": share kept, in [0, 1)

The file is read with :func:`pathgrade.io.toml_files.read_toml`; every problem (an unknown
key, a wrong type, a value out of range) is one :class:`~pathgrade.core.errors.InputError`
naming the file and the field (``fault[1].probability``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.io.toml_files import read_toml
from pathgrade.replay.faults import FAULT_KINDS, FaultPlan, FaultRule

_TOP = ("seed", "fault")
_RULE = ("tool", "kind", "nth", "probability", "message", "status", "keep")


def load_faults(path: str | Path) -> FaultPlan:
    """The fault plan of the faults file at ``path``.

    Raises:
        InputError: the file cannot be read or parsed, or a field is wrong (named).
    """
    name = str(path)
    doc = read_toml(path, what="faults file", malformed="malformed faults file")
    return plan_from_dict(doc, name)


def plan_from_dict(doc: dict[str, Any], name: str | None = None) -> FaultPlan:
    """The fault plan of a parsed faults document; ``name`` is the file named in errors."""

    def fail(field: str, message: str) -> InputError:
        return InputError(message, file=name, field=field)

    for key in doc:
        if key not in _TOP:
            raise fail(key, f"unknown key; expected one of {', '.join(_TOP)}")
    seed = doc.get("seed", 0)
    if not _is_int(seed):
        raise fail("seed", f"expected an integer, got {seed!r}")
    entries = doc.get("fault", [])
    if not isinstance(entries, list) or not entries:
        raise fail("fault", "expected one or more [[fault]] tables")
    rules = tuple(_rule(entry, f"fault[{i}]", fail) for i, entry in enumerate(entries))
    return FaultPlan(rules, seed=seed, source=name)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _rule(entry: Any, where: str, fail: Callable[[str, str], InputError]) -> FaultRule:
    if not isinstance(entry, dict):
        raise fail(where, f"expected a table, got {entry!r}")
    for key in entry:
        if key not in _RULE:
            raise fail(f"{where}.{key}", f"unknown key; expected one of {', '.join(_RULE)}")
    kind = entry.get("kind")
    if kind not in FAULT_KINDS:
        raise fail(f"{where}.kind", f"expected one of {', '.join(FAULT_KINDS)}, got {kind!r}")
    tool = entry.get("tool")
    if tool is not None and (not isinstance(tool, str) or not tool):
        raise fail(f"{where}.tool", f"expected a tool name, got {tool!r}")
    nth = entry.get("nth", [])
    nth = [nth] if _is_int(nth) else nth
    if not isinstance(nth, list) or not all(_is_int(n) and n >= 1 for n in nth):
        raise fail(f"{where}.nth", f"expected an integer >= 1 or a list of them, got {nth!r}")
    probability = entry.get("probability", 1.0)
    if isinstance(probability, bool) or not isinstance(probability, int | float):
        raise fail(f"{where}.probability", f"expected a number, got {probability!r}")
    if not 0.0 <= probability <= 1.0:
        raise fail(f"{where}.probability", f"must be in [0, 1], got {probability!r}")
    message = entry.get("message")
    if message is not None and not isinstance(message, str):
        raise fail(f"{where}.message", f"expected a string, got {message!r}")
    status = entry.get("status", 503)
    if not _is_int(status) or not 500 <= status <= 599:
        raise fail(f"{where}.status", f"expected a 5xx status code, got {status!r}")
    keep = entry.get("keep", 0.5)
    if isinstance(keep, bool) or not isinstance(keep, int | float) or not 0.0 <= keep < 1.0:
        raise fail(f"{where}.keep", f"expected a number in [0, 1), got {keep!r}")
    for option, allowed in (("status", "error"), ("keep", "truncated_result")):
        if option in entry and kind != allowed:
            raise fail(f"{where}.{option}", f"applies to kind {allowed!r} only, not {kind!r}")
    return FaultRule(
        kind=kind,
        tool=tool,
        nth=tuple(nth),
        probability=float(probability),
        message=message,
        status=status,
        keep=float(keep),
    )
