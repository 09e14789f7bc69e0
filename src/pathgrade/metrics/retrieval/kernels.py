"""Vectorised per-query kernels over a :class:`~pathgrade.metrics.retrieval.batch.RankedBatch`.

Notation for one query: ``g_i`` the gold gain of the document at rank ``i`` (1-based; 0 when the
document is not in the gold), ``rel_i = [g_i >= t]`` with threshold ``t`` (parameter ``rel``,
default 1), ``G = {d : gain(d) >= t}`` the gold set, ``N`` the number of documents retrieved,
``K`` the cut-off (the whole ranking when absent) and ``hits@K = sum_{i<=K} rel_i``.

==============  ==========================================================  ==================
metric          value                                                       trec_eval
==============  ==========================================================  ==================
precision@K     hits@K / K  (without K: hits / N, 0 when N = 0)             P_K (set_P)
recall@K        hits@K / |G|                                                recall_K
hit_rate@K      [hits@K > 0]                                                success_K
mrr@K           1 / (first i <= K with rel_i), else 0                       recip_rank (no K)
ap@K            sum_{i<=K} rel_i * hits@i / i  /  D, D = min(|G|, K)        map_cut_K when
                (``denominator=min``, default) or |G| (``denominator=gold``)  denominator=gold
map             sum_i rel_i * hits@i / i / |G|                              map
dcg@K           sum_{i<=K} gain(g_i) / log2(i + 1), gain(g) = 2^g - 1       ndcg_cut_K's DCG
                (``gain=exp``, default) or g (``gain=linear``); g <= 0 -> 0   (linear)
ndcg@K          dcg@K / ideal dcg@K (gold gains sorted decreasing)          ndcg_cut_K, ndcg
                                                                            (gain=linear)
num_rel         |G|                                                         num_rel
num_rel_ret@K   hits@K                                                      num_rel_ret
num_ret@K       min(N, K)                                                   num_ret
==============  ==========================================================  ==================

DCG uses every positive gain whatever ``rel`` is, as trec_eval does with ``-l`` (ranx drops
gains below the level). A query has *no gold* when ``|G| = 0`` (binary metrics) or when it has
no positive gain (``dcg``, ``ndcg``); its value then follows ``no_gold``: ``skip`` (``nan``,
excluded from means and counted), ``zero``, ``unanswerable`` (1 when nothing is retrieved within
K, else 0) or ``error``. The count metrics (``num_*``) are always defined.
"""

from __future__ import annotations

import numpy as np

from pathgrade.core.errors import InputError
from pathgrade.metrics.registry import MetricInfo, info
from pathgrade.metrics.retrieval.batch import (
    NO_RANK,
    BoolArray,
    FloatArray,
    IntArray,
    RankedBatch,
)
from pathgrade.metrics.spec import MetricSpec

_COUNTS = frozenset({"num_rel", "num_rel_ret", "num_ret"})
_GRADED = frozenset({"dcg", "ndcg"})


class _Binary:
    """Per-slot arrays for one relevance threshold: relevant hits and their AP terms."""

    def __init__(self, batch: RankedBatch, threshold: float) -> None:
        with np.errstate(invalid="ignore"):
            self.rel: BoolArray = batch.hit_gain >= threshold  # nan (padding) -> False
            self.num_rel: IntArray = (batch.gold >= threshold).sum(axis=1)
        # hit_pos is ascending, so the running count of relevant slots is hits@(pos + 1).
        hits_here = np.cumsum(self.rel, axis=1)
        self.ap_terms: FloatArray = np.where(self.rel, hits_here / (batch.hit_pos + 1.0), 0.0)
        self.first: IntArray = np.where(self.rel, batch.hit_pos, NO_RANK).min(axis=1)
        self.pos = batch.hit_pos

        self._hits: dict[int | None, FloatArray] = {}

    def hits(self, k: int | None) -> FloatArray:
        if k not in self._hits:
            within = self.rel if k is None else self.rel & (self.pos < k)
            self._hits[k] = within.sum(axis=1).astype(np.float64)
        return self._hits[k]

    def ap_sum(self, k: int | None) -> FloatArray:
        if k is None:
            return _row_sum(self.ap_terms)
        return _row_sum(np.where(self.pos < k, self.ap_terms, 0.0))


class _Graded:
    """Per-slot DCG terms and prefix sums of the ideal DCG for one gain function."""

    def __init__(self, batch: RankedBatch, gain: str) -> None:
        valid = batch.hit_pos < NO_RANK
        ranks = np.where(valid, batch.hit_pos, 0).astype(np.float64)
        self.terms = np.where(valid, _gain(batch.hit_gain, gain) / np.log2(ranks + 2.0), 0.0)
        self.pos = batch.hit_pos
        ideal_ranks = np.arange(2, batch.gold.shape[1] + 2, dtype=np.float64)
        self.ideal = np.cumsum(_gain(batch.gold, gain) / np.log2(ideal_ranks), axis=1)
        self.has_gold: BoolArray = self.ideal[:, -1] > 0

    def dcg(self, k: int | None) -> FloatArray:
        if k is None:
            return _row_sum(self.terms)
        return _row_sum(np.where(self.pos < k, self.terms, 0.0))

    def ideal_dcg(self, k: int | None) -> FloatArray:
        width = self.ideal.shape[1]
        return self.ideal[:, width - 1 if k is None else min(k, width) - 1]


def _row_sum(values: FloatArray) -> FloatArray:
    """Left-to-right sums of each row: exact same value whatever the padding width."""
    return np.cumsum(values, axis=1)[:, -1]


def _gain(gains: FloatArray, gain: str) -> FloatArray:
    with np.errstate(invalid="ignore"):
        positive = np.where(gains > 0, gains, 0.0)  # nan, 0 and negative gains give nothing
    return np.exp2(positive) - 1.0 if gain == "exp" else positive


class Prefixes:
    """Caches the per-slot arrays a set of specs needs, so each is computed once per batch."""

    def __init__(self, batch: RankedBatch) -> None:
        self.batch = batch
        self._binary: dict[float, _Binary] = {}
        self._graded: dict[str, _Graded] = {}

    def binary(self, threshold: float) -> _Binary:
        if threshold not in self._binary:
            self._binary[threshold] = _Binary(self.batch, threshold)
        return self._binary[threshold]

    def graded(self, gain: str) -> _Graded:
        if gain not in self._graded:
            self._graded[gain] = _Graded(self.batch, gain)
        return self._graded[gain]


def no_gold_policy(row: MetricInfo, spec: MetricSpec) -> str:
    """``no_gold`` if given, else the generic ``undefined`` (nan -> skip)."""
    if "no_gold" in spec.param_dict:
        return row.value(spec, "no_gold")
    return {"nan": "skip", "zero": "zero", "error": "error"}[spec.undefined]


def compute(spec: MetricSpec, prefixes: Prefixes) -> tuple[FloatArray, BoolArray]:
    """Per-query values of ``spec`` and the mask of queries with gold (``defined``).

    Values of queries without gold already follow the spec's ``no_gold`` policy
    (``nan`` for ``skip``).
    """
    row = info(spec.name)
    name, k, batch = row.name, spec.k, prefixes.batch
    n_ret_k = batch.n_ret if k is None else np.minimum(batch.n_ret, k)
    if name in _GRADED:
        graded = prefixes.graded(row.value(spec, "gain"))
        has_gold = graded.has_gold
        dcg = graded.dcg(k)
        if name == "dcg":
            values = dcg
        else:
            ideal = graded.ideal_dcg(k)
            with np.errstate(invalid="ignore", divide="ignore"):
                values = np.where(ideal > 0, dcg / ideal, 0.0)
    else:
        binary = prefixes.binary(float(row.value(spec, "rel")) if name != "num_ret" else 1.0)
        num_rel = binary.num_rel.astype(np.float64)
        has_gold = binary.num_rel > 0
        hits = binary.hits(k)
        safe_rel = np.maximum(num_rel, 1.0)
        if name == "precision":
            values = hits / k if k is not None else hits / np.maximum(batch.n_ret, 1)
        elif name == "recall":
            values = hits / safe_rel
        elif name == "hit_rate":
            values = (hits > 0).astype(np.float64)
        elif name == "mrr":
            limit = NO_RANK if k is None else k
            values = np.where(binary.first < limit, 1.0 / (binary.first + 1.0), 0.0)
        elif name in ("ap", "map"):
            gold_denominator = name == "map" or row.value(spec, "denominator") == "gold"
            denom = safe_rel if gold_denominator or k is None else np.minimum(safe_rel, k)
            values = binary.ap_sum(k) / denom
        elif name == "num_rel":
            values = num_rel
        elif name == "num_rel_ret":
            values = hits
        elif name == "num_ret":
            values = n_ret_k.astype(np.float64)
        else:  # pragma: no cover - the registry only lists the names above
            raise InputError(f"metric {name!r} is not a retrieval metric", field="metric")
    if name in _COUNTS:
        return values, np.ones(values.shape, np.bool_)
    policy = no_gold_policy(row, spec)
    if not has_gold.all():
        if policy == "error":
            missing = [q for q, ok in zip(batch.query_ids, has_gold, strict=True) if not ok]
            raise InputError(
                f"metric {spec}: {len(missing)} queries have no gold (first: {missing[0]!r}); "
                "use no_gold=skip, zero or unanswerable"
            )
        fill = {
            "skip": np.full(values.shape, np.nan),
            "zero": np.zeros(values.shape),
            "unanswerable": (n_ret_k == 0).astype(np.float64),
        }[policy]
        values = np.where(has_gold, values, fill)
    return values, has_gold


def micro(
    spec: MetricSpec, prefixes: Prefixes, values: FloatArray, has_gold: BoolArray
) -> float | None:
    """The pooled value of ``spec`` over the queries its macro mean averages, where one is
    defined; else ``None``.

    The queries are those whose ``values`` (from :func:`compute`) are not ``nan``: every query
    with gold, and those without gold unless ``no_gold=skip``. Each query ``q`` brings a
    weight ``w_q`` to the denominator and a count ``n_q`` to the numerator:

    ==========  ==================  ==================================================
    metric      w_q                 n_q for a query with gold
    ==========  ==================  ==================================================
    precision   K (without K: N_q)  hits@K (relevant documents retrieved in the top K)
    recall      |G_q|               hits@K
    hit_rate    1                   [hits@K > 0]
    ==========  ==================  ==================================================

    A query without gold has no relevant document, so ``n_q = w_q * v_q`` with ``v_q`` its
    value under ``no_gold``: 0 for ``zero`` (it adds its K, or its N retrieved documents, to
    the precision denominator and one query to hit_rate's, and nothing to recall's, since
    ``|G_q| = 0``), and 1 or 0 for ``unanswerable`` (an empty top K counts as ``w_q``
    correct). Since ``n_q = w_q * v_q`` for a query with gold too, micro is the mean of the
    per-query values weighted by ``w_q``: ``sum n_q / sum w_q``, ``None`` when ``sum w_q``
    is 0. Where every query weighs the same (hit_rate, precision@K) micro is therefore the
    macro mean, up to rounding; it differs for recall and for precision without K. Count
    metrics (``num_*``) give their sums; mrr, ap, map, dcg and ndcg have no pooled form.
    """
    row = info(spec.name)
    name, k, batch = row.name, spec.k, prefixes.batch
    if name in _GRADED or name in ("mrr", "ap", "map"):
        return None
    binary = prefixes.binary(float(row.value(spec, "rel")) if name != "num_ret" else 1.0)
    scored = ~np.isnan(values)
    hits = binary.hits(k)
    n_ret = batch.n_ret if k is None else np.minimum(batch.n_ret, k)
    if name in _COUNTS:
        sums = {"num_rel": binary.num_rel, "num_rel_ret": hits, "num_ret": n_ret}
        return float(sums[name][scored].sum())
    weight: FloatArray
    if name == "precision":
        weight = np.full(values.shape, float(k)) if k is not None else n_ret.astype(np.float64)
    elif name == "recall":
        weight = binary.num_rel.astype(np.float64)
    else:  # hit_rate
        weight, hits = np.ones(values.shape), (hits > 0).astype(np.float64)
    # Exact integers: hits where there is gold, 0 or w_q (values 0 or 1) where there is none.
    counts = np.where(has_gold, hits, weight * np.where(scored, values, 0.0))
    denominator = float(weight[scored].sum())
    return float(counts[scored].sum()) / denominator if denominator > 0 else None
