"""The on-demand case index: same cases as loading the file whole, bounded cache, errors."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from pathgrade.core.errors import InputError
from pathgrade.io import case_index
from pathgrade.io.case_index import index_cases
from pathgrade.io.cases import load_cases


def _write_cases(path: Path, n: int, padding: int = 0) -> None:
    lines = []
    for c in range(n):
        record: dict[str, object] = {"case_id": f"c{c}", "reference": [f"t{c % 5}:a{c}", "send:x"]}
        if padding:
            record["metadata"] = {"pad": "x" * padding}
        lines.append(orjson.dumps(record).decode())
        if c % 7 == 3:
            lines.append("// a comment line, skipped")
            lines.append("")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(("gap", "block"), [(1 << 16, 1 << 24), (0, 1 << 24), (1 << 16, 300)])
def test_cases_equal_whole_file_load_in_any_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gap: int, block: int
) -> None:
    """Whatever the read grouping (one block, one read per record, small blocks), the cache
    size and the request order, each case is the one ``load_cases`` reads."""
    monkeypatch.setattr(case_index, "_GAP", gap)
    monkeypatch.setattr(case_index, "_BLOCK", block)
    path = tmp_path / "cases.jsonl"
    _write_cases(path, 60, padding=50)
    whole = {c.case_id: c for c in load_cases(path).items}
    index = index_cases(path, capacity=8)
    rng = random.Random(3)
    for _ in range(20):
        wanted = rng.sample(sorted(whole), rng.randint(1, 20))
        got = index.cases(wanted + wanted[:2])  # repeats are fine
        assert list(got) == list(dict.fromkeys(wanted))
        assert all(got[c] == whole[c] for c in wanted)
        assert len(index.cache) <= max(8, len(wanted))


def test_positions_and_lines_follow_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    _write_cases(path, 10)
    index = index_cases(path)
    assert list(index.case_ids) == [f"c{c}" for c in range(10)]
    assert index.lines is not None
    text_lines = path.read_text().splitlines()
    for c, line in enumerate(index.lines.tolist()):
        assert orjson.loads(text_lines[line - 1])["case_id"] == f"c{c}"


def test_a_case_that_fails_validation_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"case_id": "a"}\n{"case_id": "b", "order": "sideways"}\n')
    index = index_cases(path)  # indexing reads ids only
    assert index.cases(["a"])["a"].case_id == "a"
    with pytest.raises(InputError) as caught:
        index.cases(["b"])
    assert caught.value.line == 2
    assert caught.value.field == "order"


def test_duplicate_ids_are_an_error_at_indexing(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"case_id": "a"}\n{"case_id": "a"}\n')
    with pytest.raises(InputError, match="duplicate case_id 'a'") as caught:
        index_cases(path)
    assert caught.value.line == 2


@pytest.mark.parametrize(
    ("record", "message", "field"),
    [
        (b'{"case_id": "x", "reference": [', "malformed JSON", None),
        (b'{"case_id": "x",}', "malformed JSON", None),
        (b'["x"]', "expected a JSON object", None),
        (b'{"reference": []}', None, "case_id"),
        (b'{"case_id": 7}', None, "case_id"),
        (b'{"case_id": ""}', None, "case_id"),
        # Fields the index does not keep are still decoded as a worker decodes them
        # (msgspec skips them without these checks).
        (b'{"case_id": "x", "query": "\xff"}', "not UTF-8|malformed JSON", None),
        (b'{"case_id": "x", "metadata": {"n": 1e400}}', "malformed JSON", None),
        (b'{"case_id": "x", "metadata": {"n": -' + b"9" * 400 + b"}}", "malformed JSON", None),
    ],
)
def test_a_bad_record_is_an_error_at_indexing_naming_its_line(
    tmp_path: Path, record: bytes, message: str | None, field: str | None
) -> None:
    """The index reads only ids (msgspec), but reports what a worker decoding the record
    with orjson and validating it would: the same message, line and field."""
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b'{"case_id": "ok"}\n// comment\n' + record + b"\n")
    with pytest.raises(InputError, match=message) as caught:
        index_cases(path)
    assert caught.value.line == 3 and caught.value.file == str(path)
    if field is not None:
        assert caught.value.field == field
    if message == "malformed JSON":
        with pytest.raises(orjson.JSONDecodeError) as decoded:
            orjson.loads(record)
        assert str(decoded.value) in caught.value.message


def test_unanswerable_cases_are_counted_at_indexing(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    lines = [
        b'{"case_id": "a", "answerable": false}',
        b'{"case_id": "b", "answerable": true}',
        b'{"case_id": "c", "metadata": {"answerable": false}}',
        b'{"answerable": false, "case_id": "d"}',
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert index_cases(path).unanswerable == 2
