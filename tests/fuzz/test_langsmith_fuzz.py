"""Fuzzing the LangSmith reader on the two largest files a real producer wrote.

``producers/langsmith_langgraph_runs.jsonl`` (34 flat runs of a LangGraph agent, about 7,000
JSON paths) and ``producers/langsmith_traceable_trees.json`` (two nested run trees, about
700 paths in one document) are too large for the exhaustive swap of
``test_ingest_fuzz.test_every_path_swapped_to_every_type`` within CI's budget. They get the
same random mutations as the other seeds (bounded, derandomized; ten times more with
``--fuzz-long``), and an exhaustive swap of every field the reader looks into
(:data:`READ_FIELDS`) to every JSON type, on one run of each kind (flat file) or on every run
(trees).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade.io.ingest import IngestOptions, detect, langchain, run_record

from .test_ingest_fuzz import DELETE, GOLDEN, SWAPS, examples, mutated, only_input_errors, put

SEEDS = ["langsmith_langgraph_runs.jsonl", "langsmith_traceable_trees.json"]
#: The fields of a run the reader reads (a path of keys from the run object).
READ_FIELDS: list[tuple[str, ...]] = [
    ("id",),
    ("name",),
    ("run_type",),
    ("parent_run_id",),
    ("trace_id",),
    ("start_time",),
    ("end_time",),
    ("error",),
    ("child_runs",),
    ("inputs",),
    ("inputs", "messages"),
    ("outputs",),
    ("outputs", "output"),
    ("outputs", "answer"),
    ("outputs", "messages"),
    ("outputs", "documents"),
    ("outputs", "generations"),
    ("outputs", "llm_output"),
    ("outputs", "choices"),
    ("outputs", "usage_metadata"),
    ("extra",),
    ("extra", "metadata"),
    ("extra", "metadata", "usage_metadata"),
    ("extra", "tool_call_id"),
]
Where = tuple[int, tuple[Any, ...]]  # (document index, path of keys/indices to a run)


def documents(name: str) -> list[Any]:
    raw = (GOLDEN / "producers" / name).read_bytes()
    if name.endswith(".json"):
        return [orjson.loads(raw)]
    return [orjson.loads(x) for x in raw.splitlines() if x.strip()]


def read_all(path: Path, modes: tuple[bool, ...] = (False, True)) -> None:
    for skip in modes:
        options = IngestOptions(skip_invalid=skip)
        for run in only_input_errors(lambda o=options: list(langchain.read(path, o)), path) or ():
            orjson.dumps(run_record(run))


@pytest.mark.parametrize("name", SEEDS)
def test_random_mutations_raise_only_input_error(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    original = (GOLDEN / "producers" / name).read_bytes()
    path = tmp_path / name
    count, derandomize = examples(request)

    @settings(
        max_examples=max(count // 2, 1),
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def check(data: st.DataObject) -> None:
        put(path, mutated(data, original, whole=name.endswith(".json")))
        only_input_errors(lambda: detect(path), path)
        read_all(path)

    check()


def runs_in(docs: list[Any]) -> list[Where]:
    """Where each run is: the runs of each document, and their child runs, depth first."""
    found: list[Where] = []
    for index, doc in enumerate(docs):
        stack: list[tuple[Any, tuple[Any, ...]]] = [(doc, ())]
        while stack:
            node, at = stack.pop()
            if isinstance(node, list):
                stack.extend((child, (*at, i)) for i, child in enumerate(node))
            elif isinstance(node, dict) and "run_type" in node:
                found.append((index, at))
                stack.extend(
                    (child, (*at, "child_runs", i))
                    for i, child in enumerate(node.get("child_runs") or ())
                )
    return found


def swapped(doc: Any, at: tuple[Any, ...], keys: tuple[str, ...], value: Any) -> Any:
    changed = copy.deepcopy(doc)
    node = changed
    for part in at:
        node = node[part]
    for key in keys[:-1]:
        if not isinstance(node.get(key), dict):
            return changed
        node = node[key]
    if value is DELETE:
        node.pop(keys[-1], None)
    else:
        node[keys[-1]] = value
    return changed


@pytest.mark.parametrize("name", SEEDS)
def test_every_read_field_swapped_to_every_type(name: str, tmp_path: Path) -> None:
    docs = documents(name)
    everywhere = runs_in(docs)
    whole = name.endswith(".json")
    if whole:  # two trees: every run
        targets = everywhere
    else:  # flat runs: one of each (run_type, root or not)
        kinds: dict[tuple[str, bool], Where] = {}
        for index, at in everywhere:
            run = docs[index]
            kinds.setdefault((run["run_type"], run["parent_run_id"] is None), (index, at))
        targets = list(kinds.values())
    assert len(targets) == (8 if whole else 5)  # trees: 2 roots + 6 children
    path = tmp_path / name
    lines = [orjson.dumps(x) + b"\n" for x in docs]  # the unchanged lines, written once
    tried = 0
    for index, at in targets:
        for keys in READ_FIELDS:
            for swap in SWAPS:
                changed = orjson.dumps(swapped(docs[index], at, keys, swap)) + b"\n"
                put(path, b"".join([*lines[:index], changed, *lines[index + 1 :]]))
                read_all(path, modes=(True,))
                tried += 1
    assert tried == len(targets) * len(READ_FIELDS) * len(SWAPS)
