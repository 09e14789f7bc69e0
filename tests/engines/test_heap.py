"""A worker keeps the heap memory it frees: allocating the same large blocks again faults
no pages in (glibc only; counted by the kernel, not timed). Each check runs in a child
process: the settings would otherwise stay in the test process."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHILD = """
import resource, sys
from pathgrade.engines.heap import keep_freed_memory
applied = keep_freed_memory() if sys.argv[1] == "keep" else None
def partition():
    blocks = [b"x" * (300_000 + 1_000 * k) for k in range(100)]  # about 35 MiB
    del blocks
partition()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    partition()
print(applied, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, check=True
    ).stdout.split()
    return out[0], int(out[1])


def test_freed_blocks_are_reused_without_page_faults() -> None:
    applied, kept = _faults("keep")
    if applied != "True":
        pytest.skip("mallopt needs glibc")
    _, default = _faults("default")
    # Five partitions of ~35 MiB are ~45,000 pages: by default they are mapped and faulted
    # in again each time; kept, they are reused from the heap.
    assert default > 20_000
    assert kept < 1_000


def test_applying_twice_is_harmless() -> None:
    code = "from pathgrade.engines.heap import keep_freed_memory as k; print(k() == k())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
