"""Judge configuration: endpoint, model, sampling, retries, prices.

Values come from keyword arguments first, then the environment:

=============================  ============================================
``PATHGRADE_JUDGE_BASE_URL``   e.g. ``https://api.openai.com/v1``
``PATHGRADE_JUDGE_MODEL``      e.g. ``gpt-4o-2024-08-06`` (pin a dated name)
``PATHGRADE_JUDGE_API_KEY``    sent as ``Authorization: Bearer ...`` only
=============================  ============================================

The API key is held in a field excluded from ``repr`` and from :meth:`JudgeConfig.public`, so
it cannot reach a log, a results file, a cache entry or a report by way of the config; the
base URL is shown without credentials (``https://user:pass@host`` prints as ``https://host``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from pathgrade.core.errors import ConfigError
from pathgrade.judge.http import DEFAULT_DEADLINE, DEFAULT_MAX_RESPONSE_BYTES
from pathgrade.judge.redact import public_url
from pathgrade.openai_compat import chat_completions_url, sampling_params

ENV_BASE_URL = "PATHGRADE_JUDGE_BASE_URL"
ENV_MODEL = "PATHGRADE_JUDGE_MODEL"
ENV_API_KEY = "PATHGRADE_JUDGE_API_KEY"


@dataclass(frozen=True)
class JudgeConfig:
    """How to reach the judge and how to sample from it.

    Attributes:
        base_url: the OpenAI-compatible root; requests go to ``{base_url}/chat/completions``.
        model: the model name sent in each request.
        api_key: the bearer token (never printed; excluded from ``repr`` and ``public()``).
        model_version: an extra version tag that enters the cache key (use it when the
            provider's model name does not pin a version).
        temperature: sampling temperature (default 0).
        seed: the ``seed`` request parameter (default 0; None leaves it out).
        max_tokens: the completion limit (None leaves it out).
        json_mode: ask for ``response_format: {"type": "json_object"}``.
        timeout: seconds each read (and the connect) of an HTTP attempt may take.
        deadline: seconds of wall time one HTTP attempt may take in all, body included
            (:mod:`pathgrade.judge.http`); a slower attempt is a timeout, retried.
        max_response_bytes: the most bytes of a decoded response body; a larger one is a
            ``judge_error`` at once (not retried).
        max_retries: retries after the first attempt on 429, 5xx, timeouts and transport errors.
        backoff_base: first backoff delay in seconds (doubled per retry, with jitter).
        backoff_max: upper bound of one backoff delay.
        retry_after_max: upper bound on an honoured ``Retry-After``.
        concurrency: at most this many requests in flight.
        price_input_per_1k: cost of 1000 prompt tokens (None: cost not recorded).
        price_output_per_1k: cost of 1000 completion tokens.
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False, compare=False)
    model_version: str | None = None
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int | None = 1024
    json_mode: bool = True
    timeout: float = 60.0
    deadline: float = DEFAULT_DEADLINE
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    retry_after_max: float = 120.0
    concurrency: int = 8
    price_input_per_1k: float | None = None
    price_output_per_1k: float | None = None

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"expected an http(s) URL, got {public_url(self.base_url)!r}",
                field="judge.base_url",
            )
        if not self.model.strip():
            raise ConfigError("the judge model name is empty", field="judge.model")
        positive = {
            "timeout": self.timeout,
            "deadline": self.deadline,
            "max_response_bytes": self.max_response_bytes,
            "concurrency": self.concurrency,
        }
        for name, value in positive.items():
            if not value > 0:
                raise ConfigError(f"must be > 0, got {value!r}", field=f"judge.{name}")
        non_negative = {
            "max_retries": self.max_retries,
            "backoff_base": self.backoff_base,
            "backoff_max": self.backoff_max,
            "retry_after_max": self.retry_after_max,
            "temperature": self.temperature,
        }
        for name, value in non_negative.items():
            if not value >= 0:
                raise ConfigError(f"must be >= 0, got {value!r}", field=f"judge.{name}")

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.public().items() if k != "api_key_set"}
        return "JudgeConfig(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return chat_completions_url(self.base_url)

    def sampling(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (and hashed into cache keys)."""
        params = sampling_params(self.temperature, self.seed, self.max_tokens)
        if self.json_mode:
            params["response_format"] = {"type": "json_object"}
        return params

    def public(self) -> dict[str, Any]:
        """Every setting except the API key, for provenance in outputs; the base URL without
        credentials, query or fragment (:func:`~pathgrade.judge.redact.public_url`)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}
        out["base_url"] = public_url(self.base_url)
        out["api_key_set"] = self.api_key is not None
        return out

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, /, **overrides: Any) -> JudgeConfig:
        """Build a config from keyword overrides, then ``PATHGRADE_JUDGE_*`` variables.

        ``env`` defaults to ``os.environ``. A None override counts as not given.

        Raises:
            ConfigError: no base URL or model, or an unknown or invalid setting.
        """
        source = os.environ if env is None else env
        given = {k: v for k, v in overrides.items() if v is not None}
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ConfigError(f"unknown judge setting {unknown[0]!r}", field=f"judge.{unknown[0]}")
        given.setdefault("base_url", source.get(ENV_BASE_URL))
        given.setdefault("model", source.get(ENV_MODEL))
        given.setdefault("api_key", source.get(ENV_API_KEY) or None)
        for name, env_name in (("base_url", ENV_BASE_URL), ("model", ENV_MODEL)):
            if not given.get(name):
                raise ConfigError(
                    f"no judge {name.replace('_', ' ')}: pass it or set {env_name}",
                    field=f"judge.{name}",
                )
        return cls(**given)

    def with_(self, **changes: Any) -> JudgeConfig:
        """A copy with some settings changed."""
        return replace(self, **changes)
