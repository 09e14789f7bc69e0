"""Orchestration for the HTML reports: stored runs + statistics -> what the pages show.

:func:`build_report` computes one run's page (:mod:`pathgrade.reporting.build`),
:func:`history_report` the history of several stored runs (:mod:`pathgrade.reporting.history`);
:mod:`pathgrade.report` only renders what they return.
"""

from pathgrade.reporting.build import CHANGE_METRICS, HEADLINE, SliceOptions, build_report
from pathgrade.reporting.history import build_history, history_report
from pathgrade.reporting.loading import LoadedRun, load_run

__all__ = [
    "CHANGE_METRICS",
    "HEADLINE",
    "LoadedRun",
    "SliceOptions",
    "build_history",
    "build_report",
    "history_report",
    "load_run",
]
