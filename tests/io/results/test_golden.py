"""Golden results files (tests/golden/results): a file of the current schema_version reads
back, field for field and byte for byte; a record of a newer version is refused on one line
naming the file, the line and ``schema_version``."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from pathgrade.cli.main import main
from pathgrade.core.errors import InputError
from pathgrade.io.results import SCHEMA_VERSION, ResultRecord, read_results, write_results
from pathgrade.io.results.schema import RECORD_FIELDS

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "results"
V1, V2 = GOLDEN / "v1.jsonl", GOLDEN / "v2.jsonl"


def test_v1_file_reads_back(tmp_path: Path) -> None:
    records = read_results(V1)
    assert SCHEMA_VERSION == 1
    assert len(records) == 8  # examples/runs.jsonl: 8 runs
    for record in records:
        # Every field but provenance, added later as optional (the version kept): a v1
        # record without it reads, its provenance unknown.
        assert RECORD_FIELDS[-1] == "provenance"
        # reference_branch (issue 23) is written only for a grammar reference, conversation
        # only for a run with turns.
        optional = ("reference_branch", "conversation")
        assert tuple(record) == tuple(f for f in RECORD_FIELDS[:-1] if f not in optional)
        assert record["schema_version"] == 1
        msgspec.convert(record, ResultRecord)  # every field as the schema types it
    by_run = {r["run_id"]: r for r in records}
    # refund-A17, run B: lookup_order twice (10 points) and 5 steps over a budget of 4 (20)
    assert by_run["B"]["metrics"]["path_score"] == 70.0
    assert [d["kind"] for d in by_run["B"]["defects"]] == ["wasted_step", "over_budget"]
    assert by_run["B"]["defects"][1]["budgets"] == ["steps"]
    # written again from the objects read: the same bytes (nothing lost or converted)
    again = tmp_path / "again.jsonl"
    assert write_results(again, records) == 8
    assert again.read_bytes() == V1.read_bytes()


def test_newer_version_fails_cleanly() -> None:
    with pytest.raises(InputError) as caught:
        read_results(V2)
    error = caught.value
    assert (error.file, error.line, error.field) == (str(V2), 2, "schema_version")
    assert str(error) == (
        f"{V2}:2: field 'schema_version': unsupported schema_version 2 (this pathgrade reads"
        " up to 1; upgrade pathgrade)"
    )


def test_newer_version_fails_cleanly_in_a_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["runs", "add", "future", str(V2), "--store", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{V2}:2: field 'schema_version': unsupported schema_version 2" in err
