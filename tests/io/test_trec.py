"""TREC and JSONL qrels/run reading: formats, comments, '#' in ids, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.trec import read_parent_map, read_qrels, read_run


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_qrels_with_comments_and_hash_in_doc_id(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "qrels",
        "# a comment\n\n   # indented comment\nq1 0 doc#1_2 2\nq1 0 d2 0\nq2 0 d3 1\n",
    )
    assert read_qrels(path) == {"q1": {"doc#1_2": 2.0, "d2": 0.0}, "q2": {"d3": 1.0}}


def test_run_ignores_rank_and_extra_columns(tmp_path: Path) -> None:
    path = write(
        tmp_path, "run", "q1 Q0 a 1 0.5 tag junk at end\nq1 Q0 b 7 0.9 tag\nq2 Q0 c 1 -1e3 tag\n"
    )
    read = read_run(path)
    assert read.run == {"q1": {"a": 0.5, "b": 0.9}, "q2": {"c": -1000.0}}
    assert read.run_ids == ("tag",)


def test_run_duplicates_first_in_rank_order_or_error(tmp_path: Path) -> None:
    path = write(tmp_path, "run", "q Q0 a 1 0.2 t\nq Q0 a 2 0.9 t\n")
    read = read_run(path)
    assert read.run == {"q": {"a": 0.9}}
    assert read.duplicates == 1
    with pytest.raises(InputError, match=r"run:2: .*listed twice"):
        read_run(path, duplicates="error")


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("q1 0 d1\n", r"qrels:1: expected 4 columns"),
        ("q1 0 d1 1\nq1 0 d1 2\n", r"qrels:2: duplicate judgment"),
        ("q1 0 d1 high\n", r"qrels:1: relevance must be a number"),
    ],
)
def test_bad_qrels_one_line_error(tmp_path: Path, text: str, pattern: str) -> None:
    path = write(tmp_path, "qrels", text)
    with pytest.raises(InputError, match=pattern) as info:
        read_qrels(path)
    assert "\n" not in str(info.value)
    assert info.value.file == str(path)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("q1 Q0 d1 1\n", r"run:1: expected 'qid Q0 docno rank score"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 abc t\n", r"run:2: score must be a number"),
        ("q1 Q0 d1 1 nan t\n", r"run:1: score must be a number"),
    ],
)
def test_bad_run_one_line_error(tmp_path: Path, text: str, pattern: str) -> None:
    with pytest.raises(InputError, match=pattern):
        read_run(write(tmp_path, "run", text))


def test_jsonl_qrels_and_run(tmp_path: Path) -> None:
    qrels = write(
        tmp_path,
        "qrels.jsonl",
        '{"query_id": "q1", "doc_id": "a", "relevance": 2}\n'
        '{"query_id": "q2", "gold": ["b", "c"]}\n'
        '{"query_id": "q3", "gold": {"d": 3}}\n',
    )
    assert read_qrels(qrels) == {"q1": {"a": 2.0}, "q2": {"b": 1.0, "c": 1.0}, "q3": {"d": 3.0}}
    run = write(
        tmp_path,
        "run.jsonl",
        '{"query_id": "q1", "doc_id": "a", "score": 1.5}\n'
        '{"query_id": "q2", "retrieved": ["c", "b"]}\n'
        '{"query_id": "q3", "retrieved": [{"id": "d", "score": 0.1}]}\n',
    )
    assert read_run(run).run == {"q1": {"a": 1.5}, "q2": {"c": 2.0, "b": 1.0}, "q3": {"d": 0.1}}


def test_jsonl_errors_name_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, "qrels.jsonl", '{"query_id": "q1", "gold": ["a"]}\n{"doc_id": "x"}\n')
    with pytest.raises(InputError, match=r"qrels.jsonl:2: field 'query_id'"):
        read_qrels(path)
    bad = write(tmp_path, "run.jsonl", '{"query_id": "q1", "retrieved": ["a"]}\n{oops\n')
    with pytest.raises(InputError, match=r"run.jsonl:2: invalid JSON"):
        read_run(bad)


def test_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_qrels(tmp_path / "nope")


def test_parent_map(tmp_path: Path) -> None:
    path = write(tmp_path, "parents", "# chunk parent\nd1#0 d1\nd1#1 d1\n")
    assert read_parent_map(path) == {"d1#0": "d1", "d1#1": "d1"}
    bad = write(tmp_path, "bad", "c p1\nc p2\n")
    with pytest.raises(InputError, match=r"bad:2: chunk 'c' has two parents"):
        read_parent_map(bad)
