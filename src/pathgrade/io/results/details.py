"""Every run's ``defects`` and ``alignment`` as the JSON text a record holds, built from the
columns the trajectory layer hands over (:mod:`pathgrade.core.explanations`).

An entry's JSON object is assembled from small tables by Arrow's string kernels, with no
Python object per defect or aligned step: the constant text of its code or op (keys from
:mod:`~pathgrade.io.results.schema`, in the schema's order), its positions' digits, and its
calls' texts, each distinct text JSON-escaped once. A defect's detail is its template
(:mod:`pathgrade.metrics.trajectory.messages`) cut at its ``{agent}`` and ``{reference}``
fields: the text between the fields is written once per code, the calls' texts go in the
gaps. The bytes are those orjson writes for the same defects' and aligned steps' objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import Formatter

import numpy as np
import numpy.typing as npt
import orjson
import pyarrow as pa

from pathgrade.core.explanations import (
    ALIGNED_OPS,
    AlignmentColumns,
    DefectColumns,
    StepDefectKind,
)
from pathgrade.io.results.schema import ALIGNED_STEP_FIELDS, DEFECT_FIELDS
from pathgrade.io.results.text import (
    join_per_run,
    joined,
    json_strings,
    text_array,
    text_piece,
)

IntArray = npt.NDArray[np.int64]

#: ``"name":`` of each key a defect or an aligned step may have.
_KEY = {name: orjson.dumps(name) + b":" for name in (*DEFECT_FIELDS, *ALIGNED_STEP_FIELDS)}
#: A template's fields, by the entry text they are filled with.
_FIELDS = ("agent", "reference")


def split_template(template: str) -> tuple[list[str], list[str | None]]:
    """``template`` cut at its fields: ``(literals, fields)`` with three literals and the two
    fields between them (``None``: no field there), so that the template formatted is
    ``literals[0] + f(fields[0]) + literals[1] + f(fields[1]) + literals[2]``.

    >>> split_template("{agent} ran before {reference}, which it depends on")
    (['', ' ran before ', ', which it depends on'], ['agent', 'reference'])
    """
    literals: list[str] = [""]
    fields: list[str | None] = []
    for literal, name, spec, conversion in Formatter().parse(template):
        literals[-1] += literal
        if name is None:
            continue
        if name not in _FIELDS or spec or conversion or len(fields) == 2:
            raise ValueError(f"template {template!r}: only {{agent}} and {{reference}} fields")
        fields.append(name)
        literals.append("")
    while len(fields) < 2:
        fields.append(None)
        literals.append("")
    return literals, fields


def _escaped(text: str) -> bytes:
    """``text`` as the inside of a JSON string (escaping is per character, so pieces
    escaped apart join into the escaped whole)."""
    return orjson.dumps(text)[1:-1]


def _code_tables(kinds: Sequence[StepDefectKind]) -> tuple[list[list[bytes]], list[list[int]]]:
    """Per code: the three constant pieces of its JSON text (before, between and after the
    two gaps of its detail), and which text fills each gap (0: the agent's call, 1: the
    reference's, -1: none)."""
    pieces, gaps = [], []
    for kind in kinds:
        literals, fields = split_template(kind.template)
        head = b'{%s%s,%s%s,%s"' % (
            _KEY["kind"],
            orjson.dumps(kind.kind),
            _KEY["penalty"],
            orjson.dumps(kind.penalty),
            _KEY["detail"],
        )
        escaped = [_escaped(t) for t in literals]
        pieces.append([head + escaped[0], escaped[1], escaped[2] + b'"'])
        gaps.append([-1 if f is None else _FIELDS.index(f) for f in fields])
    return pieces, gaps


def _positions(key: str, positions: IntArray) -> pa.Array:
    """``,"key":N`` for each position ``N`` (``b""`` for -1: the object has no such key)."""
    top = int(positions.max(initial=-1)) + 1
    table = text_array([b""] + [b",%s%d" % (_KEY[key], k) for k in range(top)])
    return table.take(pa.array(positions + 1))


class DefectsText:
    """The JSON text of runs' ``defects`` lists, from :class:`DefectColumns` (each run's coded
    entries in order, then its made defects: their ``to_dict``, as orjson writes it). The
    tables are made once; the text is made for a range of runs at a time."""

    def __init__(self, columns: DefectColumns) -> None:
        self._columns = columns
        pieces, gaps = _code_tables(columns.kinds)
        self._pieces = [text_array([p[k] for p in pieces]) for k in range(3)]
        self._gaps = np.asarray(gaps, np.int64).reshape(len(gaps), 2)
        # The calls' texts inside JSON strings; the last one is empty (no text).
        self._texts = text_array([s[1:-1] for s in json_strings(columns.texts)] + [b""])
        self._made = np.asarray(sorted(columns.made), np.int64)

    def runs(self, start: int, stop: int) -> pa.Array:
        """The text of runs ``start`` to ``stop - 1``."""
        c = self._columns
        lo, hi = np.searchsorted(c.run, [start, stop]).tolist()
        made_lo, made_hi = np.searchsorted(self._made, [start, stop]).tolist()
        made_runs = self._made[made_lo:made_hi]
        if lo == hi and not made_runs.size:
            return text_array([b"[]"] * (stop - start))
        code = c.code[lo:hi]
        gap, none = self._gaps[code], len(c.texts)
        fills = (c.agent_text[lo:hi], c.reference_text[lo:hi])
        gap_texts = []
        for k in range(2):
            source = np.where(gap[:, k] == 0, fills[0], np.where(gap[:, k] == 1, fills[1], -1))
            gap_texts.append(self._texts.take(pa.array(np.where(source < 0, none, source))))
        codes = pa.array(code)
        entries = joined(
            [
                self._pieces[0].take(codes),
                gap_texts[0],
                self._pieces[1].take(codes),
                gap_texts[1],
                self._pieces[2].take(codes),
                _positions("agent_step", c.agent_step[lo:hi]),
                _positions("reference_step", c.reference_step[lo:hi]),
                text_piece(b"}"),
            ]
        )
        dumps = orjson.dumps
        made = [dumps([d.to_dict() for d in c.made[r]])[1:-1] for r in made_runs.tolist()]
        runs = np.concatenate([c.run[lo:hi], made_runs]) - start
        order = np.argsort(runs, kind="stable")  # a run's made defects after its coded ones
        everything = pa.concat_arrays([entries, text_array(made)]).take(pa.array(order))
        return join_per_run(everything, _offsets(runs, stop - start))


_OP_HEADS = {
    op: b'{%s"%s",%s' % (_KEY["op"], op.encode(), _KEY["agent_step"]) for op in ALIGNED_OPS
}
_FLAGS = text_array(
    [
        b",%s%s,%s%s,%s" % (_KEY["tool_match"], t, _KEY["arguments_match"], a, _KEY["agent"])
        for t in (b"false", b"true")
        for a in (b"false", b"true")
    ]
)
_HEADS = text_array([_OP_HEADS[op] for op in ALIGNED_OPS])


class AlignmentText:
    """The JSON text of runs' ``alignment`` lists, from :class:`AlignmentColumns`; the tables
    are made once, the text for a range of runs at a time."""

    def __init__(self, columns: AlignmentColumns) -> None:
        self._columns = columns
        top = max(
            int(columns.agent_step.max(initial=-1)), int(columns.reference_step.max(initial=-1))
        )
        self._digits = text_array([b"null"] + [b"%d" % k for k in range(top + 1)])  # k + 1: k
        self._strings = text_array([b"null", *json_strings(columns.texts)])  # k + 1: text k

    def runs(self, start: int, stop: int) -> pa.Array:
        """The text of runs ``start`` to ``stop - 1`` (``[]`` for a run without entries), of
        those the columns hold."""
        c = self._columns
        lo, hi = np.searchsorted(c.run, [start, stop]).tolist()
        if lo == hi:
            return text_array([b"[]"] * (stop - start))
        digits, strings = self._digits, self._strings
        flags = 2 * c.tool_match[lo:hi].astype(np.int64) + c.arguments_match[lo:hi]
        entries = joined(
            [
                _HEADS.take(pa.array(c.op[lo:hi])),
                digits.take(pa.array(c.agent_step[lo:hi] + 1)),
                text_piece(b"," + _KEY["reference_step"]),
                digits.take(pa.array(c.reference_step[lo:hi] + 1)),
                _FLAGS.take(pa.array(flags)),
                strings.take(pa.array(c.agent_text[lo:hi] + 1)),
                text_piece(b"," + _KEY["reference"]),
                strings.take(pa.array(c.reference_text[lo:hi] + 1)),
                text_piece(b"}"),
            ]
        )
        return join_per_run(entries, _offsets(c.run[lo:hi] - start, stop - start))


def defects_json(columns: DefectColumns) -> pa.Array:
    """The JSON text of every run's ``defects`` list (see :class:`DefectsText`)."""
    return DefectsText(columns).runs(0, columns.n_runs)


def alignment_json(columns: AlignmentColumns) -> pa.Array:
    """The JSON text of the ``alignment`` list of every run the columns hold (see
    :class:`AlignmentText`)."""
    start = columns.first_run
    return AlignmentText(columns).runs(start, start + columns.n_runs)


def _offsets(runs: IntArray, n_runs: int) -> IntArray:
    """Where each run's entries start, for entries grouped by run (``n_runs + 1`` bounds)."""
    offsets = np.zeros(n_runs + 1, np.int64)
    np.cumsum(np.bincount(runs, minlength=n_runs), out=offsets[1:])
    return offsets
