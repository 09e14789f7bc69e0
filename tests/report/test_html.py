"""The HTML report as text: self-contained, escaped, with every section (no browser here)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pathgrade.cli.main import main
from pathgrade.report.forest import forest_plot
from pathgrade.report.svg import risk_coverage_plot
from pathgrade.report.templating import json_for_script

from .conftest import CLOSE, IMG, PAYLOADS, SCRIPT, Stored


@pytest.fixture(scope="module")
def page(stored: Stored, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("html") / "report.html"
    args = ["report", stored.variant, "--baseline", stored.baseline, "-o", str(out)]
    assert main([*args, "--store", str(stored.store), "--resamples", "200"]) == 0
    return out.read_text("utf-8")


def test_payloads_never_appear_raw(page: str) -> None:
    for payload in PAYLOADS:
        assert payload not in page
    # exactly our two script elements, and the JSON one cannot be closed early
    assert page.count("<script") == 2
    assert page.count("</script>") == 2
    assert "<img" not in page


def test_blob_round_trips(page: str) -> None:
    match = re.search(r'<script type="application/json" id="pathgrade-data">(.*?)</script>', page)
    assert match is not None
    data = json.loads(match.group(1))
    xss = next(c for c in data["cases"] if c["case_id"] == "xss-1")
    assert xss["trace"]["answer"] == CLOSE
    assert xss["trace"]["query"] == SCRIPT
    assert xss["run_id"] == IMG


def test_self_contained(page: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and "url(" not in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_sections(page: str) -> None:
    for anchor in ('id="summary"', 'id="compare"', 'id="risk"', 'id="cases"', "McNemar"):
        assert anchor in page
    assert 'class="chart forest"' in page and 'class="chart risk"' in page
    assert "Cases that got better" in page and "Cases that got worse" in page


def test_json_for_script_escapes_markup() -> None:
    text = str(json_for_script({"a": "</script><!-- & \u2028"}))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_svg_escapes_names() -> None:
    metric = {"diff": 0.1, "ci": [0.0, 0.2], "verdict": "improved"}
    svg = forest_plot({SCRIPT: metric}, 0.95)
    assert svg is not None and SCRIPT not in svg and "&lt;script&gt;" in svg
    assert forest_plot({"m": {"diff": None, "ci": [None, None]}}, 0.95) is None
    curve = risk_coverage_plot([{"coverage": 0.5, "risk": 0.1}, {"coverage": 1.0, "risk": 0.2}])
    assert curve is not None and "<polyline" in curve
    assert risk_coverage_plot([]) is None


def test_report_from_a_results_file(tmp_path: Path, stored: Stored) -> None:
    from pathgrade.io.results import write_results
    from pathgrade.store import RunStore

    records = RunStore(stored.store).load(stored.variant).records
    results = tmp_path / "r.jsonl"
    write_results(results, records)
    out = tmp_path / "r.html"
    assert main(["report", str(results), "-o", str(out), "--resamples", "50"]) == 0
    assert '"trace":null' in out.read_text("utf-8")  # no traces: alignment only


def test_unknown_run_is_a_one_line_error(
    tmp_path: Path, stored: Stored, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["report", "nope", "-o", str(tmp_path / "x.html"), "--store", str(stored.store)])
    assert code == 2
    assert "no stored run named 'nope'" in capsys.readouterr().err
