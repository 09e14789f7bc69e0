"""A run's token split and model, from its model calls: the one rule every reader uses.

* ``usage.input_tokens`` (``output_tokens``): the sum over the run's model calls of the
  call's recorded input (output) tokens; a call that does not record the field contributes
  nothing; when no call records it, ``None`` (unknown), never 0. ``usage.tokens`` is the
  reader's total as before (it may also count calls that record only a total).
* ``metadata["model"]``: the model the run's calls name (a call's request model, the name
  a price table is keyed on, else its response model), when they name exactly one; calls
  naming several models give ``metadata["models"]`` (in order of first use) and no
  ``model``, so a price table never prices a mixed run at one model's price (its cost is
  unknown: ``no_model``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pathgrade.core.types import Usage

__all__ = ["TokenSplit", "model_metadata", "split_sum", "with_split"]

#: ``(input_tokens, output_tokens)`` of one call or run (``None`` = not recorded).
TokenSplit = tuple[float | None, float | None]


def split_sum(splits: Iterable[TokenSplit]) -> TokenSplit:
    """Each side summed over the calls that record it (``None`` when none does).

    >>> split_sum([(10.0, 2.0), (None, 3.0), (None, None)])
    (10.0, 5.0)
    >>> split_sum([(None, None)])
    (None, None)
    """
    found = list(splits)
    inputs = [s[0] for s in found if s[0] is not None]
    outputs = [s[1] for s in found if s[1] is not None]
    return (float(sum(inputs)) if inputs else None, float(sum(outputs)) if outputs else None)


def with_split(usage: Usage | None, split: TokenSplit) -> Usage | None:
    """``usage`` with the split added (a ``Usage`` of the split alone when ``usage`` is
    ``None`` and the split is known)."""
    if split == (None, None):
        return usage
    base = usage.model_dump() if usage is not None else {}
    return Usage(**{**base, "input_tokens": split[0], "output_tokens": split[1]})


def model_metadata(models: Iterable[str | None]) -> Mapping[str, Any]:
    """``{"model": name}`` when the calls name one model, ``{"models": [...]}`` for several,
    ``{}`` for none (module docstring).

    >>> model_metadata(["gpt-4o", None, "gpt-4o"]), model_metadata(["a", "b", "a"])
    ({'model': 'gpt-4o'}, {'models': ['a', 'b']})
    """
    distinct = list(dict.fromkeys(m for m in models if m))
    if not distinct:
        return {}
    return {"model": distinct[0]} if len(distinct) == 1 else {"models": distinct}
