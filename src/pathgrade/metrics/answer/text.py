"""Answer text metrics: exact match, token F1 and numeric match, max over the gold answers.

Normalisation follows the official SQuAD evaluation script (v1.1 and v2.0 agree): lower case,
remove ASCII punctuation (``string.punctuation``), remove the articles ``a``, ``an``, ``the``
as whole words, collapse whitespace. Token F1 follows SQuAD v2.0: tokens are the normalised
text split on whitespace, the overlap is the multiset intersection, and when either side has
no tokens F1 is 1 if both are empty, else 0. Each metric is the maximum over the gold answers;
with no gold answer it is undefined (None), never 0.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)
# A number: optional sign, digits with optional thousands separators, optional decimals and
# exponent; or a bare decimal such as ".5".
_NUMBER = re.compile(
    r"(?:(?<![\w.])[-+])?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?![\d,])"
)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation.

    >>> normalize_answer("The  Eiffel-Tower!")
    'eiffeltower'
    """
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def _exact(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def _f1(prediction: str, gold: str) -> float:
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    if not pred_tokens or not gold_tokens:
        return float(pred_tokens == gold_tokens)
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, golds: Sequence[str]) -> float | None:
    """1.0 when the normalised prediction equals a normalised gold answer, else 0.0.

    >>> exact_match("the Eiffel Tower.", ["Eiffel Tower", "Paris"])
    1.0
    """
    if not golds:
        return None
    return max(_exact(prediction, g) for g in golds)


def token_f1(prediction: str, golds: Sequence[str]) -> float | None:
    """SQuAD v2.0 token F1, the maximum over gold answers.

    >>> token_f1("the big red dog", ["a red dog"])
    0.8
    """
    if not golds:
        return None
    return max(_f1(prediction, g) for g in golds)


def numeric_value(text: str) -> float | None:
    """The last number in ``text`` (GSM8K convention), thousands separators removed.

    >>> numeric_value("Refunded 1,250.50 of 2 orders")
    2.0
    >>> numeric_value("no number") is None
    True
    """
    found = [m.group(0) for m in _NUMBER.finditer(text)]
    if not found:
        return None
    value = float(found[-1].replace(",", ""))
    return value if math.isfinite(value) else None


def numeric_match(
    prediction: str, golds: Sequence[str], *, abs_tol: float = 0.0, rel_tol: float = 1e-6
) -> float | None:
    """1.0 when the prediction's number is within tolerance of a gold answer's number.

    Within tolerance: ``|p - g| <= max(abs_tol, rel_tol * |g|)``. Undefined (None) when no
    gold answer holds a number; 0.0 when the prediction holds none.

    >>> numeric_match("about 41.99 USD", ["42"], abs_tol=0.05)
    1.0
    """
    if abs_tol < 0 or rel_tol < 0:
        raise ValueError("tolerances must be non-negative")
    gold_values = [v for v in (numeric_value(g) for g in golds) if v is not None]
    if not gold_values:
        return None
    value = numeric_value(prediction)
    if value is None:
        return 0.0
    return float(any(abs(value - g) <= max(abs_tol, rel_tol * abs(g)) for g in gold_values))
