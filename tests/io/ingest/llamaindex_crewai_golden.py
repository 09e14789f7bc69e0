"""The LlamaIndex and CrewAI producer files (``tools/producers/llamaindex_trace.py``,
``crewai_trace.py``): checked one reading at a time, known reader gaps marked xfail, by
``test_producers_llamaindex_crewai.py``."""

from __future__ import annotations

#: file (under tests/golden/ingest) -> the format it is written in
FILES: dict[str, str] = {
    "producers/llamaindex_openinference.jsonl": "openinference",
    "producers/crewai_openinference.jsonl": "openinference",
}
