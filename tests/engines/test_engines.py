"""Partitioned scoring: every engine and worker count gives the single-process results."""

from __future__ import annotations

import dataclasses
import json
import random
import tempfile
from pathlib import Path

import orjson
import pytest

from pathgrade import Case, Run, score
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.engines import work
from pathgrade.engines.runner import evaluate_files
from pathgrade.io.partitions import Partition, plan_partitions, read_partition
from pathgrade.io.provenance import scoring_provenance

TOOLS = ["search", "lookup", "refund", "notify"]


def _write_inputs(tmp_path: Path, n_runs: int = 120, seed: int = 3) -> tuple[Path, Path]:
    rng = random.Random(seed)
    cases = []
    for c in range(12):
        ref = [f"{rng.choice(TOOLS)}:{rng.randint(0, 3)}" for _ in range(rng.randint(1, 6))]
        cases.append({"case_id": f"c{c}", "reference": ref, "budget": {"steps": 6}})
    cases.append({"case_id": "lonely", "reference": []})  # a case without runs
    runs = []
    for r in range(n_runs):
        case = cases[r % 12]
        steps = list(case["reference"])
        if rng.random() < 0.5 and steps:
            steps.insert(rng.randrange(len(steps)), rng.choice(steps))
        if rng.random() < 0.3:
            rng.shuffle(steps)
        runs.append(
            {
                "case_id": case["case_id"],
                "run_id": f"r{r}",
                "trial": r // 12,
                "steps": steps,
                "success": rng.random() < 0.6,
            }
        )
    cases_path, runs_path = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    cases_path.write_text("\n".join(json.dumps(c) for c in cases) + "\n")
    runs_path.write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    return cases_path, runs_path


def _records(cases_path: Path, runs_path: Path, **options: object) -> tuple[list[bytes], dict]:
    chunks: list[bytes] = []
    evaluation = evaluate_files(cases_path, runs_path, sink=chunks.append, **options)  # type: ignore[arg-type]
    return b"".join(chunks).splitlines(), evaluation.summary


def test_partitions_cover_every_line_once(tmp_path: Path) -> None:
    _, runs_path = _write_inputs(tmp_path, n_runs=50)
    partitions = plan_partitions(runs_path, 7)
    lines = [line for p in partitions for line, _ in read_partition(p)]
    assert lines == list(range(1, 51)) and len(partitions) == 8


def test_records_equal_in_memory_scoring(tmp_path: Path) -> None:
    cases_path, runs_path = _write_inputs(tmp_path)
    records, summary = _records(cases_path, runs_path, partition_size=17)
    cases = [Case.model_validate_json(line) for line in cases_path.read_text().splitlines()]
    runs = [Run.model_validate_json(line) for line in runs_path.read_text().splitlines()]
    # The records of a file's scoring carry the file's hash, as `pathgrade score` writes.
    expected = score(cases, runs, provenance=scoring_provenance(ScoringConfig(), cases_path))
    assert [orjson.loads(r) for r in records] == [r.to_dict() for r in expected]
    full = expected.summary()
    for name in ("path_score", "composite", "tool_f1", "over_budget"):
        assert summary[name] == pytest.approx(full[name], rel=1e-12)
    assert summary["pass^k"] == pytest.approx(full["pass^k"])
    assert summary["cases_without_runs"] == 1


def test_two_workers_give_identical_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases_path, runs_path = _write_inputs(tmp_path)
    one = _records(cases_path, runs_path, partition_size=13, workers=1)
    spools = tmp_path / "spools"
    spools.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spools))
    two = _records(cases_path, runs_path, partition_size=13, workers=2)
    assert one == two
    assert not list(spools.iterdir())  # the workers' record files and their folder are gone


def test_spooled_records_are_read_once_and_deleted(tmp_path: Path) -> None:
    cases_path, runs_path = _write_inputs(tmp_path, n_runs=30)
    partition = plan_partitions(runs_path, 30)[0]
    task = work.ScoreTask(str(cases_path), partition, spool=str(tmp_path))
    spooled = work.run_task(task)
    assert spooled.records == b"" and spooled.records_path is not None
    path = Path(spooled.records_path)
    inline = work.run_task(dataclasses.replace(task, spool=None))
    assert spooled.take_records() == inline.records == inline.take_records()
    assert not path.exists() and spooled.take_records() == inline.records


def test_dask_local_cluster_gives_identical_results(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    cases_path, runs_path = _write_inputs(tmp_path)
    local = _records(cases_path, runs_path, partition_size=25)
    dask = _records(cases_path, runs_path, partition_size=25, engine="dask", workers=2)
    assert local == dask


def test_parquet_input_gives_the_same_records(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    cases_path, runs_path = _write_inputs(tmp_path, n_runs=60)
    rows = [json.loads(line) for line in runs_path.read_text().splitlines()]
    table = pa.Table.from_pylist(
        [{**r, "steps": json.dumps(r["steps"])} for r in rows]  # varying shapes as JSON text
    )
    parquet_path = tmp_path / "runs.parquet"
    pq.write_table(table, parquet_path, row_group_size=50)  # groups larger than partitions
    from_parquet, parquet_summary = _records(cases_path, parquet_path, partition_size=20)
    from_jsonl, jsonl_summary = _records(cases_path, runs_path, partition_size=20)
    assert from_parquet == from_jsonl
    # Partitions do not cross row groups (50 rows): sums are added in another order.
    assert parquet_summary["path_score"] == pytest.approx(jsonl_summary["path_score"])


def test_parquet_struct_steps_drop_nulls_and_decode_json_arguments(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    cases_path = tmp_path / "cases.jsonl"
    cases_path.write_text(json.dumps({"case_id": "c", "reference": ["search:a", "fetch"]}) + "\n")
    steps = [
        [
            {"tool": "search", "arguments": '["a"]', "latency_ms": None},
            {"tool": "fetch", "arguments": None, "latency_ms": 3.0},
        ],
        [{"tool": "fetch", "arguments": "{}", "latency_ms": 1.5}],
    ]
    table = pa.table(
        {
            "case_id": ["c", "c"],
            "run_id": ["r0", "r1"],
            "steps": pa.array(
                steps,
                pa.list_(
                    pa.struct(
                        [
                            ("tool", pa.string()),
                            ("arguments", pa.string()),
                            ("latency_ms", pa.float64()),
                        ]
                    )
                ),
            ),
        }
    )
    parquet_path = tmp_path / "runs.parquet"
    pq.write_table(table, parquet_path)
    runs_path = tmp_path / "runs.jsonl"
    as_json = [
        {
            "case_id": "c",
            "run_id": "r0",
            "steps": ["search:a", {"tool": "fetch", "latency_ms": 3.0}],
        },
        {"case_id": "c", "run_id": "r1", "steps": [{"tool": "fetch", "latency_ms": 1.5}]},
    ]
    runs_path.write_text("\n".join(json.dumps(r) for r in as_json) + "\n")
    assert _records(cases_path, parquet_path)[0] == _records(cases_path, runs_path)[0]


def test_errors_name_file_and_line_and_skip_invalid_counts(tmp_path: Path) -> None:
    cases_path, runs_path = _write_inputs(tmp_path, n_runs=30)
    lines = runs_path.read_text().splitlines()
    lines[21] = '{"case_id": "ghost"}'
    lines[5] = "{not json"
    runs_path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        evaluate_files(cases_path, runs_path, partition_size=10)
    assert info.value.line == 6 and info.value.file == str(runs_path)
    records, summary = _records(cases_path, runs_path, partition_size=10, skip_invalid=True)
    assert len(records) == 28 and summary["skipped"]["count"] == 2
    assert summary["runs"] == 28


def test_earlier_partitions_are_kept_when_a_later_one_fails(tmp_path: Path) -> None:
    cases_path, runs_path = _write_inputs(tmp_path, n_runs=30)
    lines = runs_path.read_text().splitlines()
    lines[25] = '{"case_id": "ghost"}'
    runs_path.write_text("\n".join(lines) + "\n")
    chunks: list[bytes] = []
    with pytest.raises(InputError, match="unknown case_id 'ghost'"):
        evaluate_files(cases_path, runs_path, partition_size=10, sink=chunks.append)
    assert len(b"".join(chunks).splitlines()) == 20


def test_cli_partitioned_json_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pathgrade.cli.main import main

    cases_path, runs_path = _write_inputs(tmp_path, n_runs=40)
    out = tmp_path / "results.jsonl"
    code = main(
        [
            "score",
            str(cases_path),
            str(runs_path),
            "--workers",
            "2",
            "--partition-size",
            "9",
            "--json",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    assert len(document["results"]) == 40 and document["summary"]["runs"] == 40
    assert document["summary"]["engine"] == {"name": "local", "workers": 2, "partitions": 5}
    assert len(out.read_text().splitlines()) == 40


def test_tool_confusion_merges_across_partitions() -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "layers"
    from pathgrade.io.cases import load_cases, load_runs
    from pathgrade.io.tools import load_tools

    cases = {c.case_id: c for c in load_cases(data / "cases.jsonl").items}
    runs = load_runs(data / "runs.jsonl", cases).items
    whole = score(cases, runs, tools=load_tools(data / "tools.json")).summary()["tools"]
    parts = evaluate_files(
        data / "cases.jsonl", data / "runs.jsonl", partition_size=2, tools_path=data / "tools.json"
    ).summary["tools"]
    assert parts["per_tool"] == whole["per_tool"]
    assert parts["dangerous"]["false_positive_rate"] == whole["dangerous"]["false_positive_rate"]
    assert parts["dangerous"]["runs"] == whole["dangerous"]["runs"]


def test_a_worker_shares_its_runs_steps_with_their_cases_references(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The partition's cases are validated first, so a run's step that repeats a call of
    its case's reference is that reference's step object (and scores as before)."""
    import pathgrade.engines.work as work

    cases_path, runs_path = _write_inputs(tmp_path, n_runs=24)
    seen: list[tuple[dict[str, Case], list[Run]]] = []

    def spy(cases: dict[str, Case], runs: list[Run], *args: object, **kwargs: object) -> object:
        seen.append((cases, runs))
        return score(cases, runs, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(work, "score", spy)
    # A pool that steps aside at the first run record without hits: only cases validated
    # before the runs can make the runs' steps shared.
    monkeypatch.setattr("pathgrade.io.step_pool.SAMPLE_LOOKUPS", 1)
    monkeypatch.setattr("pathgrade.io.step_pool.MIN_HIT_SHARE", 1.0)
    work._CASES.clear()  # a fresh index, as in a new worker process
    shared = _records(cases_path, runs_path, partition_size=24)[0]
    ((cases, runs),) = seen
    repeated = [
        (step, case_step)
        for run in runs
        for step in run.steps
        for case_step in cases[run.case_id].reference or ()
        if step == case_step
    ]
    assert repeated and all(step is case_step for step, case_step in repeated)
    monkeypatch.undo()
    assert shared == _records(cases_path, runs_path, partition_size=24)[0]


def test_a_bad_case_and_a_bad_run_in_one_partition_report_the_run_first(tmp_path: Path) -> None:
    """Cases are read before the runs they serve, but errors keep the order they had: the
    partition's bad run (line 3) before the bad case one of its runs names."""
    cases_path, runs_path = _write_inputs(tmp_path, n_runs=12)
    case_lines = cases_path.read_text().splitlines()
    case_lines[0] = '{"case_id": "c0", "reference": "not a list"}'
    cases_path.write_text("\n".join(case_lines) + "\n")
    lines = runs_path.read_text().splitlines()
    lines[2] = '{"case_id": "c2", "steps": 5}'
    runs_path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        evaluate_files(cases_path, runs_path, partition_size=12)
    assert (info.value.file, info.value.line) == (str(runs_path), 3)
    lines[2] = '{"case_id": "c2", "steps": []}'
    runs_path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        evaluate_files(cases_path, runs_path, partition_size=12)
    assert (info.value.file, info.value.line) == (str(cases_path), 1)


def _pool_inputs(tmp_path: Path, shared: bool) -> tuple[Path, list[Partition]]:
    """20 cases of two calls each (the same two for every case when ``shared``), one run
    each repeating its reference; partitions of 10 runs."""
    cases_path, runs_path = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    steps = [
        ["search:a", "fetch:b"] if shared else [f"search:a{c}", f"fetch:b{c}"] for c in range(20)
    ]
    cases_path.write_text(
        "".join(
            json.dumps({"case_id": f"c{c}", "reference": s}) + "\n" for c, s in enumerate(steps)
        )
    )
    runs_path.write_text(
        "".join(json.dumps({"case_id": f"c{c}", "steps": s}) + "\n" for c, s in enumerate(steps))
    )
    return cases_path, plan_partitions(runs_path, 10)


def test_a_worker_keeps_its_step_pool_while_partitions_share_steps(tmp_path: Path) -> None:
    cases_path, partitions = _pool_inputs(tmp_path, shared=True)
    work._POOLS.clear()
    first = work.run_task(work.ScoreTask(str(cases_path), partitions[0]))
    pool = work._POOLS[True]
    second = work.run_task(work.ScoreTask(str(cases_path), partitions[1]))
    assert work._POOLS[True] is pool
    assert pool.misses == 2  # two distinct calls, validated once for both partitions
    assert first.records.splitlines()[0] == second.records.splitlines()[0].replace(b"c10", b"c0")


def test_a_worker_drops_its_step_pool_when_steps_do_not_recur(tmp_path: Path) -> None:
    cases_path, partitions = _pool_inputs(tmp_path, shared=False)
    work._POOLS.clear()
    work.run_task(work.ScoreTask(str(cases_path), partitions[0]))
    assert True not in work._POOLS  # the next partition starts with an empty pool


def test_a_job_scored_in_this_process_leaves_no_pooled_steps(tmp_path: Path) -> None:
    cases_path, partitions = _pool_inputs(tmp_path, shared=True)
    evaluate_files(cases_path, partitions[0].path, partition_size=10)
    assert not work._POOLS


def test_parquet_slices_read_in_any_order_are_their_rows(tmp_path: Path) -> None:
    """Slices of a large row group are streamed: read in order, one after the other, or in
    any other order (the stream is opened again), each is its rows."""
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    rows = [{"case_id": f"c{i % 7}", "run_id": f"r{i}", "trial": i} for i in range(95)]
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=60)
    partitions = plan_partitions(path, 25)
    assert [(p.row_groups, p.start, p.end) for p in partitions] == [
        ((0,), 0, 25),
        ((0,), 25, 50),
        ((0,), 50, 60),
        ((1,), 0, 25),
        ((1,), 25, 35),
    ]
    expected = {
        p.index: [
            (i + 1, rows[i]) for i in range(p.first_line - 1, p.first_line - 1 + p.end - p.start)
        ]
        for p in partitions
    }
    rng = random.Random(2)
    for order in (partitions, partitions[::-1], rng.sample(partitions, len(partitions))):
        for partition in order:
            assert list(read_partition(partition)) == expected[partition.index]
