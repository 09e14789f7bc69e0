"""The case store: a stored case is rebuilt equal to the validated one (its steps the same
objects, its set fields the same), a full store stops taking cases, and a case index with a
store gives the cases of the file, validating each only once."""

from __future__ import annotations

import os
import random
from pathlib import Path

import orjson
import pytest

from pathgrade.core.types import Case, Step
from pathgrade.engines import work
from pathgrade.io import case_index, cases
from pathgrade.io.case_cache import CaseStore
from pathgrade.io.case_index import index_cases
from pathgrade.io.cases import load_cases

A, B, C = Step(tool="a", arguments={"x": 1}), Step(tool="b"), Step(tool="c", output="é")

CASES = [
    Case(case_id="plain", reference=(A, B)),
    Case(
        case_id="everything",
        query="q",
        group="g",
        reference=(A, B, C),
        references=((B, A), (C,)),
        order="none",
        budget={"steps": 3, "cost": 0.5},
        required_tools=("a",),
        forbidden_tools=("rm",),
        forbidden_actions=(Step(tool="rm", arguments={"path": "/"}),),
        tool_kinds={"b": "write"},
        gold_answer=("yes", "y"),
        answerable=False,
        gold_evidence={"d1": 2.0, "d2": 1.0},
        metadata={"nested": {"k": [1, 2]}},
        expected_state={"done": True},
    ),
    Case(case_id="only-references", references=((C, C),)),
    Case(case_id="nothing"),
]


def test_a_stored_case_is_rebuilt_as_it_was() -> None:
    store = CaseStore(len(CASES))
    store.put(range(len(CASES)), CASES)
    assert store.stored([0, 1, 2, 3]) == [True] * 4
    rebuilt = store.get([1, 0, 3, 2])
    for got, want in zip(rebuilt, [CASES[1], CASES[0], CASES[3], CASES[2]], strict=True):
        assert got == want
        assert got.model_fields_set == want.model_fields_set
        assert got.model_dump() == want.model_dump()
        for mine, theirs in zip(got.reference_paths(), want.reference_paths(), strict=True):
            assert all(s is t for s, t in zip(mine, theirs, strict=True))  # shared steps
    assert rebuilt[0].forbidden_actions == CASES[1].forbidden_actions
    store.close()


def test_a_full_store_stops_taking_cases_and_keeps_the_others() -> None:
    store = CaseStore(4, max_steps=2)
    store.put([0, 1], [Case(case_id="w", reference=(A,)), Case(case_id="x", reference=(A, B))])
    assert not store.full
    store.put([2], [Case(case_id="y", reference=(C,))])  # 3 steps in the table: full
    store.put([3], [Case(case_id="z", reference=(A,))])  # full: not stored
    assert store.full
    assert store.stored([0, 1, 2, 3]) == [True, True, False, False]
    assert [c.case_id for c in store.get([1, 0])] == ["x", "w"]
    store.close()


def _write_cases(path: Path, n: int) -> None:
    lines = [
        orjson.dumps({"case_id": f"c{c}", "reference": [f"t{c % 5}:a{c % 3}", "send:x"]})
        for c in range(n)
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_an_index_with_a_store_validates_each_case_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cases.jsonl"
    _write_cases(path, 40)
    whole = {c.case_id: c for c in load_cases(path).items}
    validated: list[int] = []
    parse = cases.parse_record

    def counting(value: object, model: type, **options: object) -> object:
        validated.append(1)
        return parse(value, model, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(case_index, "parse_record", counting)
    index = index_cases(path, capacity=5)
    index.store = CaseStore(len(index))
    rng = random.Random(5)
    for _ in range(30):
        wanted = rng.sample(sorted(whole), rng.randint(1, 8))
        got = index.cases(wanted)
        assert all(got[c] == whole[c] for c in wanted)
    assert len(validated) == len({c for c in whole if index.positions[c] in index.store})
    assert len(validated) <= 40


def test_a_worker_makes_its_own_store(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    _write_cases(path, 3)
    work._CASES.clear()
    index = work._with_store(work.cached_case_index(str(path)))
    assert index.store is not None and index.store.pid == os.getpid()
    index.store.pid = -1  # as if inherited from the process this one was forked from
    inherited = index.store
    assert work._with_store(index).store is not inherited
    work.release_job_state()
    assert index.store is None
    work._CASES.clear()


def _store_in_child(store: CaseStore) -> None:
    store.put([0, 2], [CASES[1], CASES[0]])


def test_a_shared_store_gives_a_case_one_process_stored_to_another() -> None:
    import multiprocessing

    store = CaseStore(len(CASES), shared=True)
    child = multiprocessing.get_context("fork").Process(target=_store_in_child, args=(store,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert store.stored([0, 1, 2, 3]) == [True, False, True, False]
    assert store.usable_here()
    everything, plain = store.get([0, 2])
    assert everything == CASES[1] and plain == CASES[0]
    assert everything.model_fields_set == CASES[1].model_fields_set
    # Steps another process stored are read once: both cases share this process's copies.
    assert everything.reference[0] is plain.reference[0]
    numbered = int(store._counters[1])
    again = Case(case_id="again", reference=plain.reference)  # steps read from the child
    store.put([1], [again])
    assert int(store._counters[1]) == numbered  # their numbers are known: none is added
    assert store.get([1])[0].reference[1] is plain.reference[1]
    store.close()


def test_a_store_that_is_not_shared_is_not_used_after_a_fork() -> None:
    store = CaseStore(2)
    assert store.usable_here()
    store.pid = -1  # as if this process had been forked from the one that made it
    assert not store.usable_here()
    store.close()
