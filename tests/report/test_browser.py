"""The report in a real browser (system Chromium through Playwright, no download).

Opened from a file with every non-local request blocked and counted (must be none), no page
errors, payloads shown as text and never run; the table filters and the trajectory view
opens. Screenshots go to ``test-artifacts/report/`` (gitignored; ``$PATHGRADE_ARTIFACTS``)
for people to look at. The checks of issue 21 (numbers, step marks, charts, widths, the
side-by-side view, history) are in ``test_browser_trust.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main

from .chromium import Page, open_page, shot
from .conftest import CLOSE, IMG, SCRIPT, SLICE_PAYLOAD, Stored, sliced_pair


@pytest.fixture(scope="module")
def report_file(stored: Stored, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "report.html"
    args = ["report", stored.variant, "--baseline", stored.baseline, "-o", str(out)]
    assert main([*args, "--store", str(stored.store), "--resamples", "200"]) == 0
    return out


def _open(browser: Any, path: Path) -> Page:
    return open_page(browser, path)


def _shot(page: Page, name: str) -> Path:
    return shot(page, name)


def test_opens_offline_without_errors(browser: Any, report_file: Path) -> None:
    page = _open(browser, report_file)
    p = page.page
    assert p.text_content("#count") == "43 of 43 runs"
    assert p.locator("#case-body tr").count() == 43
    assert p.locator("svg.forest").count() == 1 and p.locator("svg.risk").count() == 1
    assert p.locator("img").count() == 0
    assert p.locator("script").count() == 2
    # the provenance label carries a payload: shown literally
    assert CLOSE in (p.text_content(".provenance summary") or "")
    assert _shot(page, "overview.png").stat().st_size > 0
    page.clean()


def test_payloads_show_literally_and_never_run(browser: Any, report_file: Path) -> None:
    page = _open(browser, report_file)
    p = page.page
    table_text = p.text_content("#case-body") or ""
    assert IMG in table_text  # a case id and a run id
    p.fill("#search", "xss-1")
    assert p.text_content("#count") == "1 of 43 runs"
    p.click("#case-body tr >> nth=0")
    p.wait_for_selector("#case-view:not([hidden])")
    assert p.text_content("#answer") == CLOSE
    assert p.text_content("#query") == SCRIPT
    alignment = p.text_content("#alignment") or ""
    # arguments are shown as JSON: the payloads appear JSON-quoted, as text
    assert json.dumps(IMG) in alignment and json.dumps(SCRIPT) in alignment
    assert "</script><b>bold</b>" in alignment  # a tool name, literally
    assert p.locator("#alignment b", has_text="bold").count() == 0 or "<b>" in alignment
    assert CLOSE in alignment  # a step output
    ranked = p.text_content("#ranked") or ""
    assert IMG in ranked and "gain 2" in ranked
    assert "chosen reference: reference path #0" in (p.text_content("#chosen-ref") or "")
    assert p.locator("img").count() == 0
    _shot(page, "payload-case.png")
    page.clean()


def test_filter_sort_and_trajectory_view(browser: Any, report_file: Path) -> None:
    page = _open(browser, report_file)
    p = page.page
    p.select_option("#f-defect", "missing_step")
    count = p.text_content("#count") or ""
    shown = int(count.split()[0])
    assert 0 < shown < 43
    for cell in p.locator("#case-body td.defects").all_text_contents():
        assert "missing_step" in cell
    p.click("#f-reset")
    p.select_option("#f-metric", "path_score")
    p.fill("#f-min", "90")
    scores = p.locator("#case-body tr td:nth-child(5)").all_text_contents()
    assert scores and all(float(s) >= 90 for s in scores)
    p.click("#f-reset")
    p.select_option("#f-tool", "notify")
    assert all("notify" in t for t in p.locator("#case-body tr td:last-child").all_text_contents())
    p.click("#f-reset")
    p.click("th[data-key='m:path_score']")  # numbers sort descending first
    first = p.locator("#case-body tr >> nth=0").locator("td >> nth=4").text_content()
    p.click("th[data-key='m:path_score']")
    last_first = p.locator("#case-body tr >> nth=0").locator("td >> nth=4").text_content()
    assert float(first or 0) >= float(last_first or 0)
    p.fill("#search", "case-03")
    p.click("#case-body tr >> nth=0")
    p.wait_for_selector("#case-view:not([hidden])")
    assert "case case-03" in (p.text_content("#case-title") or "")
    assert p.locator("#alignment tr.op-insertion, #alignment tr.op-substitution").count() >= 1
    assert p.locator("#alignment table.args tr.differs").count() >= 1  # field-by-field diff
    assert p.locator("#defects tbody tr").count() >= 1
    _shot(page, "trajectory.png")
    p.click("#back")
    p.wait_for_selector("#overview:not([hidden])")
    page.clean()


def _slice_column(p: Any, column: int) -> list[str]:
    return p.locator(f"table.slices tbody tr td:nth-child({column})").all_text_contents()


def test_slice_table_sorts_by_clicking_a_header(browser: Any, tmp_path: Path) -> None:
    base, var = sliced_pair(tmp_path)  # slices A (diff 10), the payload (3), C (-20, untested)
    out = tmp_path / "slices.html"
    args = ["report", var, "--baseline", base, "--by", "group", "-o", str(out)]
    assert main([*args, "--resamples", "200"]) == 0
    page = _open(browser, out)
    p = page.page
    assert _slice_column(p, 1) == ["A", SLICE_PAYLOAD, "C"]  # shown literally, in order
    diff = p.locator("table.slices th", has_text="diff")
    diff.click()  # numbers sort descending first
    assert _slice_column(p, 1) == ["A", SLICE_PAYLOAD, "C"]
    assert _slice_column(p, 6) == ["+10.0", "+3.0", "-20.0"]  # points, signed
    assert "sorted-desc" in (diff.get_attribute("class") or "")
    diff.click()
    assert _slice_column(p, 6) == ["-20.0", "+3.0", "+10.0"]
    assert "sorted-asc" in (diff.get_attribute("class") or "")
    p.locator("table.slices th", has_text="slice").click()  # text sorts ascending first
    assert _slice_column(p, 1) == sorted(["A", SLICE_PAYLOAD, "C"], key=str.lower)
    raw_p = p.locator("table.slices th").nth(7)
    assert raw_p.text_content() == "p"
    for _ in range(2):  # the untested slice has no p-value: last in both directions
        raw_p.click()
        assert _slice_column(p, 1)[-1] == "C"
    assert p.locator("table.slices tr.untested").count() == 1
    _shot(page, "slices.png")
    page.clean()


def test_ten_thousand_cases_open_one_page(browser: Any, tmp_path: Path) -> None:
    from pathgrade.core.types import Case, Run
    from pathgrade.evaluate import score
    from pathgrade.store import save_scored

    tools = ("search", "lookup", "refund", "notify")
    cases, runs = {}, []
    for i in range(10_000):
        ref = [{"tool": tools[(i + k) % 4], "arguments": {"id": f"o{i}"}} for k in range(3)]
        cases[f"c{i:05d}"] = Case(case_id=f"c{i:05d}", query=f"q{i}", reference=ref)
        steps = ref if i % 4 else [*ref, {"tool": "search", "arguments": {"id": "x"}}]
        runs.append(Run(case_id=f"c{i:05d}", steps=steps))
    save_scored(score(cases, runs), name="big", runs=runs, cases=cases, store=tmp_path)
    out = tmp_path / "big.html"
    args = ["report", "big", "-o", str(out), "--store", str(tmp_path), "--resamples", "200"]
    assert main(args) == 0
    page = _open(browser, out)
    p = page.page
    assert p.text_content("#count") == "10000 of 10000 runs"
    assert p.locator("#case-body tr").count() == 100  # one page of rows, not 10,000
    p.fill("#search", "c0999")
    assert p.text_content("#count") == "10 of 10000 runs"
    page.clean()
