"""The path grammar of one reference, compiled to what scoring already has.

A reference step may carry ``optional: true``, ``one_of: [[steps], ...]``,
``repeat: {"min": m, "max": n}`` or ``group: "unordered"`` (docs/trajectory.md, "A path
grammar inside one reference"). Nothing enumerates the 2^k ways of leaving optional steps
out: a reference compiles to

- its **alternatives**: one per combination of the ``one_of`` branches it passes through
  (at most :data:`MAX_ALTERNATIVES`; a reference without ``one_of`` has one), each a list of
  :class:`Item` (a call with the number of copies it requires and the number it counts);
- per run, each alternative's **instance** (:func:`instance`): the plain path scored in its
  place. Every required copy is in it; an optional copy (an ``optional`` step, the copies
  ``m+1..n`` of a ``repeat``) is in it when the run *uses* it, i.e. when the maximum
  one-to-one matching of calls (tool and arguments) that first pairs as many required copies
  as it can, then each optional copy in reference order (Kuhn's augmenting paths, agent steps
  tried in recorded order), pairs it. So an optional step the run skips is not missing, one
  it makes once is matched (not extra), and a ``repeat`` call made beyond ``n`` is extra.

An instance is scored like any reference (the reference choice then takes the best instance:
highest ``path_score``, then ``composite``, then the lowest reference index and alternative).
Its order: under ``total`` an alternative that writes an ``unordered`` call (used by the
run or not; a call in a branch of an ``unordered`` ``one_of`` is one) becomes a partial
order in which each step depends on every step of the earlier blocks (a block: one step, or a run of
consecutive ``unordered`` steps) and on none of its own block; under ``partial`` the
declared ``after`` edges are kept (through a left-out optional step, to what it was after;
copies of a ``repeat`` one after the other, its dependents after the last); ``unordered``
adds nothing there, nor under ``none``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, product
from operator import attrgetter
from typing import Any

from pathgrade.core.fields import setting_any
from pathgrade.core.types import GRAMMAR_STORED, Step, format_step
from pathgrade.metrics.trajectory.arguments import MatcherSet

#: The most alternatives (combinations of ``one_of`` branches) one reference may have.
MAX_ALTERNATIVES = 64


@dataclass(frozen=True)
class Item:
    """One call of an alternative: ``least`` copies required, up to ``most`` counted;
    ``source`` is where it is written (``[2]``, ``[1].one_of[0][1]``)."""

    step: Step
    source: str
    least: int
    most: int
    unordered: bool
    top: int  # the position of the top-level step it comes from
    optional: bool


@dataclass(frozen=True)
class Alternative:
    """One combination of branches: ``branch`` lists the chosen index of each ``one_of``
    passed through, in the order they are written."""

    branch: tuple[int, ...]
    items: tuple[Item, ...]


class InstancePath(tuple[Step, ...]):
    """The steps of an instance, with the order they are scored under: ``partial`` for a
    ``total`` reference with ``unordered`` runs, so not always the case's order."""

    order: str

    def __new__(cls, steps: Iterable[Step], order: str) -> InstancePath:
        path = super().__new__(cls, steps)
        path.order = order
        return path


def path_order(path: Sequence[object], case_order: str) -> str:
    """The order ``path`` is scored under: an instance's own (:class:`InstancePath`), else
    ``case_order`` (a reference as written)."""
    return path.order if isinstance(path, InstancePath) else case_order


@dataclass(frozen=True)
class Instance:
    """The plain path an alternative becomes for one run, and what it says of the run."""

    steps: tuple[Step, ...]
    order: str
    branch: tuple[int, ...]
    optional_used: tuple[str, ...]
    repeats: dict[str, int] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The ``reference_branch`` of a result: chosen branches, optional steps used (their
        sources), and the copies counted of each ``repeat``."""
        return {
            "one_of": list(self.branch),
            "optional": list(self.optional_used),
            "repeat": dict(self.repeats),
        }


_GRAMMAR_FIELDS = attrgetter("optional", "one_of", "repeat", "group")
_PLAIN = (False, None, None, None)


def any_grammar(paths: Iterable[Sequence[Step]]) -> bool:
    """Whether any step of ``paths`` carries a grammar field (at C speed: only the steps that
    set one, :func:`~pathgrade.core.fields.setting_any`, are read, so the usual answer, no,
    is found without a Python-level loop over the steps)."""
    candidates = setting_any(tuple(chain.from_iterable(paths)), GRAMMAR_STORED)
    return any(map(_PLAIN.__ne__, map(_GRAMMAR_FIELDS, candidates)))


def uses_grammar(path: Sequence[Step]) -> bool:
    """Whether any step of ``path`` carries a grammar field."""
    return any(
        s.optional or s.one_of is not None or s.repeat is not None or s.group is not None
        for s in path
    )


def leaves(path: Sequence[Step]) -> list[Step]:
    """The calls written in ``path``, depth first (``one_of`` steps by their branches)."""
    out: list[Step] = []
    for step in path:
        if step.one_of is None:
            out.append(step)
        else:
            for branch in step.one_of:
                out += leaves(branch)
    return out


def _item(step: Step, source: str, top: int, in_group: bool) -> Item:
    unordered = in_group or step.group == "unordered"
    if step.repeat is not None:
        bounds = step.repeat
        return Item(step, source, bounds.min, bounds.max, unordered, top, False)
    least = 0 if step.optional else 1
    return Item(step, source, least, 1, unordered, top, step.optional)


def _compile(
    path: Sequence[Step], prefix: str, top: int | None, in_group: bool = False
) -> list[Alternative]:
    """The alternatives of ``path``; ``in_group``: ``path`` is a branch of an ``unordered``
    ``one_of`` step, whose calls take its place in the unordered run (issue 38)."""
    alternatives = [Alternative((), ())]
    for position, step in enumerate(path):
        source = f"{prefix}[{position}]"
        here = position if top is None else top
        if step.one_of is None:
            options = [Alternative((), (_item(step, source, here, in_group),))]
        else:
            grouped = in_group or step.group == "unordered"
            options = [
                Alternative((b, *alt.branch), alt.items)
                for b, branch in enumerate(step.one_of)
                for alt in _compile(branch, f"{source}.one_of[{b}]", here, grouped)
            ]
        alternatives = [
            Alternative(a.branch + o.branch, a.items + o.items)
            for a, o in product(alternatives, options)
        ]
        if len(alternatives) > MAX_ALTERNATIVES:
            raise ValueError(
                f"{source}.one_of: more than {MAX_ALTERNATIVES} alternatives in one reference"
            )
    return alternatives


def alternatives(path: Sequence[Step]) -> list[Alternative]:
    """The alternatives of reference ``path``, branches in written order (module docstring)."""
    return _compile(path, "", None)


def _augment(c: int, adjacent: Sequence[Sequence[int]], owner: list[int], seen: list[bool]) -> bool:
    for j in adjacent[c]:
        if seen[j]:
            continue
        seen[j] = True
        if owner[j] < 0 or _augment(owner[j], adjacent, owner, seen):
            owner[j] = c
            return True
    return False


def _match_lists(
    items: Sequence[Item], agent: Sequence[Step], matchers: MatcherSet
) -> list[list[int]]:
    """Per item, the agent steps (ascending) its call matches: same tool, arguments that
    match under the tool's mode (by equivalence key where the mode is an equivalence)."""
    by_key: dict[tuple[str, Hashable], list[int]] | None = None
    out: list[list[int]] = []
    for item in items:
        tool, arguments = item.step.tool, item.step.arguments
        matcher = matchers.for_tool(tool)
        if not matcher.keyable:
            out.append(
                [
                    j
                    for j, step in enumerate(agent)
                    if step.tool == tool and matcher.match(arguments, step.arguments)
                ]
            )
            continue
        if by_key is None:
            by_key = {}
            for j, step in enumerate(agent):
                theirs = matchers.for_tool(step.tool)
                if theirs.keyable:
                    by_key.setdefault((step.tool, theirs.key(step.arguments)), []).append(j)
        out.append(by_key.get((tool, matcher.key(arguments)), []))
    return out


def _used_copies(items: Sequence[Item], agent: Sequence[Step], matchers: MatcherSet) -> list[int]:
    """Copies of each item in the instance: ``least`` plus the optional copies matched."""
    n_agent = len(agent)
    matches = _match_lists(items, agent, matchers)
    required: list[int] = []
    optional: list[int] = []
    for k, item in enumerate(items):
        required += [k] * item.least
        extra = min(item.most, item.least + len(matches[k])) - item.least
        optional += [k] * extra
    candidates = required + optional
    adjacent = [matches[k] for k in candidates]
    owner = [-1] * n_agent
    used = [item.least for item in items]
    for c in range(len(candidates)):
        matched = _augment(c, adjacent, owner, [False] * n_agent)
        if matched and c >= len(required):
            used[candidates[c]] += 1
    return used


def instance(
    alternative: Alternative,
    agent: Sequence[Step],
    order: str,
    matchers: MatcherSet,
) -> Instance:
    """The plain path ``alternative`` becomes for a run of steps ``agent`` under the case's
    ``order`` (module docstring); calls match as scoring matches them, under ``matchers``."""
    items = alternative.items
    used = _used_copies(items, agent, matchers)
    optional_used = tuple(i.source for i, n in zip(items, used, strict=True) if i.optional and n)
    repeats = {i.source: n for i, n in zip(items, used, strict=True) if i.step.repeat is not None}
    kept = [(k, copy) for k, n in enumerate(used) for copy in range(n)]
    grouped = order == "total" and any(item.unordered for item in items)
    if order == "total" and not grouped:
        steps = InstancePath((items[k].step for k, _ in kept), "total")
        return Instance(steps, "total", alternative.branch, optional_used, repeats)
    if order == "none":
        steps = InstancePath((items[k].step for k, _ in kept), "none")
        return Instance(steps, "none", alternative.branch, optional_used, repeats)
    depends = _block_order(items, kept) if grouped else _declared_order(items, used, kept)
    steps = InstancePath(
        (
            items[k].step.model_copy(
                update={"id": f"{n}", "after": tuple(f"{p}" for p in depends[n])}
            )
            for n, (k, _) in enumerate(kept)
        ),
        "partial",
    )
    return Instance(steps, "partial", alternative.branch, optional_used, repeats)


def branch_calls(path: Sequence[Step], branch: Mapping[str, Any]) -> tuple[Step, ...] | None:
    """The calls of the instance a ``reference_branch`` record describes, in written order:
    the alternative of the ``one_of`` branches it lists; of each call, its required copies,
    plus one if it is an ``optional`` step the record lists, or the copies the record counts
    of a ``repeat``. None when the record names no alternative of ``path``."""
    chosen = tuple(branch.get("one_of", ()))
    used, repeats = set(branch.get("optional", ())), branch.get("repeat", {})
    for alternative in alternatives(path):
        if alternative.branch != chosen:
            continue
        out: list[Step] = []
        for item in alternative.items:
            if item.step.repeat is not None:
                copies = int(repeats.get(item.source, item.least))
            else:
                copies = item.least + (1 if item.optional and item.source in used else 0)
            out += [item.step] * copies
        return tuple(out)
    return None


def scored_path(path: Sequence[Step], branch: Mapping[str, Any] | None) -> Sequence[Step]:
    """The steps a run's alignment indexes (``reference_step``): ``path`` itself, or for a
    run scored against an instance of a grammar path (``branch``: its ``reference_branch``
    record), that instance's calls (:func:`branch_calls`; ``path`` if the record names none)."""
    if branch is None:
        return path
    calls = branch_calls(path, branch)
    return path if calls is None else calls


def written_step(step: Step) -> str:
    """A step as written, grammar included: ``one_of(a | b ; c | nothing)``, ``poll{1,5}``,
    ``notify?``, ``lookup [unordered]`` (the compact form of :func:`format_step` otherwise)."""
    if step.one_of is not None:
        branches = (" ; ".join(written_step(s) for s in b) or "nothing" for b in step.one_of)
        return f"one_of({' | '.join(branches)})"
    text = format_step(step)
    if step.repeat is not None:
        text += f"{{{step.repeat.min},{step.repeat.max}}}"
    if step.optional:
        text += "?"
    if step.group is not None:
        text += f" [{step.group}]"
    return text


def _block_order(items: Sequence[Item], kept: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Under ``total`` with ``unordered`` runs: each step after every step of earlier blocks
    (a block: one item with its copies, or a run of consecutive ``unordered`` items)."""
    block: list[int] = []
    for k, item in enumerate(items):
        joins = k > 0 and item.unordered and items[k - 1].unordered
        block.append(0 if k == 0 else block[-1] + (0 if joins else 1))
    depends: list[list[int]] = []
    for k, _ in kept:
        depends.append([p for p, (q, _) in enumerate(kept) if block[q] < block[k]])
    return depends


def _declared_order(
    items: Sequence[Item], used: Sequence[int], kept: Sequence[tuple[int, int]]
) -> list[list[int]]:
    """Under ``partial``: the declared edges through left-out steps; copies chained."""
    last: dict[int, int] = {}
    for n, (k, _) in enumerate(kept):
        last[k] = n
    by_id = {item.step.id: k for k, item in enumerate(items) if item.step.id is not None}

    def ends(k: int, seen: frozenset[int]) -> list[int]:
        """The instance steps that stand for 'after item k': its last copy, or (left out)
        what it was after."""
        if used[k]:
            return [last[k]]
        out: list[int] = []
        for name in items[k].step.after:
            p = by_id[name]
            if p not in seen:
                out += ends(p, seen | {p})
        return out

    depends: list[list[int]] = []
    for n, (k, copy) in enumerate(kept):
        if copy:
            depends.append([n - 1])
            continue
        deps: list[int] = []
        for name in items[k].step.after:
            for p in ends(by_id[name], frozenset({k})):
                if p not in deps:
                    deps.append(p)
        depends.append(deps)
    return depends
