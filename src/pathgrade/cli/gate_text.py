"""What ``pathgrade gate`` prints for people, and its JUnit test cases: one row per gate
(hard gates marked), then each failure and the overall result."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from pathgrade.gates import GateReport
from pathgrade.io.junit import JUnitCase
from pathgrade.report.display import clip
from pathgrade.report.fit_table import FitTable
from pathgrade.report.number_text import format_number, format_value

__all__ = ["NAME_WIDTH", "junit_cases", "render_gates"]

#: Characters of a gate's name shown before it is cut: a name is a sentence people write
#: (it wraps in a narrow layout); only a runaway one is cut.
NAME_WIDTH = 400


def render_gates(console: Console, report: GateReport) -> None:
    """One row per gate; hard gates marked; a closing line with the overall result."""
    table = FitTable(f"gates: {report.paired_cases} paired cases")
    table.add_column("gate")
    table.add_column("rule", prose=True)
    table.add_column("baseline", "right", drop=2)
    table.add_column("variant", "right", drop=1)
    table.add_column("value", "right")
    table.add_column("threshold", "right")
    table.add_column("result")
    for r in report.results:
        metric = r.gate.metric
        table.add_row(
            Text(clip(r.gate.name, NAME_WIDTH) + (" [hard]" if r.gate.hard else "")),
            Text(f"{r.gate.statistic} {r.gate.rule}"),
            format_value(r.baseline, metric),
            format_value(r.variant, metric),
            # the decision's two numbers at 4 significant digits, one rule for both
            format_number(r.observed),
            format_number(r.threshold),
            Text("pass", style="green") if r.passed else Text("FAIL", style="bold red"),
        )
    console.print(table)
    for r in report.results:
        if not r.passed:
            name, message = clip(r.gate.name, NAME_WIDTH), clip(r.message, 400)
            console.print(f"FAIL {name}: {message}", markup=False)
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
