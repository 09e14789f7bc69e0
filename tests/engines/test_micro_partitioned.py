"""The partitioned summary's retrieval micro averages equal the in-memory ones under every
``no_gold`` policy (queries without gold are pooled as the macro mean pools them)."""

from __future__ import annotations

import json
from pathlib import Path

from pathgrade import ScoringConfig, score
from pathgrade.engines.runner import evaluate_files
from pathgrade.io.cases import load_cases, load_runs

METRICS = [
    f"{m}(no_gold={p})"
    for m in ("precision@1", "hit_rate@1", "recall@1", "precision")
    for p in ("skip", "zero", "unanswerable")
]


def test_partitioned_micro_equals_in_memory(tmp_path: Path) -> None:
    cases = [
        {"case_id": "c1", "reference": [], "gold_evidence": ["a"]},
        {"case_id": "c2", "reference": [], "gold_evidence": []},  # no gold
    ]
    runs = [
        {"case_id": "c1", "steps": [], "retrieved": ["a", "x"]},
        {"case_id": "c2", "steps": [], "retrieved": ["c", "y"]},
        {"case_id": "c2", "steps": [], "retrieved": []},
    ]
    cases_path, runs_path = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    cases_path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    runs_path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    config = ScoringConfig.model_validate({"retrieval": {"metrics": METRICS}})
    by_id = {c.case_id: c for c in load_cases(cases_path).items}
    loaded = load_runs(runs_path, by_id).items
    in_memory = score(by_id, loaded, config).summary()["retrieval"]["micro"]
    # precision@1(no_gold=zero): hits 1 + 0 + 0 over K 1 + 1 + 1; unanswerable: the empty
    # ranking counts as correct, (1 + 0 + 1) / 3.
    assert in_memory["precision@1(no_gold=zero)"] == 1 / 3
    assert in_memory["precision@1(no_gold=unanswerable)"] == 2 / 3
    partitioned = evaluate_files(cases_path, runs_path, config, partition_size=2)
    assert partitioned.summary["retrieval"]["micro"] == in_memory
