"""``pathgrade replay``: a scripted agent file, replayed runs JSONL, options, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


# --- --endpoint: an OpenAI-compatible model on the local stub (tests/conftest.py) ---------


def _endpoint_argv(stub: Any, runs: Path, cases: Path, out: Path, *extra: str) -> list[str]:
    return [
        "replay", str(runs), "--endpoint", stub.url, "--model", "agent-model",
        "--cases", str(cases), "--mode", "normalized", "-o", str(out),
        "--max-retries", "0", *extra,
    ]  # fmt: skip


def test_endpoint_replay_writes_runs_without_the_key(
    tmp_path: Path,
    stub: Any,
    api_key: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATHGRADE_AGENT_API_KEY", api_key)
    runs, cases, _ = _files(tmp_path)
    stub.on(
        "paris",
        stub.tool_calls(("search", {"q": "Paris weather"}, "a"), ("open", {"id": "zz"}, "b")),
        stub.reply(content="Sunny."),
    )
    system = tmp_path / "system.txt"
    system.write_text("Use the tools.")
    out = tmp_path / "replayed.jsonl"
    argv = _endpoint_argv(stub, runs, cases, out, "--system", str(system), "--label", "ep")
    assert main(argv) == 0
    (run,) = load_runs(out).items
    assert run.run_id == "r1#ep" and run.answer == "Sunny."
    assert [(s.turn, s.metadata["replay"]) for s in run.steps] == [
        (0, "recorded"),
        (0, "unrecorded"),
    ]
    err = capsys.readouterr().err
    assert "1 unrecorded call(s) flagged" in err and "1 answered" in err
    first = stub.requests[0]
    assert first["headers"]["Authorization"] == f"Bearer {api_key}"
    assert first["body"]["messages"][0] == {"role": "system", "content": "Use the tools."}
    assert [t["function"]["name"] for t in first["body"]["tools"]] == ["search", "open"]
    assert api_key not in out.read_text() and api_key not in err


def test_endpoint_failure_exits_1_and_writes_flagged_runs(
    tmp_path: Path,
    stub: Any,
    api_key: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATHGRADE_AGENT_API_KEY", api_key)
    runs, cases, _ = _files(tmp_path)
    stub.on("paris", stub.reply(status=500, body=f'{{"error": "bad key {api_key}"}}'))
    out = tmp_path / "replayed.jsonl"
    assert main(_endpoint_argv(stub, runs, cases, out)) == 1
    (run,) = load_runs(out).items
    assert run.metadata["replay"]["agent"]["stopped"] == "error"
    err = capsys.readouterr().err
    assert "endpoint error: r1#replay: HTTP 500" in err and "***" in err
    assert api_key not in out.read_text() and api_key not in err


def test_endpoint_uses_the_tools_file(tmp_path: Path, stub: Any) -> None:
    runs, cases, _ = _files(tmp_path)
    tools = tmp_path / "tools.json"
    tools.write_text('{"search": {"type": "object", "properties": {"q": {"type": "string"}}}}')
    stub.on("paris", stub.reply(content="ok"))
    assert main(_endpoint_argv(stub, runs, cases, tmp_path / "o.jsonl", "--tools", str(tools))) == 0
    (sent,) = stub.requests[0]["body"]["tools"]
    assert sent["function"] == {
        "name": "search",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "exactly one of --agent and --endpoint"),
        (["--agent", "x:y", "--endpoint", "http://127.0.0.1:9"], "exactly one of"),
        (["--endpoint", "http://127.0.0.1:9"], "--endpoint needs --model"),
        (["--agent", "x:y", "--model", "m"], "--model goes with --endpoint"),
        (["--endpoint", "ftp://h", "--model", "m"], "expected an http(s) URL"),
        (["--endpoint", "http://127.0.0.1:9", "--model", "m", "--max-turns", "0"], "must be >= 1"),
        (["--endpoint", "http://127.0.0.1:9", "--model", "m", "--tools", "nope.json"], "tools"),
        (["--endpoint", "http://127.0.0.1:9", "--model", "m", "--system", "nope.txt"], "system"),
    ],
)
def test_endpoint_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    runs, _, _ = _files(tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert main(["replay", str(runs), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_faults_and_interrupt_options_reach_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--faults injects the file's faults (a timeout on the first search: its error is what
    the agent saw); --interrupt-at 1 restarts the agent after step 1, whose next step is
    marked resumed."""
    runs, cases, agent = _files(tmp_path)
    faults = tmp_path / "faults.toml"
    faults.write_text('[[fault]]\ntool = "search"\nnth = 1\nkind = "timeout"\n')
    out = tmp_path / "faulted.jsonl"
    base = ["replay", str(runs), "--agent", f"{agent}:agent", "--cases", str(cases)]
    assert main([*base, "--mode", "normalized", "--faults", str(faults), "-o", str(out)]) == 0
    (run,) = load_runs(out).items
    assert run.steps[0].error is not None and "timeout" in run.steps[0].error
    assert run.steps[0].metadata["fault"]["kind"] == "timeout"
    assert "1 fault(s) injected" in capsys.readouterr().err
    resumed = tmp_path / "resumed.jsonl"
    assert main([*base, "--mode", "normalized", "--interrupt-at", "1", "-o", str(resumed)]) == 0
    (again,) = load_runs(resumed).items
    assert [s.resumed for s in again.steps].count(True) == 1
    assert main([*base, "--interrupt-at", "0", "-o", str(tmp_path / "x.jsonl")]) == 2
