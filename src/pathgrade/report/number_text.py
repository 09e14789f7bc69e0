"""How the report writes a number: one rule, here and in the page's script.

:func:`format_number` is the rule (``report.js`` has the same rule as ``formatNumber``; a
browser test compares the two on thousands of values):

* ``None`` and NaN are ``-``; infinities ``∞`` and ``-∞``; ``True``/``False`` ``yes``/``no``;
  zero (either sign) is ``0``.
* Otherwise the value is rounded to ``digits`` significant digits (default 4), half away
  from zero, from its exact binary value, **but never drops an integer digit**: a value of
  ``digits`` integer digits or more is rounded to an integer. Trailing zeros after the
  decimal point are dropped, and the integer part is grouped by thousands with ``,``.
* A value whose rounded decimal exponent is below -6 or at least 15 is written in
  scientific notation, ``digits`` significant digits, trailing zeros dropped: ``1.23e-7``.

>>> [format_number(v) for v in (1750.001, 2300.001, 999.99, 0.000123, 1e9, 0.5667, -20.0)]
['1,750', '2,300', '1,000', '0.000123', '1,000,000,000', '0.5667', '-20']
>>> format_number(0.0000001234), format_number(2.5e15), format_number(12.3456)
('1.234e-7', '2.5e15', '12.35')

999.99 is ``1,000``: four significant digits, rounded up (``999.99`` needs five). The
catalogue (:mod:`pathgrade.metrics.catalogue`) adds the unit of a ``quantity`` metric
(:func:`format_metric`: ``1,750 ms``); a metric of one run whose kind is ``binary`` arrives as
a bool and is ``yes``/``no``.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal
from numbers import Integral, Real
from typing import Any

from pathgrade.metrics import catalogue

__all__ = [
    "DIGITS",
    "format_interval",
    "format_metric",
    "format_number",
    "format_p",
    "format_share",
    "format_signed",
    "format_value",
    "metric_unit",
    "paired_cells",
    "unit_label",
    "value_rule",
]

#: Significant digits of every number the report shows.
DIGITS = 4
#: Fixed notation for rounded exponents in [LOW_EXPONENT, HIGH_EXPONENT).
LOW_EXPONENT, HIGH_EXPONENT = -6, 15
# Exact for every float (at most 767 significant digits) and every int we meet.
_EXACT = Context(prec=2000, rounding=ROUND_HALF_UP)
_ONE = Decimal(1)


def _strip(text: str) -> str:
    """Trailing zeros after a decimal point, and the point itself when nothing is left."""
    return text.rstrip("0").rstrip(".") if "." in text else text


def _grouped(text: str) -> str:
    """``-1234567.5`` -> ``-1,234,567.5``."""
    sign = "-" if text.startswith("-") else ""
    whole, dot, fraction = text.removeprefix("-").partition(".")
    return f"{sign}{int(whole):,}{dot}{fraction}"


def _rounded(exact: Decimal, quantum_exponent: int) -> Decimal:
    return exact.quantize(_ONE.scaleb(quantum_exponent), context=_EXACT)


def format_number(value: Any, digits: int = DIGITS) -> str:
    """``value`` as the report shows it (the rule of the module docstring)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, Real):
        return str(value)
    if not isinstance(value, Integral):
        number = float(value)
        if math.isnan(number):
            return "-"
        if math.isinf(number):
            return "∞" if number > 0 else "-∞"
    if value == 0:
        return "0"
    exact = Decimal(int(value)) if isinstance(value, Integral) else Decimal(float(value))
    # The exponent after rounding to ``digits`` significant digits (999.99 -> 1000: 3).
    exponent = _rounded(exact, exact.adjusted() - digits + 1).adjusted()
    if exponent < LOW_EXPONENT or exponent >= HIGH_EXPONENT:
        mantissa = _rounded(exact.scaleb(-exponent, context=_EXACT), 1 - digits)
        return f"{_strip(format(mantissa, 'f'))}e{exponent}"
    decimals = digits - 1 - exponent
    text = format(_rounded(exact, -max(decimals, 0)), "f")
    return _grouped(_strip(text) if decimals > 0 else text)


def format_signed(value: Any, digits: int = DIGITS) -> str:
    """:func:`format_number` with a ``+`` before a positive number (a difference)."""
    text = format_number(value, digits)
    positive = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return f"+{text}" if positive and text not in ("-", "0") else text


def _fixed(value: float, decimals: int, strip: bool) -> str:
    """``value`` rounded half away from zero (from its exact binary value) to ``decimals``,
    grouped by thousands; trailing zeros dropped when ``strip``."""
    text = format(_rounded(Decimal(value), -decimals), "f")
    if text.startswith("-") and not text.strip("-0."):
        text = text[1:]  # -0.000 is 0.000
    return _grouped(_strip(text) if strip else text)


#: Units of money in the catalogue (``cost``): written with 2 decimals from 1 up.
MONEY_UNITS = frozenset(("USD", "currency units as recorded"))


def format_value(value: Any, name: str, signed: bool = False) -> str:
    """A value of metric ``name`` as every table shows it (terminal, Markdown, the report's
    metric cells), chosen by the catalogue row's kind and unit:

    * proportions and binary metrics (their means are shares): 3 decimals, ``0.760``;
    * ``points`` (``path_score``): 1 decimal, ``76.9``;
    * counts: a whole number grouped (``1,234``), else (a mean of counts) 3 decimals;
    * money (``cost``): 2 decimals grouped from 1 up (``1,234.50``), else 4 significant
      digits (``0.0123``);
    * anything else (ms, tokens, scores, names the catalogue does not know):
      :func:`format_number`, 4 significant digits that never drop an integer digit, grouped
      (``6,050``), scientific only below 1e-6 or from 1e15.

    ``None``/NaN are ``-``, booleans ``yes``/``no``; ``signed`` puts ``+`` before a positive
    value (a difference).

    >>> [format_value(v, n) for v, n in ((0.76042, "tool_accuracy"), (76.875, "path_score"),
    ...  (6050.4, "latency_ms"), (0.3125, "redundant_steps"), (0.012345, "cost"))]
    ['0.760', '76.9', '6,050', '0.313', '0.01235']
    """
    if value is None or isinstance(value, bool) or not isinstance(value, Real):
        return format_number(value)
    number = float(value)
    rule = value_rule(name)
    if math.isnan(number) or math.isinf(number) or abs(number) >= FIXED_BELOW:
        rule = "general"
    if rule == "fixed3":
        text = _fixed(number, 3, False)
    elif rule == "fixed1":
        text = _fixed(number, 1, False)
    elif rule == "count":
        text = _fixed(number, 0 if number.is_integer() else 3, False)
    elif rule == "money" and abs(number) >= 1:
        text = _fixed(number, 2, False)
    else:
        return format_signed(value) if signed else format_number(value)
    if signed and number > 0 and text.strip("0.,"):
        return f"+{text}"
    return text


#: From this magnitude every rule writes the value as :func:`format_number` does (scientific
#: from 1e15), so that no fixed-decimal form grows past what a reader can take in.
FIXED_BELOW = 1e15


def value_rule(name: str) -> str:
    """Which rule of :func:`format_value` writes metric ``name``: ``fixed3`` (proportion,
    binary), ``fixed1`` (points), ``count``, ``money`` or ``general``. The report's script
    receives this per metric and applies the same rule (``formatValue``)."""
    row = catalogue.find(name)
    if row is None:
        return "general"
    if row.kind in ("proportion", "binary"):
        return "fixed3"
    if row.unit == "points":
        return "fixed1"
    if row.kind == "count":
        return "count"
    return "money" if row.unit in MONEY_UNITS else "general"


def format_share(value: Any) -> str:
    """A share or an agreement coefficient that is no catalogue metric (kappa, alpha, a hit
    rate): 3 decimals, as a proportion metric is written; ``-`` when undefined.

    >>> format_share(0.66666), format_share(-0.0001), format_share(None)
    ('0.667', '0.000', '-')
    """
    if value is None or isinstance(value, bool) or not _reals(value):
        return format_number(value)
    return _fixed(float(value), 3, False)


def format_interval(low: Any, high: Any, name: str, signed: bool = False) -> str:
    """``[low, high]`` of metric ``name`` (:func:`format_value`), ``-`` without bounds; a
    count's bounds share one precision (3 decimals when either is not whole).

    >>> format_interval(0, 0.75, "redundant_steps"), format_interval(0, 2, "redundant_steps")
    ('[0.000, 0.750]', '[0, 2]')
    """
    if low is None or high is None:
        return "-"
    row = catalogue.find(name)
    count = row is not None and row.kind == "count" and _reals(low, high)
    if count and not (float(low).is_integer() and float(high).is_integer()):
        # A count's interval is written with one precision: [0.000, 0.750], not [0, 0.750].
        return f"[{_count_mean(low, signed)}, {_count_mean(high, signed)}]"
    texts = (format_value(low, name, signed), format_value(high, name, signed))
    return "-" if texts == ("-", "-") else f"[{texts[0]}, {texts[1]}]"


def _reals(*values: Any) -> bool:
    """Every value is a finite real number (not a bool)."""
    return all(
        isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(float(v)) for v in values
    )


def _count_mean(value: Any, signed: bool) -> str:
    text = _fixed(float(value), 3, False)
    return f"+{text}" if signed and float(value) > 0 and text.strip("0.,") else text


def paired_cells(
    name: str, n: int, undefined: int, baseline: Any, variant: Any, diff: Any, ci: Any
) -> list[str]:
    """The cells of a paired comparison of metric ``name`` in every table (terminal and
    Markdown): pairs (``(+k undef.)``), both means, the signed difference, its interval."""
    return [
        str(n) + (f" (+{undefined} undef.)" if undefined else ""),
        format_value(baseline, name),
        format_value(variant, name),
        format_value(diff, name, True),
        format_interval(ci[0], ci[1], name, True),
    ]


def format_p(value: Any) -> str:
    """A p-value: 4 decimals, scientific below 1e-4 (``3.2e-05``), ``-`` when undefined.

    >>> format_p(0.04567), format_p(0.0000321), format_p(None)
    ('0.0457', '3.2e-05', '-')
    """
    if value is None or isinstance(value, bool) or not isinstance(value, Real):
        return "-"
    number = float(value)
    if math.isnan(number):
        return "-"
    if 0 < number < 1e-4:
        return f"{number:.1e}"
    return _fixed(number, 4, False)


def metric_unit(name: str) -> str:
    """The unit written after a value of ``name``: the catalogue's unit of a ``quantity``
    metric when it is one word (``ms``, ``tokens``), else nothing."""
    row = catalogue.find(name)
    if row is None or row.kind != "quantity" or not row.unit or " " in row.unit:
        return ""
    return row.unit


def unit_label(name: str) -> str:
    """What a table's unit column says of ``name``: the catalogue's unit, else ``proportion``
    for a binary or proportion metric (its mean is a share), else nothing.

    >>> unit_label("path_score"), unit_label("goal_success"), unit_label("no.such.metric")
    ('points', 'proportion', '')
    """
    row = catalogue.find(name)
    if row is None:
        return ""
    if row.unit:
        return row.unit
    return "proportion" if row.kind in ("binary", "proportion") else ""


def format_metric(value: Any, name: str, digits: int = DIGITS) -> str:
    """A value of metric ``name``: :func:`format_number` and the unit (:func:`metric_unit`).

    >>> format_metric(1750.001, "latency_ms"), format_metric(True, "goal_success")
    ('1,750 ms', 'yes')
    """
    text = format_value(value, name) if digits == DIGITS else format_number(value, digits)
    unit = metric_unit(name)
    return f"{text} {unit}" if unit and text != "-" else text
