"""Every loader and config parser, fed random corruptions of its golden files: only a
one-line ``InputError`` may come out, and the in-memory loader and the partition reader
accept the same records with the same lines.

Loaders (``TARGETS``): cases and runs (JSONL and JSON array, in memory, in partitions, the
case index), results files, split inputs, TREC qrels and runs (text and JSONL), parent maps,
tools files, judge chunks, recordings and rubrics, scoring configs and gates files (TOML).
Each gets byte mutations of its golden file (:func:`mutations.mutated_bytes`) and, for JSON
and TOML, mutations of its decoded records (:func:`mutations.mutated_json_documents`).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.io import jsonl, records
from pathgrade.io.case_index import index_cases
from pathgrade.io.cases import load_cases, load_runs, parse_record
from pathgrade.io.config import config_from_mapping, load_config
from pathgrade.io.gates import load_gates, parse_gates
from pathgrade.io.partitions import plan_partitions, read_partition
from pathgrade.io.results import read_results
from pathgrade.io.splits import read_case_objects
from pathgrade.io.tools import load_tools
from pathgrade.io.trec import read_parent_map, read_qrels, read_run
from pathgrade.judge.cache import Recording
from pathgrade.judge.files import load_chunks
from pathgrade.judge.rubric import DEFAULT_RUBRIC, load_rubric

from .mutations import (
    jsonl_with_one_mutated_record,
    mutated_bytes,
    mutated_json_documents,
    only_input_errors,
)

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ROOT / "tests" / "data" / "layers"
GOLDEN = ROOT / "tests" / "golden"


def _read(path: Path, lines: int | None = None) -> bytes:
    data = path.read_bytes()
    return data if lines is None else b"".join(data.splitlines(keepends=True)[:lines])


def _records(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def _every_record(items: Any, parse: Callable[[Any, int], object]) -> None:
    """Parse each ``(line, value)``; a record's ``InputError`` is what skipping would keep."""
    for line, value in items:
        try:
            parse(value, line)
        except InputError as error:
            assert "\n" not in str(error)


def _partitioned(model: type[Case] | type[Run]) -> Callable[[Path], object]:
    def load(path: Path) -> None:
        for part in plan_partitions(path, 2):
            _every_record(
                read_partition(part),
                lambda v, n: parse_record(v, model, file=str(path), line=n),
            )

    return load


def _indexed(path: Path) -> None:
    index = index_cases(path, capacity=2)
    for case_id in list(index.case_ids):
        only_input_errors(lambda c=case_id: index.cases([c]))


def _as_array(data: bytes) -> bytes:
    return json.dumps(_records(data), indent=1, ensure_ascii=False).encode()


@dataclass(frozen=True)
class Target:
    """A loader, its golden file, and how the file's content is decoded into records."""

    name: str
    golden: bytes
    load: Callable[[Path], object]
    form: str = "jsonl"  # "jsonl" (records a line), "json" (one document), "toml" or "text"


CASES = _read(LAYERS / "cases.jsonl") + _read(ROOT / "examples" / "cases.jsonl")
RUNS = _read(LAYERS / "runs.jsonl")
RESULTS = _read(GOLDEN / "results" / "v1.jsonl", 3)
QRELS = _read(GOLDEN / "trec_eval" / "qrels.test", 40)
TREC_RUN = _read(GOLDEN / "trec_eval" / "results.trunc", 40)
QRELS_JSONL = b'{"query_id": "q1", "doc_id": "d1", "relevance": 2}\n' + (
    b'{"query_id": "q2", "gold": {"d1": 1, "d2": 0}}\n{"query_id": "q3", "gold": ["d3"]}\n'
)
RUN_JSONL = b'{"query_id": "q1", "doc_id": "d1", "score": 3.5, "run_id": "r"}\n' + (
    b'{"query_id": "q2", "retrieved": ["d1", {"id": "d2", "score": 1.5}]}\n'
)
RECORDING = (
    b'{"item": "c1/r1", "prompt": "claims@1", "verdict": {"claims": []}}\n'
    b'{"key": "abc", "verdict": {"score": 2}}\n'
)
CHUNKS = _read(ROOT / "tests" / "data" / "judge" / "chunks.jsonl")
RUBRIC = json.dumps(DEFAULT_RUBRIC.model_dump(mode="json")).encode()

TARGETS = [
    Target("cases", CASES, lambda p: load_cases(p)),
    Target("cases skip-invalid", CASES, lambda p: load_cases(p, skip_invalid=True)),
    Target("cases array", _as_array(CASES), lambda p: load_cases(p, skip_invalid=True), "json"),
    Target("cases index", CASES, _indexed),
    Target("cases partitions", CASES, _partitioned(Case)),
    Target("runs", RUNS, lambda p: load_runs(p, {c["case_id"]: c for c in _records(CASES)})),
    Target("runs skip-invalid", RUNS, lambda p: load_runs(p, skip_invalid=True)),
    Target("runs array", _as_array(RUNS), lambda p: load_runs(p, skip_invalid=True), "json"),
    Target("runs partitions", RUNS, _partitioned(Run)),
    Target("results", RESULTS, read_results),
    Target("split cases", CASES, read_case_objects),
    Target("qrels", QRELS, read_qrels, "text"),
    Target("trec run", TREC_RUN, read_run, "text"),
    Target("qrels jsonl", QRELS_JSONL, read_qrels),
    Target("run jsonl", RUN_JSONL, read_run),
    Target("parent map", b"d1#0 d1\n# c\nd1#1 d1\nd2#0 d2\n", read_parent_map, "text"),
    Target("tools", _read(LAYERS / "tools.json"), load_tools, "json"),
    Target("judge chunks", CHUNKS, load_chunks),
    Target("judge recording", RECORDING, Recording.load),
    Target("judge recording array", _as_array(RECORDING), Recording.load, "json"),
    Target("judge chunks array", _as_array(CHUNKS), load_chunks, "json"),
    Target("judge rubric", RUBRIC, load_rubric, "json"),
    Target("config", _read(ROOT / "examples" / "pathgrade.toml"), load_config, "toml"),
    Target("gates", _read(ROOT / "examples" / "gates.toml"), load_gates, "toml"),
]
BY_NAME = {t.name: t for t in TARGETS}

#: The judge's files are read by pathgrade.io.records, whose JSON-array reader is still the
#: stdlib's (a 5,000-digit integer raises ValueError, 1,000 levels RecursionError): their
#: array forms are fuzzed once it is pathgrade.io.jsonl's (the change the issue-22 report
#: asks for), until then skipped.
_JUDGE_ARRAYS = {"judge recording array", "judge chunks array"}
_RECORDS_FIXED = records.iter_records is jsonl.iter_records


def _params(names: list[str]) -> list[Any]:
    skip = pytest.mark.skipif(not _RECORDS_FIXED, reason="io/records.py: stdlib JSON arrays")
    return [pytest.param(n, marks=skip) if n in _JUDGE_ARRAYS else n for n in names]


def _check(target: Target, tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "input"
    path.write_bytes(data)
    only_input_errors(lambda: target.load(path))


@pytest.mark.parametrize("name", _params(list(BY_NAME)))
def test_byte_mutations_give_only_input_errors(
    name: str, tmp_path: Path, fuzz_settings: settings
) -> None:
    target = BY_NAME[name]
    only_input_errors(lambda: target.load(_write(tmp_path, target.golden)))  # golden loads

    @fuzz_settings
    @given(mutated_bytes(target.golden))
    def run(data: bytes) -> None:
        _check(target, tmp_path, data)

    run()


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "golden"
    path.write_bytes(data)
    return path


def test_every_golden_file_loads(tmp_path: Path) -> None:
    """The fuzz starts from valid inputs: each golden file loads without an error."""
    for target in TARGETS:
        if target.name in _JUDGE_ARRAYS and not _RECORDS_FIXED:
            continue
        assert only_input_errors(lambda t=target: t.load(_write(tmp_path, t.golden))) is None


JSON_TARGETS = [t.name for t in TARGETS if t.form in ("jsonl", "json")]


@pytest.mark.parametrize("name", _params(JSON_TARGETS))
def test_record_mutations_give_only_input_errors(
    name: str, tmp_path: Path, fuzz_settings: settings
) -> None:
    """One record (or the document) with a value swapped at a random path: ``true`` for a
    number, 2**63, NaN, 300 levels of nesting, a key removed or added..."""
    target = BY_NAME[name]
    if target.form == "jsonl":
        strategy = jsonl_with_one_mutated_record(_records(target.golden))
    else:
        strategy = mutated_json_documents(json.loads(target.golden)).map(
            lambda doc: json.dumps(doc, ensure_ascii=False).encode()
        )

    @fuzz_settings
    @given(strategy)
    def run(data: bytes) -> None:
        _check(target, tmp_path, data)

    run()


TOML_TARGETS = {
    "config": (BY_NAME["config"].golden, lambda doc: config_from_mapping(doc, file="c.toml")),
    "gates": (BY_NAME["gates"].golden, lambda doc: parse_gates(doc, "g.toml")),
}


@pytest.mark.parametrize("name", list(TOML_TARGETS))
def test_toml_document_mutations_give_only_input_errors(name: str, fuzz_settings: settings) -> None:
    """The parsed TOML document with a value swapped at a random path (what a TOML file can
    hold: no null, but any other type, infinities, NaN, deep arrays)."""
    golden, parse = TOML_TARGETS[name]

    @fuzz_settings
    @given(mutated_json_documents(tomllib.loads(golden.decode())))
    def run(document: Any) -> None:
        if isinstance(document, dict):
            only_input_errors(lambda: parse(document))

    run()


@pytest.mark.parametrize("golden", [CASES, RUNS], ids=["cases", "runs"])
def test_in_memory_and_partitions_read_the_same_records(
    golden: bytes, tmp_path: Path, fuzz_settings: settings
) -> None:
    """Whatever the corruption, the in-memory loader (skipping invalid records) and the
    partition reader keep the same records on the same lines, and skip the same lines."""
    model: type[Case] | type[Run] = Case if golden is CASES else Run

    @fuzz_settings
    @given(mutated_bytes(golden) | jsonl_with_one_mutated_record(_records(golden)))
    def run(data: bytes) -> None:
        path = tmp_path / "input.jsonl"
        path.write_bytes(data)
        try:
            loaded = (load_cases if model is Case else load_runs)(path, skip_invalid=True)
        except InputError:
            return  # empty, unreadable, an array: no records to compare
        kept: list[tuple[int, Any]] = []
        skipped: list[int] = []
        for part in plan_partitions(path, 3):
            for line, value in read_partition(part):
                try:
                    kept.append((line, parse_record(value, model, file=str(path), line=line)))
                except InputError:
                    skipped.append(line)
        duplicates = [e.line for e in loaded.skipped if "duplicate case_id" in e.message]
        assert [line for line, _ in kept] == sorted(loaded.lines + duplicates)
        assert [item for line, item in kept if line not in duplicates] == loaded.items
        assert skipped == [e.line for e in loaded.skipped if e.line not in duplicates]

    run()
