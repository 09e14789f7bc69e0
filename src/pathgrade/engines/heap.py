"""Let a worker process keep the heap memory it frees, for its next partition.

Each partition allocates and frees tens of MiB: the partition's bytes, the decoded records,
the result records. With glibc's default settings, ``malloc`` gives large blocks their own
mappings and trims the top of the heap as soon as it is free, so each partition maps its
memory again, and the kernel faults every page in afresh. On the benchmark VM that was
about 3 page faults and 7-14 µs of system time per run scored (a worker's CPU is
150-250 µs per run). Raising the mmap and trim thresholds keeps freed memory in the process:
0.01 faults per run and 1.4-3 µs of system time.

What the process keeps is what one partition needs, so peak memory is still bounded by the
partition size. Only glibc has ``mallopt``; elsewhere (musl, macOS) nothing changes.

The settings last as long as the process, so they are applied only in worker processes that
pathgrade starts (by :func:`pathgrade.engines.work.init_worker`), never in a caller's process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

# glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3

#: Blocks up to this size come from the heap, not from mappings of their own (glibc's
#: largest allowed value on 64-bit systems is 32 MiB).
MMAP_THRESHOLD = 32 << 20
#: The heap top is returned to the system only when this much of it is free.
TRIM_THRESHOLD = 64 << 20
#: Extra heap obtained with each extension, so growing it is rarer.
TOP_PAD = 8 << 20


@cache
def keep_freed_memory() -> bool:
    """Apply the settings above to this process, once; False where ``mallopt`` is absent
    or refuses them (not glibc)."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(
        mallopt(parameter, value) == 1
        for parameter, value in (
            (_M_MMAP_THRESHOLD, MMAP_THRESHOLD),
            (_M_TRIM_THRESHOLD, TRIM_THRESHOLD),
            (_M_TOP_PAD, TOP_PAD),
        )
    )
