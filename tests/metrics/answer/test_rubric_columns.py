"""Untrusted rubric keys become a bounded number of columns; the rest are one ``rubric_other``.

200 runs with 50 distinct keys each used to make 10,000 ``rubric.<key>`` columns.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.cli.main import main
from pathgrade.core.config import AnswerLayer, ScoringConfig
from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.metrics import catalogue
from pathgrade.metrics.answer.rubric_columns import OTHER, fold_rubric, kept_dimensions


def _runs(n_runs: int, keys_per_run: int) -> tuple[list[Case], list[Run]]:
    cases = [Case(case_id=f"c{i}", reference=["a:1"]) for i in range(n_runs)]
    runs = [
        Run(
            case_id=f"c{i}",
            steps=["a:1"],
            answer="x",
            rubric={f"k{i:03d}_{j:02d}": float(j % 3) for j in range(keys_per_run)},
        )
        for i in range(n_runs)
    ]
    return cases, runs


def test_two_hundred_runs_of_fifty_keys_make_twenty_columns_and_one_count() -> None:
    cases, runs = _runs(200, 50)
    result = score(cases, runs)
    rubric = sorted(n for n in result.metrics if n.startswith("rubric."))
    # the first 20 distinct keys in order of appearance: all 20 from run 0 (keys sorted)
    assert rubric == [f"rubric.k000_{j:02d}" for j in range(20)]
    other = result.metrics[OTHER]
    # run 0: 50 scores, 20 are columns -> 30 left out; every other run: all 50 left out
    assert other[0] == 30 and all(v == 50 for v in other[1:])
    assert result.kinds[OTHER] == "count"
    assert catalogue.row(OTHER).kind == "count" and catalogue.row(OTHER).direction == "neither"


def test_declared_dimensions_are_the_columns_whatever_the_cap() -> None:
    cases, runs = _runs(3, 4)  # run i has k00i_00 .. k00i_03
    declared = ("k001_02", "k002_00", "nowhere")
    config = ScoringConfig(answer=AnswerLayer(rubric_dimensions=declared, max_rubric_dimensions=1))
    result = score(cases, runs, config)
    rubric = sorted(n for n in result.metrics if n.startswith("rubric."))
    assert rubric == ["rubric.k001_02", "rubric.k002_00"]  # a dimension no run has: no column
    assert list(result.metrics[OTHER]) == [4, 3, 3]  # 4 scores each, minus the declared ones


def test_under_the_cap_nothing_changes() -> None:
    cases, runs = _runs(3, 4)  # 12 distinct keys <= 20
    result = score(cases, runs)
    assert len([n for n in result.metrics if n.startswith("rubric.")]) == 12
    assert OTHER not in result.metrics


def test_the_cap_is_read_from_the_config_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, runs = _runs(2, 3)
    (tmp_path / "cases.jsonl").write_text("".join(c.model_dump_json() + "\n" for c in cases))
    (tmp_path / "runs.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in runs))
    (tmp_path / "pathgrade.toml").write_text("[answer]\nmax_rubric_dimensions = 2\n")
    argv = ["score", str(tmp_path / "cases.jsonl"), str(tmp_path / "runs.jsonl"), "--json"]
    assert main([*argv, "--config", str(tmp_path / "pathgrade.toml")]) == 0
    doc = json.loads(capsys.readouterr().out)
    first = doc["results"][0]["metrics"]
    assert sorted(n for n in first if n.startswith("rubric.")) == [
        "rubric.k000_00",
        "rubric.k000_01",
    ]
    # run 0: 3 scores, 2 columns -> 1 left out; run 1: its 3 keys are all new -> 3 left out
    assert [r["metrics"][OTHER] for r in doc["results"]] == [1, 3]


rubrics = st.lists(
    st.one_of(
        st.none(),
        st.dictionaries(
            st.sampled_from("abcdefghij"), st.one_of(st.integers(0, 3), st.just("text"))
        ),
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(rubrics=rubrics, cap=st.integers(0, 6))
def test_kept_dimensions_properties(rubrics: list[dict[str, object] | None], cap: int) -> None:
    kept, dropped = kept_dimensions(rubrics, max_dimensions=cap)
    numeric = [{k for k, v in (r or {}).items() if not isinstance(v, str)} for r in rubrics]
    seen: list[str] = []  # the definition: first appearance, each run's keys sorted
    for keys in numeric:
        seen += [k for k in sorted(keys) if k not in seen]
    assert kept == frozenset(seen[:cap])
    assert dropped == (len(seen) > cap)
    for rubric, keys in zip(rubrics, numeric, strict=True):
        metrics = {f"rubric.{k}": float(v) for k, v in (rubric or {}).items() if k in keys}
        folded = fold_rubric({**metrics, "faithfulness": 1.0}, kept, count_other=True)
        assert folded["faithfulness"] == 1.0
        columns = {n for n in folded if n.startswith("rubric.")}
        assert columns == {f"rubric.{k}" for k in keys & kept}
        if keys:
            assert folded[OTHER] == len(keys - kept)  # every score is a column or counted
        else:
            assert OTHER not in folded


def test_judge_summary_lists_at_most_the_cap() -> None:
    from pathgrade.judge.summary import metric_means

    cases, runs = _runs(5, 10)
    means = metric_means({c.case_id: c for c in cases}, runs, max_rubric_dimensions=3)
    assert sorted(n for n in means if n.startswith("rubric.")) == [
        "rubric.k000_00", "rubric.k000_01", "rubric.k000_02",
    ]  # fmt: skip
    # run 0: 10 - 3 = 7 left out; runs 1-4: 10 each -> mean (7 + 40) / 5 = 9.4
    assert math.isclose(means[OTHER]["mean"], 9.4) and means[OTHER]["n"] == 5
