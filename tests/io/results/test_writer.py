"""The column-wise record writer (``pathgrade.io.results.writer``) gives, byte for byte,
``orjson.dumps(result[i].to_dict())`` per line: on random runs with awkward ids, groups,
usage, budgets, gold evidence, answers and defects, and on results without the column-wise
explanations. Its defect counts are those of the runs' defect objects."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.core.results import ScoreResult
from pathgrade.io.results import (
    iter_records_jsonl,
    read_results,
    records_jsonl,
    validate_record,
    write_jsonl,
    write_results,
)
from pathgrade.io.results.schema import ALIGNED_STEP_FIELDS, DEFECT_FIELDS, RECORD_FIELDS
from pathgrade.io.results.text import colon_values, json_column

TEXT = st.sampled_from(["c", "a,b", 'q"uote', "back\\slash", "tab\there", "\x00", "é", "🙂"])
step_st = st.builds(
    lambda tool, arg, tokens, failed: Step(
        tool=tool,
        arguments={"id": arg},
        tokens=tokens,
        error="boom" if failed else None,
    ),
    st.sampled_from(["lookup", "refund", "search", "notify"]),
    TEXT,
    st.one_of(st.none(), st.none(), st.integers(0, 50)),
    st.integers(0, 9).map(lambda n: n == 0),
)
path_st = st.lists(step_st, max_size=6)


def _expected(result: ScoreResult) -> bytes:
    return b"".join(orjson.dumps(result[i].to_dict()) + b"\n" for i in range(len(result)))


def _written(result: ScoreResult, runs: list[Run] | None) -> tuple[bytes, dict[str, int]]:
    return records_jsonl(result, runs), result.defect_counts()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(path_st, path_st, TEXT, st.one_of(st.none(), TEXT), st.booleans()),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)
def test_records_equal_orjson_of_each_run(
    items: list[tuple[list[Step], list[Step], str, str | None, bool]], with_runs: bool
) -> None:
    cases, runs = [], []
    for k, (reference, agent, ident, group, success) in enumerate(items):
        case_id = f"{ident}{k}"
        cases.append(
            Case(
                case_id=case_id,
                reference=tuple(reference),
                group=group,
                # never below the reference's own length (score refuses such a reference)
                budget={"steps": max(3, len(reference))} if k % 2 else None,
                gold_evidence=("d1", "d2") if k % 3 == 0 else None,
            )
        )
        runs.append(
            Run(
                case_id=case_id,
                run_id=None if k == 1 else f"r,{ident}",
                trial=k,
                steps=tuple(agent),
                success=success if k % 2 else None,
                retrieved=("d2", "d9", "d1") if k % 3 == 0 else (),
                usage={"cost": 0.5} if k == 2 else None,
            )
        )
    result = score(cases, runs)
    written, counted = _written(result, runs if with_runs else None)
    assert written == _expected(result)
    for number, line in enumerate(written.splitlines(), start=1):  # each a record of the schema
        record = validate_record(orjson.loads(line), file="written", line=number)
        # reference_branch (issue 23) is written only for a grammar reference, conversation
        # only for a run with turns (docs/conversations.md).
        optional = ("reference_branch", "conversation")
        assert tuple(record) == tuple(f for f in RECORD_FIELDS if f not in optional)
        # fields (issue 24) is written only for a pair compared field by field.
        plain = tuple(f for f in ALIGNED_STEP_FIELDS if f != "fields")
        assert all(tuple(a) == plain for a in record["alignment"])
        for defect in record["defects"]:
            assert list(defect) == [k for k in DEFECT_FIELDS if k in defect]
    kinds = Counter(d.kind for i in range(len(result)) for d in result.details(i)[0])
    assert counted == dict(sorted(kinds.items()))


def test_records_without_column_wise_explanations() -> None:
    cases = [Case(case_id="c", reference=("a", "b"))]
    runs = [Run(case_id="c", steps=("b", "a", "a")), Run(case_id="c", steps=())]
    result = score(cases, runs)
    plain = dataclasses.replace(result, defect_columns=None, alignment_columns=None)
    written, counted = _written(plain, runs)
    assert written == _expected(result)
    # run 0 repeats a (one wasted_step); run 1 made no step: a and b are missing (two)
    assert counted == result.defect_counts()
    assert counted["wasted_step"] == 1 and counted["missing_step"] == 2


def test_no_runs_no_bytes() -> None:
    result = score([Case(case_id="c", reference=("a",))], [])
    assert _written(result, [])[0] == b""


def test_one_run_with_usage_makes_every_run_ask_result_usage() -> None:
    cases = [Case(case_id="c", reference=("a",))]
    runs = [
        Run(case_id="c", steps=("a",)),
        Run(case_id="c", steps=(Step(tool="a", latency_ms=12.5),)),
    ]
    result = score(cases, runs, ScoringConfig())
    written, _ = _written(result, runs)
    assert written == _expected(result)
    usage = [orjson.loads(line)["usage"] for line in written.splitlines()]
    assert usage[0] == {"steps": 1, "tokens": None, "cost": None, "latency_ms": None}
    assert usage[1]["latency_ms"] == 12.5


def test_colon_values_is_orjson_text_after_a_colon() -> None:
    values = [0.1 + 0.2, 1e-7, 1e16, -0.0, 3, None, True, False, 2**40]
    column = colon_values(values).to_pylist()
    assert column == [b":" + orjson.dumps(v) for v in values]
    assert colon_values([]).to_pylist() == []
    with pytest.raises(ValueError, match="numbers"):
        colon_values(["a,b"])


@given(st.lists(st.one_of(st.floats(allow_nan=True), st.none()), max_size=30))
def test_colon_values_of_a_rate_column(values: list[float | None]) -> None:
    array = np.array([math.nan if v is None else v for v in values], dtype=np.float64)
    column = json_column(array, "rate")
    assert colon_values(column).to_pylist() == [b":" + orjson.dumps(v) for v in column]


def test_write_jsonl_writes_the_bytes_atomically(tmp_path: Path) -> None:
    cases = [Case(case_id="c", reference=("a",))]
    result = score(cases, [Run(case_id="c", steps=("a",)), Run(case_id="c", steps=())])
    records = records_jsonl(result)
    target = tmp_path / "results.jsonl"
    assert write_jsonl(target, records) == 2
    assert target.read_bytes() == records
    assert [p.name for p in tmp_path.iterdir()] == ["results.jsonl"]  # no temporary left
    assert read_results(target) == [r.to_dict() for r in result]
    again = tmp_path / "again.jsonl"  # the records as objects, written again: the same bytes
    assert write_results(again, read_results(target)) == 2
    assert again.read_bytes() == records


def test_records_in_chunks_are_the_records_at_once() -> None:
    cases = [Case(case_id="c", reference=("a", "b"))]
    runs = [Run(case_id="c", steps=("a", "a", "b")[: k % 4]) for k in range(11)]
    result = score(cases, runs)
    at_once = records_jsonl(result, runs)
    for size in (1, 3, 11, 50):
        assert b"".join(iter_records_jsonl(result, runs, chunk_runs=size)) == at_once
