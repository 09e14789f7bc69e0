"""The provenance check compare, gate, report and ablation run before any statistic."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.comparability import check_comparable, check_records
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import UNKNOWN, Provenance, records_provenance

BASE = Provenance(2, "sha256:1a1a", "sha256:cccc", "0.1.0", {"model": "m1"})


def test_measured_differently_is_one_line_naming_what_differs() -> None:
    other = Provenance(2, "sha256:9f9f", "sha256:cccc", "0.1.0", {"model": "m1"})
    with pytest.raises(InputError) as info:
        check_comparable(BASE, other, names="base.jsonl, variant.jsonl")
    assert str(info.value) == (
        "base.jsonl, variant.jsonl: scored differently (scoring config hash: sha256:1a1a vs"
        " sha256:9f9f); re-score both with the same config, or pass --allow-config-change"
    )


def test_several_differences_name_each_thing_to_keep_the_same() -> None:
    other = Provenance(1, "sha256:9f9f", "sha256:dddd")
    with pytest.raises(InputError, match="the same pathgrade, config and cases file, or pass"):
        check_comparable(BASE, other, names="a, b")


def test_allowed_difference_is_the_warning() -> None:
    other = Provenance(2, "sha256:9f9f", "sha256:cccc", "0.1.0", {"model": "m1"})
    check = check_comparable(BASE, other, names="a, b", allow=True)
    assert check.warning == (
        "WARNING: a, b: scored differently (scoring config hash: sha256:1a1a vs sha256:9f9f);"
        " compared anyway (--allow-config-change): a difference may come from the scoring,"
        " not the runs"
    )
    assert check.note is None and check.changed == {}


def test_alike_has_no_warning_and_no_note() -> None:
    check = check_comparable(BASE, BASE, names="a, b")
    assert (check.warning, check.note, check.recorded) == (None, None, True)
    assert check.variable_lines() == ["changed variables: none"]


def test_neither_side_recorded_is_unchecked() -> None:
    check = check_comparable(UNKNOWN, UNKNOWN, names="a, b")
    assert check.warning is None and not check.recorded
    assert check.note == "provenance not recorded: comparability unchecked"
    assert check.variable_lines() == []  # nothing recorded, nothing to say


def test_partly_unrecorded_names_the_fields() -> None:
    # Both record semantics and config, neither a cases hash.
    left, right = Provenance(2, "sha256:aa"), Provenance(2, "sha256:aa")
    check = check_comparable(left, right, names="a, b")
    assert check.note == "provenance not recorded (cases file hash): comparability unchecked"


def test_one_variable_changed_is_named_two_warn() -> None:
    one = Provenance(2, "sha256:1a1a", "sha256:cccc", "0.1.0", {"model": "m2"})
    check = check_comparable(BASE, one, names="a, b")
    assert check.variable_lines() == ["changed variables: model (m1 -> m2)"]
    two = Provenance(
        2, "sha256:1a1a", "sha256:cccc", "0.1.0", {"model": "m2", "prompt_version": "p2"}
    )
    check = check_comparable(BASE, two, names="a, b")
    assert check.variable_lines() == [
        "changed variables: model (m1 -> m2), prompt_version (not recorded -> p2)",
        "WARNING: 2 variables changed (model, prompt_version): the comparison cannot say which"
        " caused the difference",
    ]
    assert check.changed_dict() == {"model": ["m1", "m2"], "prompt_version": [None, "p2"]}


def _records(provenance: Any, n: int = 3) -> list[dict[str, Any]]:
    return [{"case_id": f"c{i}", "provenance": provenance} for i in range(n)]


def test_records_provenance_of_a_side() -> None:
    assert records_provenance(_records(BASE.to_dict())) == BASE
    assert records_provenance([{"case_id": "c"}]) == UNKNOWN  # a v1 record: unknown
    assert records_provenance([]) == UNKNOWN


def test_a_side_mixing_measurements_names_the_record() -> None:
    other = Provenance(2, "sha256:9f9f", "sha256:cccc", "0.1.0", {"model": "m1"}).to_dict()
    records = [*_records(BASE.to_dict(), 2), {"case_id": "c9", "provenance": other}]
    with pytest.raises(InputError) as info:
        check_records(records, _records(BASE.to_dict()), names=("base.jsonl", "var.jsonl"))
    error = info.value
    assert (error.file, error.line, error.field) == ("base.jsonl", 3, "provenance")
    assert "scored differently (scoring config hash: sha256:1a1a vs sha256:9f9f)" in str(error)


def test_a_side_mixing_models_suggests_a_label() -> None:
    other = {**BASE.to_dict(), "variables": {"model": "m2"}}
    records = [*_records(BASE.to_dict(), 1), {"case_id": "c9", "provenance": other}]
    with pytest.raises(InputError) as info:
        records_provenance(records, file="r.jsonl")
    assert str(info.value) == (
        "r.jsonl:2: field 'provenance': results mix runs of different controlled variables"
        " (model: m1 vs m2): compare like with like, or label the whole run (score --label"
        " model=VALUE)"
    )


def test_a_record_without_provenance_among_recorded_ones_is_mixed() -> None:
    records = [*_records(BASE.to_dict(), 2), {"case_id": "old"}]
    with pytest.raises(InputError, match="scored differently") as info:
        records_provenance(records, file="r.jsonl")
    assert info.value.line == 3


def test_malformed_provenance_names_the_record() -> None:
    with pytest.raises(InputError) as info:
        records_provenance([*_records(BASE.to_dict(), 1), {"provenance": {"semantics": "x"}}])
    assert (info.value.line, info.value.field) == (2, "provenance")


_TEXT = st.sampled_from(["a", "b", None])


@settings(max_examples=200, deadline=None)
@given(
    st.tuples(_TEXT, _TEXT, _TEXT),
    st.tuples(_TEXT, _TEXT, _TEXT),
    st.dictionaries(st.sampled_from(["model", "seed", "x"]), st.sampled_from(["1", "2"])),
    st.dictionaries(st.sampled_from(["model", "seed", "x"]), st.sampled_from(["1", "2"])),
)
def test_refused_exactly_when_a_recorded_measurement_differs(
    left: tuple[str | None, ...],
    right: tuple[str | None, ...],
    left_vars: dict[str, str],
    right_vars: dict[str, str],
) -> None:
    a = Provenance(2, left[0], left[1], left[2], left_vars)
    b = Provenance(2, right[0], right[1], right[2], right_vars)
    differs = left[:2] != right[:2]  # config and cases; pathgrade's own version is not checked
    if differs:
        with pytest.raises(InputError, match="scored differently"):
            check_comparable(a, b, names="a, b")
        assert check_comparable(a, b, names="a, b", allow=True).warning is not None
    else:
        check = check_comparable(a, b, names="a, b")
        assert check.warning is None
        # changed: exactly the names whose values differ (a missing one is None)
        names = set(left_vars) | set(right_vars)
        assert set(check.changed) == {n for n in names if left_vars.get(n) != right_vars.get(n)}
        assert (len(check.variable_lines()) == 2) == (len(check.changed) > 1)
