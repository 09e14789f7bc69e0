"""Broken span structure in the real producers' recordings: parent ids in a cycle, a span's
parent pointing at itself, duplicated span ids, an enormous attribute value. Each gives runs
or a one-line :class:`InputError` naming the file, never a traceback or a hang."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import FORMATS, detect, run_record

PRODUCERS = Path(__file__).resolve().parents[1] / "golden" / "ingest" / "producers"
FILES = [
    "autogen_openinference.jsonl",
    "autogen_otel.jsonl",
    "crewai_openinference.jsonl",
    "pydantic_ai_otel.jsonl",
    "pydantic_ai_openinference.jsonl",
    "strands_otel.jsonl",
    "traceloop_langchain.jsonl",
]
Record = dict[str, Any]


def _spans(record: Record) -> list[Record]:
    return [s for r in record["resourceSpans"] for sc in r["scopeSpans"] for s in sc["spans"]]


def cycle(record: Record) -> None:
    """The first two spans each other's parent, the third its own."""
    a, b, c = _spans(record)[:3]
    a["parentSpanId"], b["parentSpanId"] = b["spanId"], a["spanId"]
    c["parentSpanId"] = c["spanId"]


def duplicate_ids(record: Record) -> None:
    """Every other span takes the id of the span before it."""
    spans = _spans(record)
    for before, span in zip(spans[::2], spans[1::2], strict=False):
        span["spanId"] = before["spanId"]


def enormous_value(record: Record) -> None:
    """An 8 MB attribute value on every tenth span."""
    for span in _spans(record)[::10]:
        value = {"stringValue": "x" * 8_000_000}
        span.setdefault("attributes", []).append({"key": "output.value", "value": value})


def all_parentless(record: Record) -> None:
    """Every span a root."""
    for span in _spans(record):
        span.pop("parentSpanId", None)


MUTATIONS: dict[str, Callable[[Record], None]] = {
    "cycle": cycle,
    "duplicate_ids": duplicate_ids,
    "enormous_value": enormous_value,
    "all_parentless": all_parentless,
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
@pytest.mark.parametrize("name", FILES)
def test_broken_structure_gives_runs_or_one_line(name: str, mutation: str, tmp_path: Path) -> None:
    lines = (PRODUCERS / name).read_text().splitlines()
    out = []
    for line in lines:
        record = json.loads(line)
        MUTATIONS[mutation](record)
        out.append(json.dumps(record))
    path = tmp_path / name
    path.write_text("\n".join(out) + "\n")
    fmt = FORMATS[detect(path).name]
    try:
        runs = list(fmt.read(path, None))
    except InputError as error:
        text = str(error)
        assert "\n" not in text and name in text
        return
    for run in runs:
        json.dumps(run_record(run))
