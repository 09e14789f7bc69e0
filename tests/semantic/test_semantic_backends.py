"""Embedding backends and the cache: a 127.0.0.1 stub endpoint, a plug-in embedder, and the
seed's Mars example through ``pathgrade.score``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pathgrade import Case, Run, ScoringConfig, score
from pathgrade.core.config import SEMANTIC_THRESHOLD
from pathgrade.core.errors import ConfigError
from pathgrade.core.types import Step
from pathgrade.openai_compat import RetryPolicy
from pathgrade.plugins import register_embedder, unregister_embedder
from pathgrade.semantic.backends import EndpointEmbedder
from pathgrade.semantic.cache import EmbeddingCache

# A multilingual stand-in: "Марс" and "планета Марс" at cosine 0.96, "Венера" orthogonal.
VECTORS = {"Марс": [1.0, 0.0], "планета Марс": [0.96, 0.28], "Венера": [0.0, 1.0]}


class _Stub(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []  # noqa: RUF012 (shared log of one test server)
    fail_first = 0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), **body}
        )
        if type(self).fail_first > 0:
            type(self).fail_first -= 1
            self.send_response(503)
            self.end_headers()
            return
        data = [
            {"index": i, "embedding": VECTORS.get(text, [0.5, 0.5])}
            for i, text in reversed(list(enumerate(body["input"])))  # out of order on purpose
        ]
        payload = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[str]:
    _Stub.requests, _Stub.fail_first = [], 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_endpoint_batches_retries_and_sends_the_key(stub: str) -> None:
    _Stub.fail_first = 1  # one 503, retried
    embedder = EndpointEmbedder(
        stub, "m", api_key="sk-test", batch_size=2, retry=RetryPolicy(2), sleep=lambda _: None
    )
    rows = embedder.embed(["Марс", "планета Марс", "Венера"])
    # 3 texts in batches of 2: 2 requests, plus the retried one
    assert [len(r["input"]) for r in _Stub.requests] == [2, 2, 1]
    assert {r["auth"] for r in _Stub.requests} == {"Bearer sk-test"}
    assert {r["path"] for r in _Stub.requests} == {"/v1/embeddings"}
    assert float(rows[0] @ rows[1]) == pytest.approx(0.96, abs=1e-6)  # rows kept in index order


def test_endpoint_failure_is_a_config_error_without_the_key(stub: str) -> None:
    _Stub.fail_first = 10
    embedder = EndpointEmbedder(
        stub, "m", api_key="sk-secret", retry=RetryPolicy(1), sleep=lambda _: None
    )
    with pytest.raises(ConfigError, match="HTTP 503") as error:
        embedder.embed(["Марс"])
    assert "sk-secret" not in str(error.value)


def _mars_config(base_url: str, cache: Path) -> ScoringConfig:
    return ScoringConfig.model_validate(
        {
            "matching": {
                "semantic": {"backend": "endpoint", "base_url": base_url, "cache_dir": str(cache),
                             "api_key_env": "PATHGRADE_TEST_EMBED_KEY"},
                "tools": {"search": {"fields": {"query": {"mode": "semantic"}}}},
            }
        }
    )  # fmt: skip


def _mars_runs() -> tuple[Case, list[Run]]:
    case = Case(case_id="mars", reference=[Step(tool="search", arguments={"query": "Марс"})])
    runs = [
        Run(case_id="mars", steps=[Step(tool="search", arguments={"query": "планета Марс"})]),
        Run(case_id="mars", steps=[Step(tool="search", arguments={"query": "Венера"})]),
    ]
    return case, runs


def test_mars_example_through_the_stub_endpoint(
    stub: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATHGRADE_TEST_EMBED_KEY", "sk-env")
    case, runs = _mars_runs()
    result = score([case], runs, _mars_config(stub, tmp_path))
    # cosine 0.96 >= 0.85: a match; Венера (cosine 0) is a substitution: 100 - 25 missing
    assert result.metrics["path_score"].tolist() == [100.0, 75.0]
    assert result.metrics["argument_accuracy"].tolist() == [1.0, 0.0]
    assert {r["auth"] for r in _Stub.requests} == {"Bearer sk-env"}
    # second job, same strings: the cache answers, no request is made
    before = len(_Stub.requests)
    again = score([case], runs, _mars_config(stub, tmp_path))
    assert len(_Stub.requests) == before
    assert again.metrics["path_score"].tolist() == [100.0, 75.0]


class _Counting:
    id = "counting"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> Any:
        self.calls.append(list(texts))
        return np.asarray([[len(t), 1.0] for t in texts], np.float32)


def test_cache_embeds_each_distinct_string_once_and_zero_on_the_second_run(tmp_path: Path) -> None:
    embedder = _Counting()
    first = EmbeddingCache(tmp_path)
    index, vectors = first.embed_all(["a", "bb", "a", "ccc", "bb"], embedder)  # type: ignore[arg-type]
    assert embedder.calls == [["a", "bb", "ccc"]]
    assert (first.computed, first.hits) == (3, 0)
    second = EmbeddingCache(tmp_path)  # a later job
    index2, vectors2 = second.embed_all(["ccc", "a", "bb"], embedder)  # type: ignore[arg-type]
    assert (second.computed, second.hits) == (0, 3)
    assert len(embedder.calls) == 1
    for text in ("a", "bb", "ccc"):
        np.testing.assert_array_equal(vectors[index[text]], vectors2[index2[text]])
    # rows are unit vectors: "bb" -> (2, 1) / sqrt(5)
    np.testing.assert_allclose(vectors[index["bb"]], [2 / 5**0.5, 1 / 5**0.5], rtol=1e-6)


def test_plugin_embedder_backend(tmp_path: Path) -> None:
    register_embedder("toy-mars", lambda texts: [VECTORS[t] for t in texts])
    try:
        case, runs = _mars_runs()
        config = ScoringConfig.model_validate(
            {"matching": {"mode": "semantic",
                          "semantic": {"backend": "toy-mars", "cache_dir": str(tmp_path)}}}
        )  # fmt: skip
        result = score([case], runs, config)
        assert result.metrics["path_score"].tolist() == [100.0, 75.0]
    finally:
        unregister_embedder("toy-mars")


def test_unknown_backend_is_a_config_error(tmp_path: Path) -> None:
    case, runs = _mars_runs()
    config = ScoringConfig.model_validate(
        {
            "matching": {
                "mode": "semantic",
                "semantic": {"backend": "nope", "cache_dir": str(tmp_path)},
            }
        }
    )
    with pytest.raises(ConfigError, match="unknown semantic backend"):
        score([case], runs, config)


def test_alignment_field_details_name_the_mode_and_similarity(tmp_path: Path) -> None:
    from pathgrade.semantic import prepare
    from pathgrade.semantic.explain import field_details

    register_embedder("toy-mars2", lambda texts: [VECTORS[t] for t in texts])
    try:
        case, runs = _mars_runs()
        config = ScoringConfig.model_validate(
            {"matching": {"tools": {"search": {"fields": {"query": {"mode": "semantic"}}}},
                          "semantic": {"backend": "toy-mars2", "cache_dir": str(tmp_path)}}}
        )  # fmt: skip
        evidence = prepare({"mars": case}, runs, config)
        result = score([case], runs, config, evidence=evidence)
        details = field_details(case, runs[0], result[0], config, {"semantic": evidence})
    finally:
        unregister_embedder("toy-mars2")
    # cos = 1 * 0.96 / |(0.96, 0.28)| = 0.96 / 1.0 = 0.96 >= the default 0.85
    expected = {"field": "query", "mode": "semantic", "match": True, "similarity": 0.96}
    assert details == [[expected | {"threshold": SEMANTIC_THRESHOLD}]]
    # the run's record carries the same entries as its aligned step's fields
    assert result[0].to_dict()["alignment"][0]["fields"] == details[0]
