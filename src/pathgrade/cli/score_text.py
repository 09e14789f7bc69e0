"""What ``pathgrade score`` prints for people around the summary: the runs table (each defect
with the step it is on), the legend of its columns, and the next useful commands.

Untrusted text is never markup; ids go through :func:`pathgrade.report.display.clip`.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.text import Text

from pathgrade.core.results import Defect, ScoreResult
from pathgrade.report.display import clip
from pathgrade.report.fit_table import FitTable
from pathgrade.report.text import cell

__all__ = [
    "LEGEND",
    "RUN_COLUMNS",
    "conversation_notes",
    "defect_text",
    "next_commands",
    "render_legend",
    "render_next",
    "render_runs",
]

#: The runs table's headline columns: metric -> header.
RUN_COLUMNS = (("path_score", "path"), ("composite", "comp"), ("goal_success", "goal"))

#: What each column of the runs table holds (docs/trajectory.md defines every metric).
LEGEND = (
    ("trial", "the run's trial of its case (pass@k and pass^k count trials)"),
    ("ref", "the reference path it was scored against (the best of the case's, from 0)"),
    ("path", "path_score, 0-100: 100 minus the penalties of its defects"),
    ("comp", "composite, 0-1: weighted mean of tool, argument, order accuracy, efficiency"),
    ("goal", "goal_success: the run's success, else its answer against the gold answer"),
    (
        "defects",
        "kind, @N the agent step it is on (ref@N a reference step), -P points lost;"
        " a conversation's notes, turn N from 1",
    ),
    ("", "steps count from 0, as in --json and the report; docs/trajectory.md defines all"),
)


def defect_text(defect: Defect) -> str:
    """``kind @N -P``: the agent step it is on (``ref@N`` when it names only a reference
    step, nothing when neither) and its penalty (left out when 0)."""
    parts = [defect.kind]
    if defect.agent_step is not None:
        parts.append(f"@{defect.agent_step}")
    elif defect.reference_step is not None:
        parts.append(f"ref@{defect.reference_step}")
    if defect.penalty:
        parts.append(f"-{defect.penalty:g}")
    return " ".join(parts)


def conversation_notes(entry: Mapping[str, Any] | None) -> list[str]:
    """A conversation's notes (docs/conversations.md), ``turn N: note`` for a turn's."""
    if not entry:
        return []
    found = [f"turn {row['turn']}: {note}" for row in entry["turns"] for note in row["notes"]]
    return [*found, *entry["notes"]]


def render_runs(console: Console, result: ScoreResult, limit: int) -> None:
    """One row per run (up to ``limit``): identity, headline scores, defects with steps."""
    table = FitTable("Runs", box=box.HEAVY_HEAD, compact=False)
    table.add_column("case / run")
    table.add_column("trial", "right", drop=2)
    table.add_column("ref", "right", drop=1)
    for _, header in RUN_COLUMNS:
        table.add_column(header, "right")
    table.add_column("defects", prose=True)
    for index in range(min(limit, len(result))):
        run = result[index]
        defects = "\n".join([*map(defect_text, run.defects), *conversation_notes(run.conversation)])
        table.add_row(
            Text(clip(run.case_id) + (f" / {clip(run.run_id)}" if run.run_id else "")),
            Text(str(run.trial)),
            cell(run.reference_index),
            *(cell(run.metrics.get(name), name) for name, _ in RUN_COLUMNS),
            Text(defects or "-"),
        )
    console.print(table)
    if len(result) > limit:
        console.print(
            Text(f"... {len(result) - limit} more runs (use --json or --out for all)", "dim")
        )


def render_legend(console: Console) -> None:
    """The runs table's columns, one line each."""
    table = FitTable(box=None, show_header=False)
    table.add_column("column")
    table.add_column("holds", prose=True)
    for name, text in LEGEND:
        table.add_row(Text(f"  {name}", style="dim"), Text(text, style="dim"))
    console.print(table)


def _quoted(path: Path | str) -> str:
    return shlex.quote(str(path))


def next_commands(
    cases: Path,
    runs: Path,
    config: Path | None,
    out: Path | None,
    save: str | None,
    store: Path | None,
) -> list[tuple[str, str]]:
    """``(command, what it does)`` to run next: keep the results (``--out``, ``--save``)
    when they were not kept, else compare, gate and report them."""
    score = ["pathgrade", "score", _quoted(cases), _quoted(runs)]
    if config is not None:
        score += ["--config", _quoted(config)]
    at_store = f" --store {_quoted(store)}" if store is not None else ""
    found: list[tuple[str, str]] = []
    if out is None and save is None:
        found.append((" ".join([*score, "--out", "results.jsonl"]), "one result record per run"))
        found.append((" ".join([*score, "--save", "NAME"]), "store the run by name"))
        found.append(("pathgrade compare BASELINE VARIANT", "paired statistics of two runs"))
        return found
    kept = save if save is not None else _quoted(out or "")
    found.append((f"pathgrade compare BASELINE {kept}{at_store}", "paired statistics"))
    found.append(
        (f"pathgrade gate GATES.toml --baseline BASELINE --variant {kept}{at_store}", "CI gates")
    )
    if save is not None:
        found.append((f"pathgrade report {save}{at_store} -o report.html", "the HTML report"))
    else:
        found.append((f"pathgrade runs add NAME {kept}{at_store}", "store the results by name"))
    return found


def render_next(console: Console, commands: Sequence[tuple[str, str]]) -> None:
    """``next:`` and one command a line (each on one line however long)."""
    console.print("next:", markup=False)
    for command, what in commands:
        console.print(f"  {command}   # {what}", markup=False, highlight=False, soft_wrap=True)
