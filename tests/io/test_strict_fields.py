"""Strict types at the boundary: ``true`` is not a number, ``1`` is not a boolean, a numeric
string is not a number; integers fit in 64 bits and are not negative; a problem across fields
names the field it is found in, never prints the record. Each error is one line naming file,
line and field, when the record is loaded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.errors import InputError
from pathgrade.core.types import INT64_MAX, Run
from pathgrade.io.cases import load_cases, load_runs


def _load_one(tmp_path: Path, kind: str, record: dict[str, Any]) -> Any:
    path = tmp_path / f"{kind}.jsonl"
    path.write_text('{"case_id": "ok"}\n' + json.dumps(record) + "\n")
    loader = load_runs if kind == "runs" else load_cases
    return loader(path).items[-1]


def _refused(tmp_path: Path, kind: str, record: dict[str, Any]) -> InputError:
    with pytest.raises(InputError) as info:
        _load_one(tmp_path, kind, record)
    error = info.value
    assert error.file == str(tmp_path / f"{kind}.jsonl") and error.line == 2
    assert "\n" not in str(error)
    return error


RUN_FIELDS: list[tuple[dict[str, Any], str, str]] = [
    ({"trial": True}, "trial", "valid integer"),
    ({"trial": 1.0}, "trial", "valid integer"),
    ({"trial": "1"}, "trial", "valid integer"),
    ({"trial": -1}, "trial", "greater than or equal to 0"),
    ({"trial": INT64_MAX + 1}, "trial", "less than or equal to 9223372036854775807"),
    ({"trial": 2**64}, "trial", "valid integer"),  # orjson: beyond 64 bits is a float
    ({"success": 1}, "success", "valid boolean"),
    ({"success": "true"}, "success", "valid boolean"),
    ({"abstained": 0}, "abstained", "valid boolean"),
    ({"confidence": True}, "confidence", "valid number"),
    ({"usage": {"tokens": True}}, "usage.tokens", "valid number"),
    ({"usage": {"cost": "0.5"}}, "usage.cost", "valid number"),
    ({"usage": {"latency_ms": False}}, "usage.latency_ms", "valid number"),
    ({"steps": [{"tool": "t", "latency_ms": True}]}, "steps[0].latency_ms", "valid number"),
    ({"steps": ["a", {"tool": "t", "tokens": "5"}]}, "steps[1].tokens", "valid number"),
    ({"steps": [{"tool": "t", "cost": True}]}, "steps[0].cost", "valid number"),
    ({"steps": [{"tool": "t", "turn": True}]}, "steps[0].turn", "valid integer"),
    ({"steps": [{"tool": "t", "turn": 2**63}]}, "steps[0].turn", "less than or equal to"),
    ({"steps": [{"tool": "t", "turn": -(2**63) - 1}]}, "steps[0].turn", "valid integer"),
    ({"steps": [{"tool": "t", "start_time": True}]}, "steps[0].start_time", "valid number"),
    ({"retrieved": [{"id": "d", "score": True}]}, "retrieved[0].score", "valid number"),
    ({"claims": [{"text": "x", "supported": 1}]}, "claims[0].supported", "valid boolean"),
    ({"claims": [{"text": "x", "key": 0}]}, "claims[0].key", "valid boolean"),
    ({"citations": [{"chunk_id": "c", "claim": True}]}, "citations[0].claim", "valid integer"),
    ({"citations": [{"chunk_id": "c", "entails": 1}]}, "citations[0].entails", "valid boolean"),
    ({"rubric": {"tone": True}}, "rubric.tone", "valid number"),
]


@pytest.mark.parametrize(("fields", "field", "fragment"), RUN_FIELDS)
def test_run_fields_are_strict(
    tmp_path: Path, fields: dict[str, Any], field: str, fragment: str
) -> None:
    error = _refused(tmp_path, "runs", {"case_id": "c", **fields})
    assert error.field == field and fragment in error.message


CASE_FIELDS: list[tuple[dict[str, Any], str, str]] = [
    ({"answerable": 0}, "answerable", "valid boolean"),
    ({"answerable": "false"}, "answerable", "valid boolean"),
    ({"budget": {"steps": True}}, "budget.steps", "valid integer"),
    ({"budget": {"steps": 2.5}}, "budget.steps", "valid integer"),
    ({"budget": {"steps": 2**63}}, "budget.steps", "less than or equal to"),
    ({"budget": {"tokens": True}}, "budget.tokens", "valid number"),
    ({"budget": {"cost": "1"}}, "budget.cost", "valid number"),
    ({"budget": {"latency_ms": True}}, "budget.latency_ms", "valid number"),
    ({"gold_evidence": {"d1": True}}, "gold_evidence.d1", "valid number"),
    ({"reference": [{"tool": "t", "latency_ms": True}]}, "reference[0].latency_ms", "number"),
]


@pytest.mark.parametrize(("fields", "field", "fragment"), CASE_FIELDS)
def test_case_fields_are_strict(
    tmp_path: Path, fields: dict[str, Any], field: str, fragment: str
) -> None:
    error = _refused(tmp_path, "cases", {"case_id": "c", **fields})
    assert error.field == field and fragment in error.message


def test_the_largest_values_and_plain_numbers_are_still_read(tmp_path: Path) -> None:
    """2^63 - 1 is the largest trial and turn, -2^63 the smallest turn (a negative turn is a
    group of its own); integers are accepted where a number is."""
    run = _load_one(
        tmp_path,
        "runs",
        {
            "case_id": "c",
            "trial": INT64_MAX,
            "success": False,
            "usage": {"tokens": 120, "cost": 0.25},
            "steps": [
                {"tool": "t", "turn": INT64_MAX, "latency_ms": 3},
                {"tool": "t", "turn": -INT64_MAX - 1},
            ],
            "rubric": {"tone": 4, "label": "good"},
        },
    )
    assert isinstance(run, Run) and run.trial == INT64_MAX and run.steps[0].turn == INT64_MAX
    assert run.usage is not None and run.usage.tokens == 120.0
    assert run.rubric == {"tone": 4.0, "label": "good"}


@pytest.mark.parametrize(
    ("record", "field", "fragment"),
    [
        (
            {"reference": [{"tool": "a", "id": "x"}, {"tool": "b", "id": "y", "after": ["z"]}]},
            "reference[1].after",
            "step 'b' is 'after' unknown id 'z'",
        ),
        (
            {"reference": ["a"], "references": [["b", {"tool": "c", "after": ["q"]}]]},
            "references[0][1].after",
            "unknown id 'q' (no step of reference path 1 has that id)",
        ),
        (
            {"references": [[{"tool": "a", "id": "x"}, {"tool": "b", "id": "x"}]]},
            "references[0][1].id",
            "duplicate step id 'x' in reference path 0",
        ),
    ],
)
def test_cross_field_errors_name_the_field_and_not_the_record(
    tmp_path: Path, record: dict[str, Any], field: str, fragment: str
) -> None:
    error = _refused(tmp_path, "cases", {"case_id": "c", "order": "partial", **record})
    assert error.field == field and fragment in error.message
    assert "case_id" not in error.message and "{" not in error.message  # no record printed


def test_a_citation_of_a_missing_claim_names_the_citation(tmp_path: Path) -> None:
    record = {"case_id": "c", "claims": [{"text": "a"}], "citations": [{"chunk_id": "k"}] * 2}
    record["citations"] = [{"chunk_id": "k", "claim": 0}, {"chunk_id": "k", "claim": 3}]
    error = _refused(tmp_path, "runs", record)
    assert error.field == "citations[1].claim"
    assert error.message == "refers to claim 3 but the run has 1 claims"
