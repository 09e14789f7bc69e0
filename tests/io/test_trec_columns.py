"""The vectorised TREC reader (io/trec_columns.py) against the per-line reader, on random files.

Both readers must agree on every input: the same rows (or mappings), duplicates and run ids,
or the same one-line error with the same line number. Files mix comments, blank lines, CRLF,
tabs and runs of mixed whitespace, extra columns, repeated documents, non-ASCII ids (U+00A0,
U+3000, "é"), ASCII separators (\\x1c, part of an id as in trec_eval), NUL bytes, bad numbers
and a byte order mark; the block size is varied so that lines straddle block boundaries.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io import trec_columns
from pathgrade.io.trec import (
    DuplicatePolicy,
    _qrels_by_line,
    _run_by_line,
    read_qrels,
    read_qrels_columns,
    read_run,
    read_run_columns,
)
from pathgrade.io.trec_columns import QRELS, RUN, read_table

ID_CHARS = st.sampled_from([*"abcXYZ019#_-.", "\u00a0", "\u3000", "é", "\x1c"])
IDS = st.text(ID_CHARS, min_size=1, max_size=12)
PLAIN_NUMBERS = ["0", "1", "2", "-1", "3.5", "0.25", "-0.0", "12.345678", ".5", "7.", "00042"]
OTHER_NUMBERS = ["1e-05", "+2", "1_000", "nan", "inf", "abc", "1e400", "1.2.3", "-", "1\u00a0"]
SPACES = st.text(st.sampled_from([" ", "\t", "\x0b", "\x0c", "\r"]), min_size=1, max_size=3)


@st.composite
def trec_file(draw: st.DrawFn, kind: str) -> tuple[bytes, bool]:
    """(file bytes, whether every line is plain: the vectorised reader must then decide)."""
    queries = draw(st.lists(IDS, min_size=1, max_size=3, unique=True))
    docs = draw(st.lists(IDS, min_size=1, max_size=6, unique=True))
    plain = True
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        shape = draw(st.sampled_from(["data"] * 8 + ["comment", "blank", "odd"]))
        if shape == "comment":
            lines.append(draw(st.sampled_from(["#", "# a comment", "  #x 1 2 3"])))
            continue
        if shape == "blank":
            lines.append(draw(st.sampled_from(["", "  ", "\t\r"])))
            continue
        if draw(st.integers(0, 9)) == 0:
            number = draw(st.sampled_from(OTHER_NUMBERS))
            plain = False
        else:
            number = draw(st.sampled_from(PLAIN_NUMBERS))
        query, doc = draw(st.sampled_from(queries)), draw(st.sampled_from(docs))
        if kind == "qrels":
            fields = [query, "0", doc, number]
        else:
            fields = [query, "Q0", doc, str(draw(st.integers(1, 9))), number]
            fields += draw(st.lists(st.sampled_from(["run1", "run2", "x\u00a0y"]), max_size=2))
        if shape == "odd":
            fields = fields[: draw(st.integers(1, len(fields) - 1))]
            plain = False
        gaps = [draw(SPACES) for _ in fields[1:]]
        text = fields[0] + "".join(g + f for g, f in zip(gaps, fields[1:], strict=True))
        lines.append(
            draw(st.sampled_from(["", " ", "\t"])) + text + draw(st.sampled_from(["", " "]))
        )
    endings = [draw(st.sampled_from(["\n", "\r\n"])) for _ in lines]
    body = "".join(line + end for line, end in zip(lines, endings, strict=True))
    if lines and draw(st.booleans()):
        body = body.rstrip("\n")  # no newline at the end
    data = body.encode()
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 12)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\x00", b"\xff", b"\x07"])) + data[at:]
        plain = False
    if "\x1c" in body:
        plain = False  # a control byte: the per-line reader decides (and keeps it in the id)
    return data, plain


def _outcome(read: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return ("ok", read())
    except InputError as error:
        return ("error", str(error))


SETTINGS = settings(max_examples=250, deadline=None)


@SETTINGS
@given(
    trec_file("run"),
    st.sampled_from([16, 64, 1 << 22]),
    st.sampled_from([None, "48"]),
    st.sampled_from(["first", "error"]),
)
def test_run_readers_agree(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[bytes, bool],
    block: int,
    limit: str | None,
    duplicates: DuplicatePolicy,
) -> None:
    data, plain = case
    path = tmp_path_factory.mktemp("run") / "run.txt"
    path.write_bytes(data)
    env = {} if limit is None else {"PATHGRADE_MAX_LINE_BYTES": limit}
    with mock.patch.dict(os.environ, env), mock.patch.object(trec_columns, "BLOCK_BYTES", block):
        slow = _outcome(lambda: _run_by_line(path, duplicates))
        fast = _outcome(lambda: read_run(path, duplicates=duplicates))
        columns = _outcome(lambda: read_run_columns(path, duplicates=duplicates))
        table = read_table(path, RUN, int(limit or 64 << 20))
    assert fast == slow
    if slow[0] == "error":
        assert columns == slow
        return
    read = slow[1]
    assert columns[0] == "ok"
    got = columns[1]
    assert got.columns.to_mapping("max") == read.run
    assert (got.duplicates, got.run_ids) == (read.duplicates, read.run_ids)
    assert len(got.columns) == sum(map(len, read.run.values()))
    if plain and limit is None:
        assert table is not None  # the vectorised reader decided this file itself


@SETTINGS
@given(trec_file("qrels"), st.sampled_from([16, 64, 1 << 22]), st.sampled_from([None, "40"]))
def test_qrels_readers_agree(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[bytes, bool],
    block: int,
    limit: str | None,
) -> None:
    data, plain = case
    path = tmp_path_factory.mktemp("qrels") / "qrels.txt"
    path.write_bytes(data)
    env = {} if limit is None else {"PATHGRADE_MAX_LINE_BYTES": limit}
    with mock.patch.dict(os.environ, env), mock.patch.object(trec_columns, "BLOCK_BYTES", block):
        slow = _outcome(lambda: _qrels_by_line(path))
        fast = _outcome(lambda: read_qrels(path))
        columns = _outcome(lambda: read_qrels_columns(path))
        table = read_table(path, QRELS, int(limit or 64 << 20))
    assert fast == slow
    if slow[0] == "error":
        assert columns == slow
        return
    assert columns[0] == "ok"
    assert columns[1].to_mapping("error") == slow[1]
    if plain and limit is None:
        assert table is not None


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_ascii_separators_are_part_of_an_id_as_in_trec_eval(tmp_path: Path) -> None:
    """trec_eval splits on C isspace only: \\x1c-\\x1f (str.split's breaks) stay in the id."""
    run = write(tmp_path, "run", b"q1 Q0 c\x1czz 1 9 s\nq1 Q0 d\x1f 2 8 s\n")
    assert read_run(run).run == {"q1": {"c\x1czz": 9.0, "d\x1f": 8.0}}
    qrels = write(tmp_path, "qrels", b"q1 0 c\x1czz 1\n")
    assert read_qrels(qrels) == {"q1": {"c\x1czz": 1.0}}


@pytest.mark.parametrize("space", ["\u00a0", "\u3000"])
def test_unicode_spaces_are_part_of_an_id_in_qrels_and_runs(tmp_path: Path, space: str) -> None:
    """The issue's example: 'q1 Q0 c\\u00a0zz 1 9 s' is doc 'c\\u00a0zz' with score 9."""
    run = write(tmp_path, "run", f"q1 Q0 c{space}zz 1 9 s\n".encode())
    qrels = write(tmp_path, "qrels", f"q1 0 c{space}zz 1\n".encode())
    assert read_run(run).run == {"q1": {f"c{space}zz": 9.0}}
    assert read_qrels(qrels) == {"q1": {f"c{space}zz": 1.0}}
    assert read_table(run, RUN, 1 << 20) is not None  # decided by the vectorised reader
    columns = read_run_columns(run).columns
    assert columns.doc.tolist() == [f"c{space}zz".encode()]


def _lines(count: int, bad_at: int, bad: str) -> bytes:
    """``count`` run lines, line ``bad_at`` (1-based) replaced by ``bad``."""
    rows = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i % 100}.5 tag" for i in range(count)]
    rows[bad_at - 1] = bad
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("q1 Q0 d1 1", "expected 'qid Q0 docno rank score [run_id]', got 4 columns"),
        ("q1 Q0 d1 1 abc tag", "score must be a number, got 'abc'"),
        ("q1 Q0 d1 1 nan tag", "score must be a finite number, got 'nan'"),
        ("q1 Q0 d1 1 1e999 tag", "score must be a finite number, got '1e999'"),
        ("q1 Q0 d1 1 \xff tag", "not UTF-8 text"),
        ("q0 Q0 d0 7 3.5 tag", "document 'd0' listed twice for query 'q0'"),
    ],
)
def test_an_error_deep_in_a_large_file_names_its_line(
    tmp_path: Path, bad: str, message: str
) -> None:
    data = _lines(30_000, 25_001, "@@@").replace(b"@@@", bad.encode("latin-1"))
    path = write(tmp_path, "run", data)
    with mock.patch.object(trec_columns, "BLOCK_BYTES", 1 << 16):  # the error is in block 17+
        with pytest.raises(InputError) as info:
            read_run(path, duplicates="error")
        with pytest.raises(InputError) as columns:
            read_run_columns(path, duplicates="error")
    assert message in str(info.value) and info.value.line == 25_001
    assert str(columns.value) == str(info.value)


def test_a_large_file_without_errors_is_read_by_blocks(tmp_path: Path) -> None:
    """30,000 lines in 64 KiB blocks: the same rows as the per-line reader, one block at a
    time (lines straddle the block boundaries)."""
    rows = [f"q{i // 100}\tQ0  d{i} {i % 100 + 1} {1000 - i % 100}.5 tag\r" for i in range(30_000)]
    path = write(tmp_path, "run", ("\n".join(rows)).encode())
    with mock.patch.object(trec_columns, "BLOCK_BYTES", 1 << 16):
        table = read_table(path, RUN, 1 << 20)
        columns = read_run_columns(path)
    assert table is not None and len(table.rows) == 30_000
    assert columns.columns.to_mapping("max") == _run_by_line(path, "first").run
    assert columns.run_ids == ("tag",)
    assert float(table.rows.value[-1]) == 1000 - 99 + 0.5


def test_a_line_longer_than_a_block_grows_the_block(tmp_path: Path) -> None:
    long_id = "d" * 5_000
    path = write(tmp_path, "run", f"q Q0 a 1 2 t\nq Q0 {long_id} 2 1 t\n".encode())
    with mock.patch.object(trec_columns, "BLOCK_BYTES", 64):
        table = read_table(path, RUN, 1 << 20)
    assert table is not None
    assert table.rows.doc.tolist() == [b"a", long_id.encode()]


def test_ids_too_wide_for_fixed_width_are_bytes_objects(tmp_path: Path) -> None:
    """One 300-byte id among 100 short ones: past the 256 bytes read as words, copied one by
    one; past the fixed-width budget (101 x 304 bytes > 4 x the block's bytes once the floor
    is 0), an object array of bytes. Rows are the same either way."""
    long_id = "x" * 300
    lines = [f"q Q0 d{i} {i} 2 t\n" for i in range(100)] + [f"q Q0 {long_id} 101 1 t\n"]
    path = write(tmp_path, "run", "".join(lines).encode())
    want = [f"d{i}".encode() for i in range(100)] + [long_id.encode()]
    fixed = read_table(path, RUN, 1 << 20)
    assert fixed is not None and fixed.rows.doc.dtype == np.dtype("S304")
    assert fixed.rows.doc.tolist() == want
    with mock.patch.object(trec_columns, "FIXED_WIDTH_BYTES", 0):
        objects = read_table(path, RUN, 1 << 20)
        assert read_run(path).run == _run_by_line(path, "first").run
    assert objects is not None and objects.rows.doc.dtype == object
    assert objects.rows.doc.tolist() == want


def test_a_device_is_left_to_the_per_line_reader() -> None:
    """Not a regular file: the vectorised reader declines without reading (the per-line
    reader then reads it, bounded: test_trec.py reads /dev/zero)."""
    assert read_table("/dev/zero", QRELS, 1 << 20) is None


def test_scores_parse_exactly_as_float_does(tmp_path: Path) -> None:
    """NumPy's bytes-to-float cast is Python's float(): the same double for every form."""
    texts = ["0.1", "1e-05", "-0.0", "3.141592653589793", "1_0", "+7", "2.5E+3", ".5", "5."]
    lines = "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(texts))
    path = write(tmp_path, "run", lines.encode())
    table = read_table(path, RUN, 1 << 20)
    assert table is not None
    values = table.rows.value.tolist()
    assert values == [float(t) for t in texts]
    assert np.signbit(values[2])
