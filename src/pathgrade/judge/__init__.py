"""LLM-as-judge: an OpenAI-compatible client, versioned prompts, a cache, bias checks.

The judge fills labels (claims, citation entailment, rubric scores, goal success); the pure
answer-layer metrics compute the numbers from them. Network access lives in this package only.

Typical use::

    config = JudgeConfig.from_env()            # PATHGRADE_JUDGE_BASE_URL / _MODEL / _API_KEY
    async with JudgeClient(config, cache=JudgeCache(Path(".judge-cache")),
                           rng=random.Random(0)) as client:
        result = await fill_runs(cases_by_id, runs, client, chunks=load_chunks("chunks.jsonl"))
    judged_runs = result.runs
"""

from pathgrade.judge.agreement import AgreementReport, FieldAgreement, judge_agreement
from pathgrade.judge.bias import (
    Correlation,
    LengthControlled,
    Pair,
    PairVerdict,
    PositionBiasReport,
    length_controlled_preference,
    length_correlation,
    position_bias,
)
from pathgrade.judge.cache import JudgeCache, Recording, cache_key
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig
from pathgrade.judge.files import Chunks, load_chunks, write_jsonl, write_runs
from pathgrade.judge.fill import FillOptions, FillResult, Skipped, fill_runs, plan
from pathgrade.judge.outcome import CallRecord, ClientStats, JudgeOutcome
from pathgrade.judge.prompts import TEMPLATES, Prompt, PromptTemplate
from pathgrade.judge.rubric import (
    DEFAULT_RUBRIC,
    Rubric,
    RubricDimension,
    RubricExample,
    load_rubric,
)
from pathgrade.judge.summary import OFFLINE_NOTICE, metric_means, summarize

__all__ = [
    "DEFAULT_RUBRIC",
    "OFFLINE_NOTICE",
    "TEMPLATES",
    "AgreementReport",
    "CallRecord",
    "Chunks",
    "ClientStats",
    "Correlation",
    "FieldAgreement",
    "FillOptions",
    "FillResult",
    "JudgeCache",
    "JudgeClient",
    "JudgeConfig",
    "JudgeOutcome",
    "LengthControlled",
    "Pair",
    "PairVerdict",
    "PositionBiasReport",
    "Prompt",
    "PromptTemplate",
    "Recording",
    "Rubric",
    "RubricDimension",
    "RubricExample",
    "Skipped",
    "cache_key",
    "fill_runs",
    "judge_agreement",
    "length_controlled_preference",
    "length_correlation",
    "load_chunks",
    "load_rubric",
    "metric_means",
    "plan",
    "position_bias",
    "summarize",
    "write_jsonl",
    "write_runs",
]
