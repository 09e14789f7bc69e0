"""The summary's ``semantic`` entry (uncertain argument comparisons and the judge stage's
cost, :mod:`pathgrade.semantic.uncertain`) as one line of text, for ``pathgrade score``'s
summary and the report's summary area."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["uncertain_line"]


def uncertain_line(entry: Mapping[str, Any]) -> str | None:
    """The summary's ``semantic`` entry in one line (None: nothing to say), e.g.
    ``12 argument comparisons were uncertain (band [0.6, 0.9]): 12 undecided, 3 runs
    undefined; judge: 5 comparisons, 2 requests, 1,234 tokens, 0.8 s``."""
    parts = []
    uncertain = entry.get("uncertain")
    if isinstance(uncertain, Mapping):
        band = entry.get("band") or []
        shown = ", ".join(f"{b:g}" for b in band)
        n, runs = int(uncertain.get("comparisons", 0)), int(uncertain.get("runs", 0))
        were = "comparison was" if n == 1 else "comparisons were"
        parts.append(
            f"{n} argument {were} uncertain (band [{shown}]): {uncertain.get('undecided', 0)}"
            f" undecided, {uncertain.get('judged', 0)} decided by the judge,"
            f" {runs} {'run' if runs == 1 else 'runs'} undefined"
        )
    judge = entry.get("judge")
    if isinstance(judge, Mapping):
        tokens = int(judge.get("prompt_tokens", 0)) + int(judge.get("completion_tokens", 0))
        parts.append(
            f"judge: {judge.get('comparisons', 0)} comparisons, {judge.get('requests', 0)}"
            f" requests, {judge.get('cache_hits', 0)} cache hits, {tokens:,} tokens,"
            f" {float(judge.get('seconds', 0.0)):.1f} s"
        )
    return "; ".join(parts) or None
