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


WRITE_PARQUET = """
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
lines = open(sys.argv[1]).read().splitlines()
rows = [json.loads(line) for line in lines]
table = pa.Table.from_pylist([{**r, "steps": json.dumps(r["steps"])} for r in rows])
pq.write_table(table, sys.argv[2], row_group_size=len(rows))
"""


def _as_one_row_group(runs: Path) -> Path:
    """The runs as a Parquet file of one row group (as a writer's default makes for up to
    about a million rows), with ``steps`` as JSON text. Written by another process: a child
    process starts with its parent's resident pages, so the test process stays small."""
    import pyarrow.parquet as pq

    path = runs.with_suffix(".parquet")
    subprocess.run([sys.executable, "-c", WRITE_PARQUET, str(runs), str(path)], check=True)
    assert pq.ParquetFile(path).metadata.num_row_groups == 1
    return path


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_a_parquet_row_group(tmp_path: Path) -> None:
    """A row group larger than a partition is read as a stream of slices, never whole."""
    pytest.importorskip("pyarrow.parquet")
    small_cases, small_runs = _inputs(tmp_path, 3_000)
    _, larger_runs = _inputs(tmp_path, 48_000)
    small = _peak_kib(small_cases, _as_one_row_group(small_runs), 1_000, 3_000)
    large = _peak_kib(small_cases, _as_one_row_group(larger_runs), 1_000, 48_000)
    # Sixteen times the input in one group. Read whole, the group alone adds about half the
    # small peak (measured: 198 -> 293 MiB); streamed, 210-220 -> 245-258 MiB.
    assert large < small * 1.3, (small, large)
