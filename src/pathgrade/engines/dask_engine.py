"""The Dask engine (extra ``pathgrade[dask]``): the same tasks on a ``distributed`` cluster.

``scheduler`` is the address of a running scheduler (``tcp://host:8786``); without one a
``LocalCluster`` of ``workers`` single-threaded worker processes is started for the run and
closed after it. Workers read their partitions from the shared file system, so every
worker must see the input files at the same paths. At most ``4 * workers`` tasks are in
flight; results come back in input order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.engines.work import PartitionOutput, ScoreTask, init_worker, run_task


def map_dask(
    tasks: Iterable[ScoreTask], workers: int = 2, scheduler: str | None = None
) -> Iterator[PartitionOutput]:
    """Run ``tasks`` on a Dask cluster and yield their outputs in order."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError(
            "the dask engine needs the 'dask' extra: pip install 'pathgrade[dask]'",
            field="engine",
        ) from None
    with ExitStack() as stack:
        if scheduler:
            client: Any = stack.enter_context(Client(scheduler))
        else:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=max(1, workers),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
            )
            client = stack.enter_context(Client(cluster))
            # Workers pathgrade started keep the heap memory they free (engines/heap.py).
            client.run(init_worker)
        limit = 4 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        window: deque[Any] = deque()
        for task in tasks:
            window.append(client.submit(run_task, task, pure=False))
            if len(window) >= limit:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
