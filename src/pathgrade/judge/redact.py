"""Keep secrets out of everything pathgrade writes or prints: one :class:`Redactor` at every sink.

A reply may echo the API key anywhere (the verdict, ``model``, ``system_fingerprint``, an
error body), and a base URL may carry credentials. The judge and the replay endpoint client
pass every reply, cache entry, recording, judged run, call log, summary and error text
through one :class:`Redactor` before it is written or shown.

* A secret is the API key, and the credentials of the base URL: its password, or its user
  name when it has no password (a token given as ``https://TOKEN@host``), and the values of
  query parameters whose name looks like a credential (``key``, ``token``, ``secret``,
  ``sig``, ``auth``, ``pass``).
* Every occurrence is replaced by ``***`` in these forms, in any mix, character by
  character: raw; JSON-escaped (``\\uXXXX`` in either case, ``\\/``, ``\\"``, ``\\\\``,
  ``\\n`` and the other short escapes, with any number of backslashes, so an escape inside
  a JSON string inside JSON is found too); and URL-encoded (``%XX`` of the UTF-8 bytes,
  either case).
* :func:`public_url` is the form of a URL that may be printed: no user name, password, query
  or fragment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit, urlunsplit

T = TypeVar("T")
MASK = "***"
_SHORT_ESCAPES = {"\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}
_CREDENTIAL_PARAMETER = re.compile(r"key|token|secret|sig|auth|pass", re.IGNORECASE)


def _hex(data: bytes) -> str:
    """``%XX`` (either case) for each byte."""
    return "".join(f"%(?i:{byte:02x})" for byte in data)


def _char_pattern(char: str) -> str:
    """Every form one character of a secret may take in text that is written or shown."""
    forms: list[str] = []
    code = ord(char)
    if code < 0x10000:
        forms.append(rf"\\+u(?i:{code:04x})")
    else:  # a JSON surrogate pair
        high, low = divmod(code - 0x10000, 0x400)
        forms.append(rf"\\+u(?i:{0xD800 + high:04x})\\+u(?i:{0xDC00 + low:04x})")
    if char in '/"\\':
        forms.append(r"\\+" + re.escape(char))
    if char in _SHORT_ESCAPES:
        forms.append(r"\\+" + _SHORT_ESCAPES[char])
    forms.append(_hex(char.encode("utf-8")))
    forms.append(re.escape(char))  # last: an escape that starts with the raw char wins
    return "(?:" + "|".join(forms) + ")"


def secret_pattern(secret: str) -> str:
    """The regular expression of ``secret`` in all its forms (see the module docstring)."""
    return "".join(map(_char_pattern, secret))


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries: password (else user name) and credential-like query values."""
    try:
        parts = urlsplit(url)
        password, username = parts.password, parts.username
    except ValueError:
        return []
    found = [password] if password else [username] if username else []
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if _CREDENTIAL_PARAMETER.search(name):
            found.append(value)
    return [s for s in found if s]


def public_url(url: str) -> str:
    """``url`` without user name, password, query or fragment (the form that may be printed)."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return "<invalid URL>"
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class Redactor:
    """Replace every given secret by ``***`` in text, bytes and JSON-like values.

    ``Redactor(secrets)`` ignores empty and None secrets; longer secrets are matched first (a
    secret that contains another is masked whole). Calling it on a ``str``, ``bytes``, a
    mapping (keys and values), a list or a tuple returns a redacted copy (mappings become
    dicts, tuples stay tuples); any other value is returned unchanged.
    """

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        unique = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._count = len(unique)
        pattern = "|".join(secret_pattern(s) for s in unique)
        self._text = re.compile(pattern) if unique else None
        self._bytes = re.compile(pattern.encode("utf-8")) if unique else None

    @classmethod
    def for_endpoint(cls, api_key: str | None, base_url: str) -> Redactor:
        """The API key and the credentials of ``base_url``."""
        return cls([api_key, *url_secrets(base_url)])

    def __repr__(self) -> str:
        return f"Redactor({self._count} secret(s))"  # never the secrets

    def __bool__(self) -> bool:
        return self._text is not None

    def text(self, text: str, limit: int | None = None) -> str:
        """``text`` redacted; with ``limit``, also put on one line and cut to ``limit`` chars."""
        if self._text is not None:
            text = self._text.sub(MASK, text)
        if limit is None:
            return text
        text = " ".join(text.split())
        return text if len(text) <= limit else text[:limit] + "..."

    def __call__(self, value: T) -> T:
        return self._value(value)  # type: ignore[no-any-return]

    def _value(self, value: Any) -> Any:
        if self._text is None or self._bytes is None:
            return value
        if isinstance(value, str):
            return self._text.sub(MASK, value)
        if isinstance(value, bytes):
            return self._bytes.sub(MASK.encode(), value)
        if isinstance(value, Mapping):
            return {self._value(k): self._value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._value(v) for v in value)
        return value
