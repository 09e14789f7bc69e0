"""What ``pathgrade gate`` prints for people, and its JUnit test cases: one row per gate
(hard gates marked), then each failure and the overall result."""

from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pathgrade.gates import GateReport
from pathgrade.io.junit import JUnitCase
from pathgrade.report.display import clip

__all__ = ["junit_cases", "render_gates"]


def _fmt(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.4g}"


def render_gates(console: Console, report: GateReport) -> None:
    """One row per gate; hard gates marked; a closing line with the overall result."""
    table = Table(title=f"gates: {report.paired_cases} paired cases")
    table.add_column("gate", no_wrap=True)
    table.add_column("rule")
    for column in ("baseline", "variant", "value", "threshold"):
        table.add_column(column, justify="right")
    table.add_column("result", no_wrap=True)
    for r in report.results:
        label = escape(clip(r.gate.name) + (" [hard]" if r.gate.hard else ""))
        status = "[green]pass[/]" if r.passed else "[bold red]FAIL[/]"
        table.add_row(
            label,
            f"{r.gate.statistic} {r.gate.rule}",
            _fmt(r.baseline),
            _fmt(r.variant),
            _fmt(r.observed),
            _fmt(r.threshold),
            status,
        )
    console.print(table)
    for r in report.results:
        if not r.passed:
            console.print(f"FAIL {clip(r.gate.name)}: {clip(r.message, 400)}", markup=False)
    if report.unpaired_cases:
        console.print(
            f"{report.unpaired_cases} case(s) on one side only: baseline-relative gates use the"
            f" {report.paired_cases} paired cases",
            markup=False,
        )
    failed = sum(1 for r in report.results if not r.passed)
    hard = len(report.hard_failures)
    if failed:
        console.print(
            f"{failed} of {len(report.results)} gate(s) failed ({hard} hard)", markup=False
        )
    else:
        console.print(f"all {len(report.results)} gate(s) passed", markup=False)


def junit_cases(report: GateReport, warning: str | None = None) -> list[JUnitCase]:
    cases = [
        JUnitCase(
            name=r.gate.name,
            classname="pathgrade.gate.hard" if r.gate.hard else "pathgrade.gate",
            failure=None if r.passed else r.message,
            output=r.message,
        )
        for r in report.results
    ]
    if warning is not None:
        # The provenance warning is the first test case, named by it (JUnit viewers list
        # every case by name, and a suite property only in its details).
        cases.insert(0, JUnitCase(warning, "pathgrade.provenance", None, warning))
    return cases
