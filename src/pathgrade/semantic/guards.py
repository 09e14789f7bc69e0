"""Guards of ``semantic`` matching: rules applied to two free-text strings before the
embedding's verdict, each able to decide the field (pure: no I/O, no clock, no model).

:func:`check` applies, in this order, and returns the first that decides
(:class:`GuardVerdict`), or None (the embedding decides):

* ``id`` (always on, whatever ``guards`` says): the tokens that hold a digit and are not read
  as a quantity (``#W2378156``, ``ABC123``, ``mia_li_3668``, ``0123``, ``555-1234``) must be
  the same multiset, case-folded, edge punctuation stripped. Two strings whose ids differ never
  match. Without the ``number`` guard every token with a digit is such a token (the rule
  before guards were configurable: ``"3 pm"`` and ``"15:00"`` then differ).
* ``number``: the quantities of both strings, normalised, must be the same multiset, else a
  mismatch; and when the strings are equal once each quantity is written in its normal form
  (the other words case-folded), a **match**. Quantities (times, dates, money, units, plain
  numbers, each in a normal form) are read by :func:`pathgrade.semantic.quantities.read`.
* ``entity``: a named entity of one string that the other does not contain (as a word,
  case-folded, ``'s`` stripped) is a mismatch (``"Hi Anna"`` / ``"Hi Maria"``). The entities
  of a string are its tokens, outside quantities and without digits, that have an upper-case
  letter after the first (``iPhone``, ``USB``) or that start with one and do not start a
  sentence (the first token, or after ``.``, ``!``, ``?``, ``:``), other than ``I`` and a few
  function words (title-cased queries).
* ``negation``: the strings disagree in polarity, a mismatch: the parity of their negation
  cues differs (``not``, ``no``, ``never``, ``without``, ``cannot``, ``unable``, ``-n't``, ...:
  ``"with milk"`` / ``"without milk"``), or one holds one side of an opposed pair and the other
  only the other side (``cancel`` / ``keep``, ``include`` / ``exclude``, ``enable`` /
  ``disable``, ``accept`` / ``decline``, ...: :data:`OPPOSED`). It never decides a match.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from pathgrade.metrics.trajectory.evidence import same_numbers
from pathgrade.semantic.quantities import Quantity, Reading, has_digit, read

#: The guards ``[matching.semantic] guards`` may name (``id`` is always on).
GUARDS = ("number", "entity", "negation")

_FUNCTION_WORDS = frozenset((
    "a", "an", "the", "to", "of", "for", "in", "on", "at", "by", "from", "with", "and", "or",
    "but", "is", "are", "be", "my", "your", "our", "their", "his", "her", "its", "this", "that",
    "these", "those", "as", "into",
))  # fmt: skip
_NEGATIONS = frozenset((
    "not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor", "without",
    "cannot", "unable",
))  # fmt: skip
#: Word stems of negative valence, counted with the negation cues (``"not disabled"`` has
#: the polarity of ``"enabled"``); a token ending in ``-free`` counts too (``sugar-free``).
NEGATIVE = ("disabl", "exclud", "declin", "reject", "deny", "denied", "forbid", "refus")
#: Opposed pairs without a negative side: word stems on one side, stems on the other.
OPPOSED: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("cancel",), ("keep",)),
    (("lock",), ("unlock",)),
    (("increas",), ("decreas", "reduc")),
    (("upgrad",), ("downgrad",)),
    (("subscrib",), ("unsubscrib",)),
    (("buy", "purchas", "bought"), ("sell", "sold")),
    (("before",), ("after",)),
    (("add",), ("remov", "delet")),
)


@dataclass(frozen=True)
class GuardVerdict:
    """A guard decided a field: which (``id``, ``number``, ``entity``, ``negation``),
    whether the values match, and why (one line)."""

    guard: str
    match: bool
    reason: str


def _normal(q: Quantity, yearless: bool) -> Quantity:
    return (*q[:3], None) if yearless and q[0] == "date" else q


def _number_guard(a: Reading, b: Reading) -> GuardVerdict | None:
    dates = [q for q in a.quantities + b.quantities if q[0] == "date"]
    yearless = any(q[3] is None for q in dates)
    qa = Counter(_normal(q, yearless) for q in a.quantities)
    qb = Counter(_normal(q, yearless) for q in b.quantities)
    if qa != qb:
        return GuardVerdict("number", False, "numbers, dates, times, money or units differ")

    def words(r: Reading) -> list[str | Quantity]:
        return [w if isinstance(w, str) else _normal(w, yearless) for w in r.words]

    if a.quantities and words(a) == words(b):
        return GuardVerdict("number", True, "equal once numbers and units are normalised")
    return None


def _bare(word: str) -> str:
    return word[:-2] if word.endswith(("'s", "’s")) else word


def entities(r: Reading) -> list[str]:
    """The named entities among a reading's tokens outside quantities (module docstring),
    case-folded."""
    out = []
    for token, initial in r.plain:
        word = _bare(token)
        if not word or has_digit(word) or word == "I" or word.startswith(("I'", "I’")):
            continue
        inner = len(word) > 1 and any(c.isupper() for c in word[1:])
        titled = word[0].isupper() and not initial and word.casefold() not in _FUNCTION_WORDS
        if inner or titled:
            out.append(word.casefold())
    return out


def _runs(r: Reading) -> list[list[str]]:
    """The runs of two or more consecutive capitalised tokens, case-folded."""
    out: list[list[str]] = []
    run: list[str] = []
    for token, _ in (*r.plain, ("", False)):
        if token[:1].isupper():
            run.append(token.casefold())
            continue
        if len(run) > 1:
            out.append(run)
        run = []
    return out


def _abbreviated(r: Reading, words: set[str]) -> set[str]:
    """The words of ``r``'s capitalised runs whose initials are a word of the other value
    (``New York City`` against ``NYC``)."""
    out: set[str] = set()
    for run in _runs(r):
        for i in range(len(run)):
            for k in range(i + 2, len(run) + 1):
                if "".join(w[0] for w in run[i:k]) in words:
                    out.update(run[i:k])
    return out


def _present(entity: str, words: set[str], covered: set[str]) -> bool:
    """``entity`` is a word of the other value, a prefix of one or one of them is its prefix
    (two letters or more: ``postgres`` / ``PostgreSQL``, ``Dr`` / ``Drive``), the initials of
    the other value's capitalised words (``NYC`` / ``New York City``) or one of those words."""
    if entity in words or entity in covered:
        return True
    return any(
        min(len(w), len(entity)) >= 2 and (w.startswith(entity) or entity.startswith(w))
        for w in words
    )


def _entity_guard(a: Reading, b: Reading) -> GuardVerdict | None:
    for mine, other in ((a, b), (b, a)):
        theirs = {_bare(w) for w in other.words if isinstance(w, str)}
        covered = _abbreviated(mine, theirs) | {
            "".join(w[0] for w in run[i:k])
            for run in _runs(other)
            for i in range(len(run))
            for k in range(i + 2, len(run) + 1)
        }
        missing = [e for e in entities(mine) if not _present(e, theirs, covered)]
        if missing:
            return GuardVerdict("entity", False, f"named entity {missing[0]!r} only in one value")
    return None


def _negative(word: str) -> bool:
    return word in _NEGATIONS or word.endswith(("n't", "n’t", "-free")) or word.startswith(NEGATIVE)


def _negations(r: Reading) -> int:
    return sum(1 for t in r.words if isinstance(t, str) and _negative(t))


def _has(r: Reading, stems: tuple[str, ...]) -> bool:
    return any(isinstance(w, str) and w.startswith(stems) for w in r.words)


def _negation_guard(a: Reading, b: Reading) -> GuardVerdict | None:
    if _negations(a) % 2 != _negations(b) % 2:
        return GuardVerdict("negation", False, "one value is negated, the other is not")
    for left, right in OPPOSED:
        la, ra, lb, rb = _has(a, left), _has(a, right), _has(b, left), _has(b, right)
        if (la and not ra and rb and not lb) or (ra and not la and lb and not rb):
            return GuardVerdict("negation", False, f"opposed words ({left[0]} / {right[0]})")
    return None


def check(ref: str, agent: str, guards: Collection[str]) -> GuardVerdict | None:
    """The first guard that decides ``ref`` against ``agent`` (module docstring), or None.

    Example:
        >>> check("meeting at 3 pm", "meeting at 15:00", ["number"]).match
        True
        >>> check("pay $20", "pay 20 EUR", ["number"]).reason
        'numbers, dates, times, money or units differ'
        >>> check("coffee with milk", "coffee without milk", ["negation"]).guard
        'negation'
    """
    a, b = read(ref), read(agent)
    number = "number" in guards
    if Counter(a.ids) != Counter(b.ids) if number else not same_numbers(ref, agent):
        return GuardVerdict("id", False, "identifiers or numbers differ")
    if number and (found := _number_guard(a, b)) is not None:
        return found
    if "entity" in guards and (found := _entity_guard(a, b)) is not None:
        return found
    if "negation" in guards and (found := _negation_guard(a, b)) is not None:
        return found
    return None
