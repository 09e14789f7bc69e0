"""The golden trace files of ``tests/golden/ingest`` (the fuzz seeds) read to known runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.core.types import Run
from pathgrade.io.ingest import FORMATS, IngestOptions, detect, run_record

from .agents_langfuse_golden import EXPECTED as AGENTS_LANGFUSE_EXPECTED
from .autogen_traceloop_lc_golden import FILES as AUTOGEN_TRACELOOP_LC_FILES
from .inspect_adk_golden import EXPECTED as INSPECT_ADK_EXPECTED
from .langsmith_golden import EXPECTED as LANGSMITH_EXPECTED
from .llamaindex_crewai_golden import FILES as LLAMAINDEX_CREWAI_FILES
from .openinference_golden import EXPECTED as OPENINFERENCE_EXPECTED
from .otel_golden import EXPECTED as OTEL_EXPECTED
from .pydantic_strands_golden import FILES as PYDANTIC_STRANDS_FILES
from .smolagents_dspy_golden import FILES as SMOLAGENTS_DSPY_FILES

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
                    # the retrieval span is a step: its name, the document ids as output
                    ("retrieval", {}, ["kb-1", "kb-2"], None),
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
                    ("span", {}, ["d1", "d2"], None),  # the RETRIEVER span (named "span")
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
        [
            (
                "kb-7",
                [
                    ("retrieve", {}, ["d1", "d2"], None),  # the RETRIEVER span is a step
                    ("count", ["d1", "d2"], {"n": 2}, "too many"),
                ],
                "Two documents.",
                99.0,
                0.003,
            )
        ],
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
                    ("kb", {}, ["p1"], None),  # the retriever run is a step
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
    # Real: 3 runs of tau-bench's own historical_trajectories/gpt-4o-airline.json (MIT).
    "producers/tau_bench/gpt-4o-airline.json": (
        "tau-bench-results",
        True,
        [
            (
                "tau_bench/airline/test/15",
                [
                    (
                        "get_user_details",
                        {"user_id": "james_patel_9828"},
                        {
                            "name": {"first_name": "James", "last_name": "Patel"},
                            "address": {
                                "address1": "656 River Road",
                                "address2": "Suite 768",
                                "city": "Los Angeles",
                                "country": "USA",
                                "province": "CA",
                                "zip": "90357",
                            },
                            "email": "james.patel1360@example.com",
                            "dob": "1995-04-07",
                            "payment_methods": {
                                "gift_card_1642017": {
                                    "source": "gift_card",
                                    "amount": 128,
                                    "id": "gift_card_1642017",
                                }
                            },
                            "saved_passengers": [
                                {
                                    "first_name": "James",
                                    "last_name": "Sanchez",
                                    "dob": "1956-08-18",
                                },
                                {"first_name": "Ava", "last_name": "Rossi", "dob": "1973-11-14"},
                            ],
                            "membership": "gold",
                            "reservations": ["AAVMM8", "MQHHT6", "GV1N64"],
                        },
                        None,
                    ),
                    (
                        "get_reservation_details",
                        {"reservation_id": "GV1N64"},
                        {
                            "reservation_id": "GV1N64",
                            "user_id": "james_patel_9828",
                            "origin": "LAS",
                            "destination": "DEN",
                            "flight_type": "round_trip",
                            "cabin": "business",
                            "flights": [
                                {
                                    "origin": "LAS",
                                    "destination": "DEN",
                                    "flight_number": "HAT003",
                                    "date": "2024-05-19",
                                    "price": 561,
                                },
                                {
                                    "origin": "DEN",
                                    "destination": "LAS",
                                    "flight_number": "HAT290",
                                    "date": "2024-05-20",
                                    "price": 1339,
                                },
                            ],
                            "passengers": [
                                {"first_name": "James", "last_name": "Patel", "dob": "1995-04-07"},
                                {
                                    "first_name": "James",
                                    "last_name": "Sanchez",
                                    "dob": "1956-08-18",
                                },
                                {
                                    "first_name": "Sophia",
                                    "last_name": "Johansson",
                                    "dob": "1993-07-11",
                                },
                            ],
                            "payment_history": [
                                {"payment_id": "gift_card_1642017", "amount": 5700}
                            ],
                            "created_at": "2024-05-03T05:35:00",
                            "total_baggages": 3,
                            "nonfree_baggages": 0,
                            "insurance": "no",
                        },
                        None,
                    ),
                    (
                        "update_reservation_flights",
                        {
                            "reservation_id": "GV1N64",
                            "cabin": "economy",
                            "flights": [
                                {"flight_number": "HAT003", "date": "2024-05-19"},
                                {"flight_number": "HAT290", "date": "2024-05-20"},
                            ],
                            "payment_id": "gift_card_1642017",
                        },
                        # a tool result beginning "Error" is the step's error
                        "Error: not enough seats on flight HAT290",
                        "Error: not enough seats on flight HAT290",
                    ),
                ],
                "You're welcome. If you have any other questions or need further assistance in the"
                " future, feel free to reach out. Have a great day!",
                None,
                None,
            ),
            (
                "tau_bench/airline/test/37",
                [
                    (
                        "transfer_to_human_agents",
                        {
                            "summary": "Mei Brown, a Gold member, is requesting higher compensation"
                            " for a delayed flight (HAT045 from PHX to SEA) that will cause her to"
                            " miss an important meeting. She is seeking a more substantial"
                            " compensation than the $50 certificate per passenger offered."
                        },
                        "Transfer successful",
                        None,
                    )
                ],
                # the text of the assistant message that also made the call
                "I can transfer you to a human agent who may be able to assist you further with"
                " your request for a higher value certificate or other compensation options."
                " Please hold on while I transfer your request.",
                None,
                None,
            ),
            (
                "tau_bench/airline/test/44",
                [],
                "Certainly! As a gold member, here is the total number of free checked bags you"
                " can take per passenger based on your cabin class:\n\n- **Basic Economy:** 2"
                " bags\n- **Economy:** 3 bags\n- **Business:** 3 bags\n\nIf you need to take"
                " more than these numbers, each additional bag will cost $50.",
                None,
                None,
            ),
        ],
    ),
}
EXPECTED.update(OPENINFERENCE_EXPECTED)  # OpenInference / Phoenix files
EXPECTED.update(AGENTS_LANGFUSE_EXPECTED)  # OpenAI Agents SDK / Langfuse files
EXPECTED.update(INSPECT_ADK_EXPECTED)  # Inspect AI / Google ADK files
EXPECTED.update(LANGSMITH_EXPECTED)  # LangSmith / LangChain producer files
EXPECTED.update(OTEL_EXPECTED)  # OTel GenAI / MCP / OpenLLMetry files


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
    # Files in folders (producers/...) by their path; READMEs and licence texts are not traces.
    files = [p for p in GOLDEN.rglob("*") if p.is_file() and p.suffix != ".md"]
    listed = [str(p.relative_to(GOLDEN)) for p in files if p.name not in ("LICENSE", "NOTICE")]
    # the Pydantic AI / Strands and LlamaIndex / CrewAI files are checked one reading at a
    # time, known reader gaps marked xfail, by test_producers_pydantic_strands.py and
    # test_producers_llamaindex_crewai.py (smolagents / DSPy: test_producers_smolagents_dspy.py)
    checked_alone = [*PYDANTIC_STRANDS_FILES, *LLAMAINDEX_CREWAI_FILES, *SMOLAGENTS_DSPY_FILES]
    # AutoGen / Traceloop LangChain: test_producers_autogen_traceloop_lc.py
    checked_alone += list(AUTOGEN_TRACELOOP_LC_FILES)
    assert sorted(listed) == sorted([*EXPECTED, *checked_alone])


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
