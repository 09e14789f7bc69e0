"""``judge`` argument matching with scripted verdicts: verdicts decide free-text fields, ids
are never judged, and a judge_error makes the run's trajectory metrics undefined, counted."""

from __future__ import annotations

import asyncio
import json
import math
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.types import Step
from pathgrade.judge.cache import JudgeCache
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence
from pathgrade.semantic import judge_verdicts
from pathgrade.semantic.judging import pairs_to_judge

REF = "Customer wants a refund for a damaged item."
SCRIPT = {  # agent summary -> scripted reply (None: HTTP 400, a judge_error)
    "The customer asks for a refund: the item arrived broken.": True,
    "The customer wants to change the delivery address.": False,
    "garbled": None,
}


class _Judge(BaseHTTPRequestHandler):
    asked: list[str] = []  # noqa: RUF012 (the log of one test server)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["messages"][-1]["content"]
        agent = json.loads(user.split("<agent>\n")[1].split("\n</agent>")[0])
        type(self).asked.append(agent)
        verdict = SCRIPT[agent]
        if verdict is None:
            status, reply = 400, {"error": "bad request"}
        else:
            content = json.dumps({"equivalent": verdict, "reason": "scripted"})
            status, reply = 200, {"choices": [{"message": {"content": content}}]}
        payload = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


def _data() -> tuple[dict[str, Case], list[Run], ScoringConfig]:
    case = Case(
        case_id="c",
        reference=[
            Step(tool="transfer", arguments={"summary": REF, "order_id": "#W1"}),
        ],
    )
    runs = [
        Run(case_id="c", steps=[Step(tool="transfer", arguments={"summary": s, "order_id": "#W1"})])
        for s in SCRIPT
    ]
    runs.append(  # a near-miss id: never judged, a mismatch by normalized
        Run(
            case_id="c",
            steps=[Step(tool="transfer", arguments={"summary": REF, "order_id": "#W2"})],
        )
    )
    config = ScoringConfig.model_validate({"matching": {"tools": {"transfer": {"mode": "judge"}}}})
    return {"c": case}, runs, config


def _client(url: str, cache: JudgeCache | None = None) -> JudgeClient:
    config = JudgeConfig(base_url=url, model="scripted", max_retries=0)
    return JudgeClient(config, cache=cache)


def test_only_free_text_pairs_are_asked() -> None:
    cases, runs, config = _data()
    asked = pairs_to_judge(cases, runs, config, ArgumentEvidence())
    # 3 distinct differing summaries; the id field and the equal summary are not asked
    assert sorted(key[3] for key in asked) == sorted(json.dumps(s) for s in SCRIPT)
    assert {key[1] for key in asked} == {"summary"}


def test_verdicts_decide_and_a_judge_error_is_undefined_and_counted(judge_url: str) -> None:
    cases, runs, config = _data()
    evidence = asyncio.run(judge_verdicts(cases, runs, config, _client(judge_url)))
    assert sorted(_Judge.asked) == sorted(SCRIPT)
    result = score(cases.values(), runs, config, evidence=evidence)
    path = result.metrics["path_score"].tolist()
    # run 0: equivalent -> 100; run 1: not -> 100 - 25 missing = 75; run 2: judge_error ->
    # undefined (nan); run 3: order id differs (never judged) -> 75
    assert path[0] == 100.0 and path[1] == 75.0 and math.isnan(path[2]) and path[3] == 75.0
    assert math.isnan(result.metrics["argument_accuracy"][2])
    assert result.summary_extra["argument_match_undefined"] == {"runs": 1, "pairs": 1}


def test_verdicts_replay_from_the_cache_without_requests(judge_url: str, tmp_path: Path) -> None:
    cases, runs, config = _data()
    cache = JudgeCache(tmp_path)
    asyncio.run(judge_verdicts(cases, runs, config, _client(judge_url, cache)))
    _Judge.asked.clear()
    evidence = asyncio.run(judge_verdicts(cases, runs, config, _client(judge_url, cache)))
    assert _Judge.asked == ["garbled"]  # errors are not cached; the two verdicts are
    assert evidence.verdicts is not None
    assert sorted(v for v in evidence.verdicts.by_key.values() if v is not None) == [False, True]
