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
    "format_metric",
    "format_number",
    "format_signed",
    "metric_unit",
    "unit_label",
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

    >>> format_metric(1750.001, "usage.latency_ms"), format_metric(True, "goal_success")
    ('1,750 ms', 'yes')
    """
    text = format_number(value, digits)
    unit = metric_unit(name)
    return f"{text} {unit}" if unit and text != "-" else text
