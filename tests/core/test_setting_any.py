"""``setting_any`` (the C-speed gate of the passes over step objects) and the passes built on
it, against their plain definitions: every step whose field differs from its default is
found, however the step was made (validated, constructed, copied, pickled)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.cases.refuse import reference_shapes
from pathgrade.core.config import MatchingConfig
from pathgrade.core.fields import FieldError, setting_any
from pathgrade.core.path_ids import any_checked, check_path_ids
from pathgrade.core.run_columns import RunColumns, StepFacts
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.encode import StepEncoder
from pathgrade.metrics.trajectory.grammar import any_grammar

# Stored field names: the grammar fields (optional, repeat, group) are stored in ``grammar``.
NAMES = frozenset(("latency_ms", "resumed", "metadata", "grammar", "id"))

_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "latency_ms": st.one_of(st.none(), st.floats(0, 100)),
    "tokens": st.one_of(st.none(), st.integers(0, 9)),
    "cost": st.one_of(st.none(), st.floats(0, 1)),
    "resumed": st.booleans(),
    "approval": st.sampled_from([None, "granted", "denied"]),
    "metadata": st.sampled_from([{}, {"fault": "timeout"}, {"note": 1}]),
    "optional": st.booleans(),
    "repeat": st.sampled_from([None, {"min": 1, "max": 2}]),
    "group": st.sampled_from([None, "unordered"]),
    "id": st.sampled_from([None, "a", "b"]),
    "after": st.sampled_from([(), ("a",)]),
}


@st.composite
def steps(draw: st.DrawFn) -> Step:
    """A step made one of the ways a pathgrade step is made, with some fields given."""
    fields = draw(st.dictionaries(st.sampled_from(sorted(_VALUES)), st.none(), max_size=4))
    values = {name: draw(_VALUES[name]) for name in fields}
    if values.get("optional") and values.get("repeat") is not None:
        values.pop("optional")
    how = draw(st.sampled_from(["validate", "construct", "copy", "pickle"]))
    if how == "validate":
        return Step.model_validate({"tool": "t", **values})
    if how == "construct":
        return Step.model_construct(tool="t", **values)
    update = {k: v for k, v in values.items() if k != "repeat"}
    copied = Step(tool="t").model_copy(update=update)
    return pickle.loads(pickle.dumps(copied)) if how == "pickle" else copied


def _not_default(step: Step, names: frozenset[str]) -> bool:
    return any(
        getattr(step, n) != Step.model_fields[n].get_default(call_default_factory=True)
        for n in names
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(steps(), max_size=8))
def test_every_step_off_its_default_is_found(made: list[Step]) -> None:
    found = setting_any(made, NAMES)
    assert [s for s in made if _not_default(s, NAMES)] == [
        s for s in found if _not_default(s, NAMES)
    ]
    assert all(s in made for s in found)


def test_hand_cases() -> None:
    plain, timed = Step(tool="a"), Step(tool="b", latency_ms=5.0)
    assert setting_any([plain, plain], NAMES) == []
    assert setting_any((plain, timed, timed), NAMES) == [timed, timed]
    # Given explicitly at its default, a field is still "set": read, then found plain.
    assert setting_any([Step(tool="a", resumed=False)], NAMES) != []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(steps(), max_size=4), max_size=4), st.data())
def test_step_facts_equal_their_definition(paths: list[list[Step]], data: st.DataObject) -> None:
    pooled = [
        path + data.draw(st.lists(st.sampled_from(path), max_size=2)) if path else path
        for path in paths
    ]  # repeated objects, as a step pool shares them
    assert StepFacts.gather(pooled) == StepFacts.definition(pooled)
    # the scorer's route: the facts from the encoder's distinct step objects of the runs
    encoded = StepEncoder(MatcherSet(MatchingConfig())).encode(pooled)
    distinct = encoded.distinct_steps()
    assert len(distinct) == len({id(s) for path in pooled for s in path})
    assert StepFacts.gather((distinct,)) == StepFacts.definition(pooled)
    runs = tuple(Run.model_construct(case_id="c", steps=tuple(path)) for path in pooled)
    columns = RunColumns.gather(runs)
    columns.know_distinct_steps(distinct)
    assert columns.step_facts == StepFacts.definition(pooled)


_SHAPE = ("optional", "one_of", "repeat", "group", "id", "after")


@settings(max_examples=200, deadline=None)
@given(st.lists(steps(), min_size=1, max_size=6), st.integers(0, 6), st.booleans())
def test_reference_shapes_equal_their_definition(path: list[Step], cut: int, alone: bool) -> None:
    # the steps split between ``reference`` and ``references`` (or all in ``references``)
    head, tail = (path[:cut], path[cut:]) if not alone else ([], path)
    case = Case.model_construct(
        case_id="c", reference=tuple(head) if head else None, references=(tuple(tail),)
    )
    assert [s for p in case.reference_paths() for s in p] == path
    shapes = reference_shapes([case])
    plain = (False, None, None, None, None, ())
    flagged = {id(s) for s in path if tuple(getattr(s, n) for n in _SHAPE) != plain}
    assert shapes.flagged == frozenset(flagged)
    grammar = any(tuple(getattr(s, n) for n in _SHAPE[:4]) != plain[:4] for s in path)
    assert shapes.grammar == grammar == any_grammar([path])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(steps(), max_size=5), min_size=1, max_size=3))
def test_paths_no_step_of_which_sets_an_order_field_pass_the_id_checks(
    paths: list[list[Step]],
) -> None:
    # Case._check_partial_order skips check_path_ids when any_checked says no step sets
    # id, after or one_of: then the checks must pass (whatever the other fields)
    frozen = tuple(tuple(p) for p in paths)
    if any_checked(frozen):
        return
    for index, path in enumerate(frozen):
        check_path_ids(path, f"references[{index}]", f"reference path {index}")


def test_an_order_field_is_seen_and_checked() -> None:
    a, b = Step(tool="a", id="x"), Step(tool="b", id="x")
    assert any_checked(((Step(tool="c"),), (a, b)))
    with pytest.raises(FieldError, match="duplicate step id 'x'"):
        check_path_ids((a, b), "reference", "reference path 0")
