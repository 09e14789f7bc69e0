"""``plain_step`` (the usual step record built directly) against pydantic's validation: the
same step in every respect, or ``None`` where the record is not the usual one."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pathgrade.core.plain_steps import plain_step, template
from pathgrade.core.types import Case, Run, Step

DEFAULTS = template(Step)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
records = st.fixed_dictionaries(
    {},
    optional={
        "tool": st.one_of(st.text(max_size=4), st.integers(), st.none()),
        "arguments": st.one_of(
            st.none(),
            st.lists(_json, max_size=3),
            st.dictionaries(st.text(max_size=3), _json),
            st.dictionaries(st.integers(), _json, min_size=1),
            st.integers(),
        ),
        "output": _json,
    },
)


def _same(made: Step, validated: Step) -> None:
    assert made == validated
    assert list(made.__dict__) == list(validated.__dict__)
    assert made.__pydantic_fields_set__ == validated.__pydantic_fields_set__
    assert made.__pydantic_extra__ == validated.__pydantic_extra__
    assert made.__pydantic_private__ == validated.__pydantic_private__
    assert made.model_dump(mode="json") == validated.model_dump(mode="json")
    assert made.metadata is not validated.metadata  # a new dict each, as the default factory


@settings(max_examples=500, deadline=None)
@given(records)
def test_plain_step_is_what_validation_gives(record: dict[str, Any]) -> None:
    made = plain_step(Step, DEFAULTS, record)
    try:
        validated = Step.model_validate(record)
    except ValidationError:
        assert made is None  # a record the model refuses is never built
        return
    if made is not None:
        assert set(record) <= {"tool", "arguments"}
        _same(made, validated)
        if isinstance(record.get("arguments"), dict | list) and record["arguments"]:
            assert made.arguments is not record["arguments"]  # copied, as pydantic copies


def test_hand_cases() -> None:
    made = plain_step(Step, DEFAULTS, {"tool": "refund", "arguments": {"id": "A17"}})
    assert made is not None and made.tool == "refund" and made.arguments == {"id": "A17"}
    empty = plain_step(Step, DEFAULTS, {"tool": "a", "arguments": []})
    assert empty is not None and empty.arguments == {}
    assert plain_step(Step, DEFAULTS, {"tool": "a", "latency_ms": 1.0}) is None
    assert plain_step(Step, DEFAULTS, {"tool": ""}) is None
    assert plain_step(Step, DEFAULTS, {"tool": "a", "arguments": {1: 2}}) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(records, max_size=4))
def test_paths_validate_as_before(path: list[dict[str, Any]]) -> None:
    """A run's steps and a case's paths: the fast path or the generic one, same steps, and
    the same error where the generic validator refuses (located in the path)."""
    try:
        expected = tuple(Step.model_validate(r) for r in path)
    except ValidationError:
        with pytest.raises(ValidationError) as run_error:
            Run.model_validate({"case_id": "c", "steps": path})
        assert run_error.value.errors()[0]["loc"][0] == "steps"
        with pytest.raises(ValidationError):
            Case.model_validate({"case_id": "c", "references": [[], path]})
        return
    run = Run.model_validate({"case_id": "c", "steps": path})
    case = Case.model_validate({"case_id": "c", "reference": path, "references": [path]})
    for steps in (run.steps, case.reference, case.references[0]):  # type: ignore[index]
        assert steps == expected
        for made, validated in zip(steps, expected, strict=True):
            assert made.__pydantic_fields_set__ == validated.__pydantic_fields_set__
