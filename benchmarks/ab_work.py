"""One timed piece of in-process work for ``benchmarks/ab.py``, run against one source tree.

``ab.py`` starts this script in a subprocess whose ``PYTHONPATH`` puts the tree under test
first (the base commit's checkout or the head's), so the same script times either version.
It uses only the API both versions have (``pathgrade.score``, ``pathgrade.io.cases``,
``pathgrade.io.config``, ``pathgrade.io.step_pool``) and opts in to the GC pause the CLI uses
where the version has the keyword (older versions paused it unasked).

Usage: ``python ab_work.py {load|score} DATA_DIR REPEAT``. ``DATA_DIR`` holds ``cases.jsonl``,
``runs.jsonl`` and optionally ``pathgrade.toml``. Prints one JSON object: the best CPU and wall
seconds of ``REPEAT`` repetitions and the number of runs.

- ``load``: ``load_cases`` and ``load_runs`` of both files into one step pool, as
  ``pathgrade score`` loads them;
- ``score``: the files are loaded once (not timed), ``score`` is warmed on 200 runs, then
  every run is scored (all layers the data has labels for), best of ``REPEAT``.
"""

from __future__ import annotations

import inspect
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _opt_in(function: Callable[..., Any]) -> dict[str, Any]:
    """``{"gc_pause": True}`` where ``function`` takes it (the CLI's behaviour)."""
    return {"gc_pause": True} if "gc_pause" in inspect.signature(function).parameters else {}


def _load(data: Path) -> tuple[list[Any], list[Any]]:
    from pathgrade.io.cases import load_cases, load_runs
    from pathgrade.io.step_pool import StepPool

    pool = StepPool()
    cases = load_cases(data / "cases.jsonl", pool=pool, **_opt_in(load_cases)).items
    runs = load_runs(data / "runs.jsonl", pool=pool, **_opt_in(load_runs)).items
    return list(cases), list(runs)


def _best(work: Callable[[], int], repeat: int) -> dict[str, float]:
    cpus, walls, items = [], [], 0
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        items = work()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return {"cpu": min(cpus), "wall": min(walls), "items": items}


def time_load(data: Path, repeat: int) -> dict[str, float]:
    """Best CPU and wall seconds of loading both files."""
    _load(data)  # imports, and the files in the page cache

    def work() -> int:
        return len(_load(data)[1])

    return _best(work, repeat)


def time_score(data: Path, repeat: int) -> dict[str, float]:
    """Best CPU and wall seconds of scoring every run of the loaded files."""
    from pathgrade import score
    from pathgrade.io.config import load_config

    config_path = data / "pathgrade.toml"
    config = load_config(config_path) if config_path.exists() else None
    cases, runs = _load(data)
    options = _opt_in(score)
    score(cases, runs[:200], config, **options)  # imports, caches, compiled kernels

    def work() -> int:
        return len(score(cases, runs, config, **options))

    return _best(work, repeat)


def main() -> None:
    kind, data, repeat = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    timer = {"load": time_load, "score": time_score}[kind]
    print(json.dumps(timer(data, repeat)))


if __name__ == "__main__":
    main()
