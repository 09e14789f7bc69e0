"""Every recording of this round's producers (``tools/producers/``) is detected as its format
and reads cleanly: nothing skipped, every run writable as a record. What each reads to is
checked in ``test_producers_*.py``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.io.ingest import FORMATS, IngestOptions, detect, run_record

from . import (
    autogen_traceloop_lc_golden,
    llamaindex_crewai_golden,
    pydantic_strands_golden,
    smolagents_dspy_golden,
)

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
FILES: dict[str, str] = {
    **autogen_traceloop_lc_golden.FILES,
    **llamaindex_crewai_golden.FILES,
    **pydantic_strands_golden.FILES,
    **smolagents_dspy_golden.FILES,
}


@pytest.mark.parametrize("name", sorted(FILES), ids=lambda n: Path(n).stem)
def test_detected_and_read_cleanly(name: str) -> None:
    path = GOLDEN / name
    assert detect(path).name == FILES[name]
    options = IngestOptions()
    runs = list(FORMATS[FILES[name]].read(path, options))
    assert runs and options.skipped == []
    for run in runs:
        assert orjson.loads(orjson.dumps(run_record(run)))["case_id"] == run.case_id
