"""The report's charts as markup: the forest plot's shared axes, pass@k, the history chart."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.report.forest import LABEL_W, PLOT_W, forest_panels, forest_plot
from pathgrade.report.history_page import HistoryMetric, HistoryPoint, HistoryRun, history_chart
from pathgrade.report.svg import nice_step, range_ticks, symmetric_ticks
from pathgrade.report.trials_chart import trial_rows, trials_chart

from .conftest import SCRIPT

SVG = "{http://www.w3.org/2000/svg}"
METRICS = {
    "path_score": {"diff": 5.0, "ci": [-2.0, 12.0], "verdict": "no detectable difference"},
    "tool_accuracy": {"diff": 0.1, "ci": [0.0, 0.2], "verdict": "improved"},
    "goal_success": {"diff": -0.05, "ci": [-0.3, 0.2], "verdict": "regressed"},
    "missing_steps": {"diff": -1.0, "ci": [-1.5, -0.5], "verdict": "improved"},
    "rubric.tone": {"diff": 0.3, "ci": [0.1, 0.5]},
    "not.catalogued": {"diff": 1.0, "ci": [0.0, 2.0]},
    "undefined": {"diff": None, "ci": [None, None]},
}


def _x(line: ET.Element, end: str) -> float:
    return float(line.attrib[f"x{end}"])


def test_panels_group_by_unit_with_nice_symmetric_ticks() -> None:
    panels = forest_panels(METRICS)
    # first appearance order; binary and proportion metrics share one panel
    assert [(p.unit, [r.metric for r in p.rows]) for p in panels] == [
        ("points", ["path_score"]),
        ("proportion", ["tool_accuracy", "goal_success"]),
        ("steps", ["missing_steps"]),
        ("rubric points", ["rubric.tone"]),
        ("not.catalogued units", ["not.catalogued"]),
    ]
    # largest |end| per panel: 12 -> 20, 0.3 -> 0.5, 1.5 -> 2, 0.5 -> 0.5, 2 -> 2
    assert [p.ticks[-1] for p in panels] == [20.0, 0.5, 2.0, 0.5, 2.0]
    assert panels[1].ticks == [-0.5, -0.25, 0.0, 0.25, 0.5]


def test_rows_of_a_panel_share_one_axis_with_a_zero_line() -> None:
    svg = forest_plot(METRICS, 0.95)
    assert svg is not None
    root = ET.fromstring(svg)
    centre = LABEL_W + PLOT_W / 2  # 200 + 360 / 2 = 380
    share = next(g for g in root.iter(f"{SVG}g") if g.attrib.get("data-unit") == "proportion")
    zero = share.find(f"{SVG}line[@class='zero']")
    assert zero is not None and _x(zero, "1") == _x(zero, "2") == centre
    lines = {
        g.attrib["data-metric"]: g.find(f"{SVG}line[@class='ci']")
        for g in share.iter(f"{SVG}g")
        if g.attrib.get("class") == "row"
    }
    # 170 px from 0 to the axis end 0.5: 340 px a unit, for both rows
    tool, goal = lines["tool_accuracy"], lines["goal_success"]
    assert tool is not None and goal is not None
    assert (_x(tool, "1"), _x(tool, "2")) == (380.0, 448.0)  # 380 + 0.2 * 340
    assert (_x(goal, "1"), _x(goal, "2")) == (278.0, 448.0)  # 380 - 0.3 * 340
    ticks = [t.text for t in share.iter(f"{SVG}text") if t.attrib.get("class") == "tick-label"]
    assert ticks == ["-0.5", "-0.25", "0", "+0.25", "+0.5"]
    values = [t.text for t in share.iter(f"{SVG}text") if t.attrib.get("class") == "values"]
    # each metric's values as every table writes them (proportions: 3 decimals, signed)
    assert values == ["+0.100 [0.000, +0.200]: improved", "-0.050 [-0.300, +0.200]: regressed"]
    assert len(root.findall(f".//{SVG}line[@class='zero']")) == 5  # one per panel


def test_forest_escapes_and_leaves_out_undefined() -> None:
    svg = forest_plot({SCRIPT: {"diff": 0.1, "ci": [0.0, 0.2], "verdict": "improved"}}, 0.9)
    assert svg is not None and SCRIPT not in svg and "&lt;script&gt;" in svg
    assert "difference in" in svg and "90% CI" in svg
    assert forest_plot({"m": {"diff": None, "ci": [None, None]}}, 0.95) is None


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-9, max_value=1e9))
def test_nice_step_is_the_least_nice_number_at_or_above(raw: float) -> None:
    step = nice_step(raw)
    assert step >= raw
    mantissa = float(f"{step:e}".split("e")[0])
    assert mantissa in (1.0, 2.0, 2.5, 5.0)
    smaller = {1.0: 0.5, 2.0: 1.0, 2.5: 2.0, 5.0: 2.5}[mantissa] * step / mantissa
    assert smaller < raw * (1 + 1e-12)  # the next nice number down is too small
    ticks = symmetric_ticks(raw)
    assert ticks[0] == -ticks[-1] and ticks[2] == 0.0 and ticks[-1] >= raw


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-1e6, max_value=1e6), st.floats(min_value=1e-3, max_value=1e6))
def test_range_ticks_hold_the_range(low: float, width: float) -> None:
    ticks = range_ticks(low, low + width)
    assert ticks[0] <= low and ticks[-1] >= low + width
    steps = [b - a for a, b in itertools.pairwise(ticks)]
    scale = max(abs(ticks[0]), abs(ticks[-1]))  # floats near 262144 hold 0.05 only so well
    assert all(math.isclose(d, steps[0], abs_tol=1e-12 * scale) for d in steps)
    assert 2 <= len(ticks) <= 12


def test_trials_chart_has_both_series_and_every_point() -> None:
    rows = trial_rows({"1": 0.6, "2": 0.7333, "3": 0.8}, {"1": 0.6, "2": 0.4667})
    assert [(r.k, r.pass_at, r.pass_hat) for r in rows] == [
        (1, 0.6, 0.6),
        (2, 0.7333, 0.4667),
        (3, 0.8, None),
    ]
    svg = trials_chart(rows)
    assert svg is not None
    root = ET.fromstring(svg)
    polylines = root.findall(f".//{SVG}polyline")
    assert [len(p.attrib["points"].split()) for p in polylines] == [3, 2]
    # y of 0.6: top 14 + 150 - 0.6 * 150 = 74
    assert polylines[0].attrib["points"].split()[0] == "46.0,74.0"
    assert trials_chart([]) is None


def test_history_chart_whiskers_and_changed_scoring() -> None:
    runs = [HistoryRun(f"run-{i}", "", {}, None, 2, 2) for i in range(2)]
    runs.append(HistoryRun("<b>run-2</b>", "", {}, None, 2, 2, scoring_changed="config"))
    points = [
        HistoryPoint(0.5, 0.25, 0.75, 2, 2, 0),
        HistoryPoint(None, None, None, 0, 0, 2),
        HistoryPoint(0.9, 0.8, 1.0, 2, 2, 0),
    ]
    svg = history_chart(HistoryMetric("composite", "higher", (0.0, 1.0), points), runs, 95)
    assert svg is not None and "<b>" not in svg and "&lt;b&gt;run-2&lt;/b&gt;" in svg
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}circle")) == 2  # the undefined run has none
    assert len(root.findall(f".//{SVG}line[@class='changed']")) == 1
    assert re.search(r">undefined<", svg)
    labels = [t.text for t in root.iter(f"{SVG}text") if t.attrib.get("class") == "tick-label"]
    assert labels[0] == "0.2" and labels[-1] == "1"  # ticks within the range [0, 1]
    empty = [HistoryPoint(None, None, None, 0, 0, 1)] * 3
    assert history_chart(HistoryMetric("m", "higher", None, empty), runs, 95) is None
