"""How untrusted text is shown: direction controls made visible, long ids cut.

Every renderer (the HTML report, the text tables of ``score``, ``compare``, ``gate`` and
``judge``, the GitHub summary) shows ids, names and messages through :func:`visible`:

* the Unicode direction controls (U+202A-U+202E embeddings and overrides, U+2066-U+2069
  isolates, U+200E/U+200F and U+061C marks) are written as their escape, ``\\u202e``, so
  they are seen instead of reordering what follows them (a "Trojan Source" id cannot make
  ``case-7`` look like another case);

and text tables show them through :func:`clip`, which also cuts a long value to ``width``
characters ending in an ellipsis (a 100 KB case id is one short cell, not 1,300 wrapped
lines; the JSON outputs keep the full value).
"""

from __future__ import annotations

#: The direction controls :func:`visible` escapes.
DIRECTION_CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)
_ESCAPES = {ord(c): f"\\u{ord(c):04x}" for c in DIRECTION_CONTROLS}
#: Characters of an id shown in a text table cell before it is cut.
ID_WIDTH = 80
ELLIPSIS = "…"


def visible(text: str) -> str:
    """``text`` with every direction control written as its ``\\uXXXX`` escape.

    >>> visible("case-\\u202eevil")
    'case-\\\\u202eevil'
    """
    return text.translate(_ESCAPES)


def clip(text: str, width: int = ID_WIDTH) -> str:
    """:func:`visible` text cut to at most ``width`` characters, the last an ellipsis.

    >>> clip("x" * 100, 10)
    'xxxxxxxxx…'
    >>> clip("short")
    'short'
    """
    shown = visible(text[:width])  # escaping only lengthens: the first width chars suffice
    if len(text) <= width and len(shown) <= width:
        return shown
    return shown[: width - 1] + ELLIPSIS
