"""The pre-pass of ``judge`` matching: ask the LLM judge, before scoring, about every pair of
argument values that scoring will compare by judgement, and count what stays undefined.

The pairs are found by the matchers themselves: every (reference step, agent step) of the
same tool in a run's case is compared once with a recorder in place of the verdicts, so the
set asked is exactly the set scoring reads. Each distinct pair is judged once through the
:class:`~pathgrade.judge.client.JudgeClient` (its cache and recordings make it replayable
offline); each verdict keeps its judge cache key, each ``judge_error`` its message (the
key and credentials redacted) and the value ``None``: that comparison is undefined, which
:func:`undefined_runs` counts and :func:`pathgrade.score` reports, never a silent match or
mismatch.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run, Step
from pathgrade.judge.cache import CachedVerdicts
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.outcome import JudgeOutcome
from pathgrade.judge.prompts import Prompt, PromptTemplate, section
from pathgrade.judge.verdicts import VerdictError
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.evidence import ArgumentEvidence, Verdicts, value_key
from pathgrade.metrics.trajectory.grammar import leaves

Key = tuple[str, str, str, str]

EQUIVALENCE = PromptTemplate(
    id="argument_equivalence",
    version=1,
    system=(
        "You compare one argument of two calls of the same tool: the REFERENCE value a correct"
        " agent used and the AGENT value. They are equivalent when the tool, given either one,"
        " would be asked for the same thing: wording, word order, spelling and language do not"
        " matter; a different entity, number, identifier, date, or a negation does. Reply with"
        ' only a JSON object: {"equivalent": true | false, "reason": "<one sentence>"}'
    ),
)


def equivalence_prompt(tool: str, name: str, reference: Any, agent: Any) -> Prompt:
    """The prompt asking whether two values of ``tool.name`` are equivalent."""
    user = "\n".join(
        [
            section("tool", tool),
            section("argument", name or "(all arguments)"),
            section("reference", orjson.dumps(reference).decode()),
            section("agent", orjson.dumps(agent).decode()),
        ]
    )
    return EQUIVALENCE.render(user)


def check_equivalent(verdict: dict[str, Any]) -> bool:
    """``{"equivalent": bool}``."""
    value = verdict.get("equivalent")
    if not isinstance(value, bool):
        raise VerdictError(f"'equivalent' must be true or false, got {value!r}")
    return value


@dataclass(frozen=True)
class _Recorder(Verdicts):
    """Records every pair asked for (and answers False)."""

    asked: dict[Key, tuple[Any, Any]] = field(default_factory=dict)

    def verdict(self, tool: str, name: str, ref: object, agent: object) -> bool | None:
        self.asked.setdefault((tool, name, value_key(ref), value_key(agent)), (ref, agent))
        return False


def candidate_pairs(
    cases: Mapping[str, Case], runs: Sequence[Run]
) -> Iterator[tuple[int, Step, Step]]:
    """``(run index, reference step, agent step)`` for every same-tool pair of a run."""
    for r, run in enumerate(runs):
        case = cases.get(run.case_id)
        if case is None:
            continue
        # the calls of one_of branches, never the placeholder
        refs = [step for path in case.reference_paths() for step in leaves(path)]
        for agent in run.steps:
            for ref in refs:
                if ref.tool == agent.tool:
                    yield r, ref, agent


def pairs_to_judge(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    evidence: ArgumentEvidence,
    plugins: Mapping[str, Any] | None = None,
) -> dict[Key, tuple[Any, Any]]:
    """Every distinct ``(tool, field, reference, agent)`` that ``judge`` matching reads."""
    recorder = _Recorder(by_key={})
    probe = replace(evidence, verdicts=recorder)
    matchers = MatcherSet(config.matching, {**(plugins or {}), "judge": probe})
    for _, ref, agent in candidate_pairs(cases, runs):
        matchers.for_tool(ref.tool).explain(ref.arguments, agent.arguments)
    return recorder.asked


async def judge_verdicts(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    client: JudgeClient,
    evidence: ArgumentEvidence | None = None,
) -> ArgumentEvidence:
    """``evidence`` (embeddings, schema) with the judge's verdict on every pair to judge."""
    evidence = evidence if evidence is not None else ArgumentEvidence()
    asked = pairs_to_judge(cases, runs, config, evidence)
    keys = list(asked)

    async def one(key: Key) -> JudgeOutcome[bool]:
        ref, agent = asked[key]
        prompt = equivalence_prompt(key[0], key[1], ref, agent)
        item = f"{key[0]}.{key[1] or '*'}"
        return await client.judge(prompt, check_equivalent, item=item)

    before = _spent(client)
    start = time.perf_counter()
    async with client:
        outcomes = await asyncio.gather(*(one(key) for key in keys))
    after = _spent(client)
    cost: dict[str, int | float] = {"comparisons": len(keys)}
    cost.update({k: after[k] - before[k] for k in after})
    cost["seconds"] = round(time.perf_counter() - start, 3)
    by_key = {k: o.value if o.ok else None for k, o in zip(keys, outcomes, strict=True)}
    ids = {k: o.key for k, o in zip(keys, outcomes, strict=True) if o.ok}
    errors = {
        k: client.redactor.text(o.error or "", 200)
        for k, o in zip(keys, outcomes, strict=True)
        if not o.ok
    }
    return replace(evidence, verdicts=Verdicts(by_key, ids, errors, cost))


def _spent(client: JudgeClient) -> dict[str, int]:
    """The client's counters that the judge stage's cost is the difference of."""
    cache = client.cache
    if isinstance(client.recording, CachedVerdicts):
        cache = client.recording.cache
    return {
        "requests": client.stats.requests,
        "cache_hits": cache.hits if cache is not None else 0,
        "prompt_tokens": client.stats.prompt_tokens,
        "completion_tokens": client.stats.completion_tokens,
    }


def undefined_runs(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    plugins: Mapping[str, Any],
) -> tuple[list[int], int]:
    """``(runs, pairs)``: the runs with a step pair whose argument match reads a
    ``judge_error``, and how many such (reference step, agent step) pairs there are."""
    matchers = MatcherSet(config.matching, plugins)
    bad_runs: dict[int, None] = {}
    pairs = 0
    for r, ref, agent in candidate_pairs(cases, runs):
        if matchers.for_tool(ref.tool).undefined(ref.arguments, agent.arguments):
            bad_runs[r] = None
            pairs += 1
    return list(bad_runs), pairs
