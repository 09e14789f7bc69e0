"""Partitions send per-case sums and slice keys; the coordinator's table is the in-memory one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pathgrade.core.errors import InputError
from pathgrade.engines.runner import evaluate_files
from pathgrade.evaluate import score
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.stats.case_sums import case_table
from pathgrade.stats.partial import SummaryPartial


def _inputs(folder: Path) -> tuple[Path, Path]:
    """9 cases (c0..c8), runs in a scrambled order; case i repeats its first step i % 3
    times in trial 0 and (i + 1) % 3 times in trial 1. Cases c0..c2 carry tags."""
    cases_path, runs_path = folder / "cases.jsonl", folder / "runs.jsonl"
    lines = []
    for i in range(9):
        case = {"case_id": f"c{i}", "reference": [f"a:{i}", f"b:{i}"]}
        if i < 3:
            case["metadata"] = {"tags": ["t", f"u{i}"]}
        lines.append(json.dumps(case))
    cases_path.write_text("\n".join(lines) + "\n")
    order = [(4, 0), (1, 1), (7, 0), (1, 0), (0, 1), (8, 1), (2, 0), (5, 1), (3, 0)]
    order += [(6, 1), (0, 0), (2, 1), (3, 1), (4, 1), (5, 0), (6, 0), (7, 1), (8, 0)]
    runs = []
    for i, t in order:
        steps = [f"a:{i}"] * (1 + (i + t) % 3) + [f"b:{i}"]
        runs.append(json.dumps({"case_id": f"c{i}", "trial": t, "steps": steps}))
    runs_path.write_text("\n".join(runs) + "\n")
    return cases_path, runs_path


@pytest.mark.parametrize(("size", "workers"), [(4, 1), (5, 2), (100, 1)])
def test_coordinator_table_equals_in_memory(tmp_path: Path, size: int, workers: int) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    cases = {c.case_id: c for c in load_cases(cases_path).items}
    result = score(cases, load_runs(runs_path, cases).items)
    expected = case_table(result.case_ids, result.metrics)
    found = evaluate_files(
        cases_path, runs_path, partition_size=size, workers=workers, slice_by="tags"
    )
    table = found.cases
    assert table is not None
    # first appearance: c4, c1, c7, c0, c8, c2, c5, c3, c6 (codes = positions in the file)
    assert table.codes.tolist() == [4, 1, 7, 0, 8, 2, 5, 3, 6]
    assert table.names == expected.names
    np.testing.assert_array_equal(table.means, expected.means)
    np.testing.assert_array_equal(table.defined, expected.defined)
    assert table.runs.tolist() == [2] * 9
    assert found.slice_keys is not None
    assert found.slice_keys[:4] == [(None,), ("t", "u1"), (None,), ("t", "u0")]


def test_a_field_no_case_has(tmp_path: Path) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    with pytest.raises(InputError, match="no case has the field tagz"):
        evaluate_files(cases_path, runs_path, partition_size=4, slice_by="tagz")


def test_partial_merge_is_order_free_for_the_sums() -> None:
    # two batches of the same two cases (codes 3 and 1); merged either way, same sums
    values = {"x": np.array([0.1, 0.7, 0.2])}
    first, second = SummaryPartial(), SummaryPartial()
    for partial, codes in ((first, [3, 1, 3]), (second, [1, 3, 3])):
        partial.add_runs(np.array(codes), np.zeros(3, np.int64), np.zeros(3, np.int8))
        partial.add_case_sums(np.array(codes), values)
        partial.add_slice_keys({3: ("k",), 1: ("j",)}, field_found=True)
    ab, ba = first.merge(second), second.merge(first)
    # case 3: 0.1 + 0.2 + 0.7 + 0.2 = 1.2 over 4 runs: 0.3; case 1: 0.7 + 0.1 over 2 runs,
    # whose exact sum rounds to the double below 0.8: fsum([0.7, 0.1]) / 2 = 0.39999999999999997
    table_ab, table_ba = ab.case_table(), ba.case_table()
    assert table_ab.codes.tolist() == [3, 1] and table_ba.codes.tolist() == [1, 3]
    assert table_ab.means[:, 0].tolist() == [0.3, 0.39999999999999997]
    assert table_ba.means[:, 0].tolist() == [0.39999999999999997, 0.3]
    assert ab.slice_keys == {3: ("k",), 1: ("j",)} and ab.slice_field_found
