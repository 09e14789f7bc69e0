"""Which agent steps are writes: the engine's per-step flags behind ``unexpected_write``
(an extra write) and the system layer's write checks.

A step is a write when its tool is declared ``write`` (a case's ``tool_kinds`` win over the
config's) and its approval was not ``denied``: a denied call was not made, so it wrote
nothing (the definition's rule, ``definition/path.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from pathgrade.core.config import ScoringConfig
from pathgrade.core.types import Case, Run

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def write_flags(
    tool_codes: Mapping[str, int],
    step_tools: IntArray,
    offsets: IntArray,
    runs: Sequence[Run],
    run_case: Sequence[Case],
    own_kinds: BoolArray,
    config: ScoringConfig,
    any_denied: bool = False,
) -> BoolArray:
    """Per agent step (``step_tools``: its tool code, ``tool_codes``: code by tool; run ``r``'s
    steps from ``offsets[r]``): is it a write. ``own_kinds[r]``: run ``r``'s case declares
    kinds of its own; ``any_denied``: some step's approval was denied (else no step is read
    for it)."""
    by_code = np.zeros(len(tool_codes) + 1, dtype=np.bool_)
    for tool, code in tool_codes.items():
        by_code[code] = config.tool_kinds.get(tool) == "write"
    flags = by_code[step_tools] if step_tools.size else np.zeros(0, dtype=np.bool_)
    for r in np.flatnonzero(own_kinds).tolist():
        kinds = {**config.tool_kinds, **run_case[r].tool_kinds}
        offset = int(offsets[r])
        for j, step in enumerate(runs[r].steps):
            flags[offset + j] = kinds.get(step.tool) == "write"
    if any_denied:
        for r, run in enumerate(runs):
            offset = int(offsets[r])
            for j, step in enumerate(run.steps):
                if step.approval == "denied":
                    flags[offset + j] = False
    return flags
