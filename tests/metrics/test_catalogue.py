"""The metric catalogue: every emitted name has exactly one valid row, and the doc is the table.

The walk tests score the bundled examples and the test fixtures (trajectory, retrieval, tool,
answer, abstention, usage, defects, trials, judge) and fail on any emitted metric name without
a row, as scikit-learn's ``metrics/tests/test_common.py`` classifies every metric.
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

import pathgrade
from pathgrade.cli.main import main
from pathgrade.core.config import PENALTY_KEYS, RetrievalLayer, ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.results import ScoreResult
from pathgrade.core.types import Case, Run
from pathgrade.io.cases import load_cases, load_runs
from pathgrade.io.config import load_config
from pathgrade.io.tools import load_tools
from pathgrade.judge.agreement import judge_agreement
from pathgrade.judge.bias import PositionBiasReport
from pathgrade.judge.fill import FillResult
from pathgrade.judge.summary import summarize
from pathgrade.metrics import catalogue
from pathgrade.metrics.registry import BUILTIN
from pathgrade.metrics.spec import UNDEFINED_POLICIES
from pathgrade.metrics.trajectory.outputs import TRAJECTORY_METRICS
from pathgrade.stats.records import metric_names

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
LAYERS = ROOT / "tests" / "data" / "layers"
JUDGE = ROOT / "tests" / "data" / "judge"

#: Summary keys that are bookkeeping (counts of inputs, reasons, settings), not metrics.
BOOKKEEPING = {"runs", "undefined", "not_computed", "cases_without_runs", "skipped", "engine"}
TRIALS_COUNTS = {"cases", "runs", "min", "max", "undefined_runs", "undefined_cases"}
#: ``summary["conversations"]["divergence"]``: counts over cases, no metric.
DIVERGENCE_COUNTS = {"cases", "diverged", "share", "first_turn", "by_case"}
#: Every retrieval spelling: each built-in, its aliases, cut-offs and parameters.
RETRIEVAL_SPECS = (
    "precision@5", "P@3", "precision", "recall@5(no_gold=zero)", "R@2", "hit_rate@1",
    "success@2", "hit@3(rel=1)", "mrr", "recip_rank@5", "ap@5(denominator=gold)", "map",
    "dcg@3(gain=linear)", "ndcg@10", "num_rel", "num_rel_ret@5", "num_ret@5",
    "ndcg@5(undefined=zero)",
)  # fmt: skip


# ---- collecting what scoring emits ---------------------------------------------------------


def record_names(records: Iterable[Mapping[str, Any]]) -> set[str]:
    """Per-run names as every reader sees them (:func:`pathgrade.stats.records.metric_names`:
    metric keys, the amounts under their one name, ``usage.steps``) and ``defects.<kind>``."""
    records = list(records)
    out = set(metric_names(records))
    for record in records:
        out |= {f"defects.{d['kind']}" for d in record.get("defects") or []}
    return out


def summary_names(summary: Mapping[str, Any]) -> set[str]:
    """The metric names of a ``pathgrade score`` summary; an unclassified section fails."""
    out: set[str] = set()
    for key, value in summary.items():
        if key in BOOKKEEPING:
            continue
        if key in ("pass@k", "pass^k"):
            out |= {f"{key[:-1]}{k}" for k in value}
        elif key == "trials":
            assert set(value) == TRIALS_COUNTS
        elif key == "by_case":  # per metric: the mean of case means, its interval, counts
            out |= set(value)
        elif key == "interval":  # how the by_case intervals were computed: no metric
            assert set(value) == {"unit", "method", "confidence", "resamples", "seed"}
        elif key == "slices":
            out |= set(value["metrics"])
        elif key == "defects":
            out |= {f"defects.{kind}" for kind in value}
        elif key == "conversations":  # counts, pass^k of conversation_success, divergence
            assert set(value) <= {"runs", "turns", "pass^k", "pass@k", "divergence"}
            assert set(value["turns"]) <= {"mean", "max"}
            assert set(value["divergence"]) == DIVERGENCE_COUNTS
            out |= {"turns", "conversation_success"}
            out |= {f"{name[:-1]}{k}" for name in ("pass@k", "pass^k") for k in value.get(name, ())}
        elif key == "abstention":
            out |= {f"abstention.{k}" for k in value if k != "curve"}
        elif key == "retrieval":
            assert set(value) == {"runs_with_gold", "runs_without_retrieved", "micro"}
            out |= set(value["micro"])
        elif key == "tools":
            assert set(value) == {"per_tool", "dangerous", "unknown_tools"}
            counts = {"tool", "dangerous", "tp", "fp", "fn", "tn"}
            out |= {f"tools.per_tool.{k}" for row in value["per_tool"] for k in row} - {
                f"tools.per_tool.{k}" for k in counts
            }
            out |= {f"tools.dangerous.{k}" for k in value["dangerous"]} - {
                "tools.dangerous.tools",
                "tools.dangerous.runs",
                "tools.dangerous.true_negatives",
            }
        elif key == "system":  # per amount: its statistics over the runs, and counts
            from pathgrade.stats.usage_summary import STATISTICS

            amounts = {a for a, v in value.items() if isinstance(v, dict) and "runs" in v}
            out |= amounts | {f"{a}.{stat}" for a in amounts for stat in STATISTICS}
        else:
            assert not isinstance(value, dict | list), f"unclassified summary section {key!r}"
            out.add(key)
    return out


def result_names(result: ScoreResult) -> set[str]:
    records = [r.to_dict() for r in result]
    return set(result.metrics) | record_names(records) | summary_names(result.summary())


def unknown(names: Iterable[str]) -> list[str]:
    """The names without a row, and any deprecated spelling (never emitted)."""
    deprecated = catalogue.deprecated_names()
    return sorted(n for n in names if n in deprecated or not catalogue.is_known(n))


def _layers() -> tuple[dict[str, Case], list[Run]]:
    cases = {c.case_id: c for c in load_cases(LAYERS / "cases.jsonl").items}
    return cases, load_runs(LAYERS / "runs.jsonl", cases).items


def _examples() -> tuple[dict[str, Case], list[Run]]:
    cases = {c.case_id: c for c in load_cases(EXAMPLES / "cases.jsonl").items}
    return cases, load_runs(EXAMPLES / "runs.jsonl", cases).items


def _tau_bench() -> ModuleType:
    path = EXAMPLES / "tau_bench" / "score_tau_bench.py"
    spec = importlib.util.spec_from_file_location("score_tau_bench_catalogue", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


# ---- the walk ------------------------------------------------------------------------------


def test_bundled_examples_emit_only_catalogued_names() -> None:
    cases, runs = _examples()
    names = result_names(pathgrade.score(cases, runs, load_config(EXAMPLES / "pathgrade.toml")))
    assert {"path_score", "latency_ms", "usage.steps", "defects.wasted_step"} <= names
    assert unknown(names) == []


def test_layer_fixture_emits_only_catalogued_names() -> None:
    cases, runs = _layers()
    config = ScoringConfig(retrieval=RetrievalLayer(metrics=RETRIEVAL_SPECS))
    result = pathgrade.score(cases, runs, config, tools=load_tools(LAYERS / "tools.json"))
    names = result_names(result)
    expected = {
        "schema_validity", "dangerous_false_positives", "state_match", "faithfulness",
        "rubric.evidence", "abstention.aurc", "tools.dangerous.false_positive_rate",
        "tools.per_tool.f1", "P@3", "recall@5(no_gold=zero)", "num_ret@5",
    }  # fmt: skip
    assert expected <= names
    assert unknown(names) == []


def test_trials_summary_emits_only_catalogued_names() -> None:
    example = _tau_bench()
    cases, runs = example.cases_and_runs()
    result = pathgrade.score({c.case_id: c for c in cases}, runs, example.config())
    names = result_names(result)
    assert {"pass@1", "pass@4", "pass^4"} <= names
    assert unknown(names) == []


@pytest.mark.parametrize("partition", [None, "3"])
def test_score_cli_records_and_summary(
    tmp_path: Path, partition: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    names: set[str] = set()
    sets = [
        (
            EXAMPLES / "cases.jsonl",
            EXAMPLES / "runs.jsonl",
            "--config",
            EXAMPLES / "pathgrade.toml",
        ),
        (LAYERS / "cases.jsonl", LAYERS / "runs.jsonl", "--tools", LAYERS / "tools.json"),
    ]
    for index, (cases, runs, flag, value) in enumerate(sets):
        out = tmp_path / f"out{index}.jsonl"
        argv = ["score", str(cases), str(runs), flag, str(value), "--out", str(out), "--json"]
        if partition is not None:
            argv += ["--partition-size", partition]
        assert main(argv) == 0
        summary = json.loads(capsys.readouterr().out)["summary"]
        records = [json.loads(line) for line in out.read_text().splitlines()]
        names |= record_names(records) | summary_names(summary)
    assert {"path_score", "schema_validity", "usage.steps"} <= names
    assert unknown(names) == []


def test_golden_store_records_are_catalogued() -> None:
    records = json.loads((ROOT / "tests/golden/store/v1/example.records.json").read_text())
    assert unknown(record_names(records)) == []


def test_retrieval_cli_names_are_catalogued(capsys: pytest.CaptureFixture[str]) -> None:
    golden = ROOT / "tests" / "golden" / "trec_eval"
    metrics = [arg for spec in RETRIEVAL_SPECS for arg in ("-m", spec)]
    assert main(["retrieval", str(golden / "qrels.test"), str(golden / "results.test"), *metrics,
                 "--json"]) == 0  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    names = set(doc["summary"]) | set(doc["micro"]) | set(doc["counts"])
    assert len(doc["summary"]) == len(RETRIEVAL_SPECS)
    assert unknown(names) == []


def test_judge_outputs_are_catalogued() -> None:
    cases = {c.case_id: c for c in load_cases(JUDGE / "cases.jsonl").items}
    runs = list(load_runs(JUDGE / "runs.jsonl", cases).items)
    runs.append(Run(case_id=runs[0].case_id, run_id="rubric", answer="ok", rubric={"clarity": 4}))
    client = SimpleNamespace(
        config=SimpleNamespace(public=lambda: dict.fromkeys(
            ("base_url", "model", "model_version", "temperature", "seed", "max_tokens"))),
        stats=SimpleNamespace(to_dict=dict),
        cache=None,
    )  # fmt: skip
    doc = summarize(cases, FillResult(tuple(runs), (), ()), client)  # type: ignore[arg-type]
    names = set(doc["metrics"]) | {f"judged_trajectory.{k}" for k in doc["judged_trajectory"]}
    names -= {"judged_trajectory.n"}
    names |= {f"verbosity.{k}" for row in doc["verbosity"].values() for k in row} - {"verbosity.n"}
    agreement = judge_agreement(runs, runs).to_dict()["fields"]
    counts = {"field", "n", "missing", "unaligned", "labels", "confusion", "notes"}
    names |= {k for row in agreement for k in row} - counts
    bias = PositionBiasReport(()).to_dict()
    names |= set(bias) - {"pairs", "judged", "inconsistent", "judge_errors", "favoured_slots"}
    assert {"faithfulness", "cohen_kappa", "position_bias_rate", "verbosity.spearman"} <= names
    assert unknown(names) == []


# ---- the rows ------------------------------------------------------------------------------


def test_every_row_is_valid() -> None:
    for row in catalogue.rows():
        where = row.name
        assert row.layer in catalogue.LAYERS, where
        assert row.direction in catalogue.DIRECTIONS, where
        assert row.kind in catalogue.KINDS, where
        assert row.undefined in UNDEFINED_POLICIES, where
        assert row.lo < row.hi and not math.isnan(row.lo) and not math.isnan(row.hi), where
        if row.kind in ("binary", "proportion"):
            assert row.range == (0.0, 1.0), where
        if row.kind in ("count", "quantity"):
            assert row.lo == 0.0 and row.hi == math.inf, where
        assert row.definition and "\n" not in row.definition and len(row.definition) <= 120
        assert row.json_kind in ("rate", "bool", "count", "score"), where
        if row.pattern:
            assert catalogue.find(row.name) is row  # its own spelling is in the table
        assert catalogue.row(row.name) is row, where


def test_no_two_rows_share_a_name_or_alias() -> None:
    spellings = Counter(s for r in catalogue.rows() for s in (r.name, *r.aliases))
    assert [s for s, n in spellings.items() if n > 1] == []


def test_trajectory_rows_are_the_output_order_and_json_kinds() -> None:
    # the lead derives TRAJECTORY_METRICS from these: same names, same order, same kinds
    rows = catalogue.rows("trajectory")
    assert [r.name for r in rows] == list(TRAJECTORY_METRICS)
    assert {r.name: r.json_kind for r in rows} == TRAJECTORY_METRICS


def test_defect_rows_are_the_penalty_keys() -> None:
    assert catalogue.names("defects") == [f"defects.{k}" for k in PENALTY_KEYS]


def test_registry_reads_direction_from_the_catalogue() -> None:
    assert sorted(r.name for r in BUILTIN) == sorted(catalogue.names("retrieval"))
    for info in BUILTIN:
        row = catalogue.row(info.name)
        assert (info.direction, info.layer, info.aliases) == (row.direction, row.layer, row.aliases)
    assert catalogue.direction("num_ret") == "neither" and catalogue.direction("ndcg") == "higher"


def test_doctests() -> None:
    failures, tried = doctest.testmod(catalogue)
    assert tried > 0 and failures == 0


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("ndcg@10", "ndcg"),
        ("precision@5(no_gold=zero)", "precision"),
        ("P@5", "precision"),
        ("success@3(rel=2)", "hit_rate"),
        ("rubric.root_cause", "rubric.<dimension>"),
        ("pass@12", "pass@<k>"),
        ("pass^3", "pass^<k>"),
        ("usage.steps", "usage.steps"),
        ("defects.missing_step", "defects.missing_step"),
    ],
)
def test_lookup_resolves_spellings(name: str, base: str) -> None:
    assert catalogue.row(name).name == base


@pytest.mark.parametrize(
    "name", ["path_score@5", "defects.timeout", "acl_leaks", "pass@0", "rubric.", "nd cg"]
)
def test_unknown_names_are_not_known(name: str) -> None:
    assert not catalogue.is_known(name)
    with pytest.raises(InputError, match="unknown metric"):
        catalogue.row(name)


def test_unknown_name_error_lists_the_closest() -> None:
    with pytest.raises(InputError, match=r"did you mean defects\.wasted_step"):
        catalogue.direction("defects.wasted_stpe")
    assert catalogue.closest("ndgc@10") == ["ndcg@10"]
    assert catalogue.closest("path_scor")[0] == "path_score"
    assert catalogue.closest("zzzzzz") == []


DOC = ROOT / "docs" / "catalogue.md"
_TABLE = re.compile(r"(<!-- catalogue:start -->\n)(.*)(<!-- catalogue:end -->)", re.S)


def test_doc_table_is_what_the_catalogue_renders() -> None:
    match = _TABLE.search(DOC.read_text(encoding="utf-8"))
    assert match is not None, "docs/catalogue.md lost its markers"
    assert match.group(2) == catalogue.markdown_table(), (
        "docs/catalogue.md is stale: run python3 tests/metrics/test_catalogue.py"
    )


def test_no_module_keeps_its_own_direction_list() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "src" / "pathgrade").rglob("*.py")
        if re.search(r"LOWER_IS_BETTER|HIGHER_IS_BETTER", path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


if __name__ == "__main__":  # rewrite the tables of docs/catalogue.md from the catalogue
    text = DOC.read_text(encoding="utf-8")
    table = catalogue.markdown_table()
    DOC.write_text(_TABLE.sub(lambda m: m.group(1) + table + m.group(3), text), encoding="utf-8")
