"""Provenance: what must match before two runs compare, and which variables changed."""

from __future__ import annotations

import pytest

from pathgrade.core.errors import InputError
from pathgrade.core.provenance import (
    UNKNOWN,
    Provenance,
    changed_variables,
    common_provenance,
    measurement_differences,
    short_hash,
    unchecked,
)

BASE = Provenance(2, "sha256:aaaa", "sha256:cccc", "0.1.0", {"model": "m1", "prompt_version": "p1"})


def test_same_measurement_compares() -> None:
    other = Provenance(2, "sha256:aaaa", "sha256:cccc", "0.2.0", {"model": "m2"})
    assert measurement_differences(BASE, other) == []  # pathgrade's own version is not checked


def test_each_difference_is_named() -> None:
    other = Provenance(1, "sha256:bbbb", "sha256:cccc")
    assert measurement_differences(BASE, other) == [
        "scoring semantics version: 2 vs 1",
        "scoring config hash: sha256:aaaa vs sha256:bbbb",
    ]


def test_one_side_unrecorded_is_a_difference_both_unrecorded_is_unchecked() -> None:
    assert measurement_differences(BASE, UNKNOWN) == [
        "scoring semantics version: 2 vs not recorded",
        "scoring config hash: sha256:aaaa vs not recorded",
        "cases file hash: sha256:cccc vs not recorded",
    ]
    assert measurement_differences(UNKNOWN, UNKNOWN) == []
    assert unchecked(UNKNOWN, UNKNOWN) == [
        "scoring semantics version",
        "scoring config hash",
        "cases file hash",
    ]
    assert unchecked(BASE, BASE) == []


def test_changed_variables_in_methodology_order_then_labels() -> None:
    other = Provenance(2, variables={"prompt_version": "p2", "model": "m1", "zeta": "1"})
    # model equal; prompt_version changed; zeta only on one side: changed.
    assert changed_variables(BASE, other) == {"prompt_version": ("p1", "p2"), "zeta": (None, "1")}


def test_round_trip_and_malformed() -> None:
    assert Provenance.from_dict(BASE.to_dict()) == BASE
    with pytest.raises(InputError, match="provenance"):
        Provenance.from_dict({"semantics": "two"})
    with pytest.raises(InputError, match="provenance"):
        Provenance.from_dict([1])


def test_a_file_has_one_provenance() -> None:
    assert common_provenance([BASE, BASE]) == BASE
    assert common_provenance([]) == UNKNOWN
    with pytest.raises(InputError) as info:
        common_provenance([BASE, BASE, Provenance(1)], file="r.jsonl")
    assert info.value.line == 3 and info.value.field == "provenance"


def test_short_hash() -> None:
    assert short_hash("sha256:" + "ab" * 32) == "sha256:" + "ab" * 8
    assert short_hash(None) is None


def test_lazy_record_provenance_is_built_once_and_only_when_needed() -> None:
    from pathgrade.core.record_provenance import RecordProvenance

    calls: list[int] = []
    common = Provenance(2, "sha256:aaaa", "sha256:cccc", "0.1.0", {"prompt_version": "p1"})

    def build() -> Provenance:
        calls.append(1)
        return common

    lazy = RecordProvenance.lazy(build, [None, "m9", None])
    picked = lazy.select([1, 2])
    assert calls == []  # nothing asked for it yet
    assert picked(0).variables["model"] == "m9" and lazy(0) == common
    assert calls == [1]  # built once, shared by the selection
    assert lazy == RecordProvenance.of(common, [None, "m9", None])


def test_library_score_does_not_hash_cases_until_a_record_is_written(monkeypatch: object) -> None:
    import pathgrade.evaluate as evaluate
    from pathgrade import Case, Run, score

    seen: list[int] = []
    real = evaluate.cases_hash

    def counting(cases: object) -> str:
        seen.append(1)
        return real(cases)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluate, "cases_hash", counting)  # type: ignore[attr-defined]
    case = Case.model_validate({"case_id": "c", "reference": ["a"]})
    result = score([case], [Run.model_validate({"case_id": "c", "steps": ["a"]})])
    assert seen == [] and len(result) == 1
    assert result.provenance is not None and result.provenance(0).cases is not None
    assert seen == [1]
