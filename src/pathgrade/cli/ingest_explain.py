"""The text of ``pathgrade ingest --explain`` and of its note on unmapped spans.

Span names are trace text: control characters are shown escaped, never sent to the terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgrade.io.ingest._common import SpanFate

#: How many span names the unmapped note lists (the most frequent first).
SHOWN = 5


def _clean(text: str, limit: int = 60) -> str:
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def unmapped_line(unmapped: Counter[str]) -> str:
    """One line: how many spans no convention mapped, and the most frequent names."""
    total = sum(unmapped.values())
    names = ", ".join(f"{_clean(n, 40)} x{c}" for n, c in unmapped.most_common(SHOWN))
    more = f", {len(unmapped) - SHOWN} more name(s)" if len(unmapped) > SHOWN else ""
    return (
        f"{total} span(s) followed no convention pathgrade maps and are not in the path"
        f" ({names}{more}); `pathgrade ingest --explain` shows each span"
    )


def explain_text(fates: Sequence[SpanFate], trace: str | None) -> str:
    """Each span of one trace (``trace``, else the first), indented under its parent, with
    what it became."""
    if not fates:
        return "pathgrade: --explain: no span-based trace was read\n"
    wanted = trace if trace is not None else fates[0].trace_id
    rows = [f for f in fates if f.trace_id == wanted]
    if not rows:
        known = ", ".join(dict.fromkeys(_clean(f.trace_id) for f in fates))
        return f"pathgrade: --explain: no trace {_clean(wanted)!r} (read: {known})\n"
    index = {f.span_id: f for f in rows}

    def depth(fate: SpanFate) -> int:
        seen, level, parent = {fate.span_id}, 0, fate.parent_id
        while parent in index and parent not in seen:
            seen.add(parent)
            level += 1
            parent = index[parent].parent_id
        return level

    lines = [f"trace {_clean(wanted)}: {len(rows)} span(s)"]
    for fate in rows:
        label = "  " * depth(fate) + _clean(fate.name or "(unnamed)")
        lines.append(f"  {label:<56} {fate.what}")
    return "\n".join(lines) + "\n"
