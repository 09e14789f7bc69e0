"""The case view shows each aligned pair's per-field details (``fields``), as text: field
names from traces cannot inject markup. Checked in Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.report.html import write_html
from pathgrade.reporting import build_report, load_run
from pathgrade.store import save_scored

from .chromium import open_page, shot
from .conftest import IMG


def test_case_view_lists_fields_escaped(browser: Any, tmp_path: Path) -> None:
    case = Case(case_id="f", reference=[{"tool": "search", "arguments": {"q": "abcd", IMG: 1}}])
    run = Run(case_id="f", run_id="r", steps=[
        {"tool": "search", "arguments": {"q": "abce", IMG: 1}}])  # fmt: skip
    config = ScoringConfig.model_validate(
        {"matching": {"fuzzy_scorer": "ratio",
                      "tools": {"search": {"fields": {"q": {"mode": "fuzzy"}}}}}}
    )  # fmt: skip
    cases = {case.case_id: case}
    save_scored(score(cases, [run], config), name="fields", runs=[run], cases=cases, store=tmp_path)
    out = tmp_path / "fields.html"
    write_html(out, build_report(load_run("fields", tmp_path), None, resamples=100))
    page = open_page(browser, out)
    p = page.page
    p.click("#case-body tr >> nth=0")
    p.wait_for_selector("#case-view:not([hidden])")
    rows = p.locator("#alignment table.fields tbody tr")
    cells = [rows.nth(i).locator("td").all_text_contents() for i in range(rows.count())]
    # sorted by name: "<img ..." < "q"; fuzz.ratio("abcd", "abce") = 2 * 3 / 8 = 75 < 90
    assert cells == [[IMG, "exact", "", "", "match"], ["q", "fuzzy", "75", "90", "differs"]]
    assert p.evaluate("window.__pwned") is None and not page.errors and not page.dialogs
    shot(page, "case-fields.png", "#alignment")
