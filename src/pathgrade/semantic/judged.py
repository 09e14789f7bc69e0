"""``judge`` matching from the command line: the judge client built from options and the
environment, its verdicts asked before scoring, and what it did.

:class:`JudgeSettings` are ``pathgrade score``'s ``--judge-*`` options; unset values come
from ``PATHGRADE_JUDGE_BASE_URL`` and ``PATHGRADE_JUDGE_MODEL``, and the key only from
``PATHGRADE_JUDGE_API_KEY`` (:meth:`pathgrade.judge.config.JudgeConfig.from_env`; never an
option, never written). With ``cache``, verdicts are looked up in that
:class:`~pathgrade.judge.cache.JudgeCache` before any call and stored after a successful
one, so a second run makes no call; with ``offline`` too, verdicts are replayed from the
cache only (:class:`~pathgrade.judge.cache.CachedVerdicts`) and a miss is a ``judge_error``
(the pair's match is undefined, counted), never a request. The cache key holds the base URL
and the model, so an offline run must name the same ones as the run that filled the cache.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.judge.cache import CachedVerdicts, JudgeCache
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig
from pathgrade.judge.redact import public_url
from pathgrade.metrics.tool.schemas import ToolSet
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence
from pathgrade.semantic.judging import judge_verdicts
from pathgrade.semantic.prepass import prepare, uses_evidence


@dataclass(frozen=True)
class JudgeSettings:
    """How ``pathgrade score`` reaches the judge (module docstring; None: from the
    environment)."""

    base_url: str | None = None
    model: str | None = None
    cache: Path | None = None
    offline: bool = False


def uses_judge(config: ScoringConfig) -> bool:
    """Whether any call or field mode of ``config`` is ``judge``, or ``semantic`` matching
    has a band and a judge stage in its cascade (uncertain fields go to the judge)."""
    matching = config.matching
    semantic = matching.semantic
    cascade = semantic is not None and semantic.asks_judge and uses_evidence(matching, "semantic")
    return cascade or uses_evidence(matching, "judge")


def judge_client(settings: JudgeSettings) -> JudgeClient:
    """The client ``settings`` describe (errors name the option)."""
    if settings.offline and settings.cache is None:
        raise InputError(
            "--judge-offline replays cached verdicts: give the cache with --judge-cache DIR",
            field="--judge-offline",
        )
    config = JudgeConfig.from_env(base_url=settings.base_url, model=settings.model)
    cache = JudgeCache(settings.cache) if settings.cache is not None else None
    if settings.offline and cache is not None:
        return JudgeClient(config, recording=CachedVerdicts(cache))
    return JudgeClient(config, cache=cache)


def judged_evidence(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    tools: ToolSet | None,
    client: JudgeClient,
) -> tuple[ArgumentEvidence, dict[str, Any]]:
    """The evidence :func:`pathgrade.score` reads (embeddings too when ``semantic`` matching
    is also used) and the summary entry ``argument_judge``: the pairs judged, their verdicts
    and judge errors, the HTTP requests made, the cache hits, and where the judge was."""
    evidence = prepare(cases, runs, config, tools)
    evidence = asyncio.run(judge_verdicts(cases, runs, config, client, evidence))
    verdicts = evidence.verdicts
    values = list(verdicts.by_key.values()) if verdicts is not None else []
    cache = client.cache if client.cache is not None else None
    if isinstance(client.recording, CachedVerdicts):
        cache = client.recording.cache
    stats = {
        "pairs": len(values),
        "equivalent": sum(1 for v in values if v is True),
        "not_equivalent": sum(1 for v in values if v is False),
        "judge_errors": sum(1 for v in values if v is None),
        "requests": client.stats.requests,
        "cache_hits": cache.hits if cache is not None else 0,
        "offline": client.offline,
        "model": client.config.model,
        "base_url": public_url(client.config.base_url),
    }
    return evidence, stats
