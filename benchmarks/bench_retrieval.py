"""Retrieval metrics: pathgrade vs ranx vs pytrec_eval, side by side in one process.

Generates qrels and runs (100 results and 5 graded gold documents per query, 3 of them
retrieved), then times each library on the same Python dicts for the metric set
{P, R, hit, MRR, AP, nDCG} at K in {1, 5, 10, 100}:

* ``total``: from the dicts to per-query values and means (conversion included);
* ``compute``: after each library's own conversion (pathgrade ``from_run``; ranx ``Qrels``/``Run``;
  pytrec_eval ``RelevanceEvaluator(qrels)``; pytrec_eval still converts the run inside
  ``evaluate``, which cannot be separated).

Peak memory is measured in a fresh subprocess per library and size (so no library reuses pages
another freed): the growth of the peak resident set (``VmHWM``, reset through
``/proc/self/clear_refs`` after the data are built) while the library goes from the dicts to
the results; it includes C and numba allocations. Values
are cross-checked where definitions agree (AP with |G| as denominator = ``map_cut``/ranx
``map@k``; nDCG with linear gain = ``ndcg_cut``/ranx ``ndcg@k``; MRR@100 = ``recip_rank`` here
since every run has 100 results).

Run: ``python benchmarks/bench_retrieval.py [--sizes 1000 10000 100000] [--repeat 3]``.
ranx's numba functions are compiled once on a small warm-up batch before timing.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pathgrade.metrics.retrieval import evaluate, evaluate_batch, from_run

KS = (1, 5, 10, 100)


def _pathgrade_name(name: str, k: int) -> str:
    # Definitions that match the peers: AP over |G| (map_cut_k), nDCG with linear gain.
    if name == "ap":
        return f"ap@{k}(denominator=gold)"
    if name == "ndcg":
        return f"ndcg@{k}(gain=linear)"
    return f"{name}@{k}"


PG_METRICS = [
    _pathgrade_name(name, k)
    for name in ("precision", "recall", "hit_rate", "mrr", "ap", "ndcg")
    for k in KS
]
RANX_METRICS = [
    f"{name}@{k}" for name in ("precision", "recall", "hit_rate", "mrr", "map", "ndcg") for k in KS
]
TREC_MEASURES = {
    "P.1,5,10,100",
    "recall.1,5,10,100",
    "success.1,5,10,100",
    "recip_rank",
    "map_cut.1,5,10,100",
    "ndcg_cut.1,5,10,100",
}
# pathgrade name -> (ranx name, pytrec_eval name or None)
PAIRS = {
    **{f"precision@{k}": (f"precision@{k}", f"P_{k}") for k in KS},
    **{f"recall@{k}": (f"recall@{k}", f"recall_{k}") for k in KS},
    **{f"hit_rate@{k}": (f"hit_rate@{k}", f"success_{k}") for k in KS},
    **{f"mrr@{k}": (f"mrr@{k}", "recip_rank" if k == 100 else None) for k in KS},
    **{f"ap@{k}(denominator=gold)": (f"map@{k}", f"map_cut_{k}") for k in KS},
    **{f"ndcg@{k}(gain=linear)": (f"ndcg@{k}", f"ndcg_cut_{k}") for k in KS},
}


def generate(
    n: int, seed: int = 0
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """``n`` queries, 100 scored results each (in rank order), 5 gold docs with gains 1..3."""
    rng = np.random.default_rng(seed)
    pool = [f"doc{i}" for i in range(200_000)]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n):
        qid = f"q{q}"
        docs = rng.choice(len(pool), 100, replace=False)
        scores = np.sort(rng.random(100))[::-1].tolist()
        gold = rng.choice(len(pool), 5, replace=False)
        gold[:3] = docs[rng.choice(100, 3, replace=False)]
        gains = rng.integers(1, 4, 5).tolist()
        qrels[qid] = {pool[d]: g for d, g in zip(gold.tolist(), gains, strict=True)}
        run[qid] = {pool[d]: s for d, s in zip(docs.tolist(), scores, strict=True)}
    return qrels, run


def _rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    return 0


def peak_mib(fn: Callable[[], Any]) -> float:
    """Growth of the peak resident set while ``fn`` runs (MiB); nan where unsupported."""
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return float("nan")
    base = _rss_kib("VmRSS:")
    result = fn()
    peak = _rss_kib("VmHWM:")
    del result
    return (peak - base) / 1024


RUNNERS: dict[str, Callable[[Any, Any], dict[str, float]]] = {}


def memory_in_subprocess(lib: str, n: int) -> float:
    """Peak-RSS growth of ``lib`` on ``n`` queries, measured in a fresh interpreter (MiB)."""
    command = [sys.executable, "-W", "ignore", __file__, "--memory-of", lib, "--sizes", str(n)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def best_of(repeat: int, fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def run_pathgrade(qrels: Any, run: Any) -> dict[str, float]:
    return evaluate(qrels, run, PG_METRICS).summary()


def run_ranx(qrels: Any, run: Any) -> dict[str, float]:
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    out = ranx_evaluate(Qrels(qrels), Run(run), RANX_METRICS, make_comparable=True)
    return {k: float(v) for k, v in out.items()}


def run_pytrec(qrels: Any, run: Any) -> dict[str, float]:
    import pytrec_eval

    per_query = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    return _trec_means(per_query, len(qrels))


def _trec_means(per_query: dict[str, dict[str, float]], n: int) -> dict[str, float]:
    sums: dict[str, float] = {}
    for values in per_query.values():
        for key, value in values.items():
            sums[key] = sums.get(key, 0.0) + value
    return {key: total / n for key, total in sums.items()}


def bench(n: int, repeat: int) -> list[dict[str, Any]]:
    import pytrec_eval
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    qrels, run = generate(n)
    rows: list[dict[str, Any]] = []

    # pathgrade
    values_pg = run_pathgrade(qrels, run)
    total = best_of(repeat, lambda: run_pathgrade(qrels, run))
    batch = from_run(qrels, run)
    compute = best_of(repeat, lambda: evaluate_batch(batch, PG_METRICS))
    mem = memory_in_subprocess("pathgrade", n)
    rows.append({"lib": "pathgrade", "total": total, "compute": compute, "mem": mem})

    # ranx
    values_rx = run_ranx(qrels, run)
    total = best_of(repeat, lambda: run_ranx(qrels, run))
    q_obj, r_obj = Qrels(qrels), Run(run)

    compute = best_of(
        repeat, lambda: ranx_evaluate(q_obj, r_obj, RANX_METRICS, make_comparable=True)
    )
    mem = memory_in_subprocess("ranx", n)
    rows.append({"lib": "ranx", "total": total, "compute": compute, "mem": mem})

    # pytrec_eval
    values_te = run_pytrec(qrels, run)
    total = best_of(repeat, lambda: run_pytrec(qrels, run))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES)
    compute = best_of(repeat, lambda: _trec_means(evaluator.evaluate(run), n))
    mem = memory_in_subprocess("pytrec_eval", n)
    rows.append({"lib": "pytrec_eval", "total": total, "compute": compute, "mem": mem})

    diff_rx = max(abs(values_pg[pg] - values_rx[rx]) for pg, (rx, _) in PAIRS.items())
    diff_te = max(
        abs(values_pg[pg] - values_te[te]) for pg, (_, te) in PAIRS.items() if te is not None
    )
    for row in rows:
        row["n"] = n
        row["diff"] = {"pathgrade": 0.0, "ranx": diff_rx, "pytrec_eval": diff_te}[row["lib"]]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory-of", choices=["pathgrade", "ranx", "pytrec_eval"])
    args = parser.parse_args()
    RUNNERS.update(pathgrade=run_pathgrade, ranx=run_ranx, pytrec_eval=run_pytrec)
    if args.memory_of:
        if args.memory_of == "ranx":
            run_ranx(*generate(50, seed=1))  # compile outside the measurement
        qrels, run = generate(args.sizes[0])
        print(peak_mib(lambda: RUNNERS[args.memory_of](qrels, run)))
        return
    # Compile ranx's numba kernels once, outside every timing.
    run_ranx(*generate(50, seed=1))
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
        f"{len(PG_METRICS)} metrics; best of {args.repeat}"
    )
    header = (
        f"{'queries':>8} {'library':<12} {'total s':>8} {'q/s':>9} {'compute s':>10} "
        f"{'q/s':>9} {'peak MiB':>9} {'total x':>8} {'max |diff|':>11}"
    )
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        rows = bench(n, args.repeat if n < 100_000 else max(1, args.repeat - 2))
        ours = rows[0]["total"]
        for row in rows:
            print(
                f"{n:>8} {row['lib']:<12} {row['total']:>8.3f} {n / row['total']:>9,.0f} "
                f"{row['compute']:>10.3f} {n / row['compute']:>9,.0f} {row['mem']:>9.1f} "
                f"{row['total'] / ours:>7.1f}x {row['diff']:>11.2e}"
            )
    print("total x: library's total time / pathgrade's total time (higher: pathgrade faster)")


if __name__ == "__main__":
    main()
