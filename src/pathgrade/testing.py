"""Assertions on an agent's path for tests (pytest or any runner): :func:`assert_path`.

``assert_path(run, case, min_path_score=80, no_defects=["forbidden_action"])`` scores one run
against its case with :func:`pathgrade.score` and raises :class:`PathAssertionError` (an
``AssertionError``) when the path fails a requirement; its message is the run's aligned path
and its defects, laid out as the HTML report's path view
(:func:`pathgrade.report.path_text.render_path`). Inside a pytest session with pathgrade's
plug-in (``docs/pytest.md``) every call is also recorded for the session's results (saved to
the store, gated against a baseline), and the session's config is the default.

Also here: :class:`RecordedRuns`, the runs of a runs file looked up by case and trial (the
``pathgrade_runs`` fixture), and :class:`TrialsRequirement`, the pass^k / pass@k requirement
of the ``pathgrade_trials`` marker.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from math import isfinite
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathgrade.core.config import ScoringConfig
    from pathgrade.core.results import RunResult
    from pathgrade.core.types import Case, Run

__all__ = [
    "PathAssertionError",
    "RecordedRuns",
    "Recorder",
    "TrialsRequirement",
    "assert_path",
    "recording",
]


class PathAssertionError(AssertionError):
    """A path that fails :func:`assert_path`; ``result`` is the run's scored result."""

    def __init__(self, message: str, result: RunResult) -> None:
        super().__init__(message)
        self.result = result


class Recorder(Protocol):
    """Who keeps what :func:`assert_path` checked (the pytest plug-in, for one test)."""

    @property
    def config(self) -> ScoringConfig:
        """The config :func:`assert_path` scores with when it is given none."""

    def record(self, case: Case, run: Run, config: ScoringConfig) -> None:
        """Keep one checked run, with its case and the config it was scored with."""


_RECORDER: ContextVar[Recorder | None] = ContextVar("pathgrade_recorder", default=None)


@contextmanager
def recording(recorder: Recorder) -> Iterator[Recorder]:
    """Within the block, :func:`assert_path` records into ``recorder`` and scores with its
    config by default."""
    token = _RECORDER.set(recorder)
    try:
        yield recorder
    finally:
        _RECORDER.reset(token)


def _defect_kinds() -> list[str]:
    from pathgrade.metrics import catalogue

    return [name.removeprefix("defects.") for name in catalogue.names("defects")]


def _check_arguments(min_path_score: float | None, no_defects: Sequence[str]) -> None:
    if isinstance(no_defects, str):
        raise TypeError(f"no_defects must be a list of defect kinds, got the string {no_defects!r}")
    known = _defect_kinds()
    for kind in no_defects:
        if kind not in known:
            raise ValueError(f"no_defects: unknown defect kind {kind!r}; known: {', '.join(known)}")
    if min_path_score is not None and (
        isinstance(min_path_score, bool)
        or not isinstance(min_path_score, int | float)
        or not isfinite(min_path_score)
    ):
        raise ValueError(f"min_path_score must be a finite number, got {min_path_score!r}")


def _who(result: RunResult) -> str:
    from pathgrade.report.display import clip

    run = f"run {clip(result.run_id)!r}, " if result.run_id is not None else ""
    return f"case {clip(result.case_id)!r} ({run}trial {result.trial})"


def assert_path(
    run: Run,
    case: Case,
    *,
    min_path_score: float | None = None,
    no_defects: Sequence[str] = (),
    config: ScoringConfig | None = None,
) -> RunResult:
    """Score ``run`` against ``case`` and fail unless its path meets every requirement.

    Requirements: ``path_score >= min_path_score`` (an undefined path score, for a case with
    no reference path, fails); no defect of a kind in ``no_defects`` (e.g.
    ``["forbidden_action", "unexpected_write"]``). With neither, the run is only scored.

    Args:
        run: what the agent did; its ``case_id`` must be ``case.case_id``.
        case: the case, with its reference paths.
        min_path_score: the lowest acceptable ``path_score`` (0 to 100).
        no_defects: defect kinds that must not occur (names of ``docs/trajectory.md``).
        config: the scoring config; default: the pytest session's (``pathgrade_config``)
            inside a session with pathgrade's plug-in, else the one ``pathgrade score``
            finds (``pathgrade.toml`` or ``pyproject.toml``'s ``[tool.pathgrade]`` in the
            working directory, else the defaults).

    Returns:
        The run's :class:`~pathgrade.core.results.RunResult` (metrics, defects, alignment).

    Raises:
        PathAssertionError: a requirement is not met; the message is the aligned path and
            the defects.
        ValueError: the run is for another case, an unknown defect kind, or a bad minimum.
    """
    __tracebackhide__ = True  # pytest shows the test's line, not this function's body
    from pathgrade.evaluate import score

    _check_arguments(min_path_score, no_defects)
    if run.case_id != case.case_id:
        raise ValueError(f"the run is for case {run.case_id!r}, not for case {case.case_id!r}")
    recorder = _RECORDER.get()
    if config is None:
        if recorder is not None:
            config = recorder.config
        else:
            from pathgrade.io.config import load_config

            config = load_config()
    result = score({case.case_id: case}, [run], config)[0]
    if recorder is not None:
        recorder.record(case, run, config)
    problems = _problems(result, min_path_score, no_defects)
    if problems:
        raise PathAssertionError(_message(result, problems, run), result)
    return result


def _problems(
    result: RunResult, min_path_score: float | None, no_defects: Sequence[str]
) -> list[str]:
    from pathgrade.report.number_text import format_number

    problems = []
    path_score = result.metrics.get("path_score")
    if min_path_score is not None:
        if path_score is None:
            problems.append(
                f"path_score undefined (no reference path), min_path_score"
                f" {format_number(min_path_score)}"
            )
        elif path_score < min_path_score:
            problems.append(
                f"path_score {format_number(path_score)} < min_path_score"
                f" {format_number(min_path_score)}"
            )
    found = Counter(defect.kind for defect in result.defects)
    problems += [f"{kind} x{found[kind]} (no_defects)" for kind in no_defects if found[kind]]
    return problems


def _message(result: RunResult, problems: Sequence[str], run: Run) -> str:
    from pathgrade.report.number_text import format_metric
    from pathgrade.report.path_text import render_path

    headline = ("path_score", "composite", "goal_success")
    scores = ", ".join(
        f"{name} {format_metric(result.metrics.get(name), name)}"
        for name in headline
        if name in result.metrics
    )
    failed = [position for position, step in enumerate(run.steps) if step.error]
    return "\n".join(
        [
            f"path of {_who(result)} fails: {'; '.join(problems)}",
            scores,
            render_path(result.to_dict(), failed),
        ]
    )


class RecordedRuns(Sequence["Run"]):
    """The runs of a runs file, in file order, looked up by case, trial and run id."""

    def __init__(self, runs: Sequence[Run], file: str | None = None) -> None:
        self._runs = tuple(runs)
        self.file = file
        self._by_case: dict[str, list[Run]] = {}
        for run in self._runs:
            self._by_case.setdefault(run.case_id, []).append(run)

    def __len__(self) -> int:
        return len(self._runs)

    def __getitem__(self, index: Any) -> Any:
        return self._runs[index]

    def __repr__(self) -> str:
        return f"RecordedRuns(runs={len(self)}, cases={len(self._by_case)}, file={self.file!r})"

    def for_case(self, case_id: str) -> tuple[Run, ...]:
        """The runs of ``case_id`` by trial (file order among equal trials); may be empty."""
        return tuple(sorted(self._by_case.get(case_id, ()), key=lambda run: run.trial))

    def get(self, case_id: str, *, trial: int | None = None, run_id: str | None = None) -> Run:
        """The one run of ``case_id`` with ``trial`` and ``run_id`` (each when given).

        Raises:
            LookupError: no run or several match; the message lists the case's runs.
        """
        found = [
            run
            for run in self.for_case(case_id)
            if (trial is None or run.trial == trial) and (run_id is None or run.run_id == run_id)
        ]
        if len(found) == 1:
            return found[0]
        where = f" in {self.file}" if self.file else ""
        wanted = f"case {case_id!r}" + (f" trial {trial}" if trial is not None else "")
        wanted += f" run {run_id!r}" if run_id is not None else ""
        have = ", ".join(
            f"(trial {run.trial}, run {run.run_id!r})" for run in self.for_case(case_id)
        )
        if not found:
            raise LookupError(f"no run of {wanted}{where}; the case has: {have or 'no runs'}")
        raise LookupError(
            f"{len(found)} runs of {wanted}{where}: {have}; give trial= or run_id= to choose"
        )


def _rule(value: Any, name: str, n: int) -> tuple[int, float] | None:
    """A ``(k, minimum)`` pair with ``1 <= k <= n`` and ``0 <= minimum <= 1``."""
    if value is None:
        return None
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise ValueError(f"{name} must be a pair (k, minimum), got {value!r}")
    k, minimum = value
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
        raise ValueError(f"{name}: k must be an integer from 1 to n={n}, got {k!r}")
    if isinstance(minimum, bool) or not isinstance(minimum, int | float) or not 0 <= minimum <= 1:
        raise ValueError(f"{name}: the minimum must be a number from 0 to 1, got {minimum!r}")
    return k, float(minimum)


@dataclass(frozen=True)
class TrialsRequirement:
    """Run a test ``n`` times; with ``c`` passing trials, require
    ``pass^k = C(c, k) / C(n, k) >= minimum`` (``pass_hat_k = (k, minimum)``: all of ``k``
    trials drawn pass) and/or ``pass@k = 1 - C(n - c, k) / C(n, k) >= minimum``
    (``pass_at_k``: at least one of ``k`` drawn passes), as :mod:`pathgrade.stats.passk`
    defines them."""

    n: int
    pass_hat_k: tuple[int, float] | None = None
    pass_at_k: tuple[int, float] | None = None

    @classmethod
    def parse(cls, args: Sequence[Any], kwargs: Mapping[str, Any]) -> TrialsRequirement:
        """From the marker's arguments: ``(n, pass_hat_k=(k, min), pass_at_k=(k, min))``.

        Raises:
            ValueError: a missing or bad ``n``, a bad pair, an unknown keyword, or no rule.
        """
        options = dict(kwargs)
        if len(args) > 1:
            raise ValueError(f"takes one positional argument (n), got {len(args)}")
        if args:
            if "n" in options:
                raise ValueError("n given twice")
            options["n"] = args[0]
        unknown = set(options) - {"n", "pass_hat_k", "pass_at_k"}
        if unknown:
            raise ValueError(f"unknown argument(s) {', '.join(sorted(unknown))}")
        n = options.get("n")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n (the number of trials) must be an integer >= 1, got {n!r}")
        hat = _rule(options.get("pass_hat_k"), "pass_hat_k", n)
        at = _rule(options.get("pass_at_k"), "pass_at_k", n)
        if hat is None and at is None:
            raise ValueError("give pass_hat_k=(k, minimum) and/or pass_at_k=(k, minimum)")
        return cls(n, hat, at)

    def check(self, passed: Sequence[bool]) -> tuple[bool, str]:
        """Whether the ``n`` trial outcomes meet the requirement, and the figures as text
        (``3 of 5 trials passed (failed: 1, 3); pass^2 = C(3,2)/C(5,2) = 0.3 >= 0.8: no``)."""
        from pathgrade.report.number_text import format_number
        from pathgrade.stats.passk import pass_at_k, pass_hat_k

        n, c = len(passed), sum(passed)
        failed = [str(i) for i, ok in enumerate(passed) if not ok]
        parts = [
            f"{c} of {n} trials passed" + (f" (failed: {', '.join(failed)})" if failed else "")
        ]
        ok = True
        if self.pass_hat_k is not None:
            k, minimum = self.pass_hat_k
            value = pass_hat_k(n, c, k)
            met = value >= minimum
            parts.append(
                f"pass^{k} = C({c},{k})/C({n},{k}) = {format_number(value, 6)}"
                f" >= {format_number(minimum, 6)}: {'yes' if met else 'no'}"
            )
            ok = ok and met
        if self.pass_at_k is not None:
            k, minimum = self.pass_at_k
            value = pass_at_k(n, c, k)
            met = value >= minimum
            parts.append(
                f"pass@{k} = 1 - C({n - c},{k})/C({n},{k}) = {format_number(value, 6)}"
                f" >= {format_number(minimum, 6)}: {'yes' if met else 'no'}"
            )
            ok = ok and met
        return ok, "; ".join(parts)
