"""The local engine: partitions scored in this process, or in a pool of worker processes.

At most ``2 * workers`` partitions are in flight, and outputs come back in input order, so
memory is bounded by the partition size, not the input size. The pool's worker processes
are pathgrade's own: each is set up by :func:`~pathgrade.engines.work.init_worker`; the
caller's process, which runs the tasks itself when ``workers <= 1``, is not.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from pathgrade.engines.work import PartitionOutput, ScoreTask, init_worker, run_task


def map_local(tasks: Iterable[ScoreTask], workers: int = 1) -> Iterator[PartitionOutput]:
    """Run ``tasks`` and yield their outputs in order."""
    if workers <= 1:
        yield from map(run_task, tasks)
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=init_worker) as pool:
        window: deque[Future[PartitionOutput]] = deque()
        for task in tasks:
            window.append(pool.submit(run_task, task))
            if len(window) >= 2 * workers:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
