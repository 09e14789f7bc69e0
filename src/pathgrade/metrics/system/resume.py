"""State after resume: what a run interrupted and resumed repeated, and where it ended.

A **resume** is a step with ``resumed: true`` (the first step after the run was stopped and
restarted). For a run with at least one resume:

* ``resumes``: the number of resumed steps;
* ``repeated_reads_after_resume``: the calls of a tool not declared ``write`` (the config's
  ``tool_kinds``, the case's winning) that repeat a call (same tool, equal arguments) that
  succeeded before the latest resume at or before them: cheap re-reads, counted, no
  defect (a repeated *write* is the defect ``duplicate_write_after_resume``,
  :mod:`pathgrade.metrics.trajectory.definition.system`);
* ``state_consistent_after_resume``: 1 when the run's ``final_state`` equals the case's
  ``expected_state`` (the end state of the uninterrupted reference) with no difference at
  all (:func:`pathgrade.metrics.tool.state.state_diff`), else 0; undefined without both.

A run without a resume has none of these (undefined, ``nan``): an uninterrupted run says
nothing about resuming.

Example (a refund is made, the run is resumed and makes it again after re-reading):
    >>> from pathgrade.core.config import ScoringConfig
    >>> from pathgrade.core.types import Case, Run, Step
    >>> case = Case(case_id="c", tool_kinds={"refund": "write"}, expected_state={"refunds": 1})
    >>> run = Run.model_validate({"case_id": "c", "final_state": {"refunds": 2}, "steps": [
    ...     "lookup:A17", "refund:A17", {"tool": "lookup", "arguments": ["A17"],
    ...     "resumed": True}, "refund:A17"]})
    >>> resume_metrics(run, case, ScoringConfig())
    {'resumes': 1.0, 'repeated_reads_after_resume': 1.0, 'state_consistent_after_resume': 0.0}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run, Step
from pathgrade.metrics.tool.state import state_diff
from pathgrade.metrics.trajectory.definition.system import repeated_reads_after_resume

__all__ = ["RESUME_METRICS", "resume_columns", "resume_metrics"]

_RESUMED, _STEPS = attrgetter("resumed"), attrgetter("steps")
#: The metrics of a resumed run, in output order.
RESUME_METRICS = ("resumes", "repeated_reads_after_resume", "state_consistent_after_resume")


def resume_metrics(run: Run, case: Case, config: ScoringConfig) -> dict[str, float] | None:
    """The module docstring's metrics of one run; None when it has no resume."""
    resumes = sum(1 for step in run.steps if step.resumed)
    if not resumes:
        return None
    consistent = math.nan
    if case.expected_state is not None and run.final_state is not None:
        consistent = 0.0 if state_diff(case.expected_state, run.final_state) else 1.0
    return {
        "resumes": float(resumes),
        "repeated_reads_after_resume": float(repeated_reads_after_resume(run.steps, case, config)),
        "state_consistent_after_resume": consistent,
    }


def resume_columns(
    cases: Mapping[str, Case],
    runs: Sequence[Run],
    config: ScoringConfig,
    steps: Sequence[Sequence[Step]] | None = None,
) -> dict[str, npt.NDArray[np.float64]]:
    """One column per metric over ``runs`` (``nan`` for a run without a resume); empty when
    no run has a resume (the layer is then not computed). ``steps``: the runs' steps when
    the caller has gathered them (:class:`~pathgrade.core.run_columns.RunColumns`), which
    saves a pass over the run objects."""
    every = steps if steps is not None else map(_STEPS, runs)
    if not any(map(_RESUMED, chain.from_iterable(every))):
        return {}  # the usual case, found at C speed
    columns = {name: np.full(len(runs), math.nan) for name in RESUME_METRICS}
    found = False
    for index, run in enumerate(runs):
        values = resume_metrics(run, cases[run.case_id], config)
        if values is None:
            continue
        found = True
        for name, value in values.items():
            columns[name][index] = value
    return columns if found else {}
