"""The result record: one JSON object per scored run, what ``pathgrade score --out`` writes,
``compare``, ``gate`` and ``runs add`` read, and the run store keeps (one row per record).

This module is the record's definition: :class:`ResultRecord` lists its fields in the
order they are written, each documented, ``schema_version`` first. The writer
(:mod:`~pathgrade.io.results.writer`) builds the records' bytes from these field names, the
reader (:mod:`~pathgrade.io.results.reader`) validates every record against this model, and
the store (:mod:`pathgrade.store.table`) flattens and rebuilds records by it.

Versions: a record of a newer ``schema_version`` than :data:`SCHEMA_VERSION` is refused
with a one-line error (file, line, field ``schema_version``); a record without one is of
version 1. When a version 2 changes a field, its reader upgrades older records before
validating them (as inspect_ai's log model does), so every earlier version still reads.
A field *added* as optional keeps the version (inspect_ai's rule): ``provenance`` came
this way, so a version 1 record without it still reads (its provenance is unknown:
``compare`` says comparability is unchecked), and an older pathgrade reading a record
with it ignores the field it does not know.

Example (one line of a results file, shown wrapped)::

    {"schema_version":1,"case_id":"refund-A17","run_id":"B","trial":0,"group":"orders",
     "reference_index":0,"metrics":{"path_score":70.0,"goal_success":true,...},
     "defects":[{"kind":"wasted_step","penalty":10.0,
                 "detail":"lookup_order:A17 repeats an earlier call","agent_step":1}],
     "alignment":[{"op":"match","agent_step":0,"reference_step":0,"tool_match":true,
                   "arguments_match":true,"agent":"lookup_order:A17",
                   "reference":"lookup_order:A17"}, ...],
     "usage":{"steps":5,"tokens":3100.0,"cost":null,"latency_ms":7900.0},
     "provenance":{"semantics":2,"config":"sha256:1a2b3c4d5e6f7a8b","cases":"sha256:...",
                   "pathgrade":"0.1.0","variables":{"model":"gpt-4o"}}}
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

from pathgrade.core.results import RECORD_SCHEMA_VERSION

#: The record version this pathgrade writes; every earlier one reads.
SCHEMA_VERSION: Final = RECORD_SCHEMA_VERSION

Position = int | None


def _doc(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class DefectRecord(msgspec.Struct, kw_only=True):
    """One thing wrong with the run's path, and the points it cost. ``agent_step`` and
    ``reference_step`` are written only when the defect names such a step; other keys a
    kind carries (``budgets``) follow them."""

    kind: Annotated[
        str,
        _doc(
            "missing_step, wasted_step, unexpected_write, out_of_order,"
            " missing_required_tool, over_budget, forbidden_action or unrecovered_error"
        ),
    ]
    penalty: Annotated[float, _doc("points taken off path_score for it (may be 0)")]
    detail: Annotated[str, _doc("what happened, naming the calls (metrics/trajectory/messages.py)")]
    agent_step: Annotated[Position, _doc("0-based position of the agent step it names")] = None
    reference_step: Annotated[Position, _doc("0-based position of the reference step it names")] = (
        None
    )
    budgets: Annotated[
        list[str] | None, _doc("over_budget: the budgets exceeded (steps, tokens, ...)")
    ] = None


class AlignedStepRecord(msgspec.Struct, kw_only=True):
    """One entry of the winning alignment of agent steps and reference steps."""

    op: Annotated[
        Literal["match", "substitution", "insertion", "deletion"],
        _doc(
            "match: paired and equal; substitution: paired, tool or arguments differ;"
            " insertion: an agent step no reference step pairs; deletion: a reference step"
            " no agent step pairs"
        ),
    ]
    agent_step: Annotated[Position, _doc("0-based agent step (null for a deletion)")]
    reference_step: Annotated[Position, _doc("0-based reference step (null for an insertion)")]
    tool_match: Annotated[bool, _doc("a pair whose tools are the same")]
    arguments_match: Annotated[bool, _doc("a pair that matched in full (a match)")]
    agent: Annotated[str | None, _doc("the agent step's text, e.g. refund:A17")]
    reference: Annotated[str | None, _doc("the reference step's text")]
    fields: Annotated[
        list[dict[str, Any]] | None,
        _doc(
            "a pair compared field by field (field modes in the config): per field, its mode,"
            " match (null: undefined, a judge error) and measure (similarity and threshold,"
            " verdict and judge_id or judge_error, difference and threshold); absent otherwise"
        ),
    ] = None


class UsageRecord(msgspec.Struct, kw_only=True, frozen=True):
    """The run's effective totals (null: unknown): its ``usage`` when recorded, else the
    sum over its steps when any step has the value."""

    steps: Annotated[int | None, _doc("number of steps")] = None
    tokens: Annotated[float | None, _doc("tokens")] = None
    cost: Annotated[float | None, _doc("cost")] = None
    latency_ms: Annotated[float | None, _doc("latency in milliseconds")] = None


class ProvenanceRecord(msgspec.Struct, kw_only=True, frozen=True):
    """How the run was measured and its controlled variables
    (:class:`pathgrade.core.provenance.Provenance`); ``compare``, ``gate``, ``report`` and
    ``ablation`` refuse sides measured differently."""

    semantics: Annotated[
        int | None, _doc("pathgrade's scoring-semantics version (SEMANTICS_VERSION)")
    ] = None
    config: Annotated[
        str | None, _doc("sha256: of the effective scoring config without [compare], 16 hex")
    ] = None
    cases: Annotated[
        str | None,
        _doc("sha256: of the cases file read (API: the cases' JSON), 16 hex digits"),
    ] = None
    pathgrade: Annotated[str | None, _doc("the pathgrade version that scored")] = None
    variables: Annotated[
        dict[str, str],
        _doc(
            "controlled variables: --label NAME=VALUE, tool_schema (the --tools file's"
            " hash), model (the run's trace); a label wins"
        ),
    ] = {}


class ResultRecord(msgspec.Struct, kw_only=True):
    """Everything pathgrade says about one run (the fields in the order they are written)."""

    schema_version: Annotated[int, _doc("the record's version (see SCHEMA_VERSION)")] = 1
    case_id: Annotated[str, _doc("the case the run was scored against")]
    run_id: Annotated[str | None, _doc("the run's id, as in the runs file")] = None
    trial: Annotated[int, _doc("the run's trial number (pass@k groups trials)")] = 0
    group: Annotated[str | None, _doc("the case's group")] = None
    reference_index: Annotated[
        Position,
        _doc("the reference path the run was scored against (best of the case's); null: none"),
    ] = None
    reference_branch: Annotated[
        dict[str, Any] | None,
        _doc(
            "a reference written with the path grammar: the one_of branches taken (one_of),"
            " the optional steps used (optional) and the copies of each repeat counted"
            " (repeat); absent: a plain reference"
        ),
    ] = None
    conversation: Annotated[
        dict[str, Any] | None,
        _doc(
            "a conversation (a run with turns): turns (each: turn, user, calls, reply,"
            " path_score against its turn_references entry, defects, notes), notes on the"
            " whole conversation, ended_by; absent: not a conversation (docs/conversations.md)"
        ),
    ] = None
    metrics: Annotated[
        dict[str, float | int | bool | None],
        _doc(
            "every metric of every layer the data has labels for, by name (see the metric"
            " catalogue); null: undefined, never a zero; booleans and counts typed as such"
        ),
    ]
    defects: Annotated[
        list[DefectRecord], _doc("what cost points, in order (see DefectRecord)")
    ] = []
    alignment: Annotated[list[AlignedStepRecord], _doc("the winning alignment, in op order")] = []
    usage: Annotated[UsageRecord, _doc("effective usage totals")] = UsageRecord()
    provenance: Annotated[
        ProvenanceRecord | None,
        _doc("how the run was measured, its controlled variables; absent: unknown (older files)"),
    ] = None


#: The record's keys, in the order they are written.
RECORD_FIELDS: Final = ResultRecord.__struct_fields__
#: An aligned step's keys, in the order they are written.
ALIGNED_STEP_FIELDS: Final = AlignedStepRecord.__struct_fields__
#: A defect's keys, in the order they are written (when present).
DEFECT_FIELDS: Final = DefectRecord.__struct_fields__
