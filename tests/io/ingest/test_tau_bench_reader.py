"""tau-bench readers: the compact runs and tau-bench's own results files; runs, cases from
gold actions, bad lines."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import IngestOptions, detect, tau_bench, tau_bench_results
from pathgrade.io.ingest._common import maybe_json

from .helpers import write_lines

SHARED = Path(__file__).resolve().parents[3] / "examples" / "tau_bench" / "tau_bench_runs.jsonl"


def record(**extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "case_id": "tau/0",
        "run_id": "tau/0#m#trial1",
        "trial": 1,
        "domain": "airline",
        "task_id": 0,
        "model": "m",
        "instruction": "cancel it",
        "gold_actions": [{"tool": "cancel_reservation", "arguments": {"reservation_id": "Z"}}],
        "gold_outputs": ["42"],
        "agent_actions": [
            {"tool": "get_reservation_details", "arguments": {"reservation_id": "Z"}},
            {"tool": "cancel_reservation", "arguments": {"reservation_id": "Z"}},
        ],
        "agent_tool_error_indices": [0],
        "reward": 1.0,
        "r_actions": None,
        "r_outputs": 1.0,
        "episode_done": True,
    }
    base.update(extra)
    return base


def test_golden_run_and_case(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "tau.jsonl", [record()])
    assert detect(path).name == "tau-bench"
    (run,) = list(tau_bench.read(path))
    assert (run.case_id, run.run_id, run.trial, run.success) == ("tau/0", "tau/0#m#trial1", 1, True)
    assert [s.tool for s in run.steps] == ["get_reservation_details", "cancel_reservation"]
    assert run.steps[0].error is not None and run.steps[1].error is None
    assert run.metadata["r_outputs"] == 1.0
    (case,) = tau_bench.read_cases(path)
    assert case.reference is not None and [str(s) for s in case.reference] == [
        "cancel_reservation(reservation_id='Z')"
    ]
    assert case.metadata["gold_outputs"] == ["42"]


def test_bad_lines(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "tau.jsonl",
        [record(), b"{", record(reward="yes"), record(agent_actions=[{"name": "x"}])],
    )
    with pytest.raises(InputError) as caught:
        list(tau_bench.read(path))
    assert caught.value.line == 2
    options = IngestOptions(skip_invalid=True)
    assert len(list(tau_bench.read(path, options))) == 1
    assert [(e.line, e.field) for e in options.skipped] == [
        (2, None),
        (3, "reward"),
        (4, "agent_actions"),
    ]


def test_the_shared_file_loads_whole() -> None:
    runs = list(tau_bench.read(SHARED))
    assert len(runs) == 200 and sum(bool(r.success) for r in runs) == 84
    assert len(tau_bench.read_cases(SHARED)) == 50


def test_a_respond_gold_action_is_not_a_reference_step(tmp_path: Path) -> None:
    # tau-bench's calculate_reward drops `respond` from the gold actions: a reply, not a call.
    gold = [
        {"tool": "respond", "arguments": {"content": "4"}},
        {"tool": "cancel_reservation", "arguments": {"reservation_id": "Z"}},
    ]
    path = write_lines(tmp_path / "tau.jsonl", [record(gold_actions=gold)])
    (case,) = tau_bench.read_cases(path)
    assert case.reference is not None and [s.tool for s in case.reference] == ["cancel_reservation"]


# --- tau-bench's own results files (historical_trajectories/*.json) -------------------------

PUBLISHED = (
    Path(__file__).resolve().parents[2]
    / "golden"
    / "ingest"
    / "producers"
    / "tau_bench"
    / "gpt-4o-airline.json"
)
POLICY = "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST."


def call(name: str, arguments: str, call_id: str = "call_1") -> dict[str, Any]:
    return {
        "content": None,
        "role": "assistant",
        "tool_calls": [
            {"function": {"arguments": arguments, "name": name}, "id": call_id, "type": "function"}
        ],
    }


def result(content: str, call_id: str = "call_1", name: str = "t") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


def published(traj: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "task_id": 7,
        "reward": 1.0,
        "info": {
            "task": {
                "user_id": "u",
                "actions": [
                    {"name": "get_user_details", "kwargs": {"user_id": "u"}},
                    {"name": "respond", "kwargs": {"content": "4"}},
                ],
                "instruction": "ask",
                "outputs": ["4"],
            },
            "source": "user",
            "reward_info": {"reward": 1.0, "info": {"r_outputs": 1.0, "outputs": {"4": True}}},
        },
        "traj": traj,
        "trial": 2,
    }
    base.update(extra)
    return base


def conversation() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": POLICY},
        {"role": "user", "content": "hi"},
        call("get_user_details", '{"user_id":"u"}', "call_A"),
        result('{"name": "U"}', "call_A"),
        call("book_reservation", '{"user_id":"u"}', "call_A"),  # the id again, as in the data
        result("Error: not enough seats", "call_A"),
        {"content": "You can take 4 bags.", "role": "assistant"},
        {"role": "user", "content": "thanks ###STOP###"},
    ]


def write_json(path: Path, value: Any) -> Path:
    path.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    return path


def test_published_results_read_as_is(tmp_path: Path) -> None:
    path = write_json(tmp_path / "gpt-4o-airline.json", [published(conversation())])
    assert detect(path).name == "tau-bench-results"
    (run,) = list(tau_bench_results.read(path))
    assert run.case_id == "tau_bench/airline/test/7"
    assert run.run_id == "tau_bench/airline/test/7#gpt-4o#trial2" and run.trial == 2
    # Two calls sharing one call id: each result goes to the call right before it.
    assert [(s.tool, s.arguments, s.output, s.error) for s in run.steps] == [
        ("get_user_details", {"user_id": "u"}, {"name": "U"}, None),
        (
            "book_reservation",
            {"user_id": "u"},
            "Error: not enough seats",
            "Error: not enough seats",
        ),
    ]
    assert [s.turn for s in run.steps] == [0, 1] and run.steps[0].raw_arguments == '{"user_id":"u"}'
    assert run.answer == "You can take 4 bags." and run.success is True
    assert run.metadata["r_outputs"] == 1.0 and run.metadata["r_actions"] is None
    assert run.metadata["episode_done"] is True and run.metadata["agent_text_messages"] == 1
    assert run.metadata["n_messages"] == 8 and run.metadata["model"] == "gpt-4o"
    (case,) = tau_bench_results.read_cases(path)
    assert case.case_id == run.case_id and case.query == "ask" and case.group == "airline"
    assert case.reference is not None and [str(s) for s in case.reference] == [
        "get_user_details(user_id='u')"  # `respond` left out
    ]
    assert case.metadata == {"gold_outputs": ["4"], "task_id": 7}


def test_domain_model_and_end_of_episode(tmp_path: Path) -> None:
    # No policy heading, a plain file name: no domain, no model. Cut by the step limit: the
    # last message is a tool result of a call that does not end an episode.
    traj = [{"role": "user", "content": "hi"}, call("think", '{"thought":"x"}'), result("")]
    path = write_json(tmp_path / "results.json", [published(traj, reward=0.0)])
    (run,) = list(tau_bench_results.read(path))
    assert (run.case_id, run.run_id) == ("tau_bench/test/7", "tau_bench/test/7#trial2")
    assert run.success is False and run.metadata["episode_done"] is False
    assert run.answer is None and run.steps[0].output == ""
    # The file name alone gives domain and model; a transfer ends the episode.
    traj = [call("transfer_to_human_agents", '{"summary":"s"}'), result("Transfer successful")]
    named = write_json(tmp_path / "sonnet-35-new-retail.json", [published(traj)])
    (run,) = list(tau_bench_results.read(named))
    assert run.run_id == "tau_bench/retail/test/7#sonnet-35-new#trial2"
    assert run.metadata["episode_done"] is True


def test_published_results_as_json_lines(tmp_path: Path) -> None:
    lines = [published(conversation()), published(conversation(), trial=3)]
    path = write_lines(tmp_path / "gpt-4o-airline.jsonl", lines)
    assert detect(path).name == "tau-bench-results"
    assert [r.trial for r in tau_bench_results.read(path)] == [2, 3]
    assert len(tau_bench_results.read_cases(path)) == 1  # one task, two trials


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"traj": 5}, "[0].traj"),
        ({"reward": "1"}, "[0].reward"),
        ({"task_id": None}, "[0].task_id"),
        ({"trial": -1}, "[0].trial"),
        ({"info": []}, "[0].info"),
    ],
)
def test_bad_results_name_the_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    path = write_json(tmp_path / "r.json", [{**published(conversation()), **change}])
    with pytest.raises(InputError) as caught:
        list(tau_bench_results.read(path))
    assert (caught.value.line, caught.value.field) == (1, field)


def test_bad_messages_name_the_field(tmp_path: Path) -> None:
    orphan = [{"role": "system", "content": POLICY}, result("x")]
    unnamed = [call("", "{}")]
    for traj, field in [
        (orphan, "[1].traj[1]"),
        (unnamed, "[1].traj[0].tool_calls[0].function.name"),
    ]:
        path = write_json(tmp_path / "r.json", [published(conversation()), published(traj)])
        with pytest.raises(InputError) as caught:
            list(tau_bench_results.read(path))
        assert caught.value.field == field
        options = IngestOptions(skip_invalid=True)  # the good result is kept
        assert len(list(tau_bench_results.read(path, options))) == 1
        assert [e.field for e in options.skipped] == [field]
    bad_gold = published(conversation())
    bad_gold["info"]["task"]["actions"] = [{"name": 3}]
    path = write_json(tmp_path / "r.json", [bad_gold])
    with pytest.raises(InputError) as caught:
        tau_bench_results.read_cases(path)
    assert caught.value.field == "[0].info.task.actions[0].name"


def test_the_two_tau_bench_shapes_are_sniffed_apart(tmp_path: Path) -> None:
    compact = write_lines(tmp_path / "c.jsonl", [record()])
    assert not tau_bench_results.sniff(compact.read_bytes())
    assert not tau_bench.sniff(PUBLISHED.read_bytes()[:65536])
    assert detect(PUBLISHED).name == "tau-bench-results"  # not openai-messages


def test_the_published_subset_equals_its_compact_copy() -> None:
    # Differential: the real results file (3 runs of tau-bench's gpt-4o-airline.json) and the
    # compact copy of the same runs in examples/ give the same runs and the same cases.
    published_runs = {r.run_id: r for r in tau_bench_results.read(PUBLISHED)}
    compact = {r.run_id: r for r in tau_bench.read(SHARED) if r.run_id in published_runs}
    assert sorted(published_runs) == sorted(compact) and len(compact) == 3
    for run_id, run in published_runs.items():
        other = compact[run_id]
        assert [(s.tool, s.arguments, bool(s.error)) for s in run.steps] == [
            (s.tool, s.arguments, bool(s.error)) for s in other.steps
        ]
        assert (run.case_id, run.trial, run.success) == (other.case_id, other.trial, other.success)
        for key in tau_bench.RUN_METADATA:
            assert run.metadata[key] == other.metadata[key], (run_id, key)
    cases = {c.case_id: c for c in tau_bench.read_cases(SHARED)}
    for case in tau_bench_results.read_cases(PUBLISHED):
        assert case == cases[case.case_id]


def test_the_published_subset_by_hand() -> None:
    # Task 15 trial 2 (reward 1): the gold list is empty (change nothing); the agent read the
    # user and the reservation, then tried update_reservation_flights, which failed.
    runs = {r.run_id: r for r in tau_bench_results.read(PUBLISHED)}
    run = runs["tau_bench/airline/test/15#gpt-4o#trial2"]
    assert [s.tool for s in run.steps] == [
        "get_user_details",
        "get_reservation_details",
        "update_reservation_flights",
    ]
    assert run.steps[2].error == "Error: not enough seats on flight HAT290"
    assert run.steps[1].output["reservation_id"] == "GV1N64"
    # Task 44 trial 3: no call at all; the gold output "4" was never said (r_outputs 0).
    silent = runs["tau_bench/airline/test/44#gpt-4o#trial3"]
    assert silent.steps == () and silent.success is False
    assert silent.metadata["r_outputs"] == 0.0
    cases = {c.case_id: c for c in tau_bench_results.read_cases(PUBLISHED)}
    assert cases["tau_bench/airline/test/15"].reference == ()
    assert cases["tau_bench/airline/test/44"].metadata["gold_outputs"] == ["4"]


names = st.sampled_from(["think", "calculate", "book_reservation"])
outputs = st.one_of(st.just("Error: no"), st.just('{"ok": 1}'), st.text(max_size=8))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(names, outputs, st.sampled_from(["call_1", "call_2"])), max_size=8))
def test_each_result_goes_to_the_call_before_it(
    pairs: list[tuple[str, str, str]],
) -> None:
    # Property: written as tau-bench writes them (each call, then its result, ids reused at
    # random), the steps are the calls in order, each with its own result, and exactly the
    # results that begin "Error" are errors.
    traj: list[dict[str, Any]] = [{"role": "system", "content": POLICY}]
    for name, output, call_id in pairs:
        traj += [call(name, "{}", call_id), result(output, call_id, name)]
    with tempfile.TemporaryDirectory() as folder:
        path = write_json(Path(folder) / "gpt-4o-airline.json", [published(traj)])
        (run,) = list(tau_bench_results.read(path))
    assert [s.tool for s in run.steps] == [name for name, _, _ in pairs]
    assert [s.call_id for s in run.steps] == [call_id for _, _, call_id in pairs]
    assert [s.output for s in run.steps] == [maybe_json(output) for _, output, _ in pairs]
    assert [s.error is not None for s in run.steps] == [o.startswith("Error") for _, o, _ in pairs]
