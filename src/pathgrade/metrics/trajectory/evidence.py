"""What ``semantic`` and ``judge`` argument matching read: embeddings and verdicts computed
before scoring (by :mod:`pathgrade.semantic`), so that matching itself stays pure.

* :class:`Embeddings`: one unit vector per distinct string; ``cosine(a, b)`` is their dot
  product (the cosine similarity of the raw embeddings).
* :class:`Verdicts`: the judge's decision per ``(tool, field, reference, agent)``, the values
  as canonical JSON: ``True`` (equivalent), ``False``, or ``None`` for a ``judge_error``
  (the comparison is *undefined*: never silently a match or a mismatch).
* Which fields are free text (:func:`free_text_value`, :func:`free_text_name`): the tools
  file's schema decides when it types the field (``"type": "string"`` with no ``enum``,
  ``const``, ``format`` or ``pattern``); otherwise a field is free text unless its name reads
  as an identifier, number, date or enum (:data:`ID_NAME`), and a value is free text unless it
  is a number or one token holding a digit or one of ``_ @ / : #`` (an id, e-mail, path, URL,
  date or enum constant, :func:`free_text_value`).
* The number guard (:func:`same_numbers`): two strings compared semantically must hold the
  same tokens that contain a digit (``"refund order 1234"`` never equals
  ``"refund order 1243"``, whatever the cosine).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import orjson

from pathgrade.core.config import SEMANTIC_THRESHOLD

FloatMatrix = npt.NDArray[np.float32]

#: Field names that are never free text under the automatic decision.
ID_NAME = re.compile(
    r"(?:^|_)(?:id|ids|uuid|guid|key|email|code|number|num|no|date|time|timestamp|url|uri|"
    r"path|phone|zip|postcode|status|type|kind|enum|currency|count|amount|price|quantity)$",
    re.IGNORECASE,
)
_ID_TOKEN = re.compile(r"[\d_@/:#]")
_NUMBER_TOKEN = re.compile(r"\S*\d\S*")
_EDGE_PUNCTUATION = ".,;:!?()[]{}\"'"


def free_text_name(name: str) -> bool:
    """A field name that does not read as an identifier, number, date or enum."""
    return ID_NAME.search(name) is None


def free_text_value(value: str) -> bool:
    """A string that is not a number and not one id-like token (see the module docstring)."""
    tokens = value.split()
    if not tokens:
        return False
    try:
        float(value)
    except ValueError:
        pass
    else:
        return False
    return len(tokens) > 1 or _ID_TOKEN.search(tokens[0]) is None


def number_tokens(value: str) -> Counter[str]:
    """The multiset of case-folded tokens holding a digit, edge punctuation stripped."""
    return Counter(t.strip(_EDGE_PUNCTUATION).casefold() for t in _NUMBER_TOKEN.findall(value))


def same_numbers(a: str, b: str) -> bool:
    """``a`` and ``b`` hold the same tokens with a digit (the number guard)."""
    return number_tokens(a) == number_tokens(b)


def value_key(value: object) -> str:
    """The canonical JSON of a value (sorted keys), the key of a judge verdict."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


@dataclass(frozen=True)
class Embeddings:
    """``vectors[index[text]]`` is the unit embedding of ``text`` (rows of a float32 matrix)."""

    index: Mapping[str, int]
    vectors: FloatMatrix
    _pairs: dict[tuple[str, str], float] = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        return f"Embeddings(texts={len(self.index)}, dim={self.vectors.shape[1]})"

    def cosine(self, a: str, b: str) -> float:
        """The cosine similarity of ``a`` and ``b``; a string never embedded is a KeyError."""
        pair = (a, b)
        value = self._pairs.get(pair)
        if value is None:
            try:
                i, j = self.index[a], self.index[b]
            except KeyError as error:
                raise KeyError(
                    f"no embedding for {error.args[0]!r}: semantic matching reads embeddings"
                    " made before scoring (pathgrade.semantic.prepare)"
                ) from None
            value = self._pairs[pair] = float(np.dot(self.vectors[i], self.vectors[j]))
        return value


VerdictKey = tuple[str, str, str, str]


@dataclass(frozen=True)
class Verdicts:
    """Judge verdicts by ``(tool, field, reference JSON, agent JSON)`` (None: judge_error),
    with, where known, each verdict's judge cache key (``ids``), each error's message
    (``errors``) and what asking cost (``cost``: ``comparisons``, ``requests``,
    ``cache_hits``, ``prompt_tokens``, ``completion_tokens``, ``seconds``)."""

    by_key: Mapping[VerdictKey, bool | None]
    ids: Mapping[VerdictKey, str] = field(default_factory=dict)
    errors: Mapping[VerdictKey, str] = field(default_factory=dict)
    cost: Mapping[str, int | float] = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:
        errors = sum(1 for v in self.by_key.values() if v is None)
        return f"Verdicts(pairs={len(self.by_key)}, errors={errors})"

    def verdict(self, tool: str, name: str, ref: object, agent: object) -> bool | None:
        """The verdict on one pair; a pair never judged is a KeyError."""
        key = (tool, name, value_key(ref), value_key(agent))
        if key not in self.by_key:
            raise KeyError(
                f"no judge verdict for {tool}.{name or '*'}: judge matching reads verdicts made"
                " before scoring (pathgrade.semantic.judge_verdicts)"
            )
        return self.by_key[key]

    def provenance(
        self, tool: str, name: str, ref: object, agent: object
    ) -> tuple[str | None, str | None]:
        """``(judge cache key, error message)`` of one pair's verdict (None: not known)."""
        if not self.ids and not self.errors:
            return None, None
        key = (tool, name, value_key(ref), value_key(agent))
        return self.ids.get(key), self.errors.get(key)


@dataclass(frozen=True)
class ArgumentEvidence:
    """Embeddings and verdicts for one scoring, and which fields the tools file types as
    free text (``schema_free[tool][field]``; a field it does not type is decided by the
    heuristic). Passed to the matchers as the ``semantic``/``judge`` plug-in; calling it
    compares two values by the default semantic rule at ``threshold``."""

    embeddings: Embeddings | None = None
    verdicts: Verdicts | None = None
    schema_free: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)
    threshold: float = SEMANTIC_THRESHOLD

    def free_text(self, tool: str, name: str) -> bool | None:
        """What the schema says of ``tool.name`` (None: it does not say)."""
        return self.schema_free.get(tool, {}).get(name)

    def cosine(self, a: str, b: str) -> float:
        if self.embeddings is None:
            raise KeyError("no embeddings: run pathgrade.semantic.prepare before scoring")
        return self.embeddings.cosine(a, b)

    def __call__(self, ref: object, agent: object) -> bool:
        if isinstance(ref, str) and isinstance(agent, str):
            if ref == agent:
                return True
            return same_numbers(ref, agent) and self.cosine(ref, agent) >= self.threshold
        return ref == agent
