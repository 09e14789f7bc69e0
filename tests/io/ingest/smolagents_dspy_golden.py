"""The smolagents and DSPy producer files (``tools/producers/smolagents_trace.py``,
``dspy_trace.py``): checked one reading at a time, known reader gaps marked xfail, by
``test_producers_smolagents_dspy.py``."""

from __future__ import annotations

#: file (under tests/golden/ingest) -> the format it is written in
FILES: dict[str, str] = {
    "producers/smolagents_openinference.jsonl": "openinference",
    "producers/dspy_openinference.jsonl": "openinference",
}
