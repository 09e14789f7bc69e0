"""Memory is bounded by the partition size, not the input size (measured, in a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import resource, sys
from pathgrade.engines.runner import evaluate_files
evaluation = evaluate_files(sys.argv[1], sys.argv[2], partition_size=int(sys.argv[3]))
assert evaluation.summary["runs"] == int(sys.argv[4])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _inputs(tmp_path: Path, n_runs: int) -> tuple[Path, Path]:
    cases_path = tmp_path / "cases.jsonl"
    runs_path = tmp_path / f"runs{n_runs}.jsonl"
    reference = [
        {"tool": f"tool{i % 5}", "arguments": {"id": f"X{i}", "note": "x" * 40}} for i in range(10)
    ]
    cases_path.write_text(
        "\n".join(json.dumps({"case_id": f"c{c}", "reference": reference}) for c in range(50))
    )
    with runs_path.open("w") as handle:
        for r in range(n_runs):
            steps = reference[: 5 + r % 6] + reference[:2]
            handle.write(json.dumps({"case_id": f"c{r % 50}", "run_id": str(r), "steps": steps}))
            handle.write("\n")
    return cases_path, runs_path


def _peak_kib(cases: Path, runs: Path, partition: int, n_runs: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(cases), str(runs), str(partition), str(n_runs)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.strip())


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_the_input(tmp_path: Path) -> None:
    small_cases, small_runs = _inputs(tmp_path, 3_000)
    _, large_runs = _inputs(tmp_path, 24_000)
    small = _peak_kib(small_cases, small_runs, 1_000, 3_000)
    large = _peak_kib(small_cases, large_runs, 1_000, 24_000)
    # Eight times the input: with everything in memory the peak would grow by several times
    # the small run's data; partitioned, it stays within a quarter of the small peak.
    assert large < small * 1.25, (small, large)
