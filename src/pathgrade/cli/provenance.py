"""What ``compare``, ``gate``, ``report`` and ``ablation`` say about provenance, before anything.

Each command checks its sides with :func:`pathgrade.core.comparability.check_records`
(sides measured differently are refused unless ``--allow-config-change``), then:

- text output: :func:`head_lines` first (the warning line first, then the unchecked note,
  then the changed variables when asked);
- JSON output: :func:`json_document` puts ``"warning"`` as the first key (when the sides
  were measured differently), then the document, then ``"provenance"`` (and, for compare,
  ``"changed_variables"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathgrade.core.comparability import ALLOW_OPTION, Comparability

if TYPE_CHECKING:
    from rich.console import Console

AllowConfigChange = Annotated[
    bool,
    typer.Option(
        ALLOW_OPTION,
        help="Compare sides scored with a different config, cases file or scoring semantics"
        " (every output then says so in its first line).",
    ),
]


def head_lines(checks: Sequence[Comparability], *, variables: bool = False) -> list[str]:
    """The lines every text output starts with: each warning, then each note (once), then
    (``variables``) which controlled variables changed."""
    lines = [c.warning for c in checks if c.warning]
    for note in dict.fromkeys(c.note for c in checks if c.note):
        if note is not None:
            lines.append(note)
    if variables:
        for check in checks:
            lines += check.variable_lines()
    return lines


def print_head(console: Console, lines: Sequence[str]) -> None:
    """Print :func:`head_lines` (plain text, each on one line however long)."""
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def json_document(
    doc: Mapping[str, Any], check: Comparability, *, variables: bool = False
) -> dict[str, Any]:
    """``doc`` with the provenance keys (module docstring); ``warning`` first."""
    out: dict[str, Any] = {"warning": check.warning} if check.warning else {}
    out.update(doc)
    out["provenance"] = check.to_dict()
    if variables:
        out["changed_variables"] = check.changed_dict()
    return out
