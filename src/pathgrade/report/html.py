"""The self-contained HTML report: one file, no network, fast with 10,000 cases.

Rendering only: :mod:`pathgrade.reporting` computes every number and passes a
:class:`ReportData`; this module formats it. The page is a Jinja2 template with autoescape on
(every value written into HTML is escaped), an inline stylesheet, inline SVG charts
(:mod:`pathgrade.report.svg`) and a small inline script. The per-case data (trace content:
untrusted) travels as one JSON blob in ``<script type="application/json">``, escaped by
:func:`json_for_script`; the script builds the case table and the trajectory view from it
with DOM text nodes only (never ``innerHTML``), a page of rows at a time.
"""

from __future__ import annotations

import base64
import hashlib
import math
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import orjson
from markupsafe import Markup

from pathgrade._version import __version__
from pathgrade.report.display import DIRECTION_CONTROLS, visible
from pathgrade.report.svg import forest_plot, risk_coverage_plot
from pathgrade.stats.ablation import EFFECT_LABELS

_TEMPLATES = resources.files("pathgrade.report") / "templates"
_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
    # A direction control reaches the page as its visible escape: JSON for the text "\u202e".
    **{c: visible(c).replace("\\", "\\\\") for c in sorted(DIRECTION_CONTROLS)},
}


@dataclass(frozen=True)
class SummaryRow:
    """One metric of the summary: the mean of per-case means, its cluster-bootstrap interval,
    ``n`` cases and ``runs`` runs with a defined value, ``undefined`` runs, and which way is
    better (``higher``, ``lower`` or ``neither``, from the metric catalogue)."""

    metric: str
    mean: float | None
    low: float | None
    high: float | None
    n: int
    runs: int
    undefined: int
    direction: str


@dataclass(frozen=True)
class SliceTable:
    """One metric by slices of ``field``: ``rows`` are ``SliceSummary.to_dict()`` (one run) or
    ``SliceDiff.to_dict()`` (``paired``) of :mod:`pathgrade.stats.slices`, with ``slice`` as
    display text; slices under ``min_n`` cases have ``tested`` false."""

    metric: str
    field: str
    paired: bool
    min_n: int
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class McNemarTable:
    """The paired 2x2 table of a binary metric, with the exact McNemar p-value."""

    metric: str
    both: int
    wins: int  # baseline 0, variant 1
    losses: int  # baseline 1, variant 0
    neither: int
    p_value: float


@dataclass(frozen=True)
class CaseChange:
    """A case whose (per-case mean) value changed; ``row`` indexes the variant's case table."""

    case_id: str
    baseline: float
    variant: float
    diff: float
    row: int


@dataclass
class ReportData:
    """Everything the page shows, computed beforehand (see :mod:`pathgrade.reporting`)."""

    title: str
    run_name: str
    manifest: dict[str, Any] | None
    summary: list[SummaryRow]
    confidence: float
    cases: list[dict[str, Any]]
    columns: list[str]
    n_cases: int = 0
    extras: dict[str, Any] = field(default_factory=dict)
    abstention: dict[str, Any] | None = None
    retrieval: dict[str, Any] | None = None
    gates: dict[str, Any] | None = None
    baseline_name: str | None = None
    baseline_manifest: dict[str, Any] | None = None
    comparison: dict[str, Any] | None = None
    mcnemar: McNemarTable | None = None
    change_metric: str | None = None
    better: list[CaseChange] = field(default_factory=list)
    worse: list[CaseChange] = field(default_factory=list)
    slices: list[SliceTable] = field(default_factory=list)
    ablation: dict[str, Any] | None = None
    #: Provenance warnings (runs scored differently, compared anyway): the page's banner.
    warnings: list[str] = field(default_factory=list)
    #: Provenance notes (``provenance not recorded: comparability unchecked``).
    notes: list[str] = field(default_factory=list)


def json_for_script(value: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>``, ``&`` or line
    separators survive literally, so no payload can close the element or open a comment; a
    direction control is replaced by its visible escape (the script shows ``\\u202e``)."""
    text = orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")
    for char, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(char, escaped)
    return Markup(text)  # escaped for this context above


def fmt(value: Any, digits: int = 4) -> str:
    """A number for people: ``-`` for undefined, ``digits`` significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def fmt_p(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.2e}" if value < 1e-4 else f"{value:.4f}"


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: (_TEMPLATES / name).read_text("utf-8")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    env.filters["fmt"] = fmt
    env.filters["fmt_p"] = fmt_p
    return env


def _shown(value: Any) -> Any:
    """Every ``{{ }}`` value of the page: text with its direction controls made visible
    (:func:`~pathgrade.report.display.visible`); our own markup is left as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible(value)
    return value


def render_html(data: ReportData) -> str:
    """The report page as one HTML string (nothing loaded from anywhere at view time)."""
    env = _environment()
    blob = {
        "run": data.run_name,
        "columns": data.columns,
        "cases": data.cases,
        "confidence": data.confidence,
    }
    comparison = data.comparison or {}
    forest = forest_plot(comparison.get("metrics", {}), data.confidence) if comparison else None
    curve = (data.abstention or {}).get("curve") or []
    risk = risk_coverage_plot(curve) if curve else None
    script = (_TEMPLATES / "report.js").read_text("utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return env.get_template("report.html.j2").render(
        data=data,
        version=__version__,
        mcnemar=asdict(data.mcnemar) if data.mcnemar else None,
        forest_svg=_trusted(forest),
        risk_svg=_trusted(risk),
        blob=json_for_script(blob),
        css=_trusted((_TEMPLATES / "report.css").read_text("utf-8")),
        script=_trusted(script),
        # Only this exact script may run (CSP hash): a second line of defence under escaping.
        script_hash=f"sha256-{digest}",
        level=round(data.confidence * 100),
        effect_labels=EFFECT_LABELS,
    )


def _trusted(text: str | None) -> Markup | None:
    """Our own markup (stylesheet, script, SVG escaped in :mod:`pathgrade.report.svg`)."""
    return None if text is None else Markup(text)  # never trace content


def write_html(path: str | Path, data: ReportData) -> Path:
    """Render and write atomically (temporary file, then rename)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(render_html(data), encoding="utf-8")
    tmp.replace(target)
    return target
