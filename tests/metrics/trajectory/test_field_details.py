"""Per-field details in the alignment records: the mode, measure, threshold and match of each
field of a pair compared field by field; absent when no field modes are configured."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.types import Step
from pathgrade.io.results import iter_records_jsonl
from pathgrade.report.path_text import render_path

CASE = Case(
    case_id="c",
    reference=[
        Step(tool="refund", arguments={"order_id": "A1", "amount": 10.0, "note": "abcd", "x": 1}),
        Step(tool="lookup", arguments={"id": "A1"}),
    ],
)
RUN = Run(
    case_id="c",
    steps=[
        Step(tool="refund", arguments={"order_id": "A1", "amount": 10.5, "note": "abce", "x": 2}),
        Step(tool="lookup", arguments={"id": "A1"}),
    ],
)
FIELDS = {
    "amount": {"mode": "numeric", "abs_tol": 0.01, "rel_tol": 0.1},
    "note": {"mode": "fuzzy", "threshold": 70},
    "x": {"mode": "ignore"},
}


def _config(fields: dict[str, Any], scorer: str = "ratio") -> ScoringConfig:
    return ScoringConfig.model_validate(
        {"matching": {"fuzzy_scorer": scorer, "tools": {"refund": {"fields": fields}}}}
    )


def test_each_field_says_mode_measure_threshold_and_match() -> None:
    result = score([CASE], [RUN], _config(FIELDS))
    refund, lookup = result[0].to_dict()["alignment"]
    assert refund["fields"] == [
        # |10.5 - 10.0| = 0.5 <= max(0.01, 0.1 * 10.0) = 1.0
        {"field": "amount", "mode": "numeric", "match": True, "difference": 0.5, "threshold": 1.0},
        # fuzz.ratio("abcd", "abce") = 2 * 3 / 8 = 75 >= 70
        {"field": "note", "mode": "fuzzy", "match": True, "similarity": 75.0, "threshold": 70.0},
        {"field": "order_id", "mode": "exact", "match": True},
        {"field": "x", "mode": "ignore", "match": True},  # skipped by the override
    ]
    assert refund["arguments_match"] is True
    assert "fields" not in lookup  # lookup has no field modes: compared as a whole call
    stricter = score([CASE], [RUN], _config({**FIELDS, "note": {"mode": "fuzzy"}}))
    note = stricter[0].to_dict()["alignment"][0]["fields"][1]
    # the tool's threshold, inherited from fuzzy_threshold = 90: 75 < 90
    assert note == {"field": "note", "mode": "fuzzy", "match": False, "similarity": 75.0,
                    "threshold": 90.0}  # fmt: skip
    assert stricter[0].to_dict()["alignment"][0]["arguments_match"] is False


def test_records_carry_the_fields_and_defaults_stay_unchanged() -> None:
    result = score([CASE], [RUN], _config(FIELDS))
    (line,) = b"".join(iter_records_jsonl(result, [RUN])).splitlines()
    assert orjson.loads(line)["alignment"] == result[0].to_dict()["alignment"]
    plain = score([CASE], [RUN])
    assert plain.alignment_columns is not None  # the default path: columns, no extra pass
    written = b"".join(iter_records_jsonl(plain, [RUN]))
    assert b'"fields"' not in written
    assert written == b"".join(orjson.dumps(r.to_dict()) + b"\n" for r in plain)


def test_the_text_report_lists_the_fields() -> None:
    text = render_path(score([CASE], [RUN], _config(FIELDS))[0].to_dict())
    assert "Arguments, field by field" in text
    assert "step 0 <- reference 0  note  fuzzy 75 >= 70: match" in text
    assert "amount  numeric |difference| 0.5 <= 1: match" in text
    hostile = {"alignment": [{"op": "match", "agent_step": 0, "reference_step": 0,
               "fields": [{"field": "q\u202ex", "mode": "judge", "match": None,
                           "judge_error": "boom\u202e"}]}]}  # fmt: skip
    shown = render_path(hostile)
    assert "\u202e" not in shown and "judge_error: boom" in shown and "undefined" in shown


VALUES = st.one_of(st.integers(-3, 3), st.sampled_from(["ab", "AB ", "abc", "x y", "1.0"]))
MODES = st.sampled_from(
    [{"mode": "exact"}, {"mode": "normalized"}, {"mode": "fuzzy", "threshold": 60},
     {"mode": "numeric", "abs_tol": 1.0}, {"mode": "ignore"}]
)  # fmt: skip
ARGS = st.dictionaries(st.sampled_from(["a", "b", "c"]), VALUES, max_size=3)


CALLS = st.sampled_from(["exact", "normalized", "fuzzy", "subset"])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), MODES, max_size=3), ARGS, ARGS, CALLS)
def test_fields_agree_with_the_pair_match(
    fields: dict[str, Any], ref: dict[str, Any], agent: dict[str, Any], call: str
) -> None:
    config = ScoringConfig.model_validate(
        {"matching": {"tools": {"t": {"mode": call, "fields": fields}}}}
    )
    case = Case(case_id="c", reference=[Step(tool="t", arguments=ref)])
    run = Run(case_id="c", steps=[Step(tool="t", arguments=agent)])
    (entry,) = score([case], [run], config)[0].alignment
    if not fields:
        assert entry.fields is None  # no field modes: nothing added
        return
    assert entry.fields is not None
    assert entry.arguments_match == all(f["match"] for f in entry.fields)
    names = set(ref) if call == "subset" else set(ref) | set(agent)
    assert [f["field"] for f in entry.fields] == sorted(names)
