"""Bulk creation of many small objects (validating a file's records) without the cyclic GC.

CPython's cyclic garbage collector runs after every ~700 net container allocations, and
each full collection scans every live container; building millions of model objects in one
go makes it re-scan the ones already built, over and over. Validated records hold no
reference cycles, so pausing it while they are built loses nothing: it is restored (if it
was enabled) when the block ends, and collects then whatever cycles remain. Measured on
40,000 runs of 10 steps (decoded and validated): 72 µs a run with the collector running,
26 µs with it paused; loading the 100,000-run benchmark files fell from 12-16 s to 6.8 s.

Pausing the collector is a change to the whole process (every thread of it) while the block
runs, so a library call never does it on its own: the public functions take
``gc_pause=False`` and pause only when their caller opts in. The ``pathgrade`` command (a
process pathgrade owns) opts in, and so do the worker processes pathgrade starts
(:func:`pathgrade.engines.work.init_worker`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(active: bool = True) -> Iterator[None]:
    """With ``active``, disable the cyclic garbage collector for the block and restore its
    previous state afterwards; without it, leave the collector alone."""
    if not active:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
