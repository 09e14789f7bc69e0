"""``pathgrade score --json`` on bad input prints nothing on standard output (issue 22): the
partitioned engines used to print ``{"results": [`` before finding a planning error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("engine", [["--workers", "2"], ["--workers", "1"]])
@pytest.mark.parametrize("problem", ["unknown case", "missing runs file"])
def test_a_planning_error_leaves_stdout_empty(
    tmp_path: Path, engine: list[str], problem: str
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"case_id": "a", "reference": ["x"]}\n', encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    if problem == "unknown case":
        runs.write_text('{"case_id": "zz", "steps": ["x"]}\n', encoding="utf-8")
    command = [sys.executable, "-m", "pathgrade.cli.main", "score", str(cases), str(runs)]
    done = subprocess.run([*command, "--json", *engine], capture_output=True, check=False)
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode().count("\n") == 1 and "Traceback" not in done.stderr.decode()
