"""The library's defaults that the commands' options show, as literals.

The modules that define them import NumPy, pydantic or httpx, which ``--help`` must not
load; ``tests/cli/test_help.py`` checks that each value equals its definition.
"""

from __future__ import annotations

#: :data:`pathgrade.stats.case_summary.SUMMARY_RESAMPLES`.
SUMMARY_RESAMPLES = 1_000
#: :data:`pathgrade.stats.slices.MIN_SLICE_CASES`.
MIN_SLICE_CASES = 5
#: :data:`pathgrade.engines.runner.DEFAULT_PARTITION_SIZE`.
DEFAULT_PARTITION_SIZE = 1_000
#: :data:`pathgrade.io.ingest.DEFAULT_CASE_ID_ATTRIBUTE`.
DEFAULT_CASE_ID_ATTRIBUTE = "pathgrade.case_id"
#: :data:`pathgrade.judge.http.DEFAULT_DEADLINE` (seconds).
DEFAULT_DEADLINE = 60.0
#: :data:`pathgrade.judge.http.DEFAULT_MAX_RESPONSE_BYTES` (10 MiB).
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
#: :data:`pathgrade.replay.tool_loop.DEFAULT_MAX_TURNS`.
DEFAULT_MAX_TURNS = 10
#: :data:`pathgrade.judge.config.ENV_BASE_URL`.
ENV_BASE_URL = "PATHGRADE_JUDGE_BASE_URL"
#: :data:`pathgrade.judge.config.ENV_MODEL`.
ENV_MODEL = "PATHGRADE_JUDGE_MODEL"

#: Each default above -> ``(module, name)`` of its definition.
SOURCES = {
    "SUMMARY_RESAMPLES": ("pathgrade.stats.case_summary", "SUMMARY_RESAMPLES"),
    "MIN_SLICE_CASES": ("pathgrade.stats.slices", "MIN_SLICE_CASES"),
    "DEFAULT_PARTITION_SIZE": ("pathgrade.engines.runner", "DEFAULT_PARTITION_SIZE"),
    "DEFAULT_CASE_ID_ATTRIBUTE": ("pathgrade.io.ingest", "DEFAULT_CASE_ID_ATTRIBUTE"),
    "DEFAULT_DEADLINE": ("pathgrade.judge.http", "DEFAULT_DEADLINE"),
    "DEFAULT_MAX_RESPONSE_BYTES": ("pathgrade.judge.http", "DEFAULT_MAX_RESPONSE_BYTES"),
    "DEFAULT_MAX_TURNS": ("pathgrade.replay.tool_loop", "DEFAULT_MAX_TURNS"),
    "ENV_BASE_URL": ("pathgrade.judge.config", "ENV_BASE_URL"),
    "ENV_MODEL": ("pathgrade.judge.config", "ENV_MODEL"),
}
