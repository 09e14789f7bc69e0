"""An Agents SDK run resumed after an approval: its latency is the time its root spans (the
interrupted run, each resumption) cover, overlaps once, the gaps between them (a person
deciding) left out. Traces without a resume keep the first start to last end."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.io.ingest import FORMATS, IngestOptions
from pathgrade.io.ingest._agents_approvals import covered_ns

RECORDED = Path(__file__).parents[2] / "golden" / "ingest" / "producers"


def test_covered_time_by_hand() -> None:
    assert covered_ns([]) == 0
    assert covered_ns([(0, 10)]) == 10
    assert covered_ns([(0, 10), (20, 25)]) == 15  # a gap of 10 left out
    assert covered_ns([(0, 10), (5, 12), (11, 13)]) == 13  # overlaps once: [0, 13]
    assert covered_ns([(20, 25), (0, 10), (2, 3)]) == 15  # any order; (2, 3) inside (0, 10)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 20)), max_size=8))
def test_covered_time_is_the_number_of_covered_units(pairs: list[tuple[int, int]]) -> None:
    intervals = [(start, start + length) for start, length in pairs]
    units = {t for start, end in intervals for t in range(start, end)}
    assert covered_ns(intervals) == len(units)


def test_a_resumed_agents_sdk_run_counts_the_agent_time_only() -> None:
    runs = {
        r.case_id: r
        for r in FORMATS["openai-agents"].read(
            RECORDED / "openai_agents_sdk_approvals.jsonl", IngestOptions()
        )
    }
    # approve-A17's two root spans (tools/producers/openai_agents_approval.py):
    # 02:11:08.874628 to .916638 (42.010 ms), then, resumed, .917790 to .926755 (8.965 ms):
    # 50.975 ms, not the 52.127 ms from the first start to the last end.
    usage = runs["approve-A17"].usage
    assert usage is not None and usage.latency_ms is not None
    assert abs(usage.latency_ms - 50.975) < 1e-9
    pending = runs["pending-A17"].usage  # one root: its duration, 6.596 ms
    assert pending is not None and pending.latency_ms is not None
    assert abs(pending.latency_ms - 6.596) < 1e-9
