"""Fill the judged labels of runs: claims, citation entailment, rubric scores, goal success.

:func:`fill_runs` plans one judge item per label to fill, judges them all concurrently through
a :class:`~pathgrade.judge.client.JudgeClient`, and returns new runs (the inputs are never
changed) with the labels set. The answer-layer metrics then compute the numbers from those
labels: ``faithfulness`` from ``claims``, ``citation_precision`` / ``citation_recall`` from
``citations[].entails``, ``rubric.<dimension>`` from ``rubric``.

What is filled, and what never goes to the judge:

* ``claims``: extracted and labelled when the run has none and gave an answer (``claims@1``);
  with ``label_claims=True`` the given claims are (re)labelled one by one (``support@1``).
* ``citations[i].entails``: only when unlabelled, **and** the cited (chunk, version) was shown
  (a deterministic check done here; a citation never shown is invalid whatever a judge says),
  **and** the chunk's text is known. The claim is ``claims[citation.claim]``, or the whole
  answer for a citation that names no claim.
* ``rubric.<dimension>``: each dimension the run does not already have, one call each.
* ``success``: only when the run does not say, and not when the case's ``expected_state`` and
  the run's ``final_state`` exist (the state match decides that deterministically).
* trajectory (optional): ``metadata["judge"]["trajectory"] = {"accurate", "reasoning"}``,
  reported separately from the deterministic path metrics and never mixed into them.

A failed item is a ``judge_error``: its label stays unset and is listed in
``metadata["judge"]["failed"]`` (:mod:`pathgrade.core.judged`), so the metric is undefined for
that run: left out of means and counted, never scored 0 and never decided by a weaker rule
(a failed goal judgement leaves ``goal_success`` undefined, not the gold-answer string match).
Errors are listed in ``metadata["judge"]["errors"]`` and in the result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pathgrade.core.errors import InputError
from pathgrade.core.judged import FAILED_KEY
from pathgrade.core.types import Case, Citation, Claim, Run
from pathgrade.judge.client import JudgeClient
from pathgrade.judge.files import Chunks
from pathgrade.judge.outcome import JudgeOutcome
from pathgrade.judge.prompts import (
    Prompt,
    claims_prompt,
    entailment_prompt,
    goal_prompt,
    rubric_prompt,
    support_prompt,
    trajectory_prompt,
)
from pathgrade.judge.render import (
    context_text,
    gold_answer_text,
    gold_evidence_text,
    references_text,
    steps_text,
)
from pathgrade.judge.rubric import DEFAULT_RUBRIC, Rubric
from pathgrade.judge.verdicts import (
    JudgedClaim,
    check_claims,
    check_entailment,
    check_goal,
    check_support,
    check_trajectory,
    reason_of,
    score_checker,
)

Kind = Literal["claims", "support", "citation", "rubric", "goal", "trajectory"]


@dataclass(frozen=True)
class FillOptions:
    """Which labels to fill. ``rubric=None`` grades no rubric."""

    claims: bool = True
    label_claims: bool = False
    citations: bool = True
    rubric: Rubric | None = DEFAULT_RUBRIC
    goal: bool = True
    trajectory: bool = False


@dataclass(frozen=True)
class Task:
    """One planned judge item."""

    run: int
    kind: Kind
    target: int | str | None
    item: str
    prompt: Prompt
    check: Callable[[dict[str, Any]], Any]
    #: The label this item fills (``goal``, ``claims[0]``, ``rubric.<dimension>``, ...).
    label: str = ""


@dataclass(frozen=True)
class Skipped:
    """A label not sent to the judge, and why."""

    item: str
    reason: str


@dataclass(frozen=True)
class FillResult:
    """The judged runs, every outcome, and the labels left to deterministic checks or data."""

    runs: tuple[Run, ...]
    outcomes: tuple[JudgeOutcome[Any], ...]
    skipped: tuple[Skipped, ...]
    offline: bool = False

    @property
    def errors(self) -> tuple[JudgeOutcome[Any], ...]:
        return tuple(o for o in self.outcomes if not o.ok)

    def recording(self) -> list[dict[str, Any]]:
        """Successful verdicts as recording records (replayable with offline mode)."""
        return [
            {"item": o.item, "key": o.key, "prompt": o.prompt, "verdict": o.verdict}
            for o in self.outcomes
            if o.ok
        ]


def run_label(run: Run, position: int) -> str:
    """``case/run/trial`` (``#position`` when the run has no ``run_id``)."""
    return f"{run.case_id}/{run.run_id if run.run_id is not None else f'#{position}'}/{run.trial}"


def _adder(
    tasks: list[Task], position: int, label: str
) -> Callable[[Kind, int | str | None, str, Prompt, Callable[[dict[str, Any]], Any]], None]:
    def add(
        kind: Kind,
        target: int | str | None,
        name: str,
        prompt: Prompt,
        check: Callable[[dict[str, Any]], Any],
    ) -> None:
        tasks.append(Task(position, kind, target, f"{label}:{name}", prompt, check, name))

    return add


def _skipper(skipped: list[Skipped], label: str) -> Callable[[str, str], None]:
    def skip(name: str, reason: str) -> None:
        skipped.append(Skipped(f"{label}:{name}", reason))

    return skip


def plan(
    cases_by_id: Mapping[str, Case],
    runs: Sequence[Run],
    options: FillOptions = FillOptions(),
    chunks: Chunks | None = None,
) -> tuple[list[Task], list[Skipped]]:
    """The judge items for ``runs`` and the labels deliberately not sent to the judge."""
    chunks = chunks if chunks is not None else Chunks()
    tasks: list[Task] = []
    skipped: list[Skipped] = []
    for position, run in enumerate(runs):
        case = cases_by_id.get(run.case_id)
        if case is None:
            raise InputError(f"run {position} names unknown case {run.case_id!r}", field="case_id")
        label = run_label(run, position)
        answers = run.answer is not None and run.answer.strip() != "" and not run.abstained
        gold, evidence = gold_answer_text(case), gold_evidence_text(case, chunks)
        context = context_text(run, chunks)

        add = _adder(tasks, position, label)
        skip = _skipper(skipped, label)

        if options.claims and run.claims is None:
            if not answers:
                skip("claims", "run abstained or gave no answer")
            elif context is None:
                skip("claims", "run has no context to label claims against")
            else:
                prompt = claims_prompt(
                    question=case.query, answer=run.answer or "", context=context,
                    gold_answer=gold, gold_evidence=evidence,
                )  # fmt: skip
                add("claims", None, "claims", prompt, check_claims)
        elif options.label_claims and run.claims is not None and context is not None:
            for index, claim in enumerate(run.claims):
                prompt = support_prompt(claim=claim.text, context=context, question=case.query)
                add("support", index, f"claims[{index}]", prompt, check_support)

        if options.citations:
            shown = {(u.id, u.version_id) for u in run.context or ()}
            for index, citation in enumerate(run.citations or ()):
                name = f"citation[{index}]"
                if citation.entails is not None:
                    continue
                if (citation.chunk_id, citation.version_id) not in shown:
                    skip(name, "cited chunk was never shown (invalid by the deterministic check)")
                    continue
                source = chunks.text(citation.chunk_id, citation.version_id)
                if source is None:
                    skip(name, f"no text for chunk {citation.chunk_id!r}")
                    continue
                if citation.claim is not None and run.claims is not None:
                    claim_text = run.claims[citation.claim].text
                else:
                    claim_text = run.answer or ""
                prompt = entailment_prompt(claim=claim_text, source=source)
                add("citation", index, name, prompt, check_entailment)

        if options.rubric is not None:
            have = run.rubric or {}
            for dimension in options.rubric.dimensions:
                name = f"rubric.{dimension.name}"
                if dimension.name in have:
                    continue
                if not answers:
                    skip(name, "run abstained or gave no answer")
                    continue
                prompt = rubric_prompt(
                    dimension, question=case.query, answer=run.answer or "",
                    gold_answer=gold, gold_evidence=evidence,
                )  # fmt: skip
                add("rubric", dimension.name, name, prompt, score_checker(dimension.levels))

        if options.goal and run.success is None:
            if case.expected_state is not None and run.final_state is not None:
                skip("goal", "decided by the deterministic state match")
            else:
                prompt = goal_prompt(
                    task=case.query, steps=steps_text(run), answer=run.answer,
                    gold_answer=gold, gold_evidence=evidence,
                )  # fmt: skip
                add("goal", None, "goal", prompt, check_goal)

        if options.trajectory:
            if run.steps:
                prompt = trajectory_prompt(
                    task=case.query, trajectory=steps_text(run), references=references_text(case)
                )
                add("trajectory", None, "trajectory", prompt, check_trajectory)
            else:
                skip("trajectory", "run has no steps")
    return tasks, skipped


def apply(
    run: Run,
    done: Sequence[tuple[Task, JudgeOutcome[Any]]],
    skipped: Sequence[Skipped],
    *,
    provenance: Mapping[str, Any],
) -> Run:
    """A copy of ``run`` with the successful verdicts set and the judge metadata added."""
    claims = list(run.claims) if run.claims is not None else None
    citations = list(run.citations) if run.citations is not None else None
    rubric = dict(run.rubric) if run.rubric is not None else None
    success = run.success
    reasons: dict[str, str] = {}
    trajectory: dict[str, Any] | None = None
    for task, outcome in done:
        if not outcome.ok:
            continue
        reason = reason_of(outcome.verdict)
        if reason:
            reasons[outcome.item] = reason
        if task.kind == "claims":
            judged_claims: tuple[JudgedClaim, ...] = outcome.value or ()
            claims = [Claim(text=c.text, supported=c.supported, key=c.key) for c in judged_claims]
        elif task.kind == "support" and claims is not None and isinstance(task.target, int):
            claims[task.target] = claims[task.target].model_copy(
                update={"supported": outcome.value}
            )
        elif task.kind == "citation" and citations is not None and isinstance(task.target, int):
            old = citations[task.target]
            citations[task.target] = Citation(
                chunk_id=old.chunk_id, version_id=old.version_id, claim=old.claim,
                entails=outcome.value,
            )  # fmt: skip
        elif task.kind == "rubric" and isinstance(task.target, str) and outcome.value is not None:
            rubric = {**(rubric or {}), task.target: outcome.value}
        elif task.kind == "goal":
            success = outcome.value
        elif task.kind == "trajectory":
            trajectory = {"accurate": outcome.value, "reasoning": reason, "prompt": outcome.prompt}
    judge_meta: dict[str, Any] = {
        **provenance,
        "prompts": sorted({o.prompt for _, o in done}),
        "judged": sum(o.ok for _, o in done),
        "errors": [
            {"item": o.item, "prompt": o.prompt, "judge_error": o.error}
            for _, o in done
            if not o.ok
        ],
        # The labels left undefined by a failed judgement (pathgrade.core.judged).
        FAILED_KEY: [task.label for task, o in done if not o.ok],
        "skipped": [{"item": s.item, "reason": s.reason} for s in skipped],
        "sources": sorted({o.source for _, o in done if o.source is not None}),
    }
    if reasons:
        judge_meta["reasons"] = reasons
    if trajectory is not None:
        judge_meta["trajectory"] = trajectory
    update: dict[str, Any] = {
        "claims": tuple(claims) if claims is not None else None,
        "citations": tuple(citations) if citations is not None else None,
        "rubric": rubric,
        "success": success,
        "metadata": {**run.metadata, "judge": judge_meta},
    }
    return run.model_copy(update=update)


async def fill_runs(
    cases_by_id: Mapping[str, Case],
    runs: Sequence[Run],
    client: JudgeClient,
    *,
    options: FillOptions = FillOptions(),
    chunks: Chunks | None = None,
    on_item: Callable[[int, int], None] | None = None,
) -> FillResult:
    """Judge every planned item of ``runs`` and return the filled runs (inputs unchanged).

    ``on_item(done, total)`` is called after each item (for a progress bar).
    """
    tasks, skipped = plan(cases_by_id, runs, options, chunks)
    total, finished = len(tasks), 0

    async def one(task: Task) -> JudgeOutcome[Any]:
        nonlocal finished
        outcome = await client.judge(task.prompt, task.check, item=task.item)
        finished += 1
        if on_item is not None:
            on_item(finished, total)
        return outcome

    outcomes = await asyncio.gather(*(one(task) for task in tasks))
    provenance = {
        "mode": "offline" if client.offline else "live",
        "model": client.config.model,
        "model_version": client.config.model_version,
    }
    by_run: dict[int, list[tuple[Task, JudgeOutcome[Any]]]] = {}
    for task, outcome in zip(tasks, outcomes, strict=True):
        by_run.setdefault(task.run, []).append((task, outcome))
    skipped_by_run: dict[str, list[Skipped]] = {}
    for skip in skipped:
        skipped_by_run.setdefault(skip.item.rsplit(":", 1)[0], []).append(skip)
    judged = tuple(
        apply(
            run,
            by_run.get(position, []),
            skipped_by_run.get(run_label(run, position), []),
            provenance=provenance,
        )
        for position, run in enumerate(runs)
    )
    return FillResult(judged, tuple(outcomes), tuple(skipped), offline=client.offline)
