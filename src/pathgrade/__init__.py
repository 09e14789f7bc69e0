"""pathgrade: evaluate LLM agents and agentic RAG systems by the whole path.

The public API is small: load cases and runs (:mod:`pathgrade.io`), then
:func:`pathgrade.score` them against their reference paths.
"""

from pathgrade._version import __version__
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Budget, Case, Run, Step, Usage
from pathgrade.evaluate import score

__all__ = [
    "Budget",
    "Case",
    "InputError",
    "Run",
    "ScoringConfig",
    "Step",
    "Usage",
    "__version__",
    "score",
]
