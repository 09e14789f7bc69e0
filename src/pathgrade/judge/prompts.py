"""Versioned judge prompts.

Every template has an ``id`` and a ``version``; both enter the cache key, and a change to a
template's text must bump its version (``tests/judge/test_prompts.py`` pins the text's
fingerprint). Every prompt asks for one JSON object and states its exact shape; the verdicts are
checked by :mod:`pathgrade.judge.verdicts`.

========================  ===================================================================
``claims@1``              split an answer into atomic claims; label each supported /
                          unsupported / not_verifiable against the context shown; mark key
``support@1``             label one given claim supported / unsupported / not_verifiable
``entailment@1``          does a cited source entail a claim
``rubric@1``              one rubric dimension on its anchored levels, with few-shot examples
``goal@1``                did the agent reach the goal (reads the gold answer and evidence)
``trajectory@1``          is the whole path accurate (after agentevals' trajectory judge)
``pairwise@1``            which of two answers is better (run in both orders by bias checks)
========================  ===================================================================
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import orjson

from pathgrade.judge.rubric import RubricDimension

Message = dict[str, str]


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: the template's id and version and the chat messages."""

    id: str
    version: int
    messages: tuple[Message, ...]

    @property
    def name(self) -> str:
        return f"{self.id}@{self.version}"


@dataclass(frozen=True)
class PromptTemplate:
    """A system message and fixed few-shot turns; the user turn is built per item."""

    id: str
    version: int
    system: str
    few_shot: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return f"{self.id}@{self.version}"

    def fingerprint(self) -> str:
        """SHA-256 of the template text (a changed text needs a new version)."""
        body = orjson.dumps([self.system, [list(turn) for turn in self.few_shot]])
        return hashlib.sha256(body).hexdigest()

    def render(self, user: str, extra_few_shot: Sequence[tuple[str, str]] = ()) -> Prompt:
        messages: list[Message] = [{"role": "system", "content": self.system}]
        for question, reply in (*self.few_shot, *extra_few_shot):
            messages.append({"role": "user", "content": question})
            messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": user})
        return Prompt(self.id, self.version, tuple(messages))


def section(tag: str, text: str | None) -> str:
    """``<tag>\\ntext\\n</tag>``; a missing text is written as ``(none)``."""
    body = text if text is not None and text.strip() else "(none)"
    return f"<{tag}>\n{body}\n</{tag}>"


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


CLAIMS = PromptTemplate(
    id="claims",
    version=1,
    system=(
        "You are a careful fact-checking judge. Split the ANSWER into atomic claims: each claim"
        " states one checkable fact in a self-contained sentence; leave out greetings, filler"
        " and restatements of the question. Label each claim using ONLY the CONTEXT that was"
        " shown to the agent:\n"
        '- "supported": the context states it or directly implies it;\n'
        '- "unsupported": it asserts something the context contradicts or does not contain;\n'
        '- "not_verifiable": it cannot be checked against any context (an opinion, a plan, a'
        " remark about the conversation).\n"
        'Set "key" to true when the claim carries the substance of the answer and so needs'
        " evidence, false for side remarks. The GOLD ANSWER and GOLD EVIDENCE show what a"
        " correct answer rests on; use them to understand the task, never as support.\n"
        "Reply with only a JSON object of this shape:\n"
        '{"claims": [{"text": "...", "label": "supported" | "unsupported" | "not_verifiable",'
        ' "key": true | false}]}'
    ),
    few_shot=(
        (
            "\n".join(
                [
                    section("question", "Why did svc-2 fail?"),
                    section("context", "[log-9] 10:20 OOM killed svc-2 after deploy 41."),
                    section("gold_answer", "an out-of-memory kill after deploy 41"),
                    section("gold_evidence", "[log-9] 10:20 OOM killed svc-2 after deploy 41."),
                    section("answer", "svc-2 was OOM-killed at 10:20. I hope this helps."),
                ]
            ),
            _json(
                {
                    "claims": [
                        {
                            "text": "svc-2 was killed for running out of memory at 10:20.",
                            "label": "supported",
                            "key": True,
                        }
                    ]
                }
            ),
        ),
    ),
)

SUPPORT = PromptTemplate(
    id="support",
    version=1,
    system=(
        "You are a careful fact-checking judge. Label the CLAIM using ONLY the CONTEXT that was"
        " shown to the agent:\n"
        '- "supported": the context states it or directly implies it;\n'
        '- "unsupported": it asserts something the context contradicts or does not contain;\n'
        '- "not_verifiable": it cannot be checked against any context (an opinion, a plan, a'
        " remark about the conversation).\n"
        'Reply with only a JSON object: {"label": "supported" | "unsupported" |'
        ' "not_verifiable", "reason": "<one sentence>"}'
    ),
)

ENTAILMENT = PromptTemplate(
    id="entailment",
    version=1,
    system=(
        "You check citations. Decide whether the SOURCE entails the CLAIM: a careful reader of"
        " the source alone would conclude that the claim is true. Partial support, topical"
        " overlap or a plausible guess is not entailment. Reply with only a JSON object:"
        ' {"entails": true | false, "reason": "<one sentence>"}'
    ),
)

RUBRIC = PromptTemplate(
    id="rubric",
    version=1,
    system=(
        "You grade one dimension of an agent's answer on a fixed scale. Read the question, the"
        " gold answer and the gold evidence, then the answer; judge meaning, not wording or"
        " length. Choose exactly one of the anchored levels listed under SCALE; when between"
        " two, choose the lower. Reply with only a JSON object:"
        ' {"score": <one of the levels>, "reason": "<one sentence>"}'
    ),
)

GOAL = PromptTemplate(
    id="goal",
    version=1,
    system=(
        "You decide whether an agent reached the goal of its task. Read the task, the gold"
        " answer and the gold evidence, the steps the agent took and its final answer. The goal"
        " is reached when the final answer (or the end state it reports) gives what the task"
        " asks for and agrees with the gold answer in meaning; wording does not matter, a wrong"
        " or missing required fact does. Reply with only a JSON object:"
        ' {"reached": true | false, "reason": "<one sentence>"}'
    ),
)

TRAJECTORY = PromptTemplate(
    id="trajectory",
    version=1,
    system=(
        "You are an expert grader of agent trajectories. Judge whether the TRAJECTORY is an"
        " accurate way to accomplish the TASK: the steps follow a logical order, each step moves"
        " toward the goal, tool arguments fit the task, and there are no unnecessary or harmful"
        " steps. REFERENCE paths, when given, are acceptable solutions, not the only ones. Do"
        " not grade the wording of the final answer. Reply with only a JSON object:"
        ' {"reasoning": "<a few sentences>", "accurate": true | false}'
    ),
)

PAIRWISE = PromptTemplate(
    id="pairwise",
    version=1,
    system=(
        "You compare two answers to the same question, judged against the gold answer and the"
        " gold evidence. Prefer the answer that is correct and complete; neither the order in"
        " which the answers appear nor their length is a reason to prefer one. Say tie when"
        " they are equally good. Reply with only a JSON object:"
        ' {"winner": "A" | "B" | "tie", "reason": "<one sentence>"}'
    ),
)

TEMPLATES: Mapping[str, PromptTemplate] = {
    t.id: t for t in (CLAIMS, SUPPORT, ENTAILMENT, RUBRIC, GOAL, TRAJECTORY, PAIRWISE)
}


def claims_prompt(
    *,
    question: str | None,
    answer: str,
    context: str,
    gold_answer: str | None,
    gold_evidence: str | None,
) -> Prompt:
    """Extract and label the claims of ``answer`` against the ``context`` shown."""
    user = "\n".join(
        [
            section("question", question),
            section("context", context),
            section("gold_answer", gold_answer),
            section("gold_evidence", gold_evidence),
            section("answer", answer),
        ]
    )
    return CLAIMS.render(user)


def support_prompt(*, claim: str, context: str, question: str | None) -> Prompt:
    """Label one given ``claim`` against the ``context`` shown."""
    user = "\n".join(
        [section("question", question), section("context", context), section("claim", claim)]
    )
    return SUPPORT.render(user)


def entailment_prompt(*, claim: str, source: str) -> Prompt:
    """Does ``source`` entail ``claim``."""
    return ENTAILMENT.render("\n".join([section("source", source), section("claim", claim)]))


def _scale(dimension: RubricDimension) -> str:
    return "\n".join(f"{level:g}: {anchor}" for level, anchor in sorted(dimension.levels.items()))


def rubric_prompt(
    dimension: RubricDimension,
    *,
    question: str | None,
    answer: str,
    gold_answer: str | None,
    gold_evidence: str | None,
) -> Prompt:
    """Grade ``answer`` on one rubric dimension (its examples become few-shot turns)."""
    head = [
        section("dimension", f"{dimension.name}: {dimension.description}"),
        section("scale", _scale(dimension)),
    ]
    shots: list[tuple[str, str]] = []
    for example in dimension.examples:
        shot = "\n".join(
            [
                *head,
                section("question", example.query),
                section("gold_answer", example.gold_answer),
                section("gold_evidence", None),
                section("answer", example.answer),
            ]
        )
        shots.append((shot, _json({"score": example.score, "reason": example.reason})))
    user = "\n".join(
        [
            *head,
            section("question", question),
            section("gold_answer", gold_answer),
            section("gold_evidence", gold_evidence),
            section("answer", answer),
        ]
    )
    return RUBRIC.render(user, shots)


def goal_prompt(
    *,
    task: str | None,
    steps: str,
    answer: str | None,
    gold_answer: str | None,
    gold_evidence: str | None,
) -> Prompt:
    """Did the run reach the goal of ``task``."""
    user = "\n".join(
        [
            section("task", task),
            section("gold_answer", gold_answer),
            section("gold_evidence", gold_evidence),
            section("steps", steps),
            section("final_answer", answer),
        ]
    )
    return GOAL.render(user)


def trajectory_prompt(*, task: str | None, trajectory: str, references: str | None) -> Prompt:
    """Is the trajectory an accurate way to do ``task``."""
    user = "\n".join(
        [
            section("task", task),
            section("trajectory", trajectory),
            section("reference", references),
        ]
    )
    return TRAJECTORY.render(user)


def pairwise_prompt(
    *, question: str | None, first: str, second: str, gold_answer: str | None
) -> Prompt:
    """Compare answer A (``first``) with answer B (``second``)."""
    user = "\n".join(
        [
            section("question", question),
            section("gold_answer", gold_answer),
            section("answer_A", first),
            section("answer_B", second),
        ]
    )
    return PAIRWISE.render(user)
