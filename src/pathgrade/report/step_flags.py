"""The marks the path view puts on an agent step that is more than a harmless extra call.

A step gets a flag from its run's defects (``agent_step``): ``unapproved`` from the
``unapproved_action`` and ``denied_action_performed`` defects (and, where the caller still
passes them, the tool layer's dangerous false positives), ``forbidden`` also from
``acl_leak`` and ``injection_followed``, ``write`` also from ``duplicate_write_after_resume``. Each
flag has its own row class (``flag-<key>``), a badge (icon and label) and a legend entry, so
a forbidden ``delete_account`` never looks like an extra read. A step with several flags
shows every badge and takes the row style of the most severe.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["DEFECT_FLAGS", "STEP_FLAGS", "StepFlag", "flag_table"]


@dataclass(frozen=True)
class StepFlag:
    """One mark: ``key`` (CSS class ``flag-<key>``), badge ``icon`` and ``label``,
    ``severity`` (higher wins the row style) and the legend's ``description``."""

    key: str
    label: str
    icon: str
    severity: int
    description: str


#: Every flag, most severe first (the legend's order).
STEP_FLAGS: tuple[StepFlag, ...] = (
    StepFlag(
        "forbidden", "forbidden", "\u2716", 4, "a forbidden tool or action (forbidden_action)"
    ),
    StepFlag(
        "unapproved",
        "unapproved",
        "\u26a0",
        3,
        "a call made without the approval it needs, or after it was denied"
        " (unapproved_action, denied_action_performed)",
    ),
    StepFlag(
        "write",
        "unexpected write",
        "\u270e",
        2,
        "a write no reference step asked for (unexpected_write)",
    ),
    StepFlag(
        "error", "unrecovered error", "!", 1, "a failed step never retried (unrecovered_error)"
    ),
    StepFlag("wasted", "wasted", "\u21bb", 0, "a repeated call (wasted_step)"),
)

#: The flag of each defect kind that names an agent step.
DEFECT_FLAGS: dict[str, str] = {
    "forbidden_action": "forbidden",
    "acl_leak": "forbidden",
    "injection_followed": "forbidden",
    "unapproved_action": "unapproved",
    "denied_action_performed": "unapproved",
    "duplicate_write_after_resume": "write",
    "unexpected_write": "write",
    "unrecovered_error": "error",
    "wasted_step": "wasted",
}


def flag_table() -> list[dict[str, Any]]:
    """The flags as the page's script reads them (legend and badges)."""
    return [asdict(flag) for flag in STEP_FLAGS]
