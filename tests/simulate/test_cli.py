"""``pathgrade simulate``: the command over the API, its one-line errors, its summary and exit
codes, whole output files on Ctrl-C, and a cheap ``--help``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.core.types import Case
from pathgrade.io.ingest import write_cases, write_runs
from pathgrade.simulate import RunWriter, SimulationInterrupted, simulate

from ..cli.test_startup import HEAVY, _loaded
from . import toy_agents
from .conftest import FIXTURES, case, untimed

AGENTS = Path(__file__).with_name("toy_agents.py")


def _files(tmp_path: Path, cases: list[Case]) -> tuple[Path, Path]:
    write_cases(cases, tmp_path / "cases.jsonl")
    write_runs(
        [FIXTURES.model_copy(update={"case_id": c.case_id}) for c in cases],
        tmp_path / "fixtures.jsonl",
    )
    return tmp_path / "cases.jsonl", tmp_path / "fixtures.jsonl"


def _simulate(tmp_path: Path, *args: str, agent: str = "shop", out: str = "runs.jsonl") -> int:
    command = ["simulate", str(tmp_path / "cases.jsonl"), "--agent", f"{AGENTS}:{agent}"]
    return main([*command, "-o", str(tmp_path / out), *args])


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_the_command_writes_one_run_per_conversation_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases, fixtures = _files(tmp_path, [case("a"), Case(case_id="plain", query="q"), case("b")])
    assert _simulate(tmp_path, "--fixtures", str(fixtures), "--trials", "2") == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "pathgrade: note: 1 case(s) without a user goal skipped: plain"
    assert err[1] == (
        f"pathgrade: simulate: 4 conversation(s): 4 finished, 0 failed, 0 timed out; 4 run(s)"
        f" written to {tmp_path / 'runs.jsonl'} (ended by: user 4)"
    )
    runs = _lines(tmp_path / "runs.jsonl")
    assert [(r["case_id"], r.get("trial", 0)) for r in runs] == [
        ("a", 0), ("a", 1), ("b", 0), ("b", 1),
    ]  # fmt: skip
    assert runs[0]["metadata"]["simulator"]["agent"]["name"] == f"{AGENTS}:shop"
    assert not (tmp_path / "runs.jsonl.errors.jsonl").exists()
    # the file is what `pathgrade score` reads
    assert main(["score", str(cases), str(tmp_path / "runs.jsonl"), "--json"]) == 0


def test_repeated_simulations_give_the_same_transcripts(tmp_path: Path) -> None:
    _, fixtures = _files(tmp_path, [case("a"), case("b", script=("W1 refund", "bye"))])
    common = ("--fixtures", str(fixtures), "--trials", "3", "--concurrency", "4")
    assert _simulate(tmp_path, *common, "--no-timing", out="one.jsonl") == 0
    assert _simulate(tmp_path, *common, "--no-timing", out="two.jsonl") == 0
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert _simulate(tmp_path, *common, out="timed.jsonl") == 0  # timings kept: recorded
    timed = _lines(tmp_path / "timed.jsonl")
    assert "latency_ms" in timed[0]["usage"]
    assert untimed(timed) == _lines(tmp_path / "one.jsonl")


def test_failures_are_counted_named_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, [case("a")])
    assert _simulate(tmp_path, agent="number") == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pathgrade: simulate: 1 conversation(s): 0 finished, 1 failed")
    assert err[1] == "pathgrade: failed: a#sim-0: agent returned 42, not a message"


def test_a_conversation_without_a_turn_goes_to_the_errors_file(
    tmp_path: Path, stub: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, [case("a")])
    stub.on("", stub.reply(content="###STOP###"))
    user = ("--user", "endpoint", "--user-url", stub.url, "--user-model", "u")
    (tmp_path / "runs.jsonl.errors.jsonl").write_text("stale\n")
    assert _simulate(tmp_path, *user) == 1
    assert (tmp_path / "runs.jsonl").read_bytes() == b""
    (failure,) = _lines(tmp_path / "runs.jsonl.errors.jsonl")
    assert failure["case_id"] == "a" and "stop signal before the first turn" in failure["error"]
    assert "1 without a turn in" in capsys.readouterr().err


def test_live_tools_come_from_the_agents_tools_attribute(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, [case("a")])
    assert _simulate(tmp_path, "--live-tools", agent="live") == 0
    (run,) = _lines(tmp_path / "runs.jsonl")
    assert run["turns"][0]["reply"].startswith("12:00|RuntimeError: live tool down")
    assert _simulate(tmp_path, "--live-tools", agent="shop") == 2
    assert "field '--live-tools': needs the agent to have a 'tools'" in capsys.readouterr().err


def test_ctrl_c_in_an_agent_leaves_whole_lines_and_exits_130(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["a", "b", "boom", "c"]
    _files(tmp_path, [case(n, script=(f"{n} says hi",)) for n in names])
    assert _simulate(tmp_path, "--concurrency", "1", agent="interrupter") == 130
    assert [r["case_id"] for r in _lines(tmp_path / "runs.jsonl")] == ["a", "b"]
    assert (tmp_path / "runs.jsonl").read_bytes().endswith(b"\n")
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"pathgrade: interrupted: 2 conversation(s) written to {tmp_path / 'runs.jsonl'}"
        " (whole lines); 1 in flight dropped, 1 not started"
    ]


def test_ctrl_c_from_the_callback_keeps_what_was_written(tmp_path: Path) -> None:
    seen: list[str] = []

    def on_run(run: Any) -> None:
        writer.run(run)
        seen.append(run.case_id)
        if len(seen) == 2:
            raise KeyboardInterrupt

    cases = [case(n) for n in "abcdef"]
    with RunWriter(tmp_path / "runs.jsonl") as writer, pytest.raises(SimulationInterrupted) as stop:
        simulate(cases, toy_agents.shop, concurrency=2, on_run=on_run)
    assert [r["case_id"] for r in _lines(tmp_path / "runs.jsonl")] == seen[: writer.runs]
    assert seen[:2] == ["a", "b"] and stop.value.finished >= 2
    total = stop.value.finished + stop.value.dropped + stop.value.not_started
    assert total <= len(cases)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ({"case_id": "x", "user": {"facts": {}}}, "cases.jsonl:2: field 'user.instructions'"),
        ({"case_id": "x", "user": {"instructions": "i", "facts": []}}, "field 'user.facts'"),
        ({"case_id": "x", "user": {"instructions": "i", "ask_once": ["pin"]}},
         "field 'user.ask_once[0]': 'pin' is not one of the user's facts"),
        ({"case_id": "x", "user": {"instructions": "i"}},
         "cases.jsonl:2: field 'user.script': is empty: the scripted user needs"),
    ],
    ids=["no-instructions", "facts-list", "unknown-fact", "empty-script"],
)  # fmt: skip
def test_a_malformed_user_goal_is_one_line_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: dict[str, Any], expected: str
) -> None:
    good = case("ok").model_dump(mode="json", exclude_defaults=True)
    text = json.dumps(good) + "\n" + json.dumps(line) + "\n"
    (tmp_path / "cases.jsonl").write_text(text)
    assert _simulate(tmp_path) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pathgrade: error: ") and expected in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--endpoint", "http://127.0.0.1:9/v1"], "give exactly one of --agent and --endpoint"),
        (["--model", "m"], "field '--model': --model goes with --endpoint, not --agent"),
        (["--user", "endpoint"], "field '--user-url': --user endpoint needs --user-url"),
        (["--user-model", "m"], "field '--user-model': --user-model goes with --user endpoint"),
        (["--user", "endpoint", "--user-url", "ftp://x", "--user-model", "m"],
         "field '--user-url': expected an http(s) URL"),
        (["--trials", "0"], "field '--trials': must be >= 1, got 0"),
        (["--timeout", "0"], "field '--timeout': must be > 0"),
        (["--live-tools", "--fixtures", "f.jsonl"], "--live-tools does not go with --fixtures"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    _files(tmp_path, [case("a")])
    assert _simulate(tmp_path, *args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err


def test_cases_without_any_user_goal_are_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, [Case(case_id="plain", query="q")])
    assert _simulate(tmp_path) == 2
    assert "no case has a 'user' goal: nothing to simulate" in capsys.readouterr().err


def test_the_help_loads_nothing_heavy() -> None:
    code = (
        "from pathgrade.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    code = main(['simulate', '--help'])\n"
        "assert code == 0 and 'Usage:' in out.getvalue(), out.getvalue()"
    )
    assert _loaded(code, HEAVY) == []


def test_an_endpoint_agent_from_the_command_line(
    tmp_path: Path, stub: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _, fixtures = _files(tmp_path, [case("a", script=("order W1 please",))])
    (tmp_path / "system.txt").write_text("You are the shop agent.")
    stub.on("order W1", stub.tool_calls(("lookup", {"order_id": "W1"}, "c1")),
            stub.reply(content="Delivered."))  # fmt: skip
    command = ["simulate", str(tmp_path / "cases.jsonl"), "--endpoint", stub.url]
    options = ["--model", "m", "--system", str(tmp_path / "system.txt")]
    assert main([*command, *options, "--fixtures", str(fixtures), "-o", str(tmp_path / "o")]) == 0
    (run,) = _lines(tmp_path / "o")
    assert run["answer"] == "Delivered." and run["turns"][0]["steps"][0]["turn"] == 0
    assert run["metadata"]["simulator"]["agent"] == {"kind": "endpoint", "model": "m",
                                                     "max_calls": 10}  # fmt: skip
    assert stub.requests[0]["body"]["messages"][0]["content"] == "You are the shop agent."


def test_stream_asks_for_streamed_replies(tmp_path: Path, stub: Any) -> None:
    _, fixtures = _files(tmp_path, [case("a", script=("order W1 please",))])
    stub.on("order W1", stub.tool_calls(("lookup", {"order_id": "W1"}, "c1")),
            stub.reply(content="Delivered, as the lookup says."))  # fmt: skip
    command = ["simulate", str(tmp_path / "cases.jsonl"), "--endpoint", stub.url, "--model", "m"]
    out = str(tmp_path / "o")
    assert main([*command, "--stream", "--fixtures", str(fixtures), "-o", out]) == 0
    (run,) = _lines(tmp_path / "o")
    assert run["answer"] == "Delivered, as the lookup says."
    assert [s["tool"] for s in run["turns"][0]["steps"]] == ["lookup"]
    assert all(r["body"]["stream"] is True for r in stub.requests)
