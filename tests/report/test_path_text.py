"""The text form of one run's aligned path and defects (``pathgrade.report.path_text``)."""

from __future__ import annotations

from typing import Any

from pathgrade.report.path_text import OP_LABELS, render_path, step_marks

# A hand-made record with every op, two marked steps, and a defect without steps.
RECORD: dict[str, Any] = {
    "case_id": "c",
    "reference_index": 1,
    "alignment": [
        {"op": "match", "agent_step": 0, "reference_step": 0, "arguments_match": True,
         "agent": "lookup:A", "reference": "lookup:A"},
        {"op": "substitution", "agent_step": 1, "reference_step": 1, "arguments_match": False,
         "agent": "refund(amount=50)", "reference": "refund(amount=5)"},
        {"op": "insertion", "agent_step": 2, "reference_step": None, "arguments_match": False,
         "agent": "delete_account:A", "reference": None},
        {"op": "deletion", "agent_step": None, "reference_step": 2, "arguments_match": False,
         "agent": None, "reference": "notify:A"},
    ],
    "defects": [
        {"kind": "forbidden_action", "penalty": 100.0, "detail": "tool 'delete_account' is"
         " forbidden", "agent_step": 2},
        {"kind": "wasted_step", "penalty": 10.0, "detail": "x", "agent_step": 2},
        {"kind": "over_budget", "penalty": 20.0, "detail": "steps 5 > budget 4"},
    ],
}  # fmt: skip


def test_every_op_is_labelled_as_the_report_labels_it() -> None:
    lines = render_path(RECORD).splitlines()
    assert lines[0] == (
        "Trajectory: reference and agent steps, aligned (chosen reference: reference path #1"
        " of the case)"
    )
    assert lines[1:6] == [
        "  #  reference step    alignment                        agent step         #  marks",
        "  0  lookup:A          match (arguments match)          lookup:A           0",
        "  1  refund(amount=5)  substitution (arguments differ)  refund(amount=50)  1",
        # Both marks of the forbidden step, the most severe first.
        "                       extra                            delete_account:A   2  ✖ forbidden"
        " ↻ wasted",
        "  2  notify:A          missing",
    ]
    assert set(OP_LABELS.values()) == {"match", "substitution", "extra", "missing"}


def test_legend_names_only_the_marks_used() -> None:
    legend = render_path(RECORD).splitlines()[6]
    assert legend == (
        "  marks: ✖ forbidden: a forbidden tool or action, a tenant leak or a followed injection"
        " (forbidden_action, acl_leak, injection_followed); ↻ wasted: a"
        " repeated call (wasted_step)"
    )
    record = {**RECORD, "defects": []}
    assert "marks:" not in render_path(record)


def test_defects_table() -> None:
    lines = render_path(RECORD).splitlines()
    start = lines.index("Defects and penalties")
    # penalty 100.0 is written 100; a step a defect does not name is "-".
    assert [line[2:] for line in lines[start + 1 :]] == [
        "defect            penalty  detail                              agent step  reference step",
        "forbidden_action      100  tool 'delete_account' is forbidden           2               -",
        "wasted_step            10  x                                            2               -",
        "over_budget            20  steps 5 > budget 4                           -               -",
    ]
    assert all(line.startswith("  ") for line in lines[start + 1 :])


def test_no_alignment_and_no_defects() -> None:
    text = render_path({"reference_index": None, "alignment": [], "defects": []})
    assert text.splitlines() == [
        "Trajectory: reference and agent steps, aligned (no reference path)",
        "  no alignment (no reference path, or no steps)",
        "Defects and penalties",
        "  no defects",
    ]


def test_failed_and_unapproved_steps_are_marked_from_what_was_found() -> None:
    marks = step_marks(RECORD, failed=[0])
    assert [flag.key for flag in marks[0]] == ["failed"]
    record = {**RECORD, "defects": [{"kind": "unapproved_action", "agent_step": 1}]}
    assert [flag.key for flag in step_marks(record)[1]] == ["unapproved"]
    text = render_path(record, failed=[0]).splitlines()
    assert text[2].endswith("0  \u2717 failed") and text[3].endswith("1  \u26a0 unapproved")
    assert [flag.key for flag in marks[2]] == ["forbidden", "wasted"]
    assert 1 not in marks


def test_untrusted_text_is_made_visible_and_cut() -> None:
    record = {
        "reference_index": 0,
        "alignment": [{"op": "insertion", "agent_step": 0, "reference_step": None,
                       "agent": "evil\u202eegami" + "x" * 200, "reference": None}],
        "defects": [],
    }  # fmt: skip
    row = render_path(record).splitlines()[2]
    assert "\\u202e" in row and "\u202e" not in row
    assert "…" in row and len(row) < 120
