"""The path grammar's four step fields are stored in one field, ``Step.grammar``, and still
written, read, copied and dumped as the step's own fields: the same JSON and the same case
hashes as when they were four fields (``docs/scale.md``, "Why a step has 19 fields")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pathgrade.core.record_provenance import cases_hash
from pathgrade.core.types import GRAMMAR_FIELDS, Case, Grammar, RepeatBounds, Step
from pathgrade.io.cases import validation_error

_GRAMMAR_CASES = [
    {
        "case_id": "g1",
        "reference": [
            {"tool": "a", "optional": True},
            {"tool": "p", "repeat": {"min": 1, "max": 3}},
            {"one_of": [["x", "y"], []]},
            {"tool": "b", "group": "unordered"},
            {"tool": "c", "group": "unordered"},
        ],
    },
    {"case_id": "g2", "reference": ["a", "b"], "order": "partial"},
    {"case_id": "g3", "references": [[{"tool": "a", "optional": False}], ["b"]]},
]


def test_a_step_dictionary_stays_in_the_small_table() -> None:
    # CPython doubles a dict's table past 21 entries (464 to 832 bytes an instance): the
    # per-case scorer paid 13-17% for the 22nd field. A new field goes in beside the grammar.
    assert len(Step.model_fields) <= 21
    assert len(Step(tool="a").__dict__) == len(Step.model_fields)


def test_case_hashes_are_the_ones_of_four_separate_fields() -> None:
    # Computed by the release whose Step had the four fields (38e5fcc) on the same cases.
    cases = [Case.model_validate(c) for c in _GRAMMAR_CASES]
    assert cases_hash(cases) == (
        "sha256:5216ec764398bccba2fe64e28a83da9b41b515fe0423818d3e88968fd5756f03"
    )


def test_dumps_write_the_grammar_as_the_steps_own_fields() -> None:
    step = Step.model_validate({"tool": "p", "repeat": {"max": 3}, "group": "unordered"})
    assert step.model_dump(mode="json", exclude_defaults=True) == {
        "tool": "p",
        "repeat": {"max": 3},
        "group": "unordered",
    }
    full = json.loads(Step(tool="a").model_dump_json())
    assert list(full)[-4:] == list(GRAMMAR_FIELDS)  # where the four fields were
    assert [full[k] for k in GRAMMAR_FIELDS] == [False, None, None, None]
    assert "grammar" not in full
    assert Step(tool="a").model_dump(exclude_none=True)["optional"] is False


_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "optional": st.booleans(),
    "repeat": st.sampled_from([None, {"min": 0, "max": 2}, {"max": 5}]),
    "group": st.sampled_from([None, "unordered"]),
    "one_of": st.sampled_from([None, [["x"], []], [["y", "z"]]]),
}


@st.composite
def _written(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.sets(st.sampled_from(sorted(_VALUES))))
    record: dict[str, Any] = {"tool": "t"}
    record.update({k: draw(_VALUES[k]) for k in sorted(keys)})
    if record.get("one_of") is not None:
        for k in ("optional", "repeat"):
            record.pop(k, None)
    elif record.get("optional") and record.get("repeat") is not None:
        record.pop("optional")
    return record


@settings(max_examples=200, deadline=None)
@given(_written())
def test_written_grammar_reads_back_from_every_dump(record: dict[str, Any]) -> None:
    step = Step.model_validate(record)
    for name in GRAMMAR_FIELDS:  # the properties read what was written
        written = record.get(name, Step.model_fields["grammar"].default)
        if name == "optional":
            assert step.optional is bool(record.get("optional", False))
        elif name == "repeat":
            want = None if written is None else RepeatBounds.model_validate(written)
            assert step.repeat == want
        elif name == "one_of":
            assert (step.one_of is None) == (written is None)
        else:
            assert step.group == written
    plain = all(record.get(k) in (None, False) for k in GRAMMAR_FIELDS)
    assert (step.grammar is None) == plain  # all at their defaults: stored as a plain step
    for dump in (step.model_dump(), step.model_dump(mode="json", exclude_defaults=True)):
        assert Step.model_validate(dump) == step
    assert Step.model_validate_json(step.model_dump_json()) == step


def test_copies_and_constructions_store_grammar_keys_in_the_grammar() -> None:
    step = Step(tool="a")
    copied = step.model_copy(update={"repeat": RepeatBounds(max=2), "latency_ms": 3.0})
    assert copied.repeat == RepeatBounds(max=2) and copied.latency_ms == 3.0
    assert isinstance(copied.grammar, Grammar) and "grammar" in copied.model_fields_set
    again = copied.model_copy(update={"group": "unordered"})
    assert again.repeat == RepeatBounds(max=2) and again.group == "unordered"
    assert again.model_copy(update={"repeat": None, "group": None}).grammar is None
    made = Step.model_construct(tool="t", optional=True)
    assert made.optional and "grammar" in made.model_fields_set
    assert Step.model_construct({"tool", "optional"}, tool="t", optional=True).model_fields_set == {
        "tool",
        "grammar",
    }


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"tool": "a", "optional": 1}, "reference[0].optional"),
        ({"tool": "a", "group": "sorted"}, "reference[0].group"),
        ({"tool": "a", "repeat": {"min": 3, "max": 2}}, "reference[0].repeat.max"),
        ({"tool": "a", "grammar": {"optional": True}}, "reference[0].grammar"),
    ],
)
def test_errors_name_the_field_as_written(record: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Case.model_validate({"case_id": "c", "reference": [record]})
    assert validation_error(caught.value, file="cases.jsonl", line=4).field == field
