"""One name for one quantity in the HTML report (issue 32): on the bundled examples every
table, the forest plot and the case data name latency, tokens and cost once each, as
``latency_ms``, ``tokens`` and ``cost``; ``usage.latency_ms``, ``usage.tokens`` and
``usage.cost`` appear nowhere; results scored before the system layer still show latency.

Examples (see tests/cli/test_quantity_names_cli.py): baseline latencies 4200 and 7900 ms, the
variant's 4200 and 4400 ms (mean 4300), six runs of each without one.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pathgrade.cli.main import main

EXAMPLES = Path(__file__).parents[2] / "examples"
ONE = ("latency_ms", "tokens", "cost")
OLD = ("usage.latency_ms", "usage.tokens", "usage.cost")


class _Rows(HTMLParser):
    """Per table (by class) and for the forest plot: the metric each row is about, from the
    row's ``data-metric`` or its first ``td.id`` cell's title."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[str]] = {}
        self._table: str | None = None
        self._row_named = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self._table = found.get("class") or ""
        elif tag == "tr" and self._table is not None:
            self._row_named = False
            if found.get("data-metric"):
                self.tables.setdefault(self._table, []).append(str(found["data-metric"]))
                self._row_named = True
        elif tag == "td" and self._table is not None and not self._row_named:
            if found.get("class") == "id" and found.get("title"):
                self.tables.setdefault(self._table, []).append(str(found["title"]))
                self._row_named = True
        elif tag == "g" and found.get("class") == "row" and found.get("data-metric"):
            self.tables.setdefault("forest", []).append(str(found["data-metric"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None


def _results(folder: Path, old_style: bool = False) -> tuple[str, str]:
    out = []
    for runs in ("runs.jsonl", "runs_variant.jsonl"):
        path = folder / runs
        argv = ["score", str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / runs)]
        assert main([*argv, "--config", str(EXAMPLES / "pathgrade.toml"), "--out", str(path)]) == 0
        if old_style:  # scored before the system layer: the amounts only in usage
            records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
            for record in records:
                for name in ONE:
                    del record["metrics"][name]
            path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
        out.append(str(path))
    return out[0], out[1]


def _page(folder: Path, old_style: bool = False) -> str:
    baseline, variant = _results(folder, old_style)
    out = folder / "report.html"
    argv = ["report", variant, "--baseline", baseline, "-o", str(out), "--resamples", "200"]
    assert main([*argv, "--gates", str(EXAMPLES / "gates.toml")]) == 0
    return out.read_text("utf-8")


def _blob(page: str) -> dict[str, object]:
    match = re.search(r'<script type="application/json" id="pathgrade-data">(.*?)</script>', page)
    assert match is not None
    data = json.loads(match.group(1))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module", params=[False, True], ids=["new", "scored-before-system"])
def page(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    return _page(tmp_path_factory.mktemp("names"), old_style=request.param)


def test_no_old_spelling_anywhere(page: str) -> None:
    for old in OLD:
        assert old not in page, old
    assert "usage.steps" in page  # the usage field without a twin keeps its name


def test_each_table_names_each_amount_once(page: str) -> None:
    parser = _Rows()
    parser.feed(page)
    tables = parser.tables
    for where in ("summary", "comparison"):
        names = tables[where]
        assert [n for n in names if n in ONE] == list(ONE), where
        assert "usage.steps" in names
    # the forest plot draws the amounts with paired data: latency and tokens (no cost)
    assert [n for n in tables["forest"] if n in ONE] == ["latency_ms", "tokens"]


def test_the_summary_and_comparison_values(page: str) -> None:
    row = re.search(r'<tr data-metric="latency_ms">(.*?)</tr>', page, re.S)
    assert row is not None and "4,300" in row.group(1)  # the variant's mean of case means
    assert "p95 latency_ms" in page  # the gate's message names the one name


def test_case_data_carries_the_amounts_once(page: str) -> None:
    cases = _blob(page)["cases"]
    assert isinstance(cases, list)
    first = next(c for c in cases if c["case_id"] == "refund-A17" and c["run_id"] == "A")
    assert first["metrics"]["latency_ms"] == 4200.0 and first["metrics"]["tokens"] == 1800.0
    for case in cases:
        assert [k for k in case["metrics"] if k in ONE] == list(ONE)
        assert set(case["usage"]) == {"steps"}  # no second copy beside the metrics
    units = _blob(page)["units"]
    assert isinstance(units, dict) and not set(OLD) & set(units)
    assert (units["latency_ms"], units["tokens"], units["cost"]) == ("ms", "tokens", "USD")


def test_latency_chart_reads_either_kind_of_record(page: str) -> None:
    assert 'class="chart latency"' in page
    assert "2 runs, 6 without latency" in page
