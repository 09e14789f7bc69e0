"""Identical step records validated once and shared (``pathgrade.io.step_pool``).

A pooled record must validate to exactly what the model builds without a pool (field values,
their types and key order, the fields set), and a bad record must fail with exactly the
same error; only object identity may differ.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.io.cases import load_cases, load_runs, parse_record
from pathgrade.io.step_pool import SAMPLE_LOOKUPS, StepPool


def _same(a: Any, b: Any) -> None:
    """Equal models, with equal fields set and the same JSON (types and key order)."""
    assert a == b
    assert a.model_fields_set == b.model_fields_set
    assert orjson.dumps(a.model_dump()) == orjson.dumps(b.model_dump())


def _run(*steps: Any, pool: StepPool | None) -> Run:
    return parse_record({"case_id": "c", "steps": list(steps)}, Run, file="f", line=1, pool=pool)


def test_identical_step_records_share_one_validated_step() -> None:
    pool = StepPool()
    record = {"tool": "refund", "arguments": {"order": "A17", "amount": 5}}
    first = _run(record, "lookup:A17", pool=pool)
    second = _run(dict(record), "lookup:A17", {"tool": "refund", "arguments": ["A17"]}, pool=pool)
    assert second.steps[0] is first.steps[0] and second.steps[1] is first.steps[1]
    assert second.steps[2] is not first.steps[0]  # the same call written another way
    _same(second, _run(dict(record), "lookup:A17", ["refund", "A17"][0] + ":A17", pool=None))
    _same(first.steps[0], Step.model_validate(record))
    assert (pool.hits, pool.misses, len(pool)) == (2, 3, 3)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"a": 1}, {"a": 1.0}),  # equal in Python, different JSON: types are kept
        ({"a": 1}, {"a": True}),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),  # key order is kept
        ({"a": 0.0}, {"a": -0.0}),
    ],
)
def test_records_that_differ_in_json_are_not_shared(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    pool = StepPool()
    first = _run({"tool": "t", "arguments": one}, pool=pool)
    second = _run({"tool": "t", "arguments": other}, pool=pool)
    assert second.steps[0] is not first.steps[0]
    assert orjson.dumps(second.steps[0].arguments) == orjson.dumps(other)
    _same(second.steps[0], Step.model_validate({"tool": "t", "arguments": other}))


def test_a_nan_is_not_taken_for_a_null() -> None:
    # Both write as JSON null; a NaN (possible in a Parquet row) must still be validated, so
    # a pool not told that its records come from JSON text compares values too.
    pool = StepPool()
    _run({"tool": "t", "latency_ms": None}, pool=pool)
    run = {"case_id": "c", "steps": [{"tool": "t", "latency_ms": math.nan}]}
    with pytest.raises(InputError) as pooled:
        parse_record(run, Run, file="runs.jsonl", line=3, pool=pool)
    with pytest.raises(InputError) as plain:
        parse_record(run, Run, file="runs.jsonl", line=3)
    assert str(pooled.value) == str(plain.value)
    assert pooled.value.field == "steps[0].latency_ms"


def test_values_that_are_not_plain_json_are_left_to_the_model() -> None:
    pool = StepPool()
    record = {"case_id": "c", "steps": [{"tool": "t", "arguments": {1: "x"}}]}
    assert pool.prepare(record, Run) == (record, [])
    assert pool.prepare({"case_id": "c", "steps": "not a list"}, Run)[1] == []
    assert len(pool) == 0


def test_the_pool_is_bounded() -> None:
    pool = StepPool(capacity=3)
    for k in range(10):
        _run({"tool": "t", "arguments": {"k": k}}, {"tool": "u"}, pool=pool)
        assert len(pool) <= 3


def test_the_record_itself_is_not_modified() -> None:
    pool = StepPool()
    _run("a:1", "b:2", "delete:1", pool=pool)
    case = {
        "case_id": "c",
        "reference": ["a:1", "b:2"],
        "references": [["b:2", "a:1"], ["c:3"]],
        "forbidden_actions": ["delete:1"],
    }
    before = orjson.dumps(case)
    prepared, pending = pool.prepare(case, Case)
    assert orjson.dumps(case) == before
    assert prepared is not case
    assert all(isinstance(s, Step) for s in prepared["reference"])
    assert prepared["references"][0][1] is prepared["reference"][0]
    assert [p[:3] for p in pending] == [("references", 1, 0)]
    validated = Case.model_validate(prepared)
    pool.add(validated, pending)
    _same(validated, Case.model_validate(case))
    assert validated.forbidden_actions[0] is prepared["forbidden_actions"][0]
    assert len(pool) == 4


# -- differential: with a pool, exactly the model's result or the model's error --------------

_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.5, 1.0, -0.0]),
    st.sampled_from(["", "A17", "x y"]),
)
_arguments = st.one_of(
    st.dictionaries(st.sampled_from(["id", "amount", "q"]), _json_scalars, max_size=3),
    st.lists(_json_scalars, max_size=2),
    _json_scalars,  # mostly invalid: arguments must be an object or a list
)
_step_record = st.one_of(
    st.sampled_from(["refund:A17", "lookup:A17", "noop", ":x", ""]),
    st.fixed_dictionaries(
        {"tool": st.sampled_from(["refund", "lookup", "", 3])},
        optional={
            "arguments": _arguments,
            "error": st.sampled_from([None, "timeout", 5]),
            "turn": st.sampled_from([None, 0, 1, -1, "1"]),
            "latency_ms": st.sampled_from([None, 3, -1.0]),
            "after": st.sampled_from([[], ["s1"]]),
            "id": st.sampled_from([None, "s1", "s2"]),
            "bogus": st.just(1),
        },
    ),
)


def _outcome(value: dict[str, Any], model: type[Any], pool: StepPool | None) -> Any:
    try:
        return parse_record(value, model, file="f.jsonl", line=7, pool=pool)
    except InputError as error:
        return (str(error), error.field)


@pytest.mark.parametrize("from_json", [False, True])
@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_step_record, max_size=4), min_size=1, max_size=6))
def test_pooled_records_validate_exactly_as_without_a_pool(
    from_json: bool, paths: list[list[Any]]
) -> None:
    # from_json: the records are decoded from JSON text, and the pool trusts the text alone.
    pool = StepPool(capacity=5, from_json=from_json)  # small: clearing must change nothing
    for number, steps in enumerate(paths):
        run = {"case_id": "c", "run_id": f"r{number}", "steps": steps}
        case = {"case_id": f"c{number}", "reference": steps, "references": [steps[::-1]]}
        if from_json:
            run, case = orjson.loads(orjson.dumps(run)), orjson.loads(orjson.dumps(case))
        for value, model in ((run, Run), (case, Case)):
            pooled, plain = _outcome(value, model, pool), _outcome(value, model, None)
            if isinstance(plain, tuple):
                assert pooled == plain
            else:
                _same(pooled, plain)


def test_loaders_share_steps_between_cases_and_runs(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    runs = tmp_path / "runs.jsonl"
    cases.write_text('{"case_id": "c1", "reference": ["lookup:A17", "refund:A17"]}\n')
    runs.write_text(
        '{"case_id": "c1", "steps": ["lookup:A17", "refund:A17"]}\n'
        '{"case_id": "c1", "steps": [{"tool": "refund", "arguments": ["A17"]}]}\n'
    )
    pool = StepPool()
    (case,) = load_cases(cases, pool=pool).items
    first, second = load_runs(runs, pool=pool).items
    assert case.reference is not None
    assert first.steps[0] is case.reference[0] and first.steps[1] is case.reference[1]
    # The same call written another way is validated on its own, and equal.
    assert second.steps[0] is not case.reference[1] and second.steps[0] == case.reference[1]
    alone = load_runs(runs).items
    assert alone == [first, second]


def test_the_pool_steps_aside_while_steps_do_not_recur_and_samples_again() -> None:
    from pathgrade.io import step_pool

    pool = StepPool()
    number = 0

    def fresh_run() -> Run:
        nonlocal number
        number += 1
        return _run({"tool": "t", "arguments": {"n": number}}, pool=pool)

    while pool.misses < step_pool.SAMPLE_LOOKUPS:  # a sample with no hit at all
        fresh_run()
    fresh_run()  # the sample is judged (too few hits); this record is still pooled
    pooled = len(pool)
    for _ in range(step_pool.BYPASS_RECORDS):
        fresh_run()
    assert len(pool) == pooled  # nothing pooled while passing by the next records
    first = _run("lookup:A17", pool=pool)  # sampling again: pooled and shared
    assert _run("lookup:A17", pool=pool).steps[0] is first.steps[0]
    assert len(pool) == pooled + 1


def test_steps_a_record_repeats_are_shared_within_it() -> None:
    pool = StepPool()
    record = {
        "case_id": "c",
        "reference": ["lookup:A17", "refund:A17", {"tool": "notify", "arguments": {"n": 1}}],
        "references": [["refund:A17", "lookup:A17", {"tool": "notify", "arguments": {"n": 1}}]],
        "forbidden_actions": ["refund:A17"],
    }
    case = parse_record(record, Case, file="f", line=1, pool=pool)
    assert case.reference is not None
    alternative = case.references[0]
    assert alternative[0] is case.reference[1] and alternative[1] is case.reference[0]
    assert alternative[2] is case.reference[2]
    assert case.forbidden_actions[0] is case.reference[1]
    _same(case, parse_record(record, Case, file="f", line=1, pool=None))
    assert len(pool) == 3
    run = _run("lookup:A17", "lookup:A17", {"tool": "x"}, {"tool": "x"}, pool=StepPool())
    assert run.steps[1] is run.steps[0] and run.steps[3] is run.steps[2]
    _same(run, _run("lookup:A17", "lookup:A17", {"tool": "x"}, {"tool": "x"}, pool=None))


def test_case_records_are_pooled_even_when_their_steps_do_not_recur() -> None:
    """A case's references are what its runs repeat: they are pooled whatever the hit rate
    of the cases (here, none), so the runs of every case find them."""
    pool = StepPool()
    count = 2 * SAMPLE_LOOKUPS  # more step look-ups than one sample, none of them a hit
    for number in range(count):
        parse_record(
            {"case_id": f"c{number}", "reference": [f"lookup:{number}"]},
            Case,
            file="f",
            line=number,
            pool=pool,
        )
    assert len(pool) == count
    last = _run(f"lookup:{count - 1}", pool=pool)
    assert pool.hits == 1 and len(pool) == count
    assert last.steps[0] == Step(tool="lookup", arguments=[str(count - 1)])
