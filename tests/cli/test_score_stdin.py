"""``pathgrade score /dev/stdin runs.jsonl`` with the cases from a pipe (issue 22).

A pipe can be read once: the provenance hash of the cases is taken from the cases as loaded
(the Python API's ``cases_hash``), not by reading the pipe before the loader does; the
partitioned engines, which read the cases in every worker, refuse a pipe in one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from pathgrade.core.provenance import short_hash
from pathgrade.core.record_provenance import cases_hash
from pathgrade.io.cases import load_cases

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _score(*extra: str) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "pathgrade.cli.main", "score", "/dev/stdin"]
    return subprocess.run(
        [*command, str(EXAMPLES / "runs.jsonl"), *extra],
        input=(EXAMPLES / "cases.jsonl").read_bytes(),  # a pipe, not a file redirect
        capture_output=True,
        check=False,
    )


def test_cases_from_a_pipe_are_scored_and_hashed_as_loaded() -> None:
    done = _score("--json")
    assert done.returncode == 0, done.stderr.decode()
    records = orjson.loads(done.stdout)["results"]
    command = [sys.executable, "-m", "pathgrade.cli.main", "score"]
    from_file = subprocess.run(
        [*command, str(EXAMPLES / "cases.jsonl"), str(EXAMPLES / "runs.jsonl"), "--json"],
        capture_output=True,
        check=True,
    )
    expected = orjson.loads(from_file.stdout)["results"]
    # The same scores as from the file ...
    assert [r["metrics"] for r in records] == [r["metrics"] for r in expected]
    # ... and the cases hash of the loaded cases (a file's is the hash of its bytes).
    loaded = load_cases(EXAMPLES / "cases.jsonl").items
    assert {r["provenance"]["cases"] for r in records} == {short_hash(cases_hash(loaded))}
    assert records[0]["provenance"]["cases"] != expected[0]["provenance"]["cases"]


def test_partitioned_scoring_refuses_cases_from_a_pipe_in_one_line() -> None:
    done = _score("--workers", "2")
    assert done.returncode == 2
    message = done.stderr.decode().strip()
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith("pathgrade: error: /dev/stdin: cases from a pipe")
