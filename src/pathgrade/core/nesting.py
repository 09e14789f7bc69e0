"""How deeply a JSON value nests, and the limit every input is held to.

A value's *depth* counts its levels of lists and dicts: a scalar is 0, ``{"a": 1}`` is 1,
``{"a": [1]}`` is 2. Inputs are held to :data:`MAX_DEPTH` (128) levels: a free-form value of
a record (a step's ``arguments``, ``output`` and ``metadata``, a record's ``metadata``,
``final_state`` and ``expected_state``) as the model validates it, a whole JSON document
where there is no model (a tools file, a split's cases). orjson, which writes every stored
and reported record, refuses more than 254 levels; 128 leaves room for the record around
the value.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_DEPTH", "check_nesting", "deep_path"]

#: The deepest nesting of lists and dicts accepted in an input value.
MAX_DEPTH = 128


def deep_path(value: Any, limit: int = MAX_DEPTH) -> list[int | str] | None:
    """The path to the first list or dict at depth ``limit + 1`` of ``value`` (``[]``:
    ``value`` itself), or None when ``value`` nests at most ``limit`` levels."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:  # breadth first, without paths: the usual answer is "not too deep"
        depth += 1
        if depth > limit:
            break
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            below.extend(c for c in children if type(c) is dict or type(c) is list)
        level = below
    else:
        return None
    stack: list[tuple[Any, list[int | str]]] = [(value, [])]
    while stack:  # depth first, with paths, to say where
        item, path = stack.pop()
        if len(path) == limit:
            return path
        pairs = item.items() if type(item) is dict else enumerate(item)
        stack.extend(
            (child, [*path, key])
            for key, child in reversed(list(pairs))
            if type(child) is dict or type(child) is list
        )
    return None  # not reached: the first walk found a list or dict that deep


def check_nesting(value: Any) -> Any:
    """``value`` unchanged if it nests at most :data:`MAX_DEPTH` levels, else ``ValueError``
    (a pydantic after-validator: the error names the field). A value whose items are all
    scalars (the usual arguments) is passed in one look at each item."""
    if type(value) is dict:
        items: Any = value.values()
    elif type(value) is list:
        items = value
    else:
        return value
    for item in items:
        if type(item) is dict or type(item) is list:
            if deep_path(value) is not None:
                raise ValueError(f"nested deeper than {MAX_DEPTH} levels of lists and objects")
            break  # checked whole: within the limit
    return value
