"""The executable definition of the trajectory metrics: the spec.

Plain per-run code, written to be read: loops over steps, the formula in each docstring, no
batching. The batched kernels of :mod:`pathgrade.metrics.trajectory` compute the same for
many runs at once, and ``tests/metrics/trajectory/test_definition_differential.py`` proves
them equal on every output. Read in this order:

- :mod:`.matching`: which steps match, which calls are the same call, the one-to-one
  matching;
- :mod:`.turns`: same-turn parallel calls, and the scored order;
- :mod:`.order`: dependencies, out of order, premature calls, the closest linear extension;
- :mod:`.alignment`: the edit script;
- :mod:`.checks`: goal, budgets, forbidden actions, errors, required tools;
- :mod:`.defects`: every defect, its penalty and detail;
- :mod:`.system`: approvals, writes repeated after a resume, tenant boundaries, injections;
- :mod:`.texts`: how steps are shown;
- :mod:`.path`: one run against one reference: the path metrics, defects and alignment;
- :mod:`.score`: the reference choice, :func:`score_run` and :func:`score_runs`.
"""

from __future__ import annotations

from pathgrade.metrics.trajectory.definition.path import PathScore
from pathgrade.metrics.trajectory.definition.score import (
    Explained,
    explain_runs,
    score_run,
    score_runs,
)

__all__ = ["Explained", "PathScore", "explain_runs", "score_run", "score_runs"]
