"""The judge client against the local stub: request shape, retries, repair, timeouts, limits."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime
from typing import Any

import pytest

from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig
from pathgrade.judge.outcome import JudgeOutcome, parse_retry_after
from pathgrade.judge.prompts import entailment_prompt
from pathgrade.judge.verdicts import check_entailment


def config(stub: Any, api_key: str, **changes: Any) -> JudgeConfig:
    settings: dict[str, Any] = {
        "base_url": stub.url,
        "model": "judge-model",
        "api_key": api_key,
        "timeout": 2.0,
        "max_retries": 3,
        "backoff_base": 0.001,
        "backoff_max": 0.01,
        "price_input_per_1k": 0.01,
        "price_output_per_1k": 0.03,
        **changes,
    }
    return JudgeConfig(**settings)


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        await asyncio.sleep(0)


async def judge_one(client: JudgeClient, claim: str) -> JudgeOutcome[bool]:
    prompt = entailment_prompt(claim=claim, source="The sky is blue.")
    return await client.judge(prompt, check_entailment, item=claim)


def run_one(cfg: JudgeConfig, claim: str, sleeps: Sleeps | None = None) -> JudgeOutcome[bool]:
    async def go() -> JudgeOutcome[bool]:
        async with JudgeClient(cfg, rng=random.Random(1), sleep=sleeps or Sleeps()) as client:
            return await judge_one(client, claim)

    return asyncio.run(go())


def test_request_shape_usage_fingerprint_and_cost(stub: Any, api_key: str) -> None:
    stub.on("claim-ok", stub.verdict({"entails": True, "reason": "stated"}))
    outcome = run_one(config(stub, api_key), "claim-ok")
    assert outcome.ok and outcome.value is True and outcome.source == "live"
    assert len(stub.requests) == 1
    request = stub.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {api_key}"
    body = request["body"]
    assert body["model"] == "judge-model"
    assert body["temperature"] == 0
    assert body["seed"] == 0
    assert body["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    (call,) = outcome.calls
    assert call.status == 200 and call.attempt == 1 and not call.repair
    assert call.system_fingerprint == "fp_stub_1"
    assert call.model == "stub-model-2024-01-01"
    assert call.usage == {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    assert call.cost == pytest.approx(100 * 0.01 / 1000 + 20 * 0.03 / 1000)
    assert outcome.system_fingerprint == "fp_stub_1"


def test_malformed_json_gets_one_repair(stub: Any, api_key: str) -> None:
    stub.on(
        "claim-repair", stub.reply(content="sure! entails: yes"), stub.verdict({"entails": False})
    )
    outcome = run_one(config(stub, api_key), "claim-repair")
    assert outcome.ok and outcome.value is False
    assert len(stub.requests) == 2
    second = stub.requests[1]["body"]["messages"]
    assert second[-2] == {"role": "assistant", "content": "sure! entails: yes"}
    assert second[-1]["content"].startswith("Your reply could not be used: not valid JSON")
    assert [c.repair for c in outcome.calls] == [False, True]


def test_malformed_twice_is_a_judge_error(stub: Any, api_key: str) -> None:
    stub.on("claim-bad", stub.verdict({"entails": "maybe"}))
    outcome = run_one(config(stub, api_key), "claim-bad")
    assert not outcome.ok and outcome.value is None
    assert outcome.error is not None and "after one repair" in outcome.error
    assert "'entails' must be true or false" in outcome.error
    assert len(stub.requests) == 2


def test_429_honours_retry_after(stub: Any, api_key: str) -> None:
    stub.on(
        "claim-429",
        stub.reply(status=429, body='{"error": "slow down"}', headers={"Retry-After": "2"}),
        stub.verdict({"entails": True}),
    )
    sleeps = Sleeps()
    outcome = run_one(config(stub, api_key), "claim-429", sleeps)
    assert outcome.ok and outcome.value is True
    assert len(stub.requests) == 2
    assert sleeps.delays == [2.0]  # the header wins over the 1 ms backoff
    assert [c.status for c in outcome.calls] == [429, 200]
    assert outcome.calls[0].error == 'HTTP 429: {"error": "slow down"}'


def test_retry_after_is_capped(stub: Any, api_key: str) -> None:
    stub.on(
        "claim-cap",
        stub.reply(status=503, body="busy", headers={"Retry-After": "3600"}),
        stub.verdict({"entails": True}),
    )
    sleeps = Sleeps()
    outcome = run_one(config(stub, api_key, retry_after_max=5.0), "claim-cap", sleeps)
    assert outcome.ok and sleeps.delays == [5.0]


def test_slow_reply_past_the_timeout_is_retried(stub: Any, api_key: str) -> None:
    stub.on(
        "claim-slow",
        stub.verdict({"entails": True}, delay=0.5),
        stub.verdict({"entails": False}),
    )
    outcome = run_one(config(stub, api_key, timeout=0.1), "claim-slow")
    assert outcome.ok and outcome.value is False
    assert len(stub.requests) == 2
    assert outcome.calls[0].status is None
    assert outcome.calls[0].error == "timed out after 0.1 s"


def test_500_then_success(stub: Any, api_key: str) -> None:
    stub.on("claim-500", stub.reply(status=500, body="oops"), stub.verdict({"entails": True}))
    sleeps = Sleeps()
    outcome = run_one(config(stub, api_key), "claim-500", sleeps)
    assert outcome.ok and [c.status for c in outcome.calls] == [500, 200]
    assert len(sleeps.delays) == 1 and 0.0005 <= sleeps.delays[0] <= 0.001


def test_persistent_failure_is_an_error_and_the_run_goes_on(stub: Any, api_key: str) -> None:
    stub.on("claim-down", stub.reply(status=502, body="bad gateway"))
    stub.on("claim-fine", stub.verdict({"entails": True}))
    sleeps = Sleeps()

    async def go() -> list[JudgeOutcome[bool]]:
        cfg = config(stub, api_key)
        async with JudgeClient(cfg, rng=random.Random(1), sleep=sleeps) as client:
            outcomes = await asyncio.gather(
                judge_one(client, "claim-down"), judge_one(client, "claim-fine")
            )
            assert client.stats.errors == 1 and client.stats.retries == 3
            return list(outcomes)

    down, fine = asyncio.run(go())
    assert fine.ok and fine.value is True
    assert not down.ok and down.error == "HTTP 502: bad gateway (after 4 attempt(s))"
    assert len([r for r in stub.requests if "claim-down" in str(r["body"])]) == 4
    # exponential backoff with jitter: each delay in [d/2, d], d = min(0.01, 0.001 * 2**n)
    for n, delay in enumerate(sleeps.delays):
        ceiling = min(0.01, 0.001 * 2**n)
        assert ceiling / 2 <= delay <= ceiling


def test_4xx_is_not_retried_and_the_key_is_scrubbed(stub: Any, api_key: str) -> None:
    stub.on("claim-401", stub.reply(status=401, body=f'{{"error": "bad key {api_key}"}}'))
    outcome = run_one(config(stub, api_key), "claim-401")
    assert len(stub.requests) == 1
    assert outcome.error is not None and api_key not in outcome.error
    assert "bad key ***" in outcome.error


def test_jitter_is_reproducible_from_the_rng(stub: Any, api_key: str) -> None:
    stub.on("claim-jitter", stub.reply(status=500, body="x"))
    runs = []
    for _ in range(2):
        sleeps = Sleeps()

        async def go(sleeps: Sleeps = sleeps) -> None:
            cfg = config(stub, api_key)
            async with JudgeClient(cfg, rng=random.Random(42), sleep=sleeps) as client:
                await judge_one(client, "claim-jitter")

        asyncio.run(go())
        runs.append(sleeps.delays)
    assert runs[0] == runs[1] and len(runs[0]) == 3


def test_concurrency_limit(stub: Any, api_key: str) -> None:
    for i in range(12):
        stub.on(f"claim-par-{i}", stub.verdict({"entails": True}, delay=0.05))

    async def go() -> list[JudgeOutcome[bool]]:
        cfg = config(stub, api_key, concurrency=3)
        async with JudgeClient(cfg) as client:
            return list(
                await asyncio.gather(*(judge_one(client, f"claim-par-{i}") for i in range(12)))
            )

    outcomes = asyncio.run(go())
    assert all(o.ok for o in outcomes)
    assert len(stub.requests) == 12
    assert 1 <= stub.max_in_flight <= 3


def test_parse_retry_after() -> None:
    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("Wed, 01 May 2024 12:00:30 GMT", now) == 30.0
    assert parse_retry_after("Wed, 01 May 2024 11:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_client_needs_context_manager(api_key: str) -> None:
    cfg = JudgeConfig(base_url="http://127.0.0.1:9/v1", model="m", api_key=api_key)

    async def go() -> JudgeOutcome[bool]:
        return await judge_one(JudgeClient(cfg), "x")

    with pytest.raises(RuntimeError, match="async with"):
        asyncio.run(go())
    assert api_key not in repr(cfg) and api_key not in repr(JudgeClient(cfg))
