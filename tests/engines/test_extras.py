"""Partitioned summaries equal in-memory scoring: pass@k, retrieval micro averages,
abstention; result records are byte-identical to ``pathgrade score --out``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from pathgrade import Case, Run, score
from pathgrade.core.config import ScoringConfig
from pathgrade.engines.runner import evaluate_files
from pathgrade.io.provenance import scoring_provenance
from pathgrade.io.results import write_results
from pathgrade.stats.partial import SummaryPartial, passk_from_codes
from pathgrade.stats.passk import passk_summary

TOOLS = ["search", "lookup", "refund"]


def _inputs(tmp_path: Path, n_runs: int = 150, seed: int = 5) -> tuple[Path, Path]:
    rng = random.Random(seed)
    cases = []
    for c in range(10):
        case: dict[str, object] = {
            "case_id": f"c{c}",
            "reference": [f"{rng.choice(TOOLS)}:{rng.randint(0, 2)}" for _ in range(3)],
        }
        if c % 3:
            case["gold_evidence"] = [f"d{c}-{g}" for g in range(rng.randint(1, 3))]
        if c == 4:
            case["gold_evidence"] = {"d4-0": 2, "d4-1": 1, "d4-2": 0}
        if c == 7:
            case["answerable"] = False
        cases.append(case)
    cases.append({"case_id": "lonely", "reference": []})
    runs = []
    for r in range(n_runs):
        case = cases[r % 10]
        run: dict[str, object] = {
            "case_id": case["case_id"],
            "run_id": f"r{r}",
            "trial": r // 10,
            "steps": list(case["reference"]),  # type: ignore[call-overload]
        }
        if rng.random() < 0.7:
            run["success"] = rng.random() < 0.6
        if rng.random() < 0.8:
            run["retrieved"] = [f"d{r % 10}-{rng.randint(0, 5)}" for _ in range(rng.randint(0, 8))]
        if rng.random() < 0.15:
            run["abstained"] = True
        if rng.random() < 0.9:
            run["confidence"] = round(rng.random(), 2)
        if r % 7 == 0:
            run["usage"] = {"tokens": 120, "cost": 0.5}
        elif r % 5 == 0:
            run["steps"] = [{"tool": "search", "tokens": 7}, {"tool": "lookup", "latency_ms": 3}]
        runs.append(run)
    cases_path, runs_path = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    cases_path.write_text("\n".join(json.dumps(c) for c in cases) + "\n")
    runs_path.write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    return cases_path, runs_path


def _in_memory(cases_path: Path, runs_path: Path, config: ScoringConfig | None = None):  # type: ignore[no-untyped-def]
    cases = [Case.model_validate_json(line) for line in cases_path.read_text().splitlines()]
    runs = [Run.model_validate_json(line) for line in runs_path.read_text().splitlines()]
    # The records of a file's scoring carry the file's hash, as `pathgrade score` writes.
    provenance = scoring_provenance(config or ScoringConfig(), cases_path)
    return score(cases, runs, config, provenance=provenance)


@pytest.mark.parametrize("partition_size", [7, 40, 1000])
def test_summary_extras_equal_in_memory(tmp_path: Path, partition_size: int) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    config = ScoringConfig.model_validate(
        {
            "retrieval": {
                "metrics": [
                    "precision@5",
                    "precision",
                    "recall@3",
                    "recall@5(rel=2)",
                    "hit_rate@2",
                    "mrr@10",
                    "ndcg@10",
                    "num_rel_ret@5",
                    "num_ret",
                ]
            }
        }
    )
    full = _in_memory(cases_path, runs_path, config).summary()
    parts = evaluate_files(cases_path, runs_path, config, partition_size=partition_size).summary
    assert parts["retrieval"] == full["retrieval"]
    assert parts["abstention"] == full["abstention"]
    assert parts["pass@k"] == full["pass@k"]
    assert parts["pass^k"] == full["pass^k"]
    assert parts["trials"] == full["trials"]
    assert parts["cases_without_runs"] == 1


def test_records_are_the_bytes_score_out_writes(tmp_path: Path) -> None:
    cases_path, runs_path = _inputs(tmp_path)
    expected = tmp_path / "expected.jsonl"
    write_results(expected, (r.to_dict() for r in _in_memory(cases_path, runs_path)))
    chunks: list[bytes] = []
    evaluate_files(cases_path, runs_path, partition_size=13, sink=chunks.append)
    assert b"".join(chunks) == expected.read_bytes()


def test_passk_from_codes_equals_passk_summary() -> None:
    rng = np.random.default_rng(2)
    for _ in range(30):
        n = int(rng.integers(1, 200))
        codes = rng.integers(0, 20, n)
        trials = rng.integers(0, 6, n)
        keep = np.unique(np.stack([codes, trials]), axis=1, return_index=True)[1]
        keep.sort()
        codes, trials = codes[keep], trials[keep]
        outcomes = rng.integers(-1, 2, len(codes)).astype(np.int8)
        got = passk_from_codes(codes, trials, outcomes)
        success = [None if o < 0 else bool(o) for o in outcomes.tolist()]
        has_several = max(np.bincount(codes)) >= 2
        if not trials.any() or not has_several:
            assert got == {}
            continue
        want = passk_summary([f"c{c}" for c in codes.tolist()], trials.tolist(), success)
        assert got == want


def test_repeated_case_trial_pairs_are_not_computed() -> None:
    codes = np.array([0, 0, 0, 1], np.int64)
    trials = np.array([0, 1, 1, 0], np.int64)
    got = passk_from_codes(codes, trials, np.ones(4, np.int8))
    assert got == {"not_computed": {"pass@k": "some (case_id, trial) pairs have several runs"}}


def test_merge_is_concatenation_in_order() -> None:
    a, b = SummaryPartial(), SummaryPartial()
    a.add_runs(np.array([3, 1]), np.array([0, 0]), np.array([1, 0], np.int8))
    b.add_runs(np.array([1, 3]), np.array([1, 1]), np.array([1, -1], np.int8))
    merged = a.merge(b)
    assert merged.runs == 4
    assert np.concatenate(merged.case_codes).tolist() == [3, 1, 1, 3]
    assert merged.finalize(5)["cases_without_runs"] == 3
