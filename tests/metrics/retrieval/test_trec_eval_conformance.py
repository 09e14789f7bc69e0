"""pathgrade reproduces trec_eval's own test outputs (tests/golden/trec_eval) to 4 decimals.

Every measure pathgrade shares with trec_eval is compared, per query and for ``all``.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from pathgrade.io.trec import read_qrels, read_run
from pathgrade.metrics.retrieval import RetrievalResult, evaluate
from pathgrade.metrics.spec import parse_spec

GOLDEN = Path(__file__).parents[2] / "golden" / "trec_eval"

#: trec_eval measure -> pathgrade spec (``{rel}`` is the relevance-level parameter)
_FIXED = {
    "map": "map{rel}",
    "recip_rank": "mrr{rel}",
    "ndcg": "ndcg(gain=linear)",
    "num_rel": "num_rel{rel}",
    "num_rel_ret": "num_rel_ret{rel}",
    "num_ret": "num_ret",
    "set_P": "precision{rel}",
    "set_recall": "recall{rel}",
}
_CUT = {
    "P": "precision@{k}{rel}",
    "recall": "recall@{k}{rel}",
    "success": "hit_rate@{k}{rel}",
    "ndcg_cut": "ndcg@{k}(gain=linear)",
    "map_cut": "ap@{k}(denominator=gold{sep}{relp})",
}
_SUMMED = {"num_rel", "num_rel_ret", "num_ret"}  # trec_eval's "all" is a sum for these


def spec_for(measure: str, level: int, zero: bool = False) -> str | None:
    """The pathgrade spec equal to a trec_eval measure at relevance level ``level``.

    ``zero``: queries whose judgments are all non-relevant score 0 (``no_gold=zero``), which is
    what trec_eval does with them.
    """
    rel = "" if level == 1 else f"(rel={level})"
    text: str | None = None
    if measure in _FIXED:
        text = _FIXED[measure].format(rel=rel)
    match = re.fullmatch(r"([A-Za-z_]+?)_(\d+)", measure)
    if match and match[1] in _CUT:
        text = _CUT[match[1]].format(
            k=match[2], rel=rel, sep="" if level == 1 else ",", relp="" if level == 1 else rel[1:-1]
        )
    if text is None:
        return None
    spec = parse_spec(text)
    if zero and measure not in _SUMMED:
        spec = spec.with_params(no_gold="zero")
    return str(spec)


def expected(name: str, level: int, zero: bool = False) -> dict[tuple[str, str], tuple[str, float]]:
    """``{(spec, qid): (trec_eval measure, value)}`` for the shared measures of an output file."""
    out: dict[tuple[str, str], tuple[str, float]] = {}
    for line in (GOLDEN / name).read_text().splitlines():
        measure, qid, value = line.split()
        spec = spec_for(measure, level, zero)
        if spec is not None:
            out[(spec, qid)] = (measure, float(value))
    return out


def check(result: RetrievalResult, want: dict[tuple[str, str], tuple[str, float]]) -> int:
    per_query = result.per_query()
    compared = 0
    for (spec, qid), (measure, value) in want.items():
        metric = result[spec]
        if qid == "all":
            got = metric.micro if measure in _SUMMED else metric.mean
        else:
            got = per_query[qid][spec]
        assert got is not None
        assert round(got, 4) == pytest.approx(value, abs=1e-9), (measure, qid, got, value)
        compared += 1
    return compared


def run_case(qrels: Path, run: Path, out: str, level: int = 1, zero: bool = False) -> int:
    want = expected(out, level, zero)
    specs = sorted({spec for spec, _ in want})
    result = evaluate(read_qrels(qrels), read_run(run).run, specs)
    return check(result, want)


def test_out_test_aq_per_query_and_all() -> None:
    n = run_case(GOLDEN / "qrels.test", GOLDEN / "results.test", "out.test.aq")
    assert n > 150  # every shared measure, 3 queries + all


def test_out_test_a_and_out_test_averages() -> None:
    assert run_case(GOLDEN / "qrels.test", GOLDEN / "results.test", "out.test.a") > 40
    assert run_case(GOLDEN / "qrels.test", GOLDEN / "results.test", "out.test") > 10


def test_out_test_aql_relevance_level_2() -> None:
    """-l2: binary measures use gain >= 2; ndcg keeps every positive gain, as trec_eval."""
    n = run_case(GOLDEN / "qrels.rel_level", GOLDEN / "results.test", "out.test.aql", level=2)
    assert n > 150


def test_out_test_aqc_missing_query_scores_zero() -> None:
    """-c: query 302 is in the qrels but not in the truncated run; it scores 0 and counts."""
    n = run_case(GOLDEN / "qrels.test", GOLDEN / "results.trunc", "out.test.aqc")
    assert n > 150
    result = evaluate(
        read_qrels(GOLDEN / "qrels.test"), read_run(GOLDEN / "results.trunc").run, ["map"]
    )
    assert result.missing_in_run == ("302",)
    assert result.to_dict()["missing_in_run"] == 1


def test_out_comment_test_hash_inside_doc_ids(tmp_path: Path) -> None:
    for name in ("qrels.comment.test", "results.comment.judged"):
        source = GOLDEN / f"{name}.gz"
        (tmp_path / name).write_bytes(gzip.decompress(source.read_bytes()))
    qrels = read_qrels(tmp_path / "qrels.comment.test")
    assert any("#" in doc for docs in qrels.values() for doc in docs)
    qrels_path, run_path = tmp_path / "qrels.comment.test", tmp_path / "results.comment.judged"
    # One topic has judgments but none relevant: trec_eval scores it 0 (no_gold=zero) ...
    assert run_case(qrels_path, run_path, "out.comment.test", zero=True) >= 14
    # ... while pathgrade's default skips it and says so.
    result = evaluate(qrels, read_run(run_path).run, ["map"])
    assert result["map"].no_gold == 1
    assert result["map"].scored == 30
