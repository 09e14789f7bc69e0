"""Markdown summaries for CI (``--markdown FILE``, and ``$GITHUB_STEP_SUMMARY`` under GitHub
Actions) of ``score`` and ``compare``; ``gate``'s is :mod:`pathgrade.report.github`.

Numbers go through :func:`~pathgrade.report.number_text.format_value`, the rule of the
terminal tables, so a summary, its text and its JSON say the same numbers (the JSON at full
precision). A Markdown table has no width: every column is written. Names and slice keys
are user text: every cell is escaped (:func:`md_cell`), direction controls shown as their
escape.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pathgrade.metrics import catalogue
from pathgrade.report.display import visible
from pathgrade.report.number_text import format_interval, format_p, format_value, paired_cells
from pathgrade.report.summary_text import system_amounts
from pathgrade.stats.compare import Comparison

__all__ = [
    "comparison_markdown",
    "conversations_markdown",
    "md_cell",
    "md_table",
    "publish",
    "publish_summary",
    "summary_markdown",
]


def md_cell(text: str) -> str:
    """``text`` as one Markdown table cell: no markup, no row or column break."""
    out = visible(text).replace("\\", "\\\\").replace("|", "\\|")
    out = out.replace("\r", " ").replace("\n", " ")
    for char in "`*_[]<>":
        out = out.replace(char, "\\" + char)
    return out


def md_table(
    headers: Sequence[str], right: Sequence[bool], rows: Iterable[Sequence[str]]
) -> list[str]:
    """A GitHub-flavoured Markdown table; ``right``: which columns are numbers (right-aligned).
    Cells are written as given (escape user text with :func:`md_cell`)."""
    lines = ["| " + " | ".join(headers) + " |"]
    lines.append("| " + " | ".join("---:" if r else "---" for r in right) + " |")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _better(name: str) -> str:
    row = catalogue.find(name)
    if row is None:
        return "?"
    return row.direction if row.direction != "neither" else "-"


def _mean_interval(row: Mapping[str, Any], name: str) -> str:
    """The interval over cases of a system amount's mean, ``-`` when not computed."""
    low, high = (row.get("ci") or {}).get("mean") or (None, None)
    return format_interval(low, high, name)


def conversations_markdown(conversations: Mapping[str, Any]) -> list[str]:
    """The summary's ``conversations`` (docs/conversations.md): runs and turns, then
    ``pass^k`` (and ``pass@k``) of ``conversation_success`` by k when cases have trials."""
    turns = conversations.get("turns") or {}
    head = f"{conversations.get('runs', 0)} conversation runs"
    if turns:
        mean = format_value(turns.get("mean"), "turns")
        head += f", {mean} turns on average (max {turns.get('max')})"
    lines = ["#### Conversations", "", head]
    hat = conversations.get("pass^k") or {}
    if hat:
        at = conversations.get("pass@k") or {}
        rows = [
            [md_cell(str(k)), format_value(v, "pass^k"), format_value(at.get(k), "pass@k")]
            for k, v in hat.items()
        ]
        lines += ["", *md_table(["k", "pass^k", "pass@k"], [True, True, True], rows)]
        lines += ["", "over `conversation_success`; pass^k: the chance that k trials all succeed"]
    return lines


def summary_markdown(summary: Mapping[str, Any], title: str = "pathgrade score") -> str:
    """``score``'s summary: the table over cases (mean of per-case means, interval, cases,
    runs, undefined, better), the system amounts, the defect counts, the conversations
    (:func:`conversations_markdown`, when the summary has them)."""
    amounts = system_amounts(summary)
    by_case = {k: v for k, v in (summary.get("by_case") or {}).items() if k not in amounts}
    cases = max((row["n_cases"] for row in by_case.values()), default=0)
    interval = summary.get("interval") or {}
    level = f"{round(100 * float(interval.get('confidence', 0.95)), 1):g}%"
    lines = [f"### {md_cell(title)}: {cases} cases, {summary.get('runs', 0)} runs", ""]
    rows = [
        [
            md_cell(name),
            format_value(row["mean"], name),
            format_interval(row["low"], row["high"], name),
            str(row["n_cases"]),
            str(row["runs"]),
            str(row["undefined"]),
            _better(name),
        ]
        for name, row in by_case.items()
    ]
    headers = ["metric", "mean", f"{level} CI", "cases", "runs", "undefined", "better"]
    lines += md_table(headers, [False, True, True, True, True, True, False], rows)
    lines += [
        "",
        f"mean of per-case means; {level} CI: bootstrap over cases"
        f" ({interval.get('resamples', '?')} resamples, seed {interval.get('seed', '?')})",
    ]
    if amounts:
        statistics = ("mean", "p50", "p95", "p99", "max")
        rows = [
            [
                md_cell(f"{name} ({row['unit']})"),
                *(format_value(row.get(s), name) for s in statistics),
                str(row["runs"]),
                str(row["unknown"]),
                _mean_interval(row, name),
            ]
            for name, row in amounts.items()
        ]
        headers = ["amount", *statistics, "runs", "unknown", f"mean {level} CI"]
        lines += ["", *md_table(headers, [False] + [True] * 8, rows)]
    defects = summary.get("defects")
    if defects:
        shown = ", ".join(f"{md_cell(k)} {v}" for k, v in sorted(defects.items()))
        lines += ["", f"defects: {shown}"]
    conversations = summary.get("conversations")
    if conversations:
        lines += ["", *conversations_markdown(conversations)]
    return "\n".join(lines) + "\n"


def comparison_markdown(result: Comparison, baseline: str, variant: str) -> str:
    """``compare``'s table: per metric the family, direction, pairs, both means, the
    difference and its interval, the test, p and Holm's p, the verdict."""
    level = round(result.confidence * 100)
    head = f"### pathgrade compare: {md_cell(baseline)} → {md_cell(variant)}"
    lines = [f"{head}: {result.paired_cases} paired cases", ""]
    rows = [
        [
            md_cell(name),
            m.family,
            m.direction if m.direction != "neither" else "-",
            *paired_cells(name, m.n, m.undefined, m.baseline, m.variant, m.diff, m.ci),
            md_cell(m.test or "-"),
            format_p(m.p_value),
            format_p(m.p_holm),
            md_cell(m.verdict),
        ]
        for name, m in result.metrics.items()
    ]
    headers = ["metric", "family", "better", "n", "baseline", "variant", "diff"]
    headers += [f"{level}% CI", "test", "p", "p (Holm)", "verdict"]
    right = [False, False, False, True, True, True, True, True, False, True, True, False]
    lines += md_table(headers, right, rows)
    lines += [
        "",
        f"diff = variant - baseline over paired cases; CI: paired bootstrap"
        f" ({result.ci_method}, {result.resamples} resamples, seed {result.seed}); Holm over"
        f" the {result.family_size} primary metrics.",
    ]
    return "\n".join(lines) + "\n"


def publish(text: str, path: Path | None, environ: Mapping[str, str] | None = None) -> None:
    """Write ``text`` to ``path`` (replaced) when given; under GitHub Actions
    (``GITHUB_ACTIONS=true``) also append it to ``$GITHUB_STEP_SUMMARY``."""
    env: Mapping[str, Any] = os.environ if environ is None else environ
    if path is not None:
        path.write_text(text, encoding="utf-8")
    if env.get("GITHUB_ACTIONS") != "true":
        return
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        with Path(summary).open("a", encoding="utf-8") as handle:
            handle.write(text)


def publish_summary(
    summary: Mapping[str, Any], path: Path | None, environ: Mapping[str, str] | None = None
) -> None:
    """:func:`summary_markdown` :func:`published <publish>`, when asked or under GitHub
    Actions (else nothing is computed)."""
    env: Mapping[str, Any] = os.environ if environ is None else environ
    if path is not None or env.get("GITHUB_ACTIONS") == "true":
        publish(summary_markdown(summary), path, env)
