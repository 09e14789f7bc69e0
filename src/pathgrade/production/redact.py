"""Redaction: personal data and secrets replaced by stable placeholders (pure, no I/O).

A :class:`Redactor` walks any JSON-like value (mappings, lists, tuples, strings, numbers)
and returns a redacted copy; the value given is never changed. Keys are text too: a key that
holds an email is redacted like a value.

**What is found**, in this order (a later kind never sees what an earlier one replaced):

======== ==================================================================================
kind     shape
======== ==================================================================================
api_key  ``sk-...`` (OpenAI, Anthropic: 20+ characters after ``sk-``), GitHub
         ``ghp_/gho_/ghu_/ghs_/ghr_`` + 36 or more, ``github_pat_...``, Slack
         ``xoxb-/xoxp-/xoxa-/xoxr-/xoxs-...``, AWS access key ids ``AKIA``/``ASIA`` + 16
jwt      three base64url parts, the first two starting ``eyJ`` (a JSON object)
token    what follows ``Bearer`` (any case) in a header or text: 8+ token characters
email    ``local@domain.tld``
card     13 to 19 digits, single spaces or dashes allowed between groups of 3 or more
         (the longest such window of a longer run of digit groups), with a card
         network's prefix (Visa 4, Mastercard 51-55 and 2221-2720, Amex 34/37, Discover
         6011/644-649/65, Diners 300-305/36/38, JCB 35) and a valid Luhn check digit; also
         an integer value of that shape
phone    international: ``+`` then 8 to 15 digits (E.164), with spaces, dots, dashes or
         one parenthesised area code between groups; US: ``(415) 555-2671``,
         ``415-555-2671``, ``415.555.2671``, ``1-415-555-2671`` (separators required)
secret   a long high-entropy string: 32+ hex characters with letters and digits, or 40+
         base64/base64url characters with upper case, lower case and digits (at least two
         of each), a Shannon entropy of at least 4.2 bits a character, and less than a
         third of it in runs of 4+ lower-case letters (``PaymentService/RefundV2/...``
         and ``get_orders_by_region_2024_Q1`` are names, not keys)
======== ==================================================================================

Not redacted, by design (the negatives the tests pin down): order ids (``A17``,
``ORD-2024-001234``), dates and times, version numbers (``1.2.3``), UUIDs (their hex groups
are at most 12 long), plain numbers and bare 10-digit runs (a US number must be written with
separators or ``+1``: bare digits are ids far more often than phones), IP addresses, and
digit runs failing the card prefix or Luhn check (timestamps in milliseconds). A 40-hex git
commit id *is* redacted as a ``secret``: it cannot be told from a hex API key.

**Fields**: a key named in ``fields`` (case-insensitively; ``[redact] fields`` in
``pathgrade.toml``) has its whole value replaced, whatever its type, by ``<NAME:n>``.

**Placeholders** are ``<kind:n>``: ``n`` counts the distinct values of that kind in the
order first met by this redactor, so one secret gets one placeholder everywhere within one
redactor (one ``promote`` call), and two different secrets never share one. A counter rather
than a keyed hash (HMAC): the output is reproducible from the input alone, needs no key to
keep secret, and carries no information about the value (a hash of a short secret such as
a phone number can be reversed by trying every number). Placeholders are not stable across
separate redactors (a second ``promote`` call numbers afresh). A placeholder is never
redacted again: redaction is idempotent.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import orjson

#: The pattern kinds, in the order they are applied.
KINDS: Final = ("api_key", "jwt", "token", "email", "card", "phone", "secret")

#: What a placeholder looks like; a string that is exactly one is left alone.
PLACEHOLDER: Final = re.compile(r"<[A-Za-z0-9_.-]+:[0-9]+>")

#: Passes over one text at most (one more than the passes that changed it, usually 2).
_MAX_PASSES: Final = 8
_B64 = r"A-Za-z0-9+/_\-"
_API_KEY = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:"
    r"sk-[A-Za-z0-9_\-]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}"
    r"|github_pat_[A-Za-z0-9_]{22,}"
    r"|xox[baprs]-[A-Za-z0-9\-]{10,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r")(?![A-Za-z0-9_\-])"
)
_JWT = re.compile(
    r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}"
    r"(?![A-Za-z0-9_\-])"
)
_BEARER = re.compile(r"(?i)(?<![A-Za-z0-9])(bearer\s+)([A-Za-z0-9._~+/=\-]{8,})")
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![A-Za-z0-9\-])"
)
#: A run of digit groups (single spaces or dashes between them), not part of a word.
_DIGIT_RUN = re.compile(r"(?<![\w.+\-])\d+(?:[ \-]\d+)*(?![\w\-])")
_SEPARATOR = re.compile(r"([ \-])")
_PHONE_INTL = re.compile(
    r"(?<![\w+.\-])\+\d{1,3}(?:[ .\-]?(?:\(\d{1,4}\)|\d{1,5})){1,6}(?![\w.\-]?\d)(?![\w])"
)
_PHONE_US = re.compile(
    r"(?<![\w+.\-])(?:1[ .\-])?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}(?![\w.\-]?\d)(?![\w])"
)
_WORDS = re.compile(r"[a-z]{4,}")
_HEX = re.compile(r"(?<![A-Za-z0-9_\-])[0-9a-fA-F]{32,}(?![A-Za-z0-9_\-])")
_BASE64 = re.compile(rf"(?<![{_B64}])[{_B64}]{{40,}}={{0,2}}(?![{_B64}=])")

_CARD_PREFIXES: Final = (
    ("4", (13, 16, 19)),
    ("34", (15,)),
    ("37", (15,)),
    ("6011", (16, 17, 18, 19)),
    ("65", (16, 17, 18, 19)),
    ("36", (14, 15, 16, 17, 18, 19)),
    ("38", (14, 15, 16, 17, 18, 19)),
    ("35", (16, 17, 18, 19)),
)


def luhn_valid(digits: str) -> bool:
    """Whether a digit string passes the Luhn check (the card check digit)."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def is_card_number(digits: str) -> bool:
    """13 to 19 digits with a card network's prefix and length, and a valid Luhn digit."""
    n = len(digits)
    if not digits.isdigit() or not 13 <= n <= 19:
        return False
    known = any(digits.startswith(p) and n in lengths for p, lengths in _CARD_PREFIXES)
    if not known:
        head2, head3, head4 = int(digits[:2]), int(digits[:3]), int(digits[:4])
        known = (
            (51 <= head2 <= 55 and n == 16)
            or (2221 <= head4 <= 2720 and n == 16)
            or (644 <= head3 <= 649 and n >= 16)
            or (300 <= head3 <= 305 and n >= 14)
        )
    return known and luhn_valid(digits)


def _entropy(text: str) -> float:
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _is_secret_hex(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _is_secret_base64(text: str) -> bool:
    body = text.rstrip("=")
    upper = sum(c.isupper() for c in body)
    lower = sum(c.islower() for c in body)
    digits = sum(c.isdigit() for c in body)
    if upper < 2 or lower < 2 or digits < 2 or _entropy(body) < 4.2:
        return False
    wordy = sum(len(run) for run in _WORDS.findall(body))
    return wordy * 3 < len(body)  # a third in lower-case words: a name, not a key


def _phone_digits(text: str) -> int:
    return sum(c.isdigit() for c in text)


class Redactor:
    """Redacts values with placeholders stable within this redactor (module docstring).

    Args:
        fields: key names whose values are replaced whole (compared case-insensitively).
        kinds: the pattern kinds to apply (default: all of :data:`KINDS`).
    """

    def __init__(self, fields: Iterable[str] = (), kinds: Iterable[str] = KINDS) -> None:
        self.fields = frozenset(f.casefold() for f in fields)
        chosen = tuple(kinds)
        unknown = [k for k in chosen if k not in KINDS]
        if unknown:
            raise ValueError(f"unknown redaction kinds {unknown}; known: {', '.join(KINDS)}")
        self.kinds = chosen
        self._seen: dict[tuple[str, str], str] = {}
        self._counts: Counter[str] = Counter()

    def __repr__(self) -> str:
        return f"Redactor(fields={sorted(self.fields)!r}, redacted={dict(self._counts)!r})"

    @property
    def counts(self) -> dict[str, int]:
        """How many distinct values of each kind (or field name) were replaced so far."""
        return dict(self._counts)

    def placeholder(self, kind: str, value: str) -> str:
        """The placeholder of ``value`` as a ``kind``: the same one every time it is seen."""
        key = (kind, value)
        found = self._seen.get(key)
        if found is None:
            self._counts[kind] += 1
            found = f"<{kind}:{self._counts[kind]}>"
            self._seen[key] = found
        return found

    def __call__(self, value: Any) -> Any:
        """A redacted copy of a JSON-like value (mappings and lists walked recursively)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bool) or value is None or isinstance(value, float):
            return value
        if isinstance(value, int):
            if "card" in self.kinds and is_card_number(str(abs(value))):
                return self.placeholder("card", str(abs(value)))
            return value
        if isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                name = str(key)
                if name.casefold() in self.fields:
                    out[self.text(name)] = self._field(name, item)
                else:
                    out[self.text(name) if isinstance(key, str) else key] = self(item)
            return out
        if isinstance(value, list | tuple):
            return [self(item) for item in value]
        return value

    def _field(self, name: str, value: Any) -> Any:
        if value is None or (isinstance(value, str) and PLACEHOLDER.fullmatch(value)):
            return value
        canonical = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        return self.placeholder(name.casefold(), canonical)

    def text(self, text: str) -> str:
        """``text`` with every pattern kind replaced (module docstring)."""
        if len(text) < 6 or PLACEHOLDER.fullmatch(text):
            return text
        for _ in range(_MAX_PASSES):  # until nothing changes: a replacement can free a match
            before = text
            for kind in self.kinds:
                text = _APPLY[kind](self, text)
            if text == before:
                break
        return text

    def _sub(self, pattern: re.Pattern[str], kind: str, text: str) -> str:
        return pattern.sub(lambda m: self.placeholder(kind, m.group(0)), text)

    def _api_key(self, text: str) -> str:
        return self._sub(_API_KEY, "api_key", text)

    def _jwt(self, text: str) -> str:
        return self._sub(_JWT, "jwt", text) if "eyJ" in text else text

    def _token(self, text: str) -> str:
        if "bearer" not in text.casefold():
            return text
        return _BEARER.sub(lambda m: m.group(1) + self.placeholder("token", m.group(2)), text)

    def _email(self, text: str) -> str:
        return self._sub(_EMAIL, "email", text) if "@" in text else text

    def _card(self, text: str) -> str:
        return _DIGIT_RUN.sub(lambda m: self._cards_in(m.group(0)), text)

    def _cards_in(self, run: str) -> str:
        """The run with each longest window of its groups that is a card number replaced
        (left to right): ``2024-01-15 4111 1111 1111 1111 2`` keeps the date and the 2."""
        parts = _SEPARATOR.split(run)  # group, separator, group, ...
        groups = parts[::2]
        out: list[str] = []
        i = 0
        while i < len(groups):
            end = None
            digits = ""
            for j in range(i, len(groups)):
                if j > i and min(len(groups[i]), len(groups[j])) < 3:
                    break  # cards are written in groups of 3 or more: "4 1 1 1 ..." is not one
                digits += groups[j]
                if len(digits) > 19:
                    break
                if is_card_number(digits):
                    end = j  # keep looking: the longest window wins
            if end is None:
                out.append(groups[i] + (parts[2 * i + 1] if 2 * i + 1 < len(parts) else ""))
                i += 1
                continue
            out.append(self.placeholder("card", "".join(groups[i : end + 1])))
            if 2 * end + 1 < len(parts):
                out.append(parts[2 * end + 1])
            i = end + 1
        return "".join(out)

    def _phone(self, text: str) -> str:
        def intl(match: re.Match[str]) -> str:
            found = match.group(0)
            if not 8 <= _phone_digits(found) <= 15:
                return found
            return self.placeholder("phone", re.sub(r"[^\d+]", "", found))

        text = _PHONE_INTL.sub(intl, text) if "+" in text else text
        return _PHONE_US.sub(
            lambda m: self.placeholder("phone", "+1" + re.sub(r"\D", "", m.group(0))[-10:]),
            text,
        )

    def _secret(self, text: str) -> str:
        if len(text) < 32:
            return text

        def check(test: Callable[[str], bool]) -> Callable[[re.Match[str]], str]:
            def replace(match: re.Match[str]) -> str:
                found = match.group(0)
                return self.placeholder("secret", found) if test(found) else found

            return replace

        text = _HEX.sub(check(_is_secret_hex), text)
        return _BASE64.sub(check(_is_secret_base64), text)


_APPLY: Final[dict[str, Callable[[Redactor, str], str]]] = {
    "api_key": Redactor._api_key,
    "jwt": Redactor._jwt,
    "token": Redactor._token,
    "email": Redactor._email,
    "card": Redactor._card,
    "phone": Redactor._phone,
    "secret": Redactor._secret,
}


def redact(value: Any, *, fields: Iterable[str] = ()) -> Any:
    """``value`` redacted by a new :class:`Redactor` (placeholders numbered from 1).

    >>> redact({"to": "alice@example.com", "cc": ["alice@example.com", "bob@example.org"]})
    {'to': '<email:1>', 'cc': ['<email:1>', '<email:2>']}
    >>> redact("card 4111 1111 1111 1111, order ORD-2024-001234, v1.2.3")
    'card <card:1>, order ORD-2024-001234, v1.2.3'
    >>> redact({"user": "ann", "password": "hunter2"}, fields=["password"])
    {'user': 'ann', 'password': '<password:1>'}
    """
    return Redactor(fields)(value)


__all__ = ["KINDS", "PLACEHOLDER", "Redactor", "is_card_number", "luhn_valid", "redact"]
