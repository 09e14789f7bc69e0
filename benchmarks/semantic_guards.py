"""Each guard of ``semantic`` matching measured on the labelled pairs (docs/semantic.md,
"Three verdicts, the cascade and guards"): how many pairs it changes, and Cohen's kappa with
and without it, in sample at the default threshold and held out (leave one domain out: the
threshold chosen on the other domains, kappa over the pooled held-out decisions).

    python benchmarks/semantic_guards.py [PAIRS ...]   # default: examples/semantic/

Uses the matcher itself (:func:`pathgrade.semantic.calibrate.score_pairs`: embeddings with
all-MiniLM-L6-v2, the guards of the config), so it needs the ``semantic`` extra.
"""

from __future__ import annotations

import sys
import tempfile
from itertools import combinations

from pathgrade.core.config import SEMANTIC_THRESHOLD, ScoringConfig
from pathgrade.semantic.agreement import Scored, grid
from pathgrade.semantic.cache import EmbeddingCache
from pathgrade.semantic.calibrate import LabelledPair, load_pairs, score_pairs
from pathgrade.stats.agreement import cohen_kappa

GUARDS = ("number", "entity", "negation")


def _config(guards: tuple[str, ...]) -> ScoringConfig:
    return ScoringConfig.model_validate({"matching": {"semantic": {"guards": list(guards)}}})


def _kappa(scored: list[Scored], threshold: float) -> float:
    return cohen_kappa([s.equivalent for s in scored], [s.predicted(threshold) for s in scored])


def held_out(pairs: list[LabelledPair], scored: list[Scored]) -> float:
    """Kappa over the pooled decisions of each domain at the threshold best on the others."""
    truth, guess = [], []
    if len({p.domain for p in pairs}) < 2:
        return float("nan")  # one domain: nothing to hold out
    for domain in sorted({p.domain or "" for p in pairs}):
        train = [s for p, s in zip(pairs, scored, strict=True) if (p.domain or "") != domain]
        test = [s for p, s in zip(pairs, scored, strict=True) if (p.domain or "") == domain]
        best = max(grid(), key=lambda t: (_kappa(train, t), -t))
        truth += [s.equivalent for s in test]
        guess += [s.predicted(best) for s in test]
    return cohen_kappa(truth, guess)


def main(argv: list[str]) -> None:
    pairs = load_pairs(*(argv or ["examples/semantic"]))
    cache = EmbeddingCache(tempfile.mkdtemp(prefix="pathgrade-guards-"))
    runs = {
        guards: score_pairs(pairs, _config(guards), cache=cache)
        for k in range(len(GUARDS) + 1)
        for guards in combinations(GUARDS, k)
    }
    base = runs[()]
    t = SEMANTIC_THRESHOLD
    print(f"{len(pairs)} pairs, {len({p.domain for p in pairs})} domains; threshold {t}")
    print("guards                     decided  changed  right  wrong  kappa@0.85  held-out")
    for guards, scored in runs.items():
        fired = sum(
            1
            for s, b in zip(scored, base, strict=True)
            if s.cosine is None and b.cosine is not None
        )
        changed = [s for s, b in zip(scored, base, strict=True) if s.predicted(t) != b.predicted(t)]
        right = sum(1 for s in changed if s.predicted(t) == s.equivalent)
        name = ", ".join(guards) or "(id guard only)"
        print(
            f"{name:26} {fired:7} {len(changed):8} {right:6} {len(changed) - right:6}"
            f"  {_kappa(scored, t):10.3f}  {held_out(pairs, scored):8.3f}"
        )
    for guard in GUARDS:
        scored = runs[(guard,)]
        for p, s, b in zip(pairs, scored, base, strict=True):
            if s.predicted(t) != b.predicted(t) and s.predicted(t) != s.equivalent:
                print(f"  {guard} wrong: {p.reference!r} / {p.agent!r} ({p.kind})")


if __name__ == "__main__":
    main(sys.argv[1:])
