"""A winning alignment as people read it: entries with each step's text, as objects or as
the JSON text a record holds.

Both forms are built from the same lists: the ops of one aligned pair (``OP_PAIR``,
``OP_INSERT``, ``OP_DELETE``), the reference and agent position of each op, whether each
pair matched in full, and each step's text and tool code.
"""

from __future__ import annotations

import orjson

from pathgrade.core.results import AlignedStep
from pathgrade.core.types import format_step
from pathgrade.metrics.trajectory.align import OP_DELETE, OP_INSERT, OP_PAIR
from pathgrade.metrics.trajectory.encode import EncodedPaths

#: One op list: ``(ops, ref_pos, agent_pos, full_op)``.
Ops = tuple[list[int], list[int], list[int], list[bool]]

# One entry as JSON, keys in ``AlignedStep`` field order (as orjson writes the dataclass).
_PAIR_JSON = (
    b'{"op":"%s","agent_step":%d,"reference_step":%d,"tool_match":%s,'
    b'"arguments_match":%s,"agent":%s,"reference":%s}'
)
_INSERT_JSON = (
    b'{"op":"insertion","agent_step":%d,"reference_step":null,"tool_match":false,'
    b'"arguments_match":false,"agent":%s,"reference":null}'
)
_DELETE_JSON = (
    b'{"op":"deletion","agent_step":null,"reference_step":%d,"tool_match":false,'
    b'"arguments_match":false,"agent":null,"reference":%s}'
)


class CallTexts:
    """The text of each call code (``format_step`` of the first step seen with it) and that
    text as a JSON string. Codes are shared by the references and the runs of one scoring,
    so each call is formatted and serialised once."""

    def __init__(self) -> None:
        self._text: dict[int, str] = {}
        self._json: dict[int, bytes] = {}

    def texts(self, paths: EncodedPaths, index: int) -> list[str]:
        """The text of each step of path ``index``."""
        start, end = int(paths.offsets[index]), int(paths.offsets[index + 1])
        cache = self._text
        out: list[str] = []
        for offset, code in enumerate(paths.calls[start:end].tolist(), start=start):
            text = cache.get(code)
            if text is None:
                text = cache[code] = format_step(paths.steps[offset])
            out.append(text)
        return out

    def json(self, paths: EncodedPaths, index: int) -> list[bytes]:
        """The text of each step of path ``index``, as a JSON string (orjson's escaping)."""
        start, end = int(paths.offsets[index]), int(paths.offsets[index + 1])
        codes = paths.calls[start:end].tolist()
        cache = self._json
        out = list(map(cache.get, codes))
        for k, text in enumerate(out):
            if text is None:
                code = codes[k]
                plain = self._text.get(code)
                if plain is None:
                    plain = self._text[code] = format_step(paths.steps[start + k])
                text = out[k] = cache[code] = orjson.dumps(plain)
        return out  # type: ignore[return-value]


def aligned_steps(
    ops: Ops,
    agent_text: list[str],
    agent_tool: list[int],
    ref_text: list[str],
    ref_tool: list[int],
) -> tuple[AlignedStep, ...]:
    """The alignment entries, one :class:`AlignedStep` per op (a pair is a ``match`` when it
    matched in full, else a ``substitution``)."""
    out: list[AlignedStep] = []
    for op, i, j, full in zip(*ops, strict=True):
        if op == OP_PAIR:
            out.append(
                AlignedStep(
                    "match" if full else "substitution",
                    j,
                    i,
                    ref_tool[i] == agent_tool[j],
                    full,
                    agent_text[j],
                    ref_text[i],
                )
            )
        elif op == OP_INSERT:
            out.append(AlignedStep("insertion", j, None, False, False, agent_text[j], None))
        elif op == OP_DELETE:
            out.append(AlignedStep("deletion", None, i, False, False, None, ref_text[i]))
    return tuple(out)


def aligned_json(
    ops: Ops,
    agent_json: list[bytes],
    agent_tool: list[int],
    ref_json: list[bytes],
    ref_tool: list[int],
) -> bytes:
    """The same entries as :func:`aligned_steps`, as the JSON text ``orjson.dumps`` writes for
    them (texts given as JSON strings), without an object per entry."""
    parts: list[bytes] = []
    append = parts.append
    for op, i, j, full in zip(*ops, strict=True):
        if op == OP_PAIR:
            append(
                _PAIR_JSON
                % (
                    b"match" if full else b"substitution",
                    j,
                    i,
                    b"true" if ref_tool[i] == agent_tool[j] else b"false",
                    b"true" if full else b"false",
                    agent_json[j],
                    ref_json[i],
                )
            )
        elif op == OP_INSERT:
            append(_INSERT_JSON % (j, agent_json[j]))
        elif op == OP_DELETE:
            append(_DELETE_JSON % (i, ref_json[i]))
    return b"[" + b",".join(parts) + b"]"
