"""Semantic argument matching at scale: embedding time against scoring time.

Builds ``--runs`` runs (default 100,000) of one-call paths ``transfer_to_human_agents(summary)``
whose free-text fields have ``--distinct`` (default 20,000) distinct values: ``distinct / 2``
cases, each with its reference summary and one reworded agent summary that its runs share,
and times, with the local model:

1. the pre-pass (:func:`pathgrade.semantic.prepare`) on a fresh cache: embedding every
   distinct string once (``embed``);
2. ``pathgrade.score`` with that evidence, the cache warm (``score``: matching and the
   trajectory layer, no embedding);
3. the whole ``pathgrade.score`` call on the warm cache (``total_warm``: it reads the cache).

Target (issue 24): ``embed + score <= 1.1 * embed``, i.e. scoring costs at most 10% of the
embedding time. Run: ``python benchmarks/bench_semantic.py [--runs N] [--distinct D]
[--backend local|hash]`` (``hash``: a deterministic stand-in embedder with no model, to time
the scoring side alone). Needs the ``semantic`` extra for ``local``.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path

import numpy as np

from pathgrade import Case, Run, ScoringConfig, Step, score
from pathgrade.plugins import register_embedder
from pathgrade.semantic import prepare
from pathgrade.semantic.cache import EmbeddingCache

SUBJECTS = ("refund", "exchange", "cancellation", "address change", "upgrade", "complaint")
ITEMS = ("headphones", "laptop", "jacket", "flight", "hotel room", "phone case", "subscription")


def _summary(k: int, reworded: bool) -> str:
    subject, item = SUBJECTS[k % len(SUBJECTS)], ITEMS[(k // len(SUBJECTS)) % len(ITEMS)]
    if reworded:
        return f"Customer asks for a {subject} regarding the {item}, case {k}."
    return f"The user wants a {subject} for the {item}, case {k}."


def _hash_embedder(texts: list[str]) -> np.ndarray:
    out = np.empty((len(texts), 64), np.float32)
    for i, text in enumerate(texts):
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        out[i] = np.random.default_rng(seed).standard_normal(64)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=20_000)
    parser.add_argument("--backend", choices=("local", "hash"), default="local")
    args = parser.parse_args()
    tool = "transfer_to_human_agents"
    n_cases = args.distinct // 2  # one reference and one reworded value per case
    cases = {
        f"c{k}": Case(case_id=f"c{k}",
                      reference=[Step(tool=tool, arguments={"summary": _summary(k, False)})])
        for k in range(n_cases)
    }  # fmt: skip
    runs = [
        Run(case_id=f"c{r % n_cases}",
            steps=[Step(tool=tool, arguments={"summary": _summary(r % n_cases, True)})])
        for r in range(args.runs)
    ]  # fmt: skip
    backend = args.backend
    if backend == "hash":
        register_embedder("bench-hash", _hash_embedder)
        backend = "bench-hash"
    with tempfile.TemporaryDirectory() as tmp:
        config = ScoringConfig.model_validate(
            {"matching": {"tools": {tool: {"mode": "semantic"}},
                          "semantic": {"backend": backend, "cache_dir": tmp}}}
        )  # fmt: skip
        cache = EmbeddingCache(Path(tmp))
        start = time.perf_counter()
        evidence = prepare(cases, runs, config, cache=cache)
        embed = time.perf_counter() - start
        start = time.perf_counter()
        result = score(cases, runs, config, evidence=evidence, gc_pause=True)
        scoring = time.perf_counter() - start
        start = time.perf_counter()
        score(cases, runs, config, gc_pause=True)
        warm = time.perf_counter() - start
        start = time.perf_counter()
        score(cases, runs, ScoringConfig(), gc_pause=True)
        exact = time.perf_counter() - start
    matched = float(np.nanmean(result.metrics["argument_accuracy"]))
    print(f"runs {args.runs}, distinct reference values {args.distinct}, backend {args.backend}")
    print(f"embedded {cache.computed} strings in {embed:.2f} s ({cache.computed / embed:.0f}/s)")
    print(f"score with evidence: {scoring:.2f} s ({scoring / embed:.1%} of embedding time)")
    print(f"score on the warm cache (reads the cache, embeds nothing): {warm:.2f} s")
    print(f"score with exact matching (no semantic), for comparison: {exact:.2f} s")
    print(f"argument_accuracy mean {matched:.3f}")
    print(f"target embed + score <= 1.1 * embed: {'met' if scoring <= 0.1 * embed else 'NOT met'}")


if __name__ == "__main__":
    main()
