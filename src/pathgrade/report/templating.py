"""The Jinja2 environment of the report pages, and what may reach a page unescaped.

Autoescape is on; every ``{{ }}`` value has its direction controls made visible
(:func:`pathgrade.report.display.visible`). Filters write numbers with the rules of
:mod:`pathgrade.report.number_text`, the terminal's: ``value(name[, signed])`` (a value of
metric ``name``, :func:`format_value`), the global ``interval(low, high, name[, signed])``,
``num`` (a count or a number of no metric), ``signed`` (a difference of no metric),
``metric(name)`` (with the catalogue's unit), ``unit`` (a unit column), ``fmt_p`` (p-values,
:func:`format_p`). Only our own
stylesheet, script and SVG (escaped where it is built) pass :func:`trusted`; the case data
passes :func:`json_for_script`.
"""

from __future__ import annotations

import base64
import hashlib
from importlib import resources
from typing import Any

import jinja2
import orjson
from markupsafe import Markup

from pathgrade.report.display import DIRECTION_CONTROLS, visible
from pathgrade.report.number_text import (
    format_interval,
    format_metric,
    format_number,
    format_p,
    format_signed,
    format_value,
    unit_label,
)

__all__ = ["TEMPLATES", "environment", "json_for_script", "script_hash", "trusted"]

TEMPLATES = resources.files("pathgrade.report") / "templates"
_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
    # A direction control reaches the page as its visible escape: JSON for the text "\u202e".
    **{c: visible(c).replace("\\", "\\\\") for c in sorted(DIRECTION_CONTROLS)},
}


def json_for_script(value: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>``, ``&`` or line
    separators survive literally, so no payload can close the element or open a comment; a
    direction control is replaced by its visible escape (the script shows ``\\u202e``)."""
    text = orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")
    for char, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(char, escaped)
    return Markup(text)  # escaped for this context above


def _shown(value: Any) -> Any:
    """Every ``{{ }}`` value of a page: text with its direction controls made visible;
    our own markup is left as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible(value)
    return value


def environment() -> jinja2.Environment:
    """The environment of ``report.html.j2`` and ``history.html.j2``."""
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: (TEMPLATES / name).read_text("utf-8")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    env.filters["num"] = format_number
    env.filters["signed"] = format_signed
    env.filters["metric"] = format_metric
    env.filters["value"] = format_value
    env.globals["interval"] = format_interval
    env.filters["fmt_p"] = format_p
    env.filters["unit"] = unit_label
    return env


def trusted(text: str | None) -> Markup | None:
    """Our own markup (stylesheet, script, SVG escaped where it is drawn)."""
    return None if text is None else Markup(text)  # never trace content


def script_hash(script: str) -> str:
    """The CSP source admitting exactly ``script`` (``sha256-...``)."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"sha256-{base64.b64encode(digest).decode('ascii')}"
