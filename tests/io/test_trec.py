"""TREC and JSONL qrels/run reading: formats, comments, '#' in ids, one-line errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pathgrade.cli.main import main
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
        ("q1 Q0 d1 1 nan t\n", r"run:1: score must be a finite number"),
        ("q1 Q0 d1 1 inf t\n", r"run:1: score must be a finite number"),
        ("q1 Q0 d1 1 -Infinity t\n", r"run:1: score must be a finite number"),
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


def test_a_byte_order_mark_is_not_part_of_the_first_query_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """qrels q1: {d1: 1, d2: 1}, run q1: [d1, d3], both files written with a UTF-8 BOM.
    nDCG@10 = 1 / (1 + 1/log2(3)) = 0.6131; with the BOM kept, the first line of each file
    was query '\\ufeffq1' (gold d1, run d1: 1.0) and q1 scored 0: a mean of 0.5, exit 0."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"\xef\xbb\xbfq1 0 d1 1\nq1 0 d2 1\n")
    run.write_bytes(b"\xef\xbb\xbfq1 Q0 d1 1 2.0 sys\nq1 Q0 d3 2 1.0 sys\n")
    assert read_qrels(qrels) == {"q1": {"d1": 1.0, "d2": 1.0}}
    assert read_run(run).run == {"q1": {"d1": 2.0, "d3": 1.0}}
    assert main(["retrieval", str(qrels), str(run), "-m", "ndcg@10", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["ndcg@10"] == pytest.approx(1 / (1 + 1 / math.log2(3)))  # 0.6131
    golden = Path(__file__).parents[1] / "golden" / "trec_eval" / "qrels.test"
    with_bom = tmp_path / "qrels.test"
    with_bom.write_bytes(b"\xef\xbb\xbf" + golden.read_bytes())
    assert read_qrels(with_bom) == read_qrels(golden)
    jsonl = write(tmp_path, "q.jsonl", '{"query_id": "q1", "gold": ["d1"]}\n')
    jsonl.write_bytes(b"\xef\xbb\xbf" + jsonl.read_bytes())
    assert read_qrels(jsonl) == {"q1": {"d1": 1.0}}


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "\xef\xbb\xbf"])
def test_empty_qrels_and_run_files_are_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError, match="no judgments: the qrels file is empty"):
        read_qrels(empty)
    with pytest.raises(InputError, match="no results: the run file is empty"):
        read_run(empty)
    golden = Path(__file__).parents[1] / "golden" / "trec_eval"
    for argv in (
        [str(empty), str(golden / "results.trunc")],
        [str(golden / "qrels.test"), str(empty)],
    ):
        assert main(["retrieval", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(empty) in err and "Traceback" not in err


def test_trec_lines_are_bounded_and_split_on_newlines_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, "qrels", "q1 0 d\u20281 1\nq1 0 d2\t1\r\n")
    assert read_qrels(path) == {"q1": {"d\u20281": 1.0, "d2": 1.0}}
    # a no-break space inside a docno does not shift the score column (was: docno 'd', 1.0)
    run = write(tmp_path, "run", "q1 Q0 d\xa0x 1 2.5 sys\n")
    assert read_run(run).run == {"q1": {"d\xa0x": 2.5}}
    monkeypatch.setenv("PATHGRADE_MAX_LINE_BYTES", "1000")
    with pytest.raises(InputError, match="line longer than 1,000 bytes") as info:
        read_qrels("/dev/zero")
    assert info.value.line == 1
    bad = tmp_path / "latin1"
    bad.write_bytes(b"q1 0 d1 1\nq1 0 caf\xe9 1\n")
    with pytest.raises(InputError, match="not UTF-8") as info:
        read_qrels(bad)
    assert info.value.line == 2


GOLDEN = Path(__file__).parents[1] / "golden" / "trec_eval"
GOLDEN_PAIRS = [
    ("qrels.test", "results.test"),
    ("qrels.test", "results.trunc"),
    ("qrels.rel_level", "results.test"),
    ("qrels.comment.test.gz", "results.comment.judged.gz"),
]


@pytest.mark.parametrize(("qrels_name", "run_name"), GOLDEN_PAIRS)
def test_trec_eval_test_files_read_by_columns_as_by_dicts(
    tmp_path: Path, qrels_name: str, run_name: str
) -> None:
    """trec_eval's own test files: the vectorised reader decides each (no fall-back), and the
    column path (read_*_columns, from_columns) gives every per-query value of the dict path
    (whose values test_trec_eval_conformance.py checks against trec_eval's outputs)."""
    import gzip

    from pathgrade.io.trec import read_qrels_columns, read_run_columns
    from pathgrade.io.trec_columns import QRELS, RUN, read_table
    from pathgrade.metrics.retrieval import evaluate, evaluate_batch
    from pathgrade.metrics.retrieval.batch_columns import from_columns

    paths = []
    for name in (qrels_name, run_name):
        data = (GOLDEN / name).read_bytes()
        path = tmp_path / name.removesuffix(".gz")
        path.write_bytes(gzip.decompress(data) if name.endswith(".gz") else data)
        paths.append(path)
    qrels_path, run_path = paths
    assert read_table(qrels_path, QRELS, 1 << 20) is not None
    assert read_table(run_path, RUN, 1 << 20) is not None
    specs = ["map", "ndcg@10(gain=linear)", "recall@100", "mrr", "precision@5(rel=2)"]
    run = read_run_columns(run_path)
    by_columns = evaluate_batch(from_columns(read_qrels_columns(qrels_path), run.columns), specs)
    by_dicts = evaluate(read_qrels(qrels_path), read_run(run_path).run, specs)
    assert by_columns.to_dict() == by_dicts.to_dict()
    assert run.run_ids == read_run(run_path).run_ids and len(run.run_ids) == 1


def test_column_readers_read_jsonl_too(tmp_path: Path) -> None:
    from pathgrade.io.trec import read_qrels_columns, read_run_columns

    qrels = write(tmp_path, "q.jsonl", '{"query_id": "q1", "gold": {"a": 2, "b": 1}}\n')
    run = write(tmp_path, "r.jsonl", '{"query_id": "q1", "retrieved": ["b", "c", "b"]}\n')
    assert read_qrels_columns(qrels).to_mapping("error") == {"q1": {"a": 2.0, "b": 1.0}}
    read = read_run_columns(run)
    # "b" listed twice: the higher score (n - position: 3 for the first) is kept and counted
    assert read.columns.to_mapping("max") == {"q1": {"b": 3.0, "c": 2.0}}
    assert read.duplicates == 1
