"""``pathgrade collect``: an OTLP/HTTP trace receiver that assembles spans into runs with the
trace readers, scores them with the scores that need no reference and saves them to the run
store in batches (docs/production.md)."""

from __future__ import annotations

from pathgrade.collect.config import CollectConfig
from pathgrade.collect.service import Collector

__all__ = ["CollectConfig", "Collector"]
