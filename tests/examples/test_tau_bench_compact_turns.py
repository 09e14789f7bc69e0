"""examples/tau_bench/compact_turns.py: the bundled lines are what it writes from tau-bench's
own trajectories (three real ones are bundled as a golden file), and it adds only ``turns``."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "tau_bench" / "compact_turns.py"
BUNDLED = ROOT / "examples" / "tau_bench" / "tau_bench_runs.jsonl"
PUBLISHED = ROOT / "tests" / "golden" / "ingest" / "producers" / "tau_bench" / "gpt-4o-airline.json"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script(SCRIPT, "compact_turns")


def _bundled(results: list[dict[str, Any]]) -> list[str]:
    wanted = {(r["task_id"], r["trial"]) for r in results}
    return [
        line
        for line in BUNDLED.read_text(encoding="utf-8").splitlines()
        if (json.loads(line)["task_id"], json.loads(line)["trial"]) in wanted
    ]


def test_the_bundled_lines_are_what_the_script_writes(script: ModuleType) -> None:
    results = json.loads(PUBLISHED.read_bytes())
    bundled = _bundled(results)
    assert len(bundled) == 3
    for line in bundled:
        assert script.disagreements(json.loads(line), _result(results, line)) == []
    # From the lines without turns (the copy before the script ran), and again from its own
    # output: the same lines, byte for byte.
    before = [_without_turns(line) for line in bundled]
    assert script.convert(before, results) == (bundled, [])
    assert script.convert(bundled, results) == (bundled, [])
    for old, new in zip(before, bundled, strict=True):
        assert new.startswith(old[:-1] + ',"turns":[')  # every other field as it was


def test_a_line_that_disagrees_gets_no_turns(script: ModuleType) -> None:
    results = json.loads(PUBLISHED.read_bytes())
    line = json.loads(_bundled(results)[0])
    line["agent_actions"] = line["agent_actions"][1:]
    text = json.dumps(line, separators=(",", ":"))
    (out,), skipped = script.convert([text], results)
    assert skipped == [line["run_id"]] and "turns" not in json.loads(out)


def test_turns_of_a_small_trajectory(script: ModuleType) -> None:
    def call(name: str) -> dict[str, Any]:
        return {"function": {"name": name, "arguments": "{}"}}

    traj = [
        {"role": "system", "content": "# Airline Agent Policy"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Your id?"},
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": None, "tool_calls": [call("get_user_details")]},
        {"role": "tool", "content": "{}"},
        {"role": "assistant", "content": "Transferring.", "tool_calls": [call(script.TRANSFER)]},
        {"role": "tool", "content": "Transfer successful"},
    ]
    assert script.turns(traj) == [
        {"user": "hi", "first_action": 0, "reply": "Your id?"},
        {"user": "u1", "first_action": 0, "reply": "Transferring.", "ended_by": "agent"},
    ]
    stopped = [*traj[:6], {"role": "user", "content": "thanks ###STOP###"}]
    assert script.turns(stopped)[-1] == {
        "user": "u1",
        "first_action": 0,
        "reply": None,
        "ended_by": "user",
    }


def _result(results: list[dict[str, Any]], line: str) -> dict[str, Any]:
    record = json.loads(line)
    return next(
        r for r in results if (r["task_id"], r["trial"]) == (record["task_id"], record["trial"])
    )


def _without_turns(line: str) -> str:
    record = json.loads(line)
    del record["turns"]
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)
