"""``pathgrade score``'s options for ``judge`` argument matching (``--judge-base-url``,
``--judge-model``, ``--judge-cache``, ``--judge-offline``).

What they mean is :class:`pathgrade.semantic.judged.JudgeSettings`: the endpoint and model
(else ``PATHGRADE_JUDGE_BASE_URL`` / ``PATHGRADE_JUDGE_MODEL``; the key only from
``PATHGRADE_JUDGE_API_KEY``), the verdict cache, and offline replay of cached verdicts.
They are read only when the config has a ``judge`` mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathgrade.cli.defaults import ENV_BASE_URL, ENV_MODEL

if TYPE_CHECKING:
    from pathgrade.core.config import ScoringConfig
    from pathgrade.semantic.judged import JudgeSettings

__all__ = ["JudgeBaseUrl", "JudgeCache", "JudgeModel", "JudgeOffline", "judge_settings"]

JudgeBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--judge-base-url", help=f"Judge endpoint root for judge mode (or {ENV_BASE_URL})."
    ),
]
JudgeModel = Annotated[
    str | None, typer.Option("--judge-model", help=f"Judge model for judge mode (or {ENV_MODEL}).")
]
JudgeCache = Annotated[
    Path | None,
    typer.Option("--judge-cache", help="Judge verdict cache directory (a re-run makes no call)."),
]
JudgeOffline = Annotated[
    bool,
    typer.Option("--judge-offline", help="Replay verdicts from --judge-cache only; no calls."),
]


def _uses(scoring: ScoringConfig, mode: str) -> bool:
    matching = scoring.matching
    return matching.mode == mode or any(
        spec.mode == mode or any(f.mode == mode for f in spec.fields.values())
        for spec in matching.tools.values()
    )


def _uses_judge(scoring: ScoringConfig) -> bool:
    """Whether any call or field mode is ``judge``, or ``semantic`` matching sends uncertain
    fields to the judge (as :func:`pathgrade.semantic.judged.uses_judge`, without importing
    the judge client)."""
    semantic = scoring.matching.semantic
    cascade = semantic is not None and semantic.asks_judge and _uses(scoring, "semantic")
    return cascade or _uses(scoring, "judge")


def judge_settings(
    scoring: ScoringConfig,
    base_url: str | None,
    model: str | None,
    cache: Path | None,
    offline: bool,
) -> JudgeSettings | None:
    """The judge settings when the config has a ``judge`` mode (else None; the options must
    then be unset: a ``--judge-*`` option without a ``judge`` mode is an error)."""
    from pathgrade.core.errors import InputError

    if _uses_judge(scoring):
        from pathgrade.semantic.judged import JudgeSettings  # the judge client: only now

        return JudgeSettings(base_url, model, cache, offline)
    given = [
        name
        for name, value in (
            ("--judge-base-url", base_url),
            ("--judge-model", model),
            ("--judge-cache", cache),
            ("--judge-offline", offline or None),
        )
        if value is not None
    ]
    if given:
        raise InputError(
            f"{given[0]} is for judge argument matching, and the config has no judge mode",
            field=given[0],
        )
    return None
