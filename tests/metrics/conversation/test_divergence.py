"""Trial divergence of conversations, by hand and as properties (docs/conversations.md)."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from pathgrade import score
from pathgrade.core.types import Case, Run
from pathgrade.metrics.conversation.divergence import first_difference, trial_divergence


def _run(case: str, trial: int, *turns: tuple[str, list[str], str]) -> Run:
    return Run.model_validate(
        {
            "case_id": case,
            "trial": trial,
            "turns": [{"user": u, "steps": s, "reply": r} for u, s, r in turns],
        }
    )


def test_by_hand() -> None:
    a = ("hi", ["lookup:W1"], "found it")
    b = ("refund it", ["refund:W1"], "done")
    runs = [
        _run("same", 0, a, b),
        _run("same", 1, a, b),
        _run("reply", 0, a, b),
        _run("reply", 1, a, ("refund it", ["refund:W1"], "refunded")),  # turn 2's reply
        _run("args", 1, a, b),
        _run("args", 0, ("hi", ["lookup:W2"], "found it"), b),  # trial 0 is the first
        _run("short", 0, a, b),
        _run("short", 1, a),  # ends sooner: differs at turn 2
        _run("alone", 0, a),  # one trial: not compared
    ]
    found = trial_divergence(runs)
    assert found["cases"] == 4 and found["diverged"] == 3 and found["share"] == 0.75
    assert found["by_case"] == {"reply": 2, "args": 1, "short": 2}
    assert found["first_turn"] == {"1": 1, "2": 2}


def test_score_summarises_conversations_with_pass_hat_k() -> None:
    case = Case.model_validate(
        {"case_id": "c", "user": {"instructions": "x", "required_info": ["done"]}}
    )
    runs = [
        _run("c", 0, ("hi", [], "done")),
        _run("c", 1, ("hi", [], "done")),
        _run("c", 2, ("hi", [], "no")),
    ]
    summary = score([case], runs).summary_extra["conversations"]
    assert summary["runs"] == 3 and summary["turns"] == {"mean": 1.0, "max": 1}
    # 2 of 3 trials succeed: pass^1 = 2/3, pass^2 = C(2,2)/C(3,2) = 1/3, pass^3 = 0.
    hat = summary["pass^k"]
    assert abs(hat["1"] - 2 / 3) < 1e-12 and abs(hat["2"] - 1 / 3) < 1e-12 and hat["3"] == 0
    assert summary["divergence"]["by_case"] == {"c": 1}


_TURN = st.tuples(st.sampled_from(["a", "b"]), st.lists(st.sampled_from(["x", "y:1"]), max_size=2),
                  st.sampled_from(["r", "s"]))  # fmt: skip


@given(st.lists(_TURN, min_size=1, max_size=4), st.integers(2, 4))
def test_identical_trials_never_diverge(turns: list[Any], n: int) -> None:
    runs = [_run("c", k, *turns) for k in range(n)]
    assert trial_divergence(runs)["diverged"] == 0


@given(st.lists(_TURN, min_size=1, max_size=4), st.lists(_TURN, min_size=1, max_size=4))
def test_the_first_difference_is_bounded(a: list[Any], b: list[Any]) -> None:
    ta = [(u, tuple(s), r) for u, s, r in a]
    tb = [(u, tuple(s), r) for u, s, r in b]
    found = first_difference(ta, tb)
    if found is None:
        assert ta == tb
    else:
        assert 1 <= found <= min(len(ta), len(tb)) + 1
        assert ta[: found - 1] == tb[: found - 1]


def test_arguments_compare_as_canonical_json() -> None:
    def turn(arguments: dict[str, Any], tool: str = "lookup", user: str = "hi") -> Any:
        return [(user, ((tool, orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)),), "ok")]

    run = Run.model_validate(
        {"case_id": "c", "turns": [{"user": "hi", "steps": [{"tool": "lookup",
         "arguments": {"id": 1, "x": 2}}], "reply": "ok"}]}
    )  # fmt: skip
    from pathgrade.metrics.conversation.divergence import _transcript

    base = _transcript(run)
    assert first_difference(base, turn({"x": 2, "id": 1})) is None  # key order does not count
    assert first_difference(base, turn({"id": 1.0, "x": 2})) == 1  # 1 and 1.0 differ
    assert first_difference(base, turn({"id": 1, "x": 2}, tool="search")) == 1
    assert first_difference(base, turn({"id": 1, "x": 2}, user="hello")) == 1
