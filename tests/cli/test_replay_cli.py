"""``pathgrade replay``: a scripted agent file, replayed runs JSONL, options, bad input."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from pathgrade.cli.main import main
from pathgrade.io.cases import load_runs

AGENT = """
def agent(task):
    first = task.call("search", {"q": task.query or "none"})
    task.call("open", {"id": "unknown"})
    return f"{first.output} at {task.now()}"
"""


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(
        orjson.dumps(
            {
                "case_id": "c1",
                "run_id": "r1",
                "steps": [
                    {"tool": "search", "arguments": {"q": "Paris weather"}, "output": "sunny"},
                    {"tool": "open", "arguments": {"id": "d1"}, "output": "page"},
                ],
            }
        )
        + b"\n"
    )
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(orjson.dumps({"case_id": "c1", "query": "paris  WEATHER"}) + b"\n")
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    return runs, cases, agent


def test_replay_writes_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs, cases, agent = _files(tmp_path)
    out = tmp_path / "replayed.jsonl"
    argv = [
        "replay",
        str(runs),
        "--agent",
        f"{agent}:agent",
        "--cases",
        str(cases),
        "--mode",
        "normalized",
        "-o",
        str(out),
        "--label",
        "v2",
    ]
    assert main(argv) == 0
    (run,) = load_runs(out).items
    assert run.run_id == "r1#v2" and run.answer == "sunny at 1704067200.0"
    assert [s.metadata["replay"] for s in run.steps] == ["recorded", "unrecorded"]
    assert "1 unrecorded call(s) flagged" in capsys.readouterr().err
    again = tmp_path / "again.jsonl"
    assert main([*argv[:-4], "-o", str(again), "--label", "v2"]) == 0
    assert again.read_bytes() == out.read_bytes()  # frozen: byte-identical


def test_unrecorded_value_reply(tmp_path: Path) -> None:
    runs, _, agent = _files(tmp_path)
    out = tmp_path / "replayed.jsonl"
    argv = [
        "replay",
        str(runs),
        "--agent",
        f"{agent}:agent",
        "-o",
        str(out),
        "--unrecorded",
        "value",
        "--reply",
        '{"stub": true}',
    ]
    assert main(argv) == 0
    (run,) = load_runs(out).items
    assert run.steps[0].metadata["replay"] == "unrecorded"  # no --cases: query "none"
    assert run.steps[1].output == {"stub": True}


def test_bad_agent_and_mode_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, _, agent = _files(tmp_path)
    assert main(["replay", str(runs), "--agent", "no_such_module_xyz:agent"]) == 2
    assert "cannot import agent module" in capsys.readouterr().err
    assert main(["replay", str(runs), "--agent", f"{agent}:missing"]) == 2
    assert "has no attribute 'missing'" in capsys.readouterr().err
    assert main(["replay", str(runs), "--agent", f"{agent}:agent", "--mode", "magic"]) == 2
    assert "unknown argument matching mode 'magic'" in capsys.readouterr().err
