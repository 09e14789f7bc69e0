"""Prompt versions are pinned; config hides the key; cache keys and atomic entries; rubrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.core.errors import ConfigError, InputError
from pathgrade.judge.cache import JudgeCache, Recording, cache_key
from pathgrade.judge.config import JudgeConfig
from pathgrade.judge.prompts import TEMPLATES, claims_prompt, rubric_prompt
from pathgrade.judge.rubric import DEFAULT_RUBRIC, load_rubric
from pathgrade.judge.verdicts import VerdictError, check_claims, parse_object, score_checker

# A changed template text must come with a new version: update both together.
PINNED = {
    "claims@1": "ca5dd1e79036c549",
    "support@1": "191ad889627b9f23",
    "entailment@1": "fa6754f5cae06685",
    "rubric@1": "c1f4b454f4d67f6a",
    "goal@1": "f713fc2cba645331",
    "trajectory@1": "4e559a1f5a6b2f36",
    "pairwise@1": "88cc51ff7bf67000",
}


def test_prompt_texts_are_pinned_to_their_versions() -> None:
    assert {t.name: t.fingerprint()[:16] for t in TEMPLATES.values()} == PINNED
    for template in TEMPLATES.values():
        assert "JSON object" in template.system


def test_rubric_prompt_has_anchored_levels_and_few_shot() -> None:
    dimension = DEFAULT_RUBRIC.dimensions[0]
    prompt = rubric_prompt(dimension, question="q", answer="a", gold_answer="g", gold_evidence=None)
    roles = [m["role"] for m in prompt.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "0: wrong" in prompt.messages[-1]["content"]
    assert json.loads(prompt.messages[2]["content"])["score"] == 2
    assert prompt.name == "rubric@1"


def test_config_from_env_and_key_hiding() -> None:
    env = {
        "PATHGRADE_JUDGE_BASE_URL": "http://127.0.0.1:1/v1",
        "PATHGRADE_JUDGE_MODEL": "m-2024",
        "PATHGRADE_JUDGE_API_KEY": "sk-hidden-123",
    }
    config = JudgeConfig.from_env(env, concurrency=3)
    assert (config.model, config.concurrency) == ("m-2024", 3)
    assert config.base_url == env["PATHGRADE_JUDGE_BASE_URL"]
    assert config.api_key == "sk-hidden-123"
    assert "sk-hidden" not in repr(config) and "sk-hidden" not in json.dumps(config.public())
    assert config.public()["api_key_set"] is True
    assert config.endpoint == "http://127.0.0.1:1/v1/chat/completions"
    assert config.sampling() == {
        "temperature": 0.0,
        "seed": 0,
        "max_tokens": 1024,
        "response_format": {"type": "json_object"},
    }
    assert JudgeConfig.from_env(env, model="other").model == "other"
    with pytest.raises(ConfigError, match="set PATHGRADE_JUDGE_MODEL"):
        JudgeConfig.from_env({"PATHGRADE_JUDGE_BASE_URL": "http://x"})
    with pytest.raises(ConfigError, match="unknown judge setting 'temprature'"):
        JudgeConfig.from_env(env, temprature=1)
    with pytest.raises(ConfigError, match="expected an http"):
        JudgeConfig(base_url="ftp://x", model="m")
    with pytest.raises(ConfigError, match=r"judge\.concurrency"):
        JudgeConfig(base_url="http://x", model="m", concurrency=0)


def test_cache_key_covers_what_decides_a_verdict() -> None:
    prompt = claims_prompt(
        question="q", answer="a", context="c", gold_answer=None, gold_evidence=None
    )
    base = {
        "model": "m", "model_version": None, "base_url": "http://x/v1", "messages": prompt.messages,
        "sampling": {"temperature": 0.0, "seed": 0}, "prompt_id": "claims", "prompt_version": 1,
    }  # fmt: skip
    key = cache_key(**base)  # type: ignore[arg-type]
    assert key == cache_key(**{**base, "base_url": "http://x/v1/"})  # type: ignore[arg-type]
    for change in (
        {"model": "m2"},
        {"model_version": "2024-05"},
        {"base_url": "http://y/v1"},
        {"messages": prompt.messages[:1]},
        {"sampling": {"temperature": 0.7, "seed": 0}},
        {"prompt_version": 2},
    ):
        assert cache_key(**{**base, **change}) != key  # type: ignore[arg-type]


def test_cache_entries_are_atomic_and_counted(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    assert cache.get("ab" * 32) is None and cache.hit_rate == 0.0
    cache.put("ab" * 32, {"verdict": {"entails": True}})
    assert cache.get("ab" * 32) == {
        "schema_version": 1, "key": "ab" * 32, "verdict": {"entails": True}
    }  # fmt: skip
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["ab" * 32 + ".json"]
    (tmp_path / "ab" / ("ab" * 32 + ".json")).write_text("{truncated")
    assert cache.get("ab" * 32) is None  # unreadable entry: a miss
    assert (cache.hits, cache.misses) == (1, 2)


def test_recording_file(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text('{"item": "a", "verdict": {"reached": true}}\n{"key": "k", "verdict": {}}\n')
    recording = Recording.load(path)
    assert recording.lookup("zz", "a") == {"item": "a", "verdict": {"reached": True}}
    assert recording.lookup("k", "b") == {"key": "k", "verdict": {}}
    path.write_text('{"verdict": {}}\n')
    with pytest.raises(InputError, match=r"rec\.jsonl:1: a record needs a string 'key' or 'item'"):
        Recording.load(path)


def test_verdict_parsing() -> None:
    assert parse_object('```json\n{"a": 1}\n```') == {"a": 1}
    with pytest.raises(VerdictError, match="expected a JSON object, got list"):
        parse_object("[1]")
    with pytest.raises(VerdictError, match=r"claims\[0\].label"):
        check_claims({"claims": [{"text": "x", "label": "true"}]})
    assert score_checker([0, 1, 2])({"score": "2"}) == 2.0
    with pytest.raises(VerdictError, match="must be a number"):
        score_checker([0, 1])({"score": True})


def rubric_json(name: str, score: int) -> str:
    dimension = {
        "name": name,
        "description": "d",
        "levels": {"0": "no", "1": "yes"},
        "examples": [{"answer": "a", "score": score}],
    }
    return json.dumps({"dimensions": [dimension]})


def test_rubric_file(tmp_path: Path) -> None:
    path = tmp_path / "rubric.json"
    path.write_text(rubric_json("root_cause", 1))
    rubric = load_rubric(path)
    assert rubric.dimensions[0].levels == {0.0: "no", 1.0: "yes"}
    path.write_text(rubric_json("x", 3))
    with pytest.raises(InputError, match="example score 3 of 'x' is not one of the levels"):
        load_rubric(path)
