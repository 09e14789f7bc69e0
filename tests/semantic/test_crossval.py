"""Held-out figures of the semantic matcher (pathgrade.semantic.crossval, threshold_grid,
agreement_report): hand-computed folds, properties, and the vectorised sweep against a loop.
Cosines are given, so no model is loaded."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.semantic.agreement import Scored, agreement, grid
from pathgrade.semantic.agreement_report import Settings, agreement_report
from pathgrade.semantic.crossval import (
    arrays,
    cross_validate,
    figures,
    group_folds,
    kappa_interval,
    stratified_folds,
    summarise,
)
from pathgrade.semantic.threshold_grid import (
    Band,
    band_figures,
    bands,
    choose_band,
    choose_threshold,
    decided,
    threshold_figures,
)
from pathgrade.stats.agreement import cohen_kappa

GRID = [0.5, 0.7, 0.9]
DEFAULT = 0.85

# Eight pairs in two given folds (label, cosine):
#   fold 0: A (T, .95)  B (T, .75)  C (F, .65)  D (F, .40)
#   fold 1: E (T, .92)  F (T, .60)  G (F, .72)  H (F, .30)
EIGHT = [
    Scored(True, 0.95), Scored(True, 0.75), Scored(False, 0.65), Scored(False, 0.40),
    Scored(True, 0.92), Scored(True, 0.60), Scored(False, 0.72), Scored(False, 0.30),
]  # fmt: skip
EIGHT_FOLDS = np.asarray([0, 0, 0, 0, 1, 1, 1, 1])


def test_hand_computed_two_folds() -> None:
    # Fold 0 held out, trained on fold 1 (E T .92, F T .60, G F .72, H F .30):
    #   0.5: T T T F -> tp2 fp1 fn0 tn1: p_o 3/4, p_e (2*3 + 2*1)/16 = 1/2 -> kappa 1/2
    #   0.7: T F T F -> tp1 fp1 fn1 tn1: p_o 1/2, p_e 1/2 -> 0
    #   0.9: T F F F -> tp1 fp0 fn1 tn2: p_o 3/4, p_e 1/2 -> 1/2
    #   tie 0.5 / 0.9: the one closest to the default 0.85 -> 0.9
    #   on fold 0 at 0.9: A T, B F, C F, D F -> tp1 fn1 tn2: kappa 1/2
    # Fold 1 held out, trained on fold 0 (A T .95, B T .75, C F .65, D F .40):
    #   0.5: T T T F -> 1/2;  0.7: T T F F -> 1;  0.9: T F F F -> 1/2  -> 0.7
    #   on fold 1 at 0.7: E T, F F, G T, H F -> tp1 fn1 fp1 tn1: kappa 0
    # Pooled: tp 2, fn 2, fp 1, tn 3: p_o 5/8, p_e (4*3 + 4*5)/64 = 1/2 -> kappa 1/4
    cv = cross_validate(EIGHT, EIGHT_FOLDS, GRID, DEFAULT)
    assert [f.threshold for f in cv.folds] == [0.9, 0.7]
    assert [f.held_out.kappa for f in cv.folds] == [0.5, 0.0]
    assert cv.guess.tolist() == [True, False, False, False, True, False, True, False]
    truth, _, _ = arrays(EIGHT)
    pooled = figures(truth, cv.guess)
    assert pooled.kappa == pytest.approx(0.25)
    assert pooled.precision == pytest.approx(2 / 3) and pooled.recall == 0.5


def test_choose_band_hand_computed() -> None:
    # A (T .95), B (T .75), C (F .80), D (F .40). Every single threshold of GRID gives kappa
    # 1/2; the bands [0.5, 0.9] and [0.7, 0.9] leave B and C uncertain and decide A and D
    # right (kappa 1, coverage 1/2): both reach 0.8 with the same coverage and kappa; the
    # narrower [0.7, 0.9] wins.
    truth, cosine, fixed = arrays(
        [Scored(True, 0.95), Scored(True, 0.75), Scored(False, 0.80), Scored(False, 0.40)]
    )
    assert choose_band(truth, cosine, fixed, GRID, DEFAULT) == Band(0.7, 0.9)
    # unreachable target: among bands covering >= 0.75 (the empty ones and [0.5, 0.7], all
    # coverage 1 and kappa 1/2), the narrowest whose centre is closest to 0.85: [0.9, 0.9]
    fallback = choose_band(
        truth, cosine, fixed, GRID, DEFAULT, target_kappa=1.01, min_coverage=0.75
    )
    assert fallback == Band(0.9, 0.9)
    fig = band_figures(truth, cosine, fixed, [Band(0.7, 0.9)])
    assert (fig.coverage[0], fig.kappa[0]) == (0.5, 1.0)


def test_band_rejects_low_above_high() -> None:
    with pytest.raises(ValueError, match="low <= high"):
        Band(0.9, 0.5)


def test_pairs_without_cosine_keep_their_decision() -> None:
    pairs = [Scored(True, None, True), Scored(False, None, False), *EIGHT]
    truth, cosine, fixed = arrays(pairs)
    # decided pairs are never uncertain, and predict their fixed decision at every threshold
    assert decided(cosine, Band(-1.0, 1.0))[:2].tolist() == [True, True]
    fig = band_figures(truth, cosine, fixed, [Band(-1.0, 1.0)])
    assert fig.coverage[0] == pytest.approx(2 / 10) and fig.kappa[0] == 1.0


def test_ties_go_to_the_threshold_closest_to_the_default() -> None:
    truth, cosine, fixed = arrays([Scored(True, 0.99), Scored(False, 0.1)])
    assert choose_threshold(truth, cosine, fixed, grid(), 0.85) == 0.85
    assert choose_threshold(truth, cosine, fixed, grid(), 0.42) == 0.4  # all tie; 0.40 is closest
    # no defined kappa (labels and predictions all one value): the default
    truth, cosine, fixed = arrays([Scored(True, 0.99), Scored(True, 0.98)])
    assert choose_threshold(truth, cosine, fixed, [0.5], 0.85) == 0.85


def test_leave_one_domain_out_and_summary() -> None:
    domains = ["a", "a", "a", "a", "b", "b", "b", "b"]
    folds, names = group_folds(domains)
    assert names == ["a", "b"] and folds.tolist() == EIGHT_FOLDS.tolist()
    cv = cross_validate(EIGHT, folds, GRID, DEFAULT, names=names)
    kinds = ["p", "p", "n", "n", "p", "p", "n", "n"]
    out = summarise(EIGHT, cv, DEFAULT, domains=domains, kinds=kinds, resamples=200, seed=1)
    assert [f["fold"] for f in out["folds"]] == ["a", "b"]
    assert out["held_out"]["kappa"] == 0.25
    assert out["by_domain"]["a"]["kappa"] == 0.5 and out["by_domain"]["b"]["kappa"] == 0.0
    # a kind with one label: kappa not reported, accuracy is (p: A, E right, B, F wrong)
    assert out["by_kind"]["p"]["kappa"] is None and out["by_kind"]["p"]["accuracy"] == 0.5
    # 0.9 and 0.7 chosen once each: the one closest to the default
    assert out["recommended"]["threshold"] == 0.9
    low, high = out["held_out"]["kappa_95"]
    assert low <= 0.25 <= high


def test_kappa_interval_is_seeded_and_degenerate_on_perfect_agreement() -> None:
    truth = np.asarray([True, False] * 10)
    assert kappa_interval(truth, truth, resamples=300, seed=3) == (1.0, 1.0)
    guess = truth.copy()
    guess[:4] = ~guess[:4]
    first = kappa_interval(truth, guess, resamples=300, seed=3)
    assert first == kappa_interval(truth, guess, resamples=300, seed=3)
    assert first[0] < first[1]


def test_report_skips_leave_one_domain_out_without_domains() -> None:
    s = Settings(threshold=DEFAULT, grid=GRID, folds=2, resamples=50)
    report = agreement_report(EIGHT, s, domains=[None] * 8, kinds=[None] * 8)
    assert "skipped" in report["leave_one_domain_out"]
    assert report["k_fold"]["k"] == 2 and "by_kind" not in report["k_fold"]
    assert report["in_sample_at_recommended"]["threshold"]["n"] == 8


# --- properties ---------------------------------------------------------------------------

labels_and_cosines = st.lists(
    st.tuples(st.booleans(), st.one_of(st.none(), st.floats(-1, 1)), st.booleans()),
    min_size=1,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(labels_and_cosines)
def test_vectorised_sweep_equals_the_plain_loop(
    items: list[tuple[bool, float | None, bool]],
) -> None:
    pairs = [Scored(label, cosine, fix) for label, cosine, fix in items]
    truth, cosine, fixed = arrays(pairs)
    thresholds = grid()
    fig = threshold_figures(truth, cosine, fixed, thresholds)
    for i, t in enumerate(thresholds):
        plain = agreement(pairs, t)
        for got, want in (
            (fig.kappa[i], plain.kappa),
            (fig.precision[i], plain.precision),
            (fig.recall[i], plain.recall),
            (fig.accuracy[i], plain.accuracy),
        ):
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want)


@settings(max_examples=100, deadline=None)
@given(labels_and_cosines)
def test_band_figures_equal_a_plain_loop(items: list[tuple[bool, float | None, bool]]) -> None:
    pairs = [Scored(label, cosine, fix) for label, cosine, fix in items]
    truth, cosine, fixed = arrays(pairs)
    candidates = bands([0.3, 0.6, 0.9])
    fig = band_figures(truth, cosine, fixed, candidates)
    for i, band in enumerate(candidates):
        kept = [
            (p.equivalent, p.decided if p.cosine is None else p.cosine >= band.high)
            for p in pairs
            if p.cosine is None or not band.low <= p.cosine < band.high
        ]
        assert fig.coverage[i] == pytest.approx(len(kept) / len(pairs))
        if kept:
            want = cohen_kappa([t for t, _ in kept], [g for _, g in kept])
            assert (math.isnan(fig.kappa[i]) and math.isnan(want)) or fig.kappa[i] == (
                pytest.approx(want)
            )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=2, max_size=60), st.integers(2, 7), st.integers(0, 99))
def test_stratified_folds_are_a_balanced_partition(labels: list[bool], k: int, seed: int) -> None:
    truth = np.asarray(labels)
    if k > truth.size:
        with pytest.raises(ValueError):
            stratified_folds(truth, k, seed)
        return
    folds = stratified_folds(truth, k, seed)
    assert folds.shape == truth.shape and set(folds.tolist()) == set(range(k))
    for label in (True, False):
        sizes = np.bincount(folds[truth == label], minlength=k)
        assert sizes.max() - sizes.min() <= 1
    assert folds.tolist() == stratified_folds(truth, k, seed).tolist()  # seeded


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(grid()[1:-1]),
    st.lists(st.floats(0.001, 0.049), min_size=5, max_size=15),
    st.lists(st.floats(0.001, 0.049), min_size=5, max_size=15),
    st.integers(0, 99),
)
def test_separable_scores_give_held_out_kappa_one(
    cut: float, above: list[float], below: list[float], seed: int
) -> None:
    # equivalent pairs in [cut, cut + 0.05), the others in (cut - 0.05, cut): only `cut`
    # separates any training set, so every held-out pair is decided right
    pairs = [Scored(True, cut + d) for d in above] + [Scored(False, cut - d) for d in below]
    truth, _, _ = arrays(pairs)
    folds = stratified_folds(truth, 5, seed)
    cv = cross_validate(pairs, folds, grid(), DEFAULT)
    assert figures(truth, cv.guess).kappa == 1.0
    assert all(f.threshold == cut for f in cv.folds)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.floats(-1, 1)), min_size=6, max_size=30),
    st.integers(0, 99),
    st.floats(-1, 1),
)
def test_a_held_out_score_never_changes_its_folds_choice(
    items: list[tuple[bool, float]], index: int, new_cosine: float
) -> None:
    pairs = [Scored(label, cosine) for label, cosine in items]
    folds = np.arange(len(pairs)) % 3
    i = index % len(pairs)
    changed = list(pairs)
    changed[i] = Scored(pairs[i].equivalent, new_cosine)
    before = cross_validate(pairs, folds, grid(), DEFAULT).folds[folds[i]]
    after = cross_validate(changed, folds, grid(), DEFAULT).folds[folds[i]]
    assert (before.threshold, before.band) == (after.threshold, after.band)
