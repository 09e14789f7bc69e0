"""Working on the cases themselves: checking reference paths before they are trusted
(:mod:`.lint`) and proposing references from successful runs (:mod:`.mine`).

Pure computation, like :mod:`pathgrade.metrics`: nothing here reads a file; the command
``pathgrade cases`` (:mod:`pathgrade.cli.cases`) loads and writes.
"""

from __future__ import annotations

from pathgrade.cases.lint import Finding, lint_cases
from pathgrade.cases.mine import Mined, mine_case, mine_cases

__all__ = ["Finding", "Mined", "lint_cases", "mine_case", "mine_cases"]
