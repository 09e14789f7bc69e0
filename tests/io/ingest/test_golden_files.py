"""The golden trace files of ``tests/golden/ingest`` (the fuzz seeds) read to known runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.core.types import Run
from pathgrade.io.ingest import FORMATS, IngestOptions, detect, run_record

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
#: file -> (format, detected?, per run: case id, [(tool, arguments, output, error)], answer,
#: tokens, cost). The numbers are those of the reader tests the files come from.
EXPECTED: dict[str, tuple[str, bool, list[tuple[Any, ...]]]] = {
    "otel_genai.jsonl": (
        "otel-genai",
        True,
        # tokens 120 + 160 (old names) + 10 = 290
        [
            (
                "case-7",
                [
                    ("policy", {}, None, None),
                    ("lookup", {"order": "A17"}, {"status": "paid"}, None),
                    ("refund", ["A17"], None, "payment gateway timeout"),
                ],
                "Refunded A17.",
                290.0,
                None,
            )
        ],
    ),
    "otel_genai_names_only.jsonl": (
        "otel-genai",
        True,
        [("c2", [("search", {}, None, None), ("fetch", {}, None, None)], None, None, None)],
    ),
    "openinference_otlp.jsonl": (
        "openinference",
        True,
        # tokens 30 + 12 = 42
        [
            (
                "capital",
                [
                    ("search", {"q": "capital of France"}, "Paris is...", None),
                    ("note", {}, None, None),
                    ("save", {"key": "capital", "value": "Paris"}, None, None),
                ],
                "Paris",
                42.0,
                0.002,
            )
        ],
    ),
    "openinference_flat.jsonl": (
        "openinference",
        False,
        [
            (
                "0af7651916cd43dd8448eb211c80319c",
                [("lookup", {"id": 3}, None, "not found")],
                None,
                None,
                None,
            )
        ],
    ),
    "openinference_flat_array.json": (
        "openinference",
        True,
        # cost 0.001 + 0.002 = 0.003 (prompt + completion: no total)
        [("kb-7", [("count", ["d1", "d2"], {"n": 2}, "too many")], "Two documents.", 99.0, 0.003)],
    ),
    "langchain_messages.jsonl": (
        "langchain",
        True,
        # tokens 55 + 20 = 75
        [
            (
                "c7",
                [
                    ("get_order", {"id": 7}, {"status": "pending"}, None),
                    ("get_user", {}, "boom", "boom"),
                ],
                "Order 7 is cancelled.",
                75.0,
                None,
            )
        ],
    ),
    "langsmith_run_tree.jsonl": (
        "langchain",
        True,
        [
            (
                "task-3",
                [
                    ("lookup", {"order": 7}, "found", None),
                    ("refund", {"order": 7, "amount": 10.5}, None, "declined"),
                ],
                "Done.",
                120.0,
                0.01,
            )
        ],
    ),
    "openai_messages.jsonl": (
        "openai-messages",
        True,
        # tokens 300 + 40 = 340
        [
            (
                "weather-1",
                [
                    ("weather", {"city": "Paris"}, {"temp": 18}, None),
                    ("weather", {"city": "Rome"}, {"temp": 21}, None),
                    ("now", {}, "12:00", None),
                ],
                "Paris 18, Rome 21.",
                340.0,
                None,
            )
        ],
    ),
    "openai_messages_array.json": (
        "openai-messages",
        True,
        [("openai_messages_array.json:1", [("f", {}, None, None)], None, None, None)],
    ),
    "openai_messages_legacy.jsonl": (
        "openai-messages",
        True,
        [
            ("c-legacy", [("clock", {"tz": "UTC"}, "12:00", None)], "It is noon.", 12.0, None),
            ("openai_messages_legacy.jsonl:2", [("f", [7], [1, 2], None)], None, None, None),
            ("openai_messages_legacy.jsonl:2#1", [], "hello", None, None),
        ],
    ),
    "tau_bench.jsonl": (
        "tau-bench",
        True,
        [
            (
                "tau/0",
                [
                    (
                        "get_reservation_details",
                        {"reservation_id": "Z"},
                        None,
                        "tool result began with 'Error'",
                    ),
                    ("cancel_reservation", {"reservation_id": "Z"}, None, None),
                ],
                None,
                None,
                None,
            )
        ],
    ),
}


def summary(run: Run) -> tuple[Any, ...]:
    steps = [(s.tool, s.arguments, s.output, s.error) for s in run.steps]
    usage = run.usage
    return (
        run.case_id,
        steps,
        run.answer,
        usage.tokens if usage else None,
        pytest.approx(usage.cost) if usage and usage.cost is not None else None,
    )


def test_every_golden_file_is_listed() -> None:
    assert sorted(p.name for p in GOLDEN.iterdir() if p.suffix != ".md") == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_file_reads_to_its_runs(name: str) -> None:
    fmt, sniffed, expected = EXPECTED[name]
    path = GOLDEN / name
    if sniffed:
        assert detect(path).name == fmt
    options = IngestOptions()
    runs = list(FORMATS[fmt].read(path, options))
    assert [summary(r) for r in runs] == expected
    assert options.skipped == []
    for run in runs:  # each run can be written back
        assert orjson.loads(orjson.dumps(run_record(run)))["case_id"] == run.case_id
