"""Hypothesis strategies for whole trajectory scorings: cases, runs and configs drawn from
small alphabets, so that repeats, ties and collisions are frequent.

Penalties are drawn from values that are exact in binary (integers and halves): a sum of
them is the same whatever the order of the additions, so ``path_score`` can be compared
exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from pathgrade.cases.walk import length_bounds
from pathgrade.core.config import (
    FieldMatch,
    MatchingConfig,
    Penalties,
    ScoringConfig,
    ToolMatch,
    Weights,
)
from pathgrade.core.types import Budget, Case, Run, Step
from pathgrade.metrics.trajectory.definition.checks import forbids
from pathgrade.metrics.trajectory.grammar import leaves

TOOLS = ("a", "b", "c", "w")
ORDERS = ("total", "partial", "none")
#: Arguments that collide under some mode and not others: normalised text, fuzzy text,
#: ``1 == 1.0``, key order, subsets, numeric tolerance, positional lists.
ARGUMENTS: tuple[Any, ...] = (
    {},
    ["1"],
    ["2"],
    ["1", "2"],
    {"q": "refund order"},
    {"q": "Refund  Order"},
    {"q": "refund the order"},
    {"q": "x"},
    {"q": "x", "n": 1},
    {"n": 1, "q": "x"},
    {"n": 1.0, "q": "x"},
    {"n": 1.5, "q": "x"},
    {"n": "1"},
)
#: A plug-in field matcher (registered by the tests that use it): the agent's text starts
#: with the reference's (not symmetric, not an equivalence).
PLUGIN = "starts_with"


def starts_with(reference: Any, agent: Any) -> bool:
    return str(agent).startswith(str(reference))


PENALTY_VALUES = (0.0, 0.5, 5.0, 10.0, 15.0, 20.0, 25.0, 40.0, 100.0)
TOOL_OVERRIDES: tuple[dict[str, ToolMatch], ...] = (
    {},
    {"b": ToolMatch(fields={"n": FieldMatch(mode="numeric", abs_tol=0.5)})},
    {"b": ToolMatch(fields={"n": FieldMatch(mode="numeric", rel_tol=0.6)})},
    {"c": ToolMatch(mode="fuzzy")},
    {"a": ToolMatch(mode="ignore")},
    {"b": ToolMatch(fields={"q": FieldMatch(mode="normalized")})},
    {"b": ToolMatch(fields={"q": FieldMatch(mode="ignore")})},
    {"c": ToolMatch(fields={"q": FieldMatch(mode=PLUGIN)})},
    {"a": ToolMatch(mode="subset"), "c": ToolMatch(mode="normalized")},
)


@dataclass(frozen=True)
class Alphabet:
    """The tools and arguments one scoring draws its steps from (a few of each, so that
    repeats and ties are frequent)."""

    tools: tuple[str, ...] = TOOLS
    arguments: tuple[Any, ...] = ARGUMENTS


@st.composite
def alphabets(draw: st.DrawFn, size: int = 4) -> Alphabet:
    """Up to ``size`` tools and ``size + 1`` arguments."""
    tools = draw(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=size, unique=True))
    arguments = draw(
        st.lists(st.sampled_from(ARGUMENTS), min_size=1, max_size=size + 1, unique_by=repr)
    )
    return Alphabet(tuple(tools), tuple(arguments))


@st.composite
def steps(draw: st.DrawFn, agent: bool, alphabet: Alphabet) -> dict[str, Any]:
    """One step record (an agent's may fail and carry usage)."""
    out: dict[str, Any] = {"tool": draw(st.sampled_from(alphabet.tools))}
    arguments = draw(st.sampled_from(alphabet.arguments))
    if arguments or draw(st.booleans()):
        out["arguments"] = arguments
    if agent:
        if draw(st.integers(0, 4)) == 0:
            out["error"] = draw(st.sampled_from(["boom", "timeout"]))
        decision = draw(st.integers(0, 9))  # a human decision on the call, now and then
        if decision == 0:  # denied: the call was not made (no write), as readers record it
            out["approval"] = "denied"
            out.setdefault("error", "rejected by user")
        elif decision == 1:
            out["approval"] = "granted"
        for name in ("tokens", "cost", "latency_ms"):
            if draw(st.integers(0, 5)) == 0:
                out[name] = float(draw(st.integers(0, 4)))
    return out


@st.composite
def reference_paths(draw: st.DrawFn, partial: bool, alphabet: Alphabet) -> list[dict[str, Any]]:
    """A reference path; under a partial order its steps have ids and ``after`` lists,
    shuffled so that a step may depend on a later one, and often repeat an earlier step's
    call (so that reference steps compete for the agent's calls)."""
    path = draw(st.lists(steps(False, alphabet), max_size=5))
    if partial:
        for k in range(1, len(path)):
            if draw(st.integers(0, 2)) == 0:
                path[k] = dict(path[draw(st.integers(0, k - 1))])
        for k, step in enumerate(path):
            if draw(st.integers(0, 5)) > 0:
                step["id"] = f"s{k}"
            earlier = [s["id"] for s in path[:k] if "id" in s]
            step["after"] = draw(st.lists(st.sampled_from(earlier), unique=True)) if earlier else []
        path = draw(st.permutations(path))
    return list(path)


@st.composite
def cases(
    draw: st.DrawFn, case_id: str, alphabet: Alphabet, orders: tuple[str, ...] = ORDERS
) -> Case:
    order = draw(st.sampled_from(orders))
    paths = draw(st.lists(reference_paths(order == "partial", alphabet), max_size=3))
    record: dict[str, Any] = {"case_id": case_id, "order": order}
    if paths and draw(st.booleans()):
        record["reference"], paths = paths[0], paths[1:]
    if paths or draw(st.booleans()):
        record["references"] = paths
    if draw(st.integers(0, 2)) == 0:
        record["budget"] = draw(budgets())
    record["required_tools"] = draw(st.lists(st.sampled_from((*TOOLS, "z")), max_size=3))
    record["forbidden_tools"] = draw(st.lists(st.sampled_from(TOOLS), max_size=1))
    record["forbidden_actions"] = draw(
        st.lists(st.sampled_from(["c:1", "a", {"tool": "b", "arguments": {"q": "x"}}]), max_size=2)
    )
    if draw(st.booleans()):
        record["tool_kinds"] = draw(
            st.sampled_from([{"w": "write"}, {"a": "write", "w": "read"}, {"b": "write"}])
        )
    if draw(st.booleans()):
        record["gold_answer"] = draw(st.sampled_from(["42", " Refund issued", ["ok", "1.0"]]))
    record["answerable"] = draw(st.integers(0, 6)) > 0
    record["group"] = draw(st.sampled_from([None, "g1"]))
    return Case.model_validate(record)


@st.composite
def budgets(draw: st.DrawFn) -> Budget:
    return Budget(
        steps=draw(st.none() | st.integers(0, 6)),
        tokens=draw(st.none() | st.integers(0, 6).map(float)),
        cost=draw(st.none() | st.integers(0, 6).map(float)),
        latency_ms=draw(st.none() | st.integers(0, 6).map(float)),
    )


@st.composite
def runs(draw: st.DrawFn, case_ids: list[str], alphabet: Alphabet, max_steps: int = 8) -> Run:
    path = draw(st.lists(steps(True, alphabet), max_size=max_steps))
    if path and draw(st.booleans()):  # parallel turns: mostly runs of one turn, a few loose
        turn = 0
        for step in path:
            turn += draw(st.sampled_from([0, 0, 1]))
            step["turn"] = draw(st.sampled_from([turn, turn, turn, None]))
    record: dict[str, Any] = {
        "case_id": draw(st.sampled_from(case_ids)),
        "run_id": draw(st.none() | st.sampled_from(["r1", "r2"])),
        "trial": draw(st.integers(0, 2)),
        "steps": path,
        "answer": draw(st.none() | st.sampled_from(["42", "refund issued", "1", "no"])),
        "success": draw(st.none() | st.booleans()),
        "abstained": draw(st.integers(0, 5)) == 0,
    }
    if draw(st.integers(0, 3)) == 0:
        record["usage"] = {
            "tokens": draw(st.none() | st.integers(0, 9).map(float)),
            "cost": draw(st.none() | st.integers(0, 9).map(float)),
        }
    return Run.model_validate(record)


@st.composite
def penalties(draw: st.DrawFn) -> Penalties:
    return Penalties(
        **{key: draw(st.sampled_from(PENALTY_VALUES)) for key in Penalties.model_fields}
    )


@st.composite
def configs(draw: st.DrawFn) -> ScoringConfig:
    matching = MatchingConfig(
        mode=draw(st.sampled_from(["exact", "normalized", "fuzzy", "subset", "ignore"])),
        fuzzy_threshold=draw(st.sampled_from([60.0, 90.0])),
        tools=draw(st.sampled_from(TOOL_OVERRIDES)),
    )
    weights = Weights(**{name: float(draw(st.integers(1, 4))) for name in Weights.model_fields})
    return ScoringConfig(
        matching=matching,
        penalties=draw(penalties()),
        weights=weights,
        budget=draw(st.none() | budgets()),
        tool_kinds=draw(st.sampled_from([{}, {"w": "write"}, {"c": "write"}])),
        fallbacks=draw(st.sampled_from([{}, {"a": ("b",)}, {"b": ("a", "c")}])),
    )


@st.composite
def scorings(
    draw: st.DrawFn,
    min_runs: int = 1,
    max_runs: int = 12,
    max_steps: int = 8,
    orders: tuple[str, ...] = ORDERS,
    alphabet_size: int = 4,
    min_cases: int = 1,
) -> tuple[list[Case], list[Run], ScoringConfig]:
    """Cases (``min_cases`` to 3) of the given orders, ``min_runs`` to ``max_runs`` runs of
    them, and a config; steps from up to ``alphabet_size`` tools (a small alphabet: more
    repeats)."""
    alphabet = draw(alphabets(alphabet_size))
    ids = [f"case{k}" for k in range(draw(st.integers(min_cases, 3)))]
    case_list = [draw(cases(case_id, alphabet, orders)) for case_id in ids]
    run_list = draw(st.lists(runs(ids, alphabet, max_steps), min_size=min_runs, max_size=max_runs))
    config = draw(configs())
    return [possible(case, config.budget) for case in case_list], run_list, config


def possible(case: Case, budget: Budget | None = None) -> Case:
    """``case`` as one ``score`` accepts (:mod:`pathgrade.cases.refuse`): the forbidden
    tools and actions its references call left out, and the steps of its budget (else of
    ``budget``, the config's) raised to the fewest calls a reference takes. Agents may still
    call forbidden tools and exceed budgets: only the references were impossible."""
    paths = [
        *case.reference_paths(),
        *(p for ps in (case.references_by_agent or {}).values() for p in ps),
    ]
    calls = [step for path in paths for step in leaves(path)]
    tools = {step.tool for step in calls}
    update: dict[str, Any] = {
        "forbidden_tools": tuple(t for t in case.forbidden_tools if t not in tools),
        "forbidden_actions": tuple(
            entry for entry in case.forbidden_actions if not any(forbids(entry, s) for s in calls)
        ),
    }
    limit = case.budget or budget
    fewest = max((length_bounds(path)[0] for path in paths), default=0)
    if limit is not None and limit.steps is not None and fewest > limit.steps:
        update["budget"] = limit.model_copy(update={"steps": fewest})
    return case.model_copy(update=update)


def step_of(record: dict[str, Any]) -> Step:
    return Step.model_validate(record)


def random_scoring(
    rng: random.Random, n_cases: int, n_runs: int, max_steps: int
) -> tuple[list[Case], list[Run], ScoringConfig]:
    """A large scoring without hypothesis (for batch boundaries): ``n_runs`` runs of lengths
    0 to ``max_steps`` over ``n_cases`` cases, steps from the same alphabets."""

    def step(agent: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": rng.choice(TOOLS), "arguments": rng.choice(ARGUMENTS)}
        if agent and rng.random() < 0.15:
            out["error"] = "boom"
        if agent and rng.random() < 0.05:  # denied: not made, never a write
            out["approval"], out["error"] = "denied", "rejected by user"
        if agent and rng.random() < 0.2:
            out["turn"] = rng.randint(0, 2)
        return out

    case_list = []
    for k in range(n_cases):
        order = rng.choice(["total", "partial", "none"])
        paths = []
        for _ in range(rng.randint(1, 3)):
            path = [step(False) for _ in range(rng.randint(0, 5))]
            if order == "partial":
                for index, s in enumerate(path):
                    s["id"] = f"s{index}"
                    s["after"] = [f"s{p}" for p in range(index) if rng.random() < 0.3]
                rng.shuffle(path)
            paths.append(path)
        case_list.append(
            Case.model_validate(
                {
                    "case_id": f"case{k}",
                    "order": order,
                    "references": paths,
                    "required_tools": rng.sample((*TOOLS, "z"), rng.randint(0, 2)),
                    "tool_kinds": rng.choice([{}, {"w": "write"}]),
                    "budget": rng.choice([None, {"steps": rng.randint(2, 8)}]),
                }
            )
        )
    run_list = [
        Run.model_validate(
            {
                "case_id": f"case{rng.randrange(n_cases)}",
                "run_id": f"r{r}",
                "steps": [step(True) for _ in range(rng.randint(0, max_steps))],
            }
        )
        for r in range(n_runs)
    ]
    config = ScoringConfig(
        matching=MatchingConfig(
            mode=rng.choice(["exact", "normalized", "fuzzy"]), tools=rng.choice(TOOL_OVERRIDES)
        )
    )
    return [possible(case) for case in case_list], run_list, config


def repeated_partial_scoring(
    rng: random.Random, n_cases: int, n_runs: int
) -> tuple[list[Case], list[Run]]:
    """Partial-order cases whose references repeat calls (tools ``x``, ``y``, ``z``, no
    arguments, random ``after`` edges, 2-5 steps) and runs of 1-7 steps of the same calls,
    each mostly a shuffle of its case's reference with a step dropped or added: the runs
    where the greedy placement misses an order that exists are frequent."""
    case_list, refs = [], []
    for k in range(n_cases):
        path: list[dict[str, Any]] = []
        for index in range(rng.randint(2, 5)):
            after = [f"s{p}" for p in range(index) if rng.random() < 0.5]
            path.append({"tool": rng.choice("xxxyz"), "id": f"s{index}", "after": after})
        rng.shuffle(path)
        refs.append([step["tool"] for step in path])
        case_list.append(
            Case.model_validate({"case_id": f"case{k}", "order": "partial", "reference": path})
        )
    run_list = []
    for r in range(n_runs):
        k = rng.randrange(n_cases)
        tools = list(refs[k])
        rng.shuffle(tools)
        if rng.random() < 0.3:
            tools.pop(rng.randrange(len(tools)))
        if rng.random() < 0.3:
            tools.insert(rng.randint(0, len(tools)), rng.choice("xyz"))
        run_list.append(
            Run.model_validate({"case_id": f"case{k}", "run_id": f"r{r}", "steps": tools})
        )
    return case_list, run_list
