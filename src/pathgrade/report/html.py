"""The self-contained HTML report: one file, no network, fast with 10,000 cases.

Rendering only: :mod:`pathgrade.reporting` computes every number and passes a
:class:`~pathgrade.report.page_data.ReportData`; this module formats it. The page is a Jinja2
template with autoescape on (:mod:`pathgrade.report.templating`), an inline stylesheet,
inline SVG charts (:mod:`pathgrade.report.forest`, :mod:`pathgrade.report.trials_chart`,
:mod:`pathgrade.report.svg`) and a small inline script. The per-case data (trace content:
untrusted) travels as one JSON blob in ``<script type="application/json">``, escaped by
:func:`~pathgrade.report.templating.json_for_script`; the script builds the case table and
the trajectory and conversation views from it with DOM text nodes only (never
``innerHTML``), a page of rows at a time, and writes numbers with the rule of
:mod:`pathgrade.report.number_text`.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from pathgrade._version import __version__
from pathgrade.report.forest import forest_plot
from pathgrade.report.latency_chart import latency_chart
from pathgrade.report.number_text import DIGITS, metric_unit, value_rule
from pathgrade.report.page_data import ReportData
from pathgrade.report.step_flags import flag_table
from pathgrade.report.svg import risk_coverage_plot
from pathgrade.report.templating import (
    TEMPLATES,
    environment,
    json_for_script,
    script_hash,
    trusted,
)
from pathgrade.report.trials_chart import trials_chart
from pathgrade.stats.ablation import EFFECT_LABELS

__all__ = ["page_script", "render_html", "write_html"]

#: The parts of the page's script, in order; they share one function scope.
SCRIPT_PARTS = ("format.js", "case_view.js", "conversation_view.js", "report.js")


def page_script() -> str:
    """The page's one script: :data:`SCRIPT_PARTS` in one strict function scope."""
    body = "".join((TEMPLATES / name).read_text("utf-8") for name in SCRIPT_PARTS)
    return f'(function () {{\n"use strict";\n{body}}})();\n'


def _metric_names(data: ReportData) -> list[str]:
    """The metrics the page's script writes: the case table's columns and the case view's
    (with ``path_score``, a turn's score, when some run is a conversation)."""
    names: dict[str, None] = dict.fromkeys(data.columns)
    if any("conversation" in case for case in data.cases):
        names["path_score"] = None
    for case in data.cases[:1000]:
        names.update(dict.fromkeys(case["metrics"]))
        names.update(dict.fromkeys(f"usage.{u}" for u in case["usage"]))
    if data.change_metric:
        names[data.change_metric] = None
    return list(names)


def _units(names: list[str]) -> dict[str, str]:
    """The unit written after each metric's value in the case view (only those with one)."""
    return {name: unit for name in names if (unit := metric_unit(name))}


def _rules(names: list[str]) -> dict[str, str]:
    """Each metric's number rule (:func:`~pathgrade.report.number_text.value_rule`) for the
    script's ``formatValue``; ``general`` is the default and left out."""
    return {name: rule for name in names if (rule := value_rule(name)) != "general"}


def _blob(data: ReportData) -> dict[str, Any]:
    names = _metric_names(data)
    return {
        "run": data.run_name,
        "baseline": data.baseline_name,
        "columns": data.columns,
        "cases": data.cases,
        "confidence": data.confidence,
        "digits": DIGITS,
        "units": _units(names),
        "rules": _rules(names),
        "flags": flag_table(),
        "pairs": data.pairs,
        "change_metric": data.change_metric,
    }


def render_html(data: ReportData) -> str:
    """The report page as one HTML string (nothing loaded from anywhere at view time)."""
    comparison = data.comparison or {}
    forest = forest_plot(comparison.get("metrics", {}), data.confidence) if comparison else None
    curve = (data.abstention or {}).get("curve") or []
    script = page_script()
    return (
        environment()
        .get_template("report.html.j2")
        .render(
            data=data,
            version=__version__,
            mcnemar=asdict(data.mcnemar) if data.mcnemar else None,
            forest_svg=trusted(forest),
            risk_svg=trusted(risk_coverage_plot(curve) if curve else None),
            trials_svg=trusted(trials_chart(data.trials)),
            latency_svg=trusted(latency_chart(data.latency)),
            flags=flag_table(),
            blob=json_for_script(_blob(data)),
            css=trusted((TEMPLATES / "report.css").read_text("utf-8")),
            script=trusted(script),
            # Only this exact script may run (CSP hash): a second line of defence.
            script_hash=script_hash(script),
            level=round(data.confidence * 100),
            effect_labels=EFFECT_LABELS,
        )
    )


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    return target


def write_html(path: str | Path, data: ReportData) -> Path:
    """Render and write atomically (temporary file, then rename)."""
    return write_text_atomic(path, render_html(data))
