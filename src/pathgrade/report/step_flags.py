"""The marks the path view puts on an agent step that is more than a harmless extra call.

A step's flags come from what pathgrade found, never from a guess:

- its run's defects that name the step (``agent_step``, :data:`DEFECT_FLAGS`): ``forbidden``
  (``forbidden_action``, ``acl_leak``, ``injection_followed``), ``unapproved``
  (``unapproved_action``, ``denied_action_performed``: the system layer's approvals),
  ``write`` (``unexpected_write``, ``duplicate_write_after_resume``), ``error``
  (``unrecovered_error``), ``wasted`` (``wasted_step``);
- ``dangerous``: a call of a dangerous tool that the run's reference never calls (the tool
  layer's dangerous false positive, from the stored summary), which is not an approval
  defect and is not labelled as one;
- ``failed``: the step returned an error (``Step.error`` in the trace), retried or not.

Each flag has its own row class (``flag-<key>``), a badge (icon and label) and a legend entry,
so a forbidden ``delete_account`` or a failed call never looks like an extra read. A step with
several flags shows every badge and takes the row style of the most severe.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["DEFECT_FLAGS", "STEP_FLAGS", "StepFlag", "flag_keys", "flag_table"]


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
        "forbidden",
        "forbidden",
        "\u2716",
        6,
        "a forbidden tool or action, a tenant leak or a followed injection"
        " (forbidden_action, acl_leak, injection_followed)",
    ),
    StepFlag(
        "unapproved",
        "unapproved",
        "\u26a0",
        5,
        "a call made without the approval it needs, or after it was denied"
        " (unapproved_action, denied_action_performed)",
    ),
    StepFlag(
        "dangerous",
        "dangerous",
        "\u25b2",
        4,
        "a dangerous tool the reference never calls (the tool layer's dangerous false positive)",
    ),
    StepFlag(
        "write",
        "unexpected write",
        "\u270e",
        3,
        "a write no reference step asked for, or repeated after a resume"
        " (unexpected_write, duplicate_write_after_resume)",
    ),
    StepFlag(
        "error", "unrecovered error", "!", 2, "a failed step never retried (unrecovered_error)"
    ),
    StepFlag("failed", "failed", "\u2717", 1, "the step returned an error (its trace's error)"),
    StepFlag("wasted", "wasted", "\u21bb", 0, "a repeated call (wasted_step)"),
)
_SEVERITY = {flag.key: flag.severity for flag in STEP_FLAGS}

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


def flag_keys(
    record: Mapping[str, Any],
    dangerous: Iterable[int] = (),
    failed: Iterable[int] = (),
) -> dict[int, list[str]]:
    """The flag keys of each agent step, most severe first (module docstring): from the
    record's defects, plus ``dangerous`` and ``failed`` on the given step positions."""
    found: dict[int, set[str]] = {}
    for defect in record.get("defects") or ():
        key, step = DEFECT_FLAGS.get(str(defect.get("kind"))), defect.get("agent_step")
        if key is not None and isinstance(step, int):
            found.setdefault(step, set()).add(key)
    for key, steps in (("dangerous", dangerous), ("failed", failed)):
        for step in steps:
            found.setdefault(step, set()).add(key)
    return {step: sorted(keys, key=lambda k: -_SEVERITY[k]) for step, keys in sorted(found.items())}


def flag_table() -> list[dict[str, Any]]:
    """The flags as the page's script reads them (legend and badges)."""
    return [asdict(flag) for flag in STEP_FLAGS]
