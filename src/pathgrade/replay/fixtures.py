"""Frozen tool fixtures recorded from a run, matched by tool and arguments.

Every recorded step is a fixture: ``(tool, arguments) -> (output, error)``. A call is
answered by the first recorded step of the same tool whose arguments match the call's under
the scoring matcher of that tool (:class:`~pathgrade.metrics.trajectory.arguments.MatcherSet`:
``exact``, ``normalized``, ``fuzzy``, ``subset``, ``ignore`` and per-field overrides, as in
scoring; the recording plays the reference's part). Repeated calls consume matching
recordings in recorded order; once all are used, the last one answers again, so a retry
sees what the recording saw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pathgrade.core.config import MatchingConfig
from pathgrade.core.types import Run, Step
from pathgrade.metrics.trajectory.arguments import MatcherSet, ValueMatcher


@dataclass(frozen=True)
class Fixture:
    """One recorded tool call and what it returned."""

    index: int
    tool: str
    arguments: Any
    output: Any
    error: str | None

    @classmethod
    def of(cls, index: int, step: Step) -> Fixture:
        return cls(index, step.tool, step.arguments, step.output, step.error)


class FixtureSet:
    """The fixtures of one recorded run and the state of their consumption."""

    def __init__(
        self,
        steps: Sequence[Step],
        matching: MatchingConfig | None = None,
        plugins: Mapping[str, ValueMatcher] | None = None,
    ) -> None:
        self._matchers = MatcherSet(matching or MatchingConfig(), plugins)
        self._by_tool: dict[str, list[Fixture]] = {}
        for index, step in enumerate(steps):
            self._by_tool.setdefault(step.tool, []).append(Fixture.of(index, step))
        self._used: set[int] = set()

    @classmethod
    def from_run(
        cls,
        run: Run,
        matching: MatchingConfig | None = None,
        plugins: Mapping[str, ValueMatcher] | None = None,
    ) -> FixtureSet:
        return cls(run.steps, matching, plugins)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_tool.values())

    def __repr__(self) -> str:
        return f"FixtureSet({len(self)} recorded calls, {len(self._used)} used)"

    def lookup(self, tool: str, arguments: Any, *, consume: bool = True) -> Fixture | None:
        """The recording that answers this call, or ``None`` when nothing matches; with
        ``consume=False`` (a faulted call) the recording stays unused."""
        matcher = self._matchers.for_tool(tool)
        matches = [f for f in self._by_tool.get(tool, ()) if matcher.match(f.arguments, arguments)]
        if not matches:
            return None
        fresh = next((f for f in matches if f.index not in self._used), None)
        chosen = fresh if fresh is not None else matches[-1]
        if consume:
            self._used.add(chosen.index)
        return chosen

    def unused(self) -> list[Fixture]:
        """Recorded calls the replay never made."""
        return sorted(
            (f for fs in self._by_tool.values() for f in fs if f.index not in self._used),
            key=lambda f: f.index,
        )
