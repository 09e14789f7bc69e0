"""``pathgrade.score`` runs every layer the data has labels for, and says what it skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade import Case, Run, score
from pathgrade.cli.main import main
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config
from pathgrade.io.results import read_results
from pathgrade.io.tools import load_tools
from pathgrade.metrics import catalogue
from pathgrade.stats.compare import compare_records

DATA = Path(__file__).resolve().parent / "data" / "layers"


def _fixture() -> tuple[dict[str, Case], list[Run]]:
    cases = {c.case_id: c for c in load_cases(DATA / "cases.jsonl").items}
    return cases, load_runs(DATA / "runs.jsonl", cases).items


def test_every_layer_with_labels_is_computed() -> None:
    cases, runs = _fixture()
    result = score(cases, runs, tools=load_tools(DATA / "tools.json"))
    names = set(result.metrics)
    assert {"path_score", "schema_validity", "faithfulness", "token_f1", "recall@5"} <= names
    by_run = {r.run_id: r.metrics for r in result}
    faithful = [m["faithfulness"] for m in by_run.values() if m["faithfulness"] is not None]
    assert faithful == [0.75]  # 3 supported, 1 unsupported, 1 unverifiable
    summary = result.summary()
    assert "abstention" in summary and "tools" in summary
    assert summary["undefined"]["faithfulness"] == len(runs) - 1


def test_without_labels_layers_are_not_computed_not_zero() -> None:
    result = score([Case(case_id="a", reference=())], [Run(case_id="a")])
    summary = result.summary()
    assert "faithfulness" not in result.metrics and "recall@5" not in result.metrics
    assert set(summary["not_computed"]) >= {"retrieval", "tool_layer", "answer_layer"}


def test_retrieval_layer_from_retrieved_and_gold_evidence() -> None:
    case = Case(case_id="q", reference=(), gold_evidence=("A", "C", "D"))
    run = Run.model_validate({"case_id": "q", "retrieved": ["B", "A", "E", "C", "F"]})
    metrics = score([case], [run])[0].metrics
    assert metrics["precision@5"] == pytest.approx(0.4)
    assert metrics["recall@5"] == pytest.approx(2 / 3)
    assert metrics["hit_rate@5"] == 1.0


def test_pass_at_k_in_summary_when_runs_have_trials() -> None:
    # case a: 3 trials, 1 success; case b: 3 trials, 3 successes
    cases = [Case(case_id="a", reference=()), Case(case_id="b", reference=())]
    outcomes = {"a": [True, False, False], "b": [True, True, True]}
    runs = [
        Run(case_id=c, trial=t, success=s) for c, seq in outcomes.items() for t, s in enumerate(seq)
    ]
    summary = score(cases, runs).summary()
    assert summary["pass@k"]["1"] == pytest.approx((1 / 3 + 1) / 2)
    assert summary["pass^k"]["3"] == pytest.approx((0 + 1) / 2)
    assert summary["trials"]["min"] == 3 and summary["trials"]["cases"] == 2


def test_unanswerable_case_goal_is_to_abstain() -> None:
    case = Case(case_id="u", reference=(), answerable=False)
    abstained = Run.model_validate({"case_id": "u", "abstained": True})
    answered = Run.model_validate({"case_id": "u", "answer": "42"})
    result = score([case], [abstained, answered])
    assert [r.metrics["goal_success"] for r in result] == [True, False]


def test_cli_tools_option(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(DATA / "cases.jsonl"), str(DATA / "runs.jsonl")]
    code = main(["score", *args, "--tools", str(DATA / "tools.json"), "--json"])
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    assert "schema_validity" in document["results"][0]["metrics"]


#: Retrieval metrics of every JSON kind: a proportion, a binary and three counts.
KIND_CONFIG = (
    '[retrieval]\nmetrics = ["recall@5", "hit_rate@5", "num_rel", "num_ret@5", "num_rel_ret@5"]\n'
)


def _kind_of(value: object) -> str:
    """How a JSON value is typed: bool, count (an int) or a number (a float)."""
    if isinstance(value, bool):
        return "bool"
    return "count" if isinstance(value, int) else "number"


def test_json_kinds_come_from_the_catalogue(tmp_path: Path) -> None:
    # Every metric of every layer is typed as its catalogue row says: binary metrics as
    # booleans (exact_match, numeric_match, state_match, hit_rate@5: not 1.0/0.0), counts
    # as integers (num_rel, num_ret@5, num_rel_ret@5, claims_supported ...), the rest as
    # floats; in the result's kinds and in the records `score --out` writes.
    config_path = tmp_path / "pathgrade.toml"
    config_path.write_text(KIND_CONFIG)
    cases, runs = _fixture()
    result = score(
        cases, runs, config=load_config(config_path), tools=load_tools(DATA / "tools.json")
    )
    assert {name: result.kinds[name] for name in result.metrics} == {
        name: catalogue.json_kind(name) for name in result.metrics
    }
    expected_kinds = {"rate": "number", "score": "number", "bool": "bool", "count": "count"}
    out = tmp_path / "results.jsonl"
    args = [
        str(DATA / "cases.jsonl"),
        str(DATA / "runs.jsonl"),
        "--tools",
        str(DATA / "tools.json"),
    ]
    assert main(["score", *args, "--config", str(config_path), "--out", str(out)]) == 0
    seen: dict[str, set[str]] = {}
    for record in read_results(out):
        for name, value in record["metrics"].items():
            if value is not None:
                seen.setdefault(name, set()).add(_kind_of(value))
    for name, kinds in seen.items():
        assert kinds == {expected_kinds[catalogue.json_kind(name)]}, (name, kinds)
    binary = {"exact_match", "numeric_match", "state_match", "hit_rate@5", "goal_success"}
    counts = {"num_rel", "num_ret@5", "num_rel_ret@5", "claims_supported", "missing_steps"}
    assert {n for n, k in seen.items() if k == {"bool"}} >= binary
    assert {n for n, k in seen.items() if k == {"count"}} >= counts


def test_in_memory_and_partitioned_records_agree_on_kinds(tmp_path: Path) -> None:
    # One partition: the same bytes as scoring at once, every layer computed. Partitions of
    # 2 runs: a partition whose runs have no rubric scores has no rubric columns (the layer
    # columns are a partition's), but every value both write is the same JSON, typed alike.
    config_path = tmp_path / "pathgrade.toml"
    config_path.write_text(KIND_CONFIG)
    args = [
        str(DATA / "cases.jsonl"),
        str(DATA / "runs.jsonl"),
        "--tools",
        str(DATA / "tools.json"),
    ]
    args += ["--config", str(config_path)]
    whole, one_part, parts = (tmp_path / f"{n}.jsonl" for n in ("whole", "one", "parts"))
    assert main(["score", *args, "--out", str(whole)]) == 0
    assert main(["score", *args, "--out", str(one_part), "--partition-size", "1000"]) == 0
    assert main(["score", *args, "--out", str(parts), "--partition-size", "2"]) == 0
    assert whole.read_bytes() == one_part.read_bytes()
    shared = 0
    for a, b in zip(read_results(whole), read_results(parts), strict=True):
        for name in a["metrics"].keys() & b["metrics"].keys():
            assert json.dumps(a["metrics"][name]) == json.dumps(b["metrics"][name]), name
            shared += 1
        assert (a["defects"], a["alignment"]) == (b["defects"], b["alignment"])
    assert shared > len(read_results(whole)) * 17  # the 17 trajectory metrics, and more
    hits = [r["metrics"].get("hit_rate@5") for r in read_results(parts)]
    assert [repr(h) for h in hits if h is not None] == ["False"]  # c2 only: not 0.0


def test_compare_tests_binary_layer_metrics_with_mcnemar() -> None:
    # exact_match is binary: written as booleans, compare pairs them with McNemar's exact
    # test (one trial per case). Baseline: the fixture's runs; variant: every answer wrong.
    cases, runs = _fixture()
    baseline = [r.to_dict() for r in score(cases, runs)]
    wrong = [r.model_copy(update={"answer": "no idea"}) for r in runs]
    variant = [r.to_dict() for r in score(cases, wrong)]
    assert {type(r["metrics"]["exact_match"]) for r in baseline} - {type(None)} == {bool}
    compared = compare_records(baseline, variant, metrics=["exact_match", "token_f1"], seed=1)
    assert compared.metrics["exact_match"].test == "mcnemar_exact"
    assert compared.metrics["token_f1"].test != "mcnemar_exact"
