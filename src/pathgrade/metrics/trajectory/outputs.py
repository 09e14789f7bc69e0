"""The trajectory metrics every run's result carries, in output order, with how each is
typed in JSON: read off the metric catalogue (:mod:`pathgrade.metrics.catalogue`, its
``trajectory`` rows), the one place that says what each metric is."""

from __future__ import annotations

from pathgrade.core.results import MetricKind
from pathgrade.metrics import catalogue

#: ``{name: JSON kind}`` of the trajectory metrics, in the order a record lists them.
TRAJECTORY_METRICS: dict[str, MetricKind] = {
    name: catalogue.json_kind(name) for name in catalogue.names("trajectory")
}
