"""The replay endpoint client: attempts bounded like the judge's, echoed keys redacted.

A dripping server or a gzip bomb is a replay error for that run (``stopped: "error"``, the
text kept) and the next run goes on; ``pathgrade replay`` exits 1 and names it. The elapsed
time is a sanity bound only (under ten times the deadline, which a holding deadline meets).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.core.types import Run, Step
from pathgrade.io.cases import load_runs
from pathgrade.openai_compat import RetryPolicy
from pathgrade.replay import EndpointAgent, EndpointClient, EndpointConfig, replay_runs
from pathgrade.replay.endpoint import EndpointError

from ..conftest import Reply, completion
from ..judge.limits_servers import drip_body, drip_headers, encoded_reply, gzip_bytes, serving

MIB = 1 << 20
DEADLINE = 0.5
KEY = "sk-proj-agent+key/0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
RECORDED = Run(
    case_id="c1", run_id="r1", steps=(Step(tool="search", arguments={"q": "x"}, output="y"),)
)


def _config(url: str, **settings: Any) -> EndpointConfig:
    given: dict[str, Any] = {"timeout": 3.0, "deadline": DEADLINE, **settings}
    return EndpointConfig(url, "agent-model", api_key=KEY, retry=RetryPolicy(0), **given)


@pytest.mark.parametrize("behaviour", [drip_body, drip_headers], ids=["body", "headers"])
def test_a_dripping_endpoint_meets_the_deadline(behaviour: Any) -> None:
    with serving(behaviour) as url, EndpointClient(_config(url)) as client:
        start = time.monotonic()
        with pytest.raises(EndpointError) as error:
            client.complete([{"role": "user", "content": "q"}], [])
        elapsed = time.monotonic() - start
    assert str(error.value) == f"deadline of {DEADLINE:g} s exceeded (after 1 attempt(s))"
    assert elapsed < 10 * DEADLINE  # sanity bound of a deadline (module docstring)


def test_a_gzip_bomb_is_a_replay_error_and_the_next_run_goes_on() -> None:
    bomb = gzip_bytes(256 * MIB)
    runs = [RECORDED, RECORDED.model_copy(update={"run_id": "r2"})]
    with serving(encoded_reply(bomb, "gzip")) as url:
        client = EndpointClient(_config(url, max_response_bytes=MIB))
        with client:
            replayed = list(replay_runs(runs, EndpointAgent(client)))
    notes = [r.metadata["replay"]["agent"] for r in replayed]
    assert [n["stopped"] for n in notes] == ["error", "error"]  # both runs were attempted
    assert notes[0]["error"] == "response body over the 1,048,576-byte limit (after 1 attempt(s))"
    assert all(r.answer is None for r in replayed)


def test_an_echoed_agent_key_is_redacted_from_the_replayed_run(stub: Any) -> None:
    doc = completion(f"the key is {KEY}")
    doc["model"], doc["system_fingerprint"] = KEY, f"fp_{KEY}"
    stub.on("", Reply(body=json.dumps(doc).replace("/", "\\/")))
    with EndpointClient(_config(stub.url)) as client:
        (run,) = replay_runs([RECORDED], EndpointAgent(client))
    text = run.model_dump_json()
    assert KEY not in text and KEY.replace("/", "\\/") not in text
    assert run.answer == "the key is ***"
    agent = run.metadata["replay"]["agent"]
    assert agent["response_model"] == "***" and agent["system_fingerprint"] == "fp_***"


def test_replay_cli_reports_a_deadline_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATHGRADE_AGENT_API_KEY", KEY)
    runs, out = tmp_path / "runs.jsonl", tmp_path / "out.jsonl"
    runs.write_text(RECORDED.model_dump_json() + "\n")
    with serving(drip_body) as url:
        argv = ["replay", str(runs), "--endpoint", url.replace("http://", "http://u:pw@")]
        argv += ["--model", "m", "--max-retries", "0", "--deadline", str(DEADLINE)]
        assert main([*argv, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"endpoint error: r1#replay: deadline of {DEADLINE:g} s exceeded" in err
    (run,) = load_runs(out).items
    assert run.metadata["replay"]["agent"]["stopped"] == "error"
    assert KEY not in err and "pw@" not in err and KEY not in out.read_text()


def test_replay_cli_rejects_a_non_positive_deadline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(RECORDED.model_dump_json() + "\n")
    argv = ["replay", str(runs), "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]
    assert main([*argv, "--deadline", "0"]) == 2
    err = capsys.readouterr().err
    assert "--deadline" in err and "must be > 0" in err and len(err.strip().splitlines()) == 1
