"""The report's latency distribution: its data from records and the chart's markup."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pathgrade.cli.main import main
from pathgrade.report.latency_chart import BINS, LatencyData, latency_chart
from pathgrade.reporting.latency import latency_data, record_latency

from .conftest import result_record, write_records

SVG = "{http://www.w3.org/2000/svg}"


def _record(latency: float | None, usage: float | None = None) -> dict[str, object]:
    record = result_record("c", None, **({} if latency is None else {"latency_ms": latency}))
    record["usage"] = {"steps": 1, "latency_ms": usage}
    return record


def test_record_latency_prefers_the_metric_then_usage() -> None:
    assert record_latency(_record(120.0, usage=999.0)) == 120.0
    assert record_latency(_record(None, usage=80.0)) == 80.0  # scored before the layer
    assert record_latency(_record(None)) is None


def test_data_percentiles_are_type_7() -> None:
    # 100, 200, 300, 400, 500 ms and one unknown: p50 at h = 2: 300; p95 at h = 3.8:
    # 400 + 0.8 * 100 = 480; p99 at h = 3.96: 496.
    records = [_record(v) for v in (500.0, 100.0, 300.0, 200.0, 400.0)] + [_record(None)]
    data = latency_data(records)
    assert data is not None
    assert data.values == (100.0, 200.0, 300.0, 400.0, 500.0) and data.unknown == 1
    assert (data.p50, data.max) == (300.0, 500.0)
    assert data.p95 == pytest.approx(480.0) and data.p99 == pytest.approx(496.0)
    assert latency_data([_record(None)]) is None


def test_chart_marks_the_percentiles_on_the_axis() -> None:
    data = LatencyData((100.0, 200.0, 300.0, 400.0, 500.0), 300.0, 480.0, 496.0, 500.0, 1)
    svg = latency_chart(data)
    assert svg is not None
    root = ET.fromstring(svg)
    marks = [line for line in root.iter(f"{SVG}line") if "mark" in line.attrib["class"]]
    # axis [0, 500] (range_ticks: step 200 -> ticks 0..600, end 600) over 420 px from x = 52:
    # x = 52 + v / 600 * 420
    xs = [float(m.attrib["x1"]) for m in marks]
    assert xs == pytest.approx([52 + v / 600 * 420 for v in (300.0, 480.0, 496.0)], abs=0.05)
    bars = [r for r in root.iter(f"{SVG}rect") if r.attrib.get("class") == "bar"]
    counts = [int(r.find(f"{SVG}title").text.rsplit(": ", 1)[1].split()[0]) for r in bars]
    assert sum(counts) == 5 and len(bars) <= BINS
    assert "1 without latency" in svg
    assert latency_chart(None) is None


def test_report_page_shows_the_chart(tmp_path: Path) -> None:
    records = [_record(float(v)) for v in range(100, 1100, 100)]
    results = write_records(tmp_path / "r.jsonl", records)
    out = tmp_path / "r.html"
    assert main(["report", results, "-o", str(out), "--resamples", "20"]) == 0
    page = out.read_text("utf-8")
    assert 'id="latency-title"' in page and "chart latency" in page
    without = write_records(tmp_path / "n.jsonl", [_record(None)])
    assert main(["report", without, "-o", str(out), "--resamples", "20"]) == 0
    assert 'id="latency-title"' not in out.read_text("utf-8")
