"""The report's numbers: the case is the unit of the summary; slice and ablation sections."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.cli.main import main
from pathgrade.core.types import Case
from pathgrade.report.html import render_html
from pathgrade.report.number_text import format_interval
from pathgrade.reporting import LoadedRun, SliceOptions, build_report
from pathgrade.stats.bootstrap import bootstrap_mean_ci, case_mean_interval

from .conftest import SLICE_PAYLOAD, result_record, sliced_pair, write_records


def loaded(name: str, records: list[dict[str, Any]]) -> LoadedRun:
    return LoadedRun(name, records, [None] * len(records), None)


def trials_records() -> list[dict[str, Any]]:
    """12 cases x 3 trials: case i scores 10 i, 10 i + 1, 10 i + 2 (per-case mean 10 i + 1).

    Mean of per-case means: 10 * mean(0..11) + 1 = 10 * 5.5 + 1 = 56. Trial 2 of case 0 is
    undefined (null): case 0 then averages 0 and 1 (0.5), so the mean is 56 - 0.5 / 12.
    """
    records = []
    for i in range(12):
        for t in range(3):
            value = None if (i, t) == (0, 2) else 10.0 * i + t
            records.append(result_record(f"c{i:02d}", None, trial=t, path_score=value))
    return records


def test_summary_interval_is_over_cases_not_runs() -> None:
    records = trials_records()
    data = build_report(loaded("trials", records), resamples=2000, seed=7)
    row = next(r for r in data.summary if r.metric == "path_score")
    assert (row.n, row.runs, row.undefined) == (12, 35, 1)
    assert data.n_cases == 12 and len(data.cases) == 36
    assert row.mean == pytest.approx(56 - 0.5 / 12)
    values = [r["metrics"]["path_score"] for r in records]
    ids = [r["case_id"] for r in records]
    expected = case_mean_interval(values, ids, resamples=2000, rng=7)
    assert (row.low, row.high) == (expected.low, expected.high)
    assert expected.n_cases == 12
    # the interval over the 35 defined runs (the old behaviour) is a different, n = 35 one
    runs = bootstrap_mean_ci([v for v in values if v is not None], resamples=2000, rng=7)
    assert runs.n == 35 and (runs.low, runs.high) != (row.low, row.high)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.one_of(st.none(), st.floats(0, 100, width=32))),
        min_size=1,
        max_size=30,
    ),
    st.integers(0, 2**16),
)
def test_summary_row_is_the_cluster_bootstrap(runs: list[tuple[int, Any]], seed: int) -> None:
    records = [result_record(f"c{c}", None, trial=t, path_score=v) for t, (c, v) in enumerate(runs)]
    row = next(r for r in build_report(loaded("p", records), resamples=50, seed=seed).summary)
    defined_cases = {c for c, v in runs if v is not None}
    assert row.n == len(defined_cases)
    assert row.runs == sum(v is not None for _, v in runs)
    assert row.undefined == len(runs) - row.runs
    if not defined_cases:
        assert row.mean is None and row.low is None
        return
    expected = case_mean_interval(
        [v for _, v in runs], [f"c{c}" for c, _ in runs], resamples=50, rng=seed
    )
    assert (row.mean, row.low, row.high) == (expected.mean, expected.low, expected.high)


def test_summary_page_shows_cases_and_runs(tmp_path: Path) -> None:
    results = write_records(tmp_path / "trials.jsonl", trials_records())
    out = tmp_path / "trials.html"
    assert main(["report", results, "-o", str(out), "--resamples", "300", "--seed", "3"]) == 0
    page = out.read_text("utf-8")
    assert "Summary over 12 cases (36 runs)" in page
    row = re.search(r'<tr data-metric="path_score">(.*?)</tr>', page)
    assert row is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    expected = case_mean_interval(
        [r["metrics"]["path_score"] for r in trials_records()],
        [r["case_id"] for r in trials_records()],
        resamples=300,
        rng=3,
    )
    assert cells[2] == format_interval(expected.low, expected.high, "path_score")
    assert cells[3:7] == ["points", "12", "35", "1"]  # unit, n cases, runs, undefined runs


def _slice_rows(page: str) -> list[list[str]]:
    table = re.search(r'<table class="slices sortable"[^>]*>(.*?)</table>', page, re.S)
    assert table is not None
    body = table.group(1).split("<tbody>")[1]
    return [
        [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


@pytest.fixture
def sliced(tmp_path: Path) -> tuple[str, str]:
    return sliced_pair(tmp_path)


def test_paired_slice_table(sliced: tuple[str, str], tmp_path: Path) -> None:
    base, var = sliced
    out = tmp_path / "s.html"
    args = ["report", var, "--baseline", base, "--by", "group", "-o", str(out)]
    assert main([*args, "--resamples", "300"]) == 0
    page = out.read_text("utf-8")
    assert 'id="slices"' in page and "path_score by group" in page
    assert SLICE_PAYLOAD not in page  # escaped: a slice key is case data
    assert "&lt;img src=x onerror=" in page
    rows = _slice_rows(page)
    assert [r[0] for r in rows] == ["A", SLICE_PAYLOAD, "C"]  # first appearance
    a, payload, c = rows
    # slice, n, undefined, baseline, variant, diff, CI, p, p (Holm)
    assert a[1:6] == ["6", "0", "52.5", "62.5", "+10.0"]  # baseline 50..55: mean 52.5
    assert a[6] == "[+10.0, +10.0]"  # every difference is 10
    assert a[7:9] == ["0.0313", "0.0625"]  # 1/32: half away from zero, as the terminal
    assert payload[1] == "5" and payload[5] == "+3.0"  # mean of 1..5
    assert payload[7:9] == ["0.0625", "0.0625"]
    assert c[1] == "2" and c[5] == "-20.0" and c[6] == "-"
    assert c[7] == "untested (n < 5)"
    assert page.count('class="untested"') == 1


def test_single_run_slices_and_min_n(sliced: tuple[str, str], tmp_path: Path) -> None:
    _, var = sliced
    out = tmp_path / "s.html"
    args = ["report", var, "--by", "group", "--min-slice-n", "2", "-o", str(out)]
    assert main([*args, "--resamples", "300"]) == 0
    rows = _slice_rows(out.read_text("utf-8"))
    # slice, n cases, undefined, mean, CI: every slice is tested with min n 2
    assert [r[:4] for r in rows] == [["A", "6", "0", "62.5"], [SLICE_PAYLOAD, "5", "0", "83.0"],
                                     ["C", "2", "0", "70.0"]]  # fmt: skip
    assert rows[2][4] == "[70.0, 70.0]"


def test_slices_by_metadata_need_the_cases(
    sliced: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, var = sliced
    out = tmp_path / "s.html"
    code = main(["report", var, "--by", "metadata.difficulty", "-o", str(out)])
    assert code == 2 and "pass the cases file with --cases" in capsys.readouterr().err
    assert main(["report", var, "--by", "nope", "-o", str(out)]) == 2
    assert "cannot slice by 'nope'" in capsys.readouterr().err
    records = [result_record(f"a{i}", "A", path_score=float(i)) for i in range(6)]
    cases = {
        f"a{i}": Case(case_id=f"a{i}", metadata={"difficulty": "hard" if i < 2 else "easy"})
        for i in range(6)
    }
    data = build_report(
        loaded("r", records), slices=SliceOptions("metadata.difficulty", cases), resamples=200
    )
    (table,) = data.slices
    # hard: cases 0, 1 (mean 0.5, untested); easy: 2..5 (mean 3.5, untested: 4 < 5)
    assert [(r["slice"], r["n_cases"], r["mean"], r["tested"]) for r in table.rows] == [
        ("hard", 2, 0.5, False),
        ("easy", 4, 3.5, False),
    ]


def arms(folder: Path) -> dict[str, str]:
    """Eight cases; A alone and B alone each add 10 points, both together also only 10.

    Per case: main effects ((10 + 0) / 2 = 5), interaction 10 - 10 - 10 + 0 = -10; every
    contrast is constant, so each interval is a point. Sign-flip p of 8 equal non-zero values:
    2 / 2**8 = 0.0078125; Holm over the 3 family tests: 3 * 0.0078125 = 0.0234375 < 0.05.
    """
    shift = {"r0": 0.0, "ra": 10.0, "rb": 10.0, "rab": 10.0}
    return {
        arm: write_records(
            folder / f"{arm}.jsonl",
            [result_record(f"c{i}", None, path_score=50.0 + i + d) for i in range(8)],
        )
        for arm, d in shift.items()
    }


def test_ablation_section(tmp_path: Path) -> None:
    paths = arms(tmp_path)
    out = tmp_path / "a.html"
    ablation = f"a={paths['ra']},b={paths['rb']},ab={paths['rab']}"
    args = ["report", paths["rab"], "--baseline", paths["r0"], "--ablation", ablation]
    assert main([*args, "-o", str(out), "--resamples", "300"]) == 0
    page = out.read_text("utf-8")
    assert 'id="ablation"' in page and "(8 cases)" in page
    section = page.split('id="ablation"')[1].split("</section>")[0]
    text = unescape(re.sub(r"<[^>]+>", " ", section))
    words = " ".join(text.split())
    assert "main effect of A 8 +5.0 [+5.0, +5.0] 0.0078 0.0234 yes" in words
    assert "interaction 8 -10.0 [-10.0, -10.0] 0.0078 0.0234 yes" in words
    assert "B with A present (RAB - RA) 8 0.0 [0.0, 0.0]" in words
    assert "B's gain disappears when A is present; A's gain disappears when B is present" in words


def test_ablation_needs_three_arms_and_a_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = arms(tmp_path)
    out = str(tmp_path / "a.html")
    assert main(["report", paths["rab"], "--ablation", f"a={paths['ra']}", "-o", out]) == 2
    assert "missing arm(s) b, ab" in capsys.readouterr().err
    full = f"a={paths['ra']},b={paths['rb']},ab={paths['rab']}"
    assert main(["report", paths["rab"], "--ablation", full, "-o", out]) == 2
    assert "pass --baseline" in capsys.readouterr().err
    short = write_records(tmp_path / "short.jsonl", [result_record("c0", None, path_score=1.0)])
    bad = f"a={short},b={paths['rb']},ab={paths['rab']}"
    argv = ["report", paths["rab"], "--baseline", paths["r0"], "--ablation", bad, "-o", out]
    assert main(argv) == 2
    assert "must cover the same cases" in capsys.readouterr().err


def test_render_escapes_ablation_and_slice_names() -> None:
    records = [result_record(f"c{i}", SLICE_PAYLOAD, path_score=float(i)) for i in range(3)]
    data = build_report(loaded("r", records), slices=SliceOptions("group"), resamples=50)
    page = render_html(data)
    assert SLICE_PAYLOAD not in page and "<img" not in page


EXAMPLES = Path(__file__).parents[2] / "examples"


def test_slices_of_the_examples_by_a_case_field_from_the_cases_file(tmp_path: Path) -> None:
    results = {}
    for runs in ("runs.jsonl", "runs_variant.jsonl"):
        results[runs] = str(tmp_path / f"scored_{runs}")
        argv = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / runs), "--out"]
        assert main([*argv, results[runs], "--config", str(EXAMPLES / "pathgrade.toml")]) == 0
    out = tmp_path / "ex.html"
    argv = ["report", results["runs_variant.jsonl"], "--baseline", results["runs.jsonl"]]
    argv += ["--by", "order", "--cases", str(EXAMPLES / "cases.jsonl"), "-o", str(out)]
    assert main([*argv, "--min-slice-n", "1", "--resamples", "200"]) == 0
    rows = _slice_rows(out.read_text("utf-8"))
    # order "total": refund-A17 (82.5 -> 90), refund-B22 (55 -> 100), mars-temp (90 -> 90):
    # diff (7.5 + 45 + 0) / 3 = 17.5; "partial": report-outage 80 -> 100
    assert [r[:6] for r in rows] == [
        ["total", "3", "0", "75.8", "93.3", "+17.5"],  # points: 1 decimal, diff signed
        ["partial", "1", "0", "80.0", "100.0", "+20.0"],
    ]
