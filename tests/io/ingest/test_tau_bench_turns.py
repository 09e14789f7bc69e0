"""The compact tau-bench runs with turns: the 200 bundled runs keep their turn boundaries and
their path, a hand-built line, and the bad ``turns`` fields."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest import tau_bench

from .helpers import write_lines
from .test_tau_bench_reader import record

BUNDLED = Path(__file__).resolve().parents[3] / "examples" / "tau_bench" / "tau_bench_runs.jsonl"


@pytest.fixture(scope="module")
def lines() -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in BUNDLED.read_bytes().splitlines()]


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    return list(tau_bench.read(BUNDLED))


@pytest.fixture(scope="module")
def flat_runs(lines: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> list[Run]:
    """The bundled runs read without their ``turns`` field (what the reader gave before)."""
    stripped = [{k: v for k, v in line.items() if k != "turns"} for line in lines]
    path = write_lines(tmp_path_factory.mktemp("tau") / "flat.jsonl", stripped)
    return list(tau_bench.read(path))


def test_every_bundled_run_has_turns_over_the_same_steps(
    runs: list[Run], flat_runs: list[Run]
) -> None:
    assert len(runs) == len(flat_runs) == 200
    for run, flat in zip(runs, flat_runs, strict=True):
        assert flat.turns is None and flat.answer is None
        assert run.turns is not None and len(run.turns) >= 2, run.run_id
        assert tuple(s for t in run.turns for s in t.steps) == run.steps == flat.steps
        # Nothing else changed: the same run but for its turns and the answer they give.
        assert run.model_copy(update={"turns": None, "answer": None}) == flat
        assert run.answer == next(t.reply for t in reversed(run.turns) if t.reply)


def test_a_turn_per_user_message_but_the_stop(runs: list[Run], lines: list[dict[str, Any]]) -> None:
    # Turns per run are the file's turns entries (one per user message of the trajectory but
    # ###STOP###, as examples/tau_bench/compact_turns.py writes them); 6.715 on average.
    for run, line in zip(runs, lines, strict=True):
        assert run.turns is not None
        assert [t.user for t in run.turns] == [t["user"] for t in line["turns"]]
        assert [t.reply for t in run.turns] == [t["reply"] or None for t in line["turns"]]
        assert not any("###STOP###" in t.user for t in run.turns)
    assert sum(len(run.turns or ()) for run in runs) == 1343
    assert max(len(run.turns or ()) for run in runs) == 30


def test_who_ended_the_conversations(runs: list[Run]) -> None:
    ended = Counter(run.turns[-1].ended_by for run in runs if run.turns)
    assert ended == {"user": 147, "agent": 48, None: 5}
    for run in runs:
        assert run.turns is not None
        assert all(t.ended_by is None for t in run.turns[:-1])
        last = run.turns[-1].ended_by
        # The five with no end are the episodes the step limit cut (episode_done false).
        assert (last is None) == (run.metadata["episode_done"] is False), run.run_id
        if last == "agent":
            assert run.steps[-1].tool == "transfer_to_human_agents"


TURNS = [
    {"user": "cancel Z please", "first_action": 0, "reply": "Your user id?"},
    {"user": "u1", "first_action": 0, "reply": "Cancelled."},
    {"user": "thanks", "first_action": 2, "reply": None, "ended_by": "user"},
]


def test_hand_built_line_with_turns(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "tau.jsonl", [record(turns=TURNS)])
    (run,) = list(tau_bench.read(path))
    assert run.turns is not None
    assert [(t.user, [s.tool for s in t.steps], t.reply, t.ended_by) for t in run.turns] == [
        ("cancel Z please", [], "Your user id?", None),
        ("u1", ["get_reservation_details", "cancel_reservation"], "Cancelled.", None),
        ("thanks", [], None, "user"),
    ]
    assert run.steps[0].error is not None  # agent_tool_error_indices still apply
    assert run.answer == "Cancelled."  # the agent's last text


def test_one_turn_is_a_single_turn_run(tmp_path: Path) -> None:
    one = [{"user": "cancel Z", "first_action": 0, "reply": "Done.", "ended_by": "agent"}]
    path = write_lines(tmp_path / "tau.jsonl", [record(turns=one), record(turns=None)])
    single, without = tau_bench.read(path)
    assert single.turns is None and single.answer == "Done." and len(single.steps) == 2
    assert without.turns is None and without.answer is None and len(without.steps) == 2


def _with(index: int, **changes: Any) -> list[dict[str, Any]]:
    turns = [dict(t) for t in TURNS]
    turns[index].update(changes)
    return [{k: v for k, v in t.items() if v is not ...} for t in turns]


@pytest.mark.parametrize(
    ("turns", "field", "message"),
    [
        ("first", "turns", "expected a list, got a string"),
        ([], "turns", "at least one turn"),
        ([1, 2], "turns[0]", "expected an object, got a number"),
        (_with(1, user=...), "turns[1].user", "expected a string, got null"),
        (_with(1, user=" "), "turns[1].user", "the user's message"),
        (_with(1, user=7), "turns[1].user", "expected a string, got a number"),
        (_with(0, first_action=1), "turns[0].first_action", "from 0 to 0, got 1"),
        (_with(1, first_action=...), "turns[1].first_action", "got None"),
        (_with(1, first_action="1"), "turns[1].first_action", "got '1'"),
        (_with(1, first_action=True), "turns[1].first_action", "got True"),
        (_with(1, first_action=3), "turns[1].first_action", "from 0 to 2, got 3"),
        (_with(1, first_action=-1), "turns[1].first_action", "from 0 to 2, got -1"),
        (  # decreasing
            [*_with(1, first_action=2)[:2], {"user": "x", "first_action": 1}],
            "turns[2].first_action",
            "from 2 to 2, got 1",
        ),
        (_with(1, reply=3), "turns[1].reply", "expected a string, got a number"),
        (_with(0, ended_by="user"), "turns[0].ended_by", "on the last turn"),
        (_with(2, ended_by="me"), "turns[2].ended_by", "got 'me'"),
        (_with(2, said="hi"), "turns[2].said", "unknown field"),
    ],
)
def test_bad_turns_name_file_line_and_field(
    tmp_path: Path, turns: Any, field: str, message: str
) -> None:
    path = write_lines(tmp_path / "tau.jsonl", [record(), record(turns=turns)])
    with pytest.raises(InputError) as caught:
        list(tau_bench.read(path))
    error = caught.value
    assert (error.file, error.line) == (str(path), 2)
    assert error.field == field and message in error.message, str(error)
    assert "\n" not in str(error)
