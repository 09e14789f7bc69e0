"""A report you can trust at a glance (issue 21), checked in Chromium.

Numbers as the catalogue and the one rule write them (and the page's script agrees with
Python on thousands of values); forbidden, unapproved and unexpected-write steps marked
apart from a harmless extra read; the forest plot on shared axes; pass@k as a chart and a
table; nothing wider than the window; defects aggregated; a changed case's two paths side
by side; the history page. Each test keeps a screenshot (``chromium.ARTIFACTS``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from pathgrade.report.html import write_html
from pathgrade.report.number_text import format_number, format_value, value_rule
from pathgrade.reporting import build_report, history_report, load_run

from .chromium import open_page, shot
from .conftest import Stored
from .trust_data import (
    LONG_CASE,
    LONG_RUN,
    NUMBERS,
    flagged_store,
    history_store,
    numbers_results,
    trials_results,
    wide_results,
)


def _report(out: Path, run: str, baseline: str | None = None, store: Path | None = None) -> Path:
    """What ``pathgrade report RUN [--baseline B] [--store S] -o OUT`` writes."""
    base = load_run(baseline, store) if baseline is not None else None
    write_html(out, build_report(load_run(run, store), base, resamples=100))
    return out


def _column(p: Any, label: str) -> list[str]:
    """The case table's cells under the header ``label``."""
    heads = p.locator("#case-head th").all_text_contents()
    index = heads.index(label) + 1
    return p.locator(f"#case-body tr td:nth-child({index})").all_text_contents()


def _values() -> list[float]:
    """Edge cases of the rule, then 3,000 values over 40 decades, both signs (seeded)."""
    edges = [
        0.125, 0.5, 1.5, 2.5, -2.5, 999.95, 999.995, 9999.5, 99999.5, 0.00012345, 1e-6,
        9.9999995e-7, 1e-7, 1e15, 1e15 - 1, 999999999999999.9, 5e-324, 1.7976931348623157e308,
        1234.5, 0.1 + 0.2, 1 / 3, 2.0**53, -0.0, 12.0, 100.0, 1750.001, 999.99, 0.000123, 1e9,
    ]  # fmt: skip
    rng = np.random.default_rng(21)
    random = rng.uniform(1, 10, 3000) * 10.0 ** rng.integers(-20, 20, 3000)
    signs = rng.choice([-1.0, 1.0], 3000)
    return edges + (random * signs).tolist()


def test_numbers_as_printed_and_script_agrees(browser: Any, tmp_path: Path) -> None:
    out = _report(tmp_path / "numbers.html", numbers_results(tmp_path))
    page = open_page(browser, out)
    p = page.page
    # formatted in the page: path_score is points (1 decimal), whole digits never dropped
    assert _column(p, "path_score") == ["1,750.0", "1,000.0", "0.0", "1,000,000,000.0"]
    assert list(NUMBERS.values()) == [format_number(v) for v in NUMBERS]  # issue 21's rule
    # the summary, formatted in Python: mean (1750.001 + 999.99 + 0.000123 + 1e9) / 4
    mean = (1750.001 + 999.99 + 0.000123 + 1e9) / 4  # = 250,000,687.4977808
    row = p.locator("table.summary tr[data-metric='path_score'] td").all_text_contents()
    assert row[1] == "250,000,687.5" == format_value(mean, "path_score")  # points: 1 decimal
    p.click("#case-body tr >> nth=0")
    p.wait_for_selector("#case-view:not([hidden])")
    grid = p.text_content("#case-detail .metrics") or ""
    assert "latency_ms1,750 ms" in grid and "path_score1,750" in grid
    assert "usage.latency_ms" not in grid  # the usage object's latency is the one latency_ms
    shot(page, "numbers-case.png", "#case-detail .metrics")
    values = _values()
    for digits in (4, 1, 2, 3, 6):
        shown = p.evaluate(
            "([xs, d]) => xs.map((x) => window.pathgrade.formatNumber(x, d))", [values, digits]
        )
        expected = [format_number(v, digits) for v in values]
        differ = [(v, s, e) for v, s, e in zip(values, shown, expected, strict=True) if s != e]
        assert differ == [], f"{len(differ)} differ at {digits} digits, e.g. {differ[:5]}"
    # format_value's rule per metric (proportion, points, count, money, general), plain and
    # signed, against the script's formatValue with the rule the page was given
    for name in ("tool_accuracy", "path_score", "redundant_steps", "cost", "latency_ms"):
        rule = value_rule(name)
        for signed in (False, True):
            shown = p.evaluate(
                "([xs, r, s]) => xs.map((x) => window.pathgrade.formatValue(x, r, s))",
                [values, rule, signed],
            )
            expected = [format_value(v, name, signed) for v in values]
            differ = [(v, s, e) for v, s, e in zip(values, shown, expected, strict=True) if s != e]
            assert differ == [], f"{name} ({rule}): {len(differ)} differ, e.g. {differ[:5]}"
    specials = p.evaluate(
        "[NaN, Infinity, -Infinity, null, true].map(window.pathgrade.formatNumber)"
    )
    assert specials == [format_number(v) for v in (math.nan, math.inf, -math.inf, None, True)]
    page.clean()


def test_forbidden_unapproved_dangerous_failed_and_write_steps_are_marked(
    browser: Any, tmp_path: Path
) -> None:
    name = flagged_store(tmp_path)
    out = _report(tmp_path / "flags.html", name, store=tmp_path)
    page = open_page(browser, out)
    p = page.page
    assert "severe" in (p.get_attribute("#case-body td.defects", "class") or "")
    p.click("#case-body tr >> nth=0")
    p.wait_for_selector("#case-view:not([hidden])")
    rows = p.locator("#alignment tbody tr")
    by_tool = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        agent = row.locator("td:nth-child(4)").text_content() or ""
        colour = row.locator("td >> nth=1").evaluate("e => getComputedStyle(e).backgroundColor")
        by_tool[agent] = (row.get_attribute("class") or "", colour)
    delete = next(v for k, v in by_tool.items() if "delete_account" in k)
    cancel = next(v for k, v in by_tool.items() if "cancel" in k)
    wire = next(v for k, v in by_tool.items() if "wire_money" in k)
    transfer = next(v for k, v in by_tool.items() if "transfer" in k)
    lookup = next(v for k, v in by_tool.items() if "lookup" in k and "timeout" not in k)
    failed = next(v for k, v in by_tool.items() if "timeout" in k)
    assert "flag-forbidden" in delete[0] and "flag-write" in cancel[0]
    assert "flag-unapproved" in transfer[0] and "flag-dangerous" in wire[0]
    assert "flag-error" in failed[0] and "flag" not in lookup[0]  # a harmless extra read
    rows = (delete, cancel, wire, transfer, failed, lookup)
    assert len({row[1] for row in rows}) == 6  # six distinct colours
    badges = p.locator("#alignment .badge").all_text_contents()
    assert sorted(badges) == sorted(
        [
            "\u2716 forbidden",
            "\u270e unexpected write",
            "\u25b2 dangerous",
            "\u26a0 unapproved",
            "! unrecovered error",
            "\u2717 failed",
        ]
    )
    legend = p.text_content("#case-detail .legend.flags") or ""
    labels = ("forbidden", "unapproved", "dangerous", "unexpected write", "failed")
    assert all(label in legend for label in labels)
    defects = p.text_content("#defects") or ""
    assert "1 (delete_account)" in defects and "2 (cancel)" in defects  # the step named
    shot(page, "flags.png", "#case-detail")
    page.clean()


def test_forest_plot_has_shared_axes_zero_lines_and_numbers(
    browser: Any, stored: Stored, tmp_path: Path
) -> None:
    out = _report(tmp_path / "forest.html", stored.variant, stored.baseline, stored.store)
    page = open_page(browser, out)
    p = page.page
    panels = p.locator("svg.forest g.panel")
    units = [panels.nth(i).get_attribute("data-unit") for i in range(panels.count())]
    assert units[:3] == ["points", "proportion", "steps"]  # path_score first, then the rest
    for i in range(panels.count()):
        panel = panels.nth(i)
        assert panel.locator("line.zero").count() == 1
        assert panel.locator("text.tick-label").count() == 5
        assert "0" in panel.locator("text.tick-label").all_text_contents()
    values = p.locator("svg.forest text.values").all_text_contents()
    assert values and all("[" in v and "]:" in v for v in values)  # diff [low, high]: verdict
    shot(page, "forest.png", "svg.forest")
    page.clean()


def test_pass_at_k_chart_and_table(browser: Any, tmp_path: Path) -> None:
    page = open_page(browser, _report(tmp_path / "trials.html", trials_results(tmp_path)))
    p = page.page
    rows = [p.locator("#passk tbody tr").nth(i).locator("td").all_text_contents() for i in range(3)]
    assert rows == [["1", "0.6", "0.6"], ["2", "0.7333", "0.4667"], ["3", "0.8", "0.4"]]
    assert p.locator("svg.passk polyline.series").count() == 2
    assert p.locator("svg.passk circle").count() == 6
    assert "(5 cases, 3 trials each)" in (p.text_content("#trials-title") or "")
    shot(page, "passk.png", "div.trials")
    page.clean()


def _no_wider(p: Any) -> None:
    width = p.evaluate("document.documentElement.scrollWidth")
    assert width <= p.evaluate("window.innerWidth"), width


def test_long_ids_never_widen_the_page_and_defects_aggregate(browser: Any, tmp_path: Path) -> None:
    out = _report(tmp_path / "wide.html", wide_results(tmp_path))
    page = open_page(browser, out, width=1000)
    p = page.page
    _no_wider(p)
    cell = p.locator("#case-body tr >> nth=0").locator("td.id >> nth=0")
    assert cell.get_attribute("title") == LONG_CASE  # the full id on hover
    assert cell.evaluate("e => e.getBoundingClientRect().width") < 400
    assert p.locator("#case-body td.defects").first.text_content() == (
        "unexpected_write \u00d76, missing_step"
    )
    summary = p.locator("#defect-summary tbody tr").all_text_contents()
    assert summary[0].startswith("unexpected_write \u00d76")
    shot(page, "wide-overview.png")
    p.click("#case-body tr >> nth=0")
    p.wait_for_selector("#case-view:not([hidden])")
    _no_wider(p)
    assert LONG_RUN in (p.text_content("#case-title") or "")  # wrapped, not cut
    shot(page, "wide-case.png")
    page.clean()


def test_changed_case_shows_both_paths_aligned(
    browser: Any, stored: Stored, tmp_path: Path
) -> None:
    out = _report(tmp_path / "pair.html", stored.variant, stored.baseline, stored.store)
    page = open_page(browser, out)
    p = page.page
    p.locator("table.change.worse a", has_text="case-05").click()
    p.wait_for_selector("#pair-view")
    heads = p.locator("#pair thead th").all_text_contents()
    assert heads[1] == "baseline base (trial 0)" and heads[3] == "variant pr-7 (trial 0)"
    # case-05 (conftest): the variant inserts search(wrong) and changes notify's arguments
    classes = [c.split()[0] for c in p.locator("#pair > tbody > tr").evaluate_all(
        "rows => rows.filter(r => !r.classList.contains('argdiff')).map(r => r.className)"
    )]  # fmt: skip
    assert classes == ["pair-same", "pair-added", "pair-same", "pair-changed"]
    assert p.locator("#pair table.args tr.differs").count() == 1  # notify: id o5 -> other
    changes = {
        r.locator("td").nth(0).text_content(): r.locator("td").nth(3).text_content()
        for r in p.locator("#defect-change tbody tr").all()
    }
    assert changes.get("missing_step") == "+1"
    assert "path_score of these two runs: baseline 100.0, variant" in (
        p.text_content("#pair-metric") or ""
    )
    shot(page, "pair.png", "#pair-view")
    page.clean()


def test_history_page(browser: Any, tmp_path: Path) -> None:
    names = history_store(tmp_path)
    out = tmp_path / "history.html"
    history_report(names, store=tmp_path, out=out, resamples=200)
    page = open_page(browser, out, script=False)
    p = page.page
    sections = p.locator("section.history-metric")
    metrics = [sections.nth(i).get_attribute("data-metric") for i in range(sections.count())]
    # the primary metrics some run defines (no gold answers: no goal_success)
    assert metrics == ["path_score", "composite", "tool_accuracy", "argument_accuracy"]
    first = p.locator("section[data-metric='path_score']")
    assert first.locator("svg.history circle.dot").count() == 3
    means = first.locator("table.history tbody tr td:nth-child(2)").all_text_contents()
    assert means == ["87.5", "93.8", "87.5"]  # trust_data.history_store: 93.75, points 1 decimal
    assert first.locator("svg.history line.changed").count() == 1  # h3: other penalties
    assert p.locator("#runs tr.scoring-changed").count() == 1
    assert p.locator("script").count() == 0
    shot(page, "history.png")
    page.clean()
