"""One run against one reference path: the path metrics, the path defects and the alignment.

With ``R`` = the reference's length, ``A`` = the agent's, ``N = max(R, A)``, and the agent's
path taken in scored order (:mod:`~pathgrade.metrics.trajectory.definition.turns`):

- ``tool_accuracy`` = alignment pairs whose tools match / ``N``;
- ``argument_accuracy`` = alignment pairs that match in tool and arguments / ``N``;
- ``step_order_accuracy`` = 1 - Levenshtein distance over tools / ``N`` (the alignment's);
- all three are 1 when both paths are empty;
- ``path_efficiency`` = min(1, ``R`` / ``A``); 1 when both are empty, 0 when only one is;
- ``composite`` = the weighted mean of those four (``[weights]``, divided by their sum);
- ``tool_precision`` = ``|reference tools ∩ agent tools|`` (multisets) / ``A``,
  ``tool_recall`` = the same / ``R``, ``tool_f1`` = 2 ``|∩|`` / (``R`` + ``A``); each 1 when
  both paths are empty, precision undefined when only ``A`` is 0, recall when only ``R`` is;
- ``missing_steps`` = reference steps the matching leaves unpaired (``R`` - executed);
- ``redundant_steps`` = the ``wasted_step`` defects;
- ``out_of_order`` as in :mod:`~pathgrade.metrics.trajectory.definition.order`;
- ``path_score`` = max(0, 100 - the sum of the penalties of all the run's defects).

The extra agent steps (those the matching leaves unpaired) are labelled by the
order-respecting matching where one of the same size exists (the greedy earliest embedding
under ``total``, the placement under ``partial``), else by the one-to-one matching: in
``[report, logs, metrics, report]`` against ``[logs, metrics, report]`` the premature first
report is the extra one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pathgrade.core.config import ScoringConfig
from pathgrade.core.results import AlignedStep, Defect
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.trajectory.arguments import MatcherSet
from pathgrade.metrics.trajectory.definition import checks
from pathgrade.metrics.trajectory.definition.alignment import INSERT, PAIR, Script, align
from pathgrade.metrics.trajectory.definition.defects import (
    EXTRA,
    UNEXPECTED_WRITE,
    WASTED_EARLY,
    WASTED_REPEAT,
    order_defect,
    required_tool_defects,
    step_defects,
)
from pathgrade.metrics.trajectory.definition.matching import (
    Matching,
    Table,
    failed,
    match_table,
    one_to_one,
    same_call,
    tool_overlap,
    tool_table,
)
from pathgrade.metrics.trajectory.definition.order import (
    dependencies,
    linear_extension,
    partial_placement,
    premature,
    slots,
    total_embedding,
)
from pathgrade.metrics.trajectory.definition.texts import StepTexts
from pathgrade.metrics.trajectory.definition.turns import scored_order

NAN = math.nan


@dataclass(frozen=True)
class RunContext:
    """What scoring one run against each reference shares."""

    run: Run
    case: Case
    config: ScoringConfig
    matchers: MatcherSet
    texts: StepTexts
    run_defects: list[Defect]
    unused_required: list[str]


@dataclass(frozen=True)
class PathScore:
    """One run against one reference path: its path metrics, all its defects (path ones
    first, then the run-level ones) and its alignment; and how they were found: the scored
    order (``scored[s]`` = recorded position of scored step ``s``), the matching that labels
    the steps (``partner[s]``: reference step of scored step ``s``, -1: extra), the premature
    steps (scored positions), each reference step's dependencies, and the steps' texts."""

    values: dict[str, float]
    defects: list[Defect]
    alignment: list[AlignedStep]
    scored: list[int]
    partner: list[int]
    premature: list[bool]
    depends: list[list[int]]
    ref_text: list[str]
    agent_text: list[str]


def _ratio(numerator: float, denominator: float, empty: float) -> float:
    return numerator / denominator if denominator > 0 else empty


def _extra_kinds(
    agent: Sequence[Step], partner: Sequence[int], writes: Sequence[bool], matchers: MatcherSet
) -> dict[int, str]:
    """The kind of each extra step (scored positions; see the defects module docstring).

    The lesson's ``wasted`` counts the steps that repeat an earlier step; so does this, for
    the same count on the lesson's runs, except that a retry after a failure is no waste
    (deviation (d)) and a call the reference counts twice is not a repeat (deviation (c):
    both copies are matched, neither is extra). Of repeated extra copies, the one named is
    the later one, or the premature one when the later copy is the one the reference counts.
    """
    kinds: dict[int, str] = {}
    for s, step in enumerate(agent):
        if partner[s] >= 0:
            continue
        twins = [k for k in range(len(agent)) if k != s and same_call(agent[k], step, matchers)]
        if writes[s]:
            kinds[s] = UNEXPECTED_WRITE
        elif any(k < s and not failed(agent[k]) for k in twins):
            kinds[s] = WASTED_REPEAT
        elif not failed(step) and any(k > s and partner[k] >= 0 for k in twins):
            kinds[s] = WASTED_EARLY
        else:
            kinds[s] = EXTRA
    return kinds


def _entries(
    script: Script,
    extension: Sequence[int],
    scored: Sequence[int],
    reference: Sequence[Step],
    steps: Sequence[Step],
    ref_text: Sequence[str],
    agent_text: Sequence[str],
) -> list[AlignedStep]:
    """The alignment entries of ``script`` (computed on the linear extension and the scored
    order) at the original reference and recorded agent positions."""
    out: list[AlignedStep] = []
    for op in script.ops:
        if op.kind == PAIR:
            i, j = extension[op.ref_pos], scored[op.agent_pos]
            tool_match = reference[i].tool == steps[j].tool
            out.append(
                AlignedStep(
                    "match" if op.full else "substitution",
                    j,
                    i,
                    tool_match,
                    op.full,
                    agent_text[j],
                    ref_text[i],
                )
            )
        elif op.kind == INSERT:
            j = scored[op.agent_pos]
            out.append(AlignedStep("insertion", j, None, False, False, agent_text[j], None))
        else:
            i = extension[op.ref_pos]
            out.append(AlignedStep("deletion", None, i, False, False, None, ref_text[i]))
    return out


def _order(
    full: Table, tools: Table, n_agent: int, mode: str, depends: Sequence[Sequence[int]]
) -> tuple[Matching, list[int], bool]:
    """``(matching, linear extension, out of order by the dependencies)``.

    The one-to-one matching (:func:`one_to_one`) decides what is missing, and ``M``; where
    an order-respecting matching of the same size exists (the total embedding, the partial
    placement) it replaces it, so that the premature copy of a call is the extra one. Under
    ``total`` the lesson's ``inOrder`` asks whether the *whole* reference is a subsequence;
    here the first ``M`` steps (deviation (a), docs/trajectory.md).
    """
    n_ref = len(full)
    matching = one_to_one(full, n_ref, n_agent)
    executed = matching.size
    if mode == "total":
        in_order, embedding = total_embedding(full, executed, n_agent)
        if in_order:
            matching = Matching.from_agent_partners(embedding, n_ref)
        return matching, list(range(n_ref)), not in_order
    extension = linear_extension(mode, depends, slots(tools, matching))
    if mode == "none":
        return matching, extension, False
    kept, position = partial_placement(full, depends, extension, executed)
    if kept:
        matching = Matching.from_ref_partners(position, n_agent)
    return matching, extension, not kept


def _premature_steps(
    agent: Sequence[Step],
    matching: Matching,
    mode: str,
    depends: Sequence[Sequence[int]],
    matchers: MatcherSet,
) -> list[bool]:
    """Per scored step: made before its turn and made again later (never under ``none``)."""
    if mode == "none":
        return [False] * len(agent)
    partner = matching.agent_partner
    twin = [
        next(
            (
                k
                for k in range(s + 1, len(agent))
                if partner[k] >= 0 and same_call(agent[k], agent[s], matchers)
            ),
            -1,
        )
        for s in range(len(agent))
    ]
    return premature([p < 0 for p in partner], twin, matching, depends)


def score_path(
    reference: Sequence[Step], shared: RunContext, order: str | None = None
) -> PathScore:
    """Score ``shared.run`` against one reference path (module docstring), under ``order``
    (the case's when not given; a grammar instance may differ, :mod:`..grammar`)."""
    case, matchers, config = shared.case, shared.matchers, shared.config
    steps, mode = shared.run.steps, order or case.order
    n_ref, n_agent = len(reference), len(steps)
    depends = dependencies(reference, mode)
    scored = scored_order(steps, match_table(reference, steps, matchers), n_ref, mode, depends)
    agent = [steps[k] for k in scored]
    full, tools = match_table(reference, agent, matchers), tool_table(reference, agent)

    matching, extension, out_of_order = _order(full, tools, n_agent, mode, depends)
    executed = matching.size  # M: replacing the matching never changes its size
    partner = matching.agent_partner
    declared = checks.tool_kinds(case, config.tool_kinds)
    # A call whose approval was denied wrote nothing: never an (unexpected) write.
    writes = [declared.get(step.tool) == "write" and step.approval != "denied" for step in agent]
    extra_kinds = _extra_kinds(agent, partner, writes, matchers)
    early = _premature_steps(agent, matching, mode, depends, matchers)
    out_of_order = out_of_order or any(early)  # deviation (b) from the lesson

    ref_text, agent_text = shared.texts.path(reference), shared.texts.path(steps)
    penalties = config.penalties
    missing = [i for i in range(n_ref) if matching.ref_partner[i] < 0]
    defects = step_defects(
        missing,
        sorted((scored[s], kind) for s, kind in extra_kinds.items()),
        ref_text,
        agent_text,
        penalties,
    )
    if out_of_order:
        defects.append(
            order_defect(
                scored,
                partner,
                early,
                depends,
                ref_text,
                agent_text,
                penalties.of("out_of_order"),
            )
        )
    defects += required_tool_defects(shared.unused_required, reference, penalties)
    defects += shared.run_defects

    script = align([tools[i] for i in extension], [full[i] for i in extension], n_ref, n_agent)
    alignment = _entries(script, extension, scored, reference, steps, ref_text, agent_text)

    longest = max(n_ref, n_agent)
    overlap = tool_overlap(reference, steps)
    both_empty = n_ref == 0 and n_agent == 0
    values = {
        "tool_accuracy": _ratio(script.tool_pairs, longest, 1.0),
        "argument_accuracy": _ratio(script.full_pairs, longest, 1.0),
        "step_order_accuracy": 1.0 - _ratio(script.distance, longest, 0.0),
        "path_efficiency": 1.0 if both_empty else min(1.0, _ratio(n_ref, n_agent, 0.0)),
        "tool_precision": 1.0 if both_empty else _ratio(overlap, n_agent, NAN),
        "tool_recall": 1.0 if both_empty else _ratio(overlap, n_ref, NAN),
        "tool_f1": 1.0 if both_empty else 2 * overlap / (n_ref + n_agent),
        "redundant_steps": float(sum(1 for d in defects if d.kind == "wasted_step")),
        "missing_steps": float(n_ref - executed),
        "out_of_order": 1.0 if out_of_order else 0.0,
    }
    weights = config.weights
    values["composite"] = (
        weights.tool_accuracy * values["tool_accuracy"]
        + weights.argument_accuracy * values["argument_accuracy"]
        + weights.step_order_accuracy * values["step_order_accuracy"]
        + weights.path_efficiency * values["path_efficiency"]
    ) / weights.total()
    values["path_score"] = max(0.0, 100.0 - sum(d.penalty for d in defects))
    return PathScore(
        values, defects, alignment, scored, partner, early, depends, ref_text, agent_text
    )
