"""The written records against the executable definition: the bytes that
``pathgrade.io.results`` writes for ``pathgrade score --out`` (from the engine's columns,
chunk by chunk) decode to exactly the definition's results.

Compared per run, as JSON text (so ``true`` is not ``1.0`` and ``1`` is not ``1.0``): every
trajectory metric in output order, ``reference_index``, the defects in order and the
alignment. Random scorings as in ``test_definition_differential.py``, written in chunks of a
few runs (so that chunk boundaries fall inside the scoring) and in one chunk.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.io.results import iter_records_jsonl
from pathgrade.metrics.trajectory.definition import score_runs
from pathgrade.metrics.trajectory.outputs import TRAJECTORY_METRICS
from pathgrade.plugins import (
    argument_matchers,
    register_argument_matcher,
    unregister_argument_matcher,
)

from .trajectory_strategies import PLUGIN, random_scoring, scorings, starts_with

RECORDS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(autouse=True, scope="module")
def _plugin() -> Iterator[None]:
    register_argument_matcher(PLUGIN, starts_with)
    yield
    unregister_argument_matcher(PLUGIN)


def _trajectory_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The fields the definition gives: trajectory metrics (in the record's order),
    ``reference_index``, defects, alignment (without the per-field details ``fields``, which
    pathgrade.metrics.trajectory.field_details adds after scoring; tested on their own)."""
    metrics = {k: v for k, v in record["metrics"].items() if k in TRAJECTORY_METRICS}
    alignment = [{k: v for k, v in entry.items() if k != "fields"} for entry in record["alignment"]]
    return {
        "metric_names": list(metrics),
        "metrics": metrics,
        "reference_index": record["reference_index"],
        "defects": record["defects"],
        "alignment": alignment,
    }


def assert_records_are_the_definition(
    cases: Sequence[Case], runs: Sequence[Run], config: ScoringConfig, chunk_runs: int
) -> None:
    """Write the engine's records (``chunk_runs`` runs a chunk) and compare every run's
    decoded record with the definition's result, field by field, as JSON text."""
    written = b"".join(iter_records_jsonl(score(cases, runs, config), runs, chunk_runs))
    lines = written.splitlines()
    expected = score_runs(cases, runs, config, argument_matchers())
    assert len(lines) == len(expected) == len(runs)
    for r, (line, result) in enumerate(zip(lines, expected, strict=True)):
        got = _trajectory_fields(orjson.loads(line))
        want = _trajectory_fields(result.to_dict())
        assert want["metric_names"] == list(TRAJECTORY_METRICS)
        for name, value in want.items():
            assert orjson.dumps(got[name]) == orjson.dumps(value), (
                f"run {r} ({runs[r].case_id}) {name}:\n  written    {got[name]}\n"
                f"  definition {value}"
            )


@RECORDS
@given(scorings(), st.sampled_from([1, 3, 4096]))
def test_written_records_are_the_definition(
    scoring: tuple[list[Case], list[Run], ScoringConfig], chunk_runs: int
) -> None:
    assert_records_are_the_definition(*scoring, chunk_runs=chunk_runs)


@settings(RECORDS, max_examples=60)
@given(scorings(max_steps=7, orders=("partial",), alphabet_size=1), st.sampled_from([2, 4096]))
def test_written_records_are_the_definition_on_repeated_partial_calls(
    scoring: tuple[list[Case], list[Run], ScoringConfig], chunk_runs: int
) -> None:
    assert_records_are_the_definition(*scoring, chunk_runs=chunk_runs)


def test_written_records_are_the_definition_across_batches() -> None:
    # 4,500 runs: two scoring batches of up to 4,096 runs, written in chunks of 1,000.
    cases, runs, config = random_scoring(random.Random(4), 40, 4500, 12)
    assert_records_are_the_definition(cases, runs, config, chunk_runs=1000)
