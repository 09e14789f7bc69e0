"""How scoring work is mapped: ``local`` (default, in process or a process pool) or ``dask``.

Every engine maps the same :class:`~pathgrade.engines.work.ScoreTask` over the same
partitions and merges the same partial summaries in input order, so results are identical.
"""
