"""Quantities in free text, read for the ``number`` guard of ``semantic`` matching (pure).

:func:`read` finds, in one to three whitespace tokens at a time, a quantity in its normal
form; the tokens that hold a digit and are not a quantity are ids:

- a time: ``3 pm``, ``3pm``, ``3:30 p.m.``, ``15:00``, ``noon``, ``midnight``: minutes after
  midnight (``"3 pm" == "15:00"``; ``3:30`` without am/pm is read as 24-hour);
- a date: ISO ``2024-05-01``, ``May 1``, ``1st May``, ``May 1, 2024``: (month, day, year);
  when a date of either string has no year, years are dropped from both strings' dates
  (``"May 1"`` == ``"May 1, 2024"``). Slashed dates (``05/01/2024``: US or European?) are
  not read: they are ids, compared as written;
- money: ``$20``, ``20$``, ``20 USD``, ``USD 20``, ``20 dollars``, likewise ``€``/EUR/euro,
  ``£``/GBP, ``¥``/JPY/yen, ``₹``/INR, CAD, AUD, CHF: (currency, amount); ``$`` is USD, so
  ``"$20" == "20 USD"`` and ``"$20" != "20 EUR"``; an amount with no currency is a plain
  number (``"$20" != "20"``);
- a measure with a unit, glued or not (``2kg``, ``2 kg``): mass (mg, g, kg, lb), length (mm,
  cm, m, km, in, ft, mi), volume (ml, l), duration (s, min, h, day, week), data (kb, mb, gb,
  tb: decimal, 1 kb = 1000 bytes) and percent (``%``, ``percent``): (dimension, amount in
  the base unit), so ``"2 kg" == "2000 g"`` and ``"1 hour" == "60 minutes"``; conversions
  are exact (1 lb = 453.59237 g), so an approximate one (``"1 lb"`` / ``"0.45 kg"``) differs;
  ``m`` is metres (minutes are ``min``);
- a plain number: ``20``, ``1,000``, ``2.5``, and the words ``two`` to ``twenty``,
  ``thirty`` ... ``ninety``, ``hundred``, ``thousand``, ``dozen`` (not ``one``: a pronoun
  as often as a number). A number with a leading zero (``007``) is an id.

Amounts compare after rounding to 9 decimal places.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_EDGE = ".,;:!?()[]{}\"'“”‘’"
_NUM = r"(?:0|[1-9]\d*|[1-9]\d{0,2}(?:,\d{3})+)(?:\.\d+)?"
_NUMBER = re.compile(_NUM)
_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
_CURRENCY_WORDS = {
    "usd": "USD", "dollar": "USD", "dollars": "USD", "eur": "EUR", "euro": "EUR",
    "euros": "EUR", "gbp": "GBP", "jpy": "JPY", "yen": "JPY", "inr": "INR", "rupees": "INR",
    "cad": "CAD", "aud": "AUD", "chf": "CHF",
}  # fmt: skip
_MONEY_PREFIX = re.compile(rf"([$€£¥₹])({_NUM})")
_MONEY_SUFFIX = re.compile(rf"({_NUM})([$€£¥₹])")
_TIME_12 = re.compile(r"(1[0-2]|0?[1-9])(?::([0-5]\d))?(a\.?m\.?|p\.?m\.?)")
_TIME_24 = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?")
_MERIDIEM = re.compile(r"(a\.?m\.?|p\.?m\.?)")
_HOUR = re.compile(r"(1[0-2]|0?[1-9])(?::([0-5]\d))?")
_ISO_DATE = re.compile(r"(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])")
_DAY = re.compile(r"(0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?")
_YEAR = re.compile(r"(19|20)\d\d")
_MONTHS = {
    name: k + 1
    for k, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
         ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
         ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
         ("december", "dec")]
    )
    for name in names
}  # fmt: skip
#: Unit -> (dimension, size in the dimension's base unit).
_UNITS: dict[str, tuple[str, float]] = {
    "mg": ("mass", 0.001), "g": ("mass", 1.0), "gram": ("mass", 1.0), "grams": ("mass", 1.0),
    "kg": ("mass", 1000.0), "kgs": ("mass", 1000.0), "kilogram": ("mass", 1000.0),
    "kilograms": ("mass", 1000.0), "lb": ("mass", 453.59237), "lbs": ("mass", 453.59237),
    "mm": ("length", 0.001), "cm": ("length", 0.01), "m": ("length", 1.0),
    "meter": ("length", 1.0), "meters": ("length", 1.0), "metre": ("length", 1.0),
    "metres": ("length", 1.0), "km": ("length", 1000.0), "kilometers": ("length", 1000.0),
    "kilometres": ("length", 1000.0), "in": ("length", 0.0254), "inch": ("length", 0.0254),
    "inches": ("length", 0.0254), "ft": ("length", 0.3048), "feet": ("length", 0.3048),
    "foot": ("length", 0.3048), "mi": ("length", 1609.344), "mile": ("length", 1609.344),
    "miles": ("length", 1609.344), "ml": ("volume", 0.001), "l": ("volume", 1.0),
    "liter": ("volume", 1.0), "liters": ("volume", 1.0), "litre": ("volume", 1.0),
    "litres": ("volume", 1.0), "s": ("duration", 1.0), "sec": ("duration", 1.0),
    "secs": ("duration", 1.0), "second": ("duration", 1.0), "seconds": ("duration", 1.0),
    "min": ("duration", 60.0), "mins": ("duration", 60.0), "minute": ("duration", 60.0),
    "minutes": ("duration", 60.0), "h": ("duration", 3600.0), "hr": ("duration", 3600.0),
    "hrs": ("duration", 3600.0), "hour": ("duration", 3600.0), "hours": ("duration", 3600.0),
    "day": ("duration", 86400.0), "days": ("duration", 86400.0),
    "week": ("duration", 604800.0), "weeks": ("duration", 604800.0),
    "kb": ("data", 1e3), "mb": ("data", 1e6), "gb": ("data", 1e9), "tb": ("data", 1e12),
    "%": ("percent", 1.0), "percent": ("percent", 1.0), "pct": ("percent", 1.0),
}  # fmt: skip
_GLUED_UNIT = re.compile(rf"({_NUM})({'|'.join(sorted(map(re.escape, _UNITS), key=len)[::-1])})")
_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100, "thousand": 1000, "dozen": 12,
}  # fmt: skip


Quantity = tuple[object, ...]


@dataclass(frozen=True)
class Reading:
    """What :func:`read` finds in a string: its quantities (normal forms), its id tokens, its
    words (case-folded, each quantity as its normal form) and the tokens outside quantities
    as written, each with whether it starts a sentence."""

    quantities: tuple[Quantity, ...]
    ids: tuple[str, ...]
    words: tuple[str | Quantity, ...]
    plain: tuple[tuple[str, bool], ...]


def _strip(token: str) -> str:
    return token.strip(_EDGE)


def _amount(text: str) -> float:
    return round(float(text.replace(",", "")), 9)


def _time(hour: int, minute: int, meridiem: str) -> Quantity:
    hour = hour % 12 + (12 if meridiem.startswith("p") else 0)
    return ("time", hour * 60 + minute)


def _date(month: int, day: int, year: int | None) -> Quantity:
    return ("date", month, day, year)


def _one(token: str) -> Quantity | None:
    """A quantity written as one token (case-folded), or None."""
    if token in ("noon", "midday"):
        return ("time", 720)
    if token == "midnight":
        return ("time", 0)
    if m := _MONEY_PREFIX.fullmatch(token):
        return ("money", _SYMBOLS[m[1]], _amount(m[2]))
    if m := _MONEY_SUFFIX.fullmatch(token):
        return ("money", _SYMBOLS[m[2]], _amount(m[1]))
    if m := _TIME_12.fullmatch(token):
        return _time(int(m[1]), int(m[2] or 0), m[3])
    if m := _TIME_24.fullmatch(token):
        return ("time", int(m[1]) * 60 + int(m[2]))
    if m := _ISO_DATE.fullmatch(token):
        return _date(int(m[2]), int(m[3]), int(m[1]))
    if m := _GLUED_UNIT.fullmatch(token):
        dimension, size = _UNITS[m[2]]
        return ("unit", dimension, round(float(m[1].replace(",", "")) * size, 9))
    if _NUMBER.fullmatch(token):
        return ("number", _amount(token))
    if token in _WORDS:
        return ("number", float(_WORDS[token]))
    return None


def _several(tokens: Sequence[str], i: int) -> tuple[Quantity, int] | None:
    """A quantity written as two or three tokens from ``tokens[i]``, and how many it took."""
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    third = tokens[i + 2] if i + 2 < len(tokens) else ""
    if t in _CURRENCY_WORDS and _NUMBER.fullmatch(nxt):
        return ("money", _CURRENCY_WORDS[t], _amount(nxt)), 2
    if t in _MONTHS and (day := _DAY.fullmatch(nxt)):
        year = int(third) if _YEAR.fullmatch(third) else None
        return _date(_MONTHS[t], int(day[1]), year), 3 if year is not None else 2
    number = _NUMBER.fullmatch(t) or t in _WORDS
    if number and nxt in _CURRENCY_WORDS:
        amount = _amount(t) if t not in _WORDS else float(_WORDS[t])
        return ("money", _CURRENCY_WORDS[nxt], amount), 2
    if (hour := _HOUR.fullmatch(t)) and _MERIDIEM.fullmatch(nxt):
        return _time(int(hour[1]), int(hour[2] or 0), nxt), 2
    if (day := _DAY.fullmatch(t)) and nxt in _MONTHS:
        year = int(third) if _YEAR.fullmatch(third) else None
        return _date(_MONTHS[nxt], int(day[1]), year), 3 if year is not None else 2
    if number and nxt in _UNITS:
        dimension, size = _UNITS[nxt]
        amount = _amount(t) if t not in _WORDS else float(_WORDS[t])
        return ("unit", dimension, round(amount * size, 9)), 2
    return None


def read(text: str) -> Reading:
    """The quantities, ids and words of ``text`` (module docstring)."""
    pieces: list[tuple[str, bool]] = []  # (token without edge punctuation, starts a sentence)
    initial = True
    for x in text.split():
        core = _strip(x)
        if core:
            pieces.append((core, initial))
            initial = x[-1:] in ".!?:"
        else:
            initial = initial or x[-1:] in ".!?:"
    tokens = [core.casefold() for core, _ in pieces]
    quantities: list[Quantity] = []
    ids: list[str] = []
    words: list[str | Quantity] = []
    plain: list[tuple[str, bool]] = []
    i = 0
    while i < len(tokens):
        found = _several(tokens, i)
        if found is None and (one := _one(tokens[i])) is not None:
            found = (one, 1)
        if found is not None:
            quantities.append(found[0])
            words.append(found[0])
            i += found[1]
            continue
        if has_digit(tokens[i]):
            ids.append(tokens[i])
        words.append(tokens[i])
        plain.append(pieces[i])
        i += 1
    return Reading(tuple(quantities), tuple(ids), tuple(words), tuple(plain))


def has_digit(token: str) -> bool:
    return any(c.isdigit() for c in token)
