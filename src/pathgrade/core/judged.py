"""Labels a judge was asked for and could not give: the mark a failed judgement leaves on a run.

``pathgrade judge`` lists, in ``run.metadata["judge"]["failed"]``, the label of every item
whose judgement failed (a ``judge_error``): ``"goal"``, ``"claims"``, ``"claims[0]"``,
``"citation[2]"``, ``"rubric.<dimension>"``, ``"trajectory"``. A label in that list is
undefined for the run: scoring must not fall back to a weaker rule for it (``goal_success``
is then ``nan``, never the gold-answer string match). A later judge run that succeeds
replaces the whole ``metadata["judge"]``, and the mark with it.
"""

from __future__ import annotations

from pathgrade.core.types import Run

JUDGE_KEY = "judge"
FAILED_KEY = "failed"
GOAL = "goal"


def failed_labels(run: Run) -> frozenset[str]:
    """The labels whose judgement failed on ``run`` (empty when none did or it was not judged)."""
    judge = run.metadata.get(JUDGE_KEY) if run.metadata else None
    failed = judge.get(FAILED_KEY) if isinstance(judge, dict) else None
    if not isinstance(failed, list | tuple):
        return frozenset()
    return frozenset(label for label in failed if isinstance(label, str))


def judgement_failed(run: Run, label: str) -> bool:
    """Whether the judge was asked for ``label`` on ``run`` and failed to give it."""
    return label in failed_labels(run)
