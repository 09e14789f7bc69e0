"""``pathgrade gate GATES.toml --baseline FILE --variant FILE``: regression gates for CI.

Exit code 0 when every gate passes, 1 when any gate fails, 2 for bad input (sides scored
differently included, unless ``--allow-config-change``: then the text, the JSON, the JUnit XML
(a first ``pathgrade.provenance`` test case and a suite property ``pathgrade.warning``) and
the GitHub summary say so first).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pathgrade.cli.outputs import check_output_file
from pathgrade.cli.provenance import AllowConfigChange, head_lines, json_document, print_head
from pathgrade.core.comparability import Comparability, check_records
from pathgrade.gates import GateReport, evaluate_gates
from pathgrade.io.gates import load_gates
from pathgrade.io.junit import JUnitCase, write_junit
from pathgrade.report.display import clip
from pathgrade.report.github import github_outputs
from pathgrade.store import resolve_results


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


def _junit_cases(report: GateReport, warning: str | None = None) -> list[JUnitCase]:
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


def gate_command(
    gates: Annotated[Path, typer.Argument(help="Gates file (TOML).")],
    baseline: Annotated[
        Path, typer.Option("--baseline", help="Baseline results file or stored run name.")
    ],
    variant: Annotated[
        Path, typer.Option("--variant", help="Variant results file or stored run name.")
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document to stdout.")
    ] = False,
    junit: Annotated[
        Path | None, typer.Option("--junit", help="Also write JUnit XML for CI to this file.")
    ] = None,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", help="Also write a Markdown summary (GitHub step summary)."),
    ] = None,
    allow_config_change: AllowConfigChange = False,
) -> None:
    """Check a variant against a baseline with regression gates; exit 1 if any gate fails."""
    check_output_file(junit, "--junit")
    check_output_file(markdown, "--markdown")
    gate_set = load_gates(gates)
    base_records, var_records = resolve_results(baseline), resolve_results(variant)
    # Provenance before any statistic: sides measured differently are refused.
    check = check_records(
        base_records, var_records, names=(str(baseline), str(variant)), allow=allow_config_change
    )
    changed = check.changed if check.recorded else None
    report = evaluate_gates(gate_set, base_records, var_records, changed=changed)
    warning = check.warning
    for annotation in github_outputs(report, str(gates), markdown, warning=warning):
        print(annotation, file=sys.stderr if as_json else sys.stdout)
    if junit is not None:
        properties = {"pathgrade.warning": warning} if warning else None
        suite = f"pathgrade gates ({gates.name})"
        write_junit(junit, suite, _junit_cases(report, warning), properties)
    if as_json:
        doc = json_document(report.to_dict(), check, variables=True)
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
    else:
        console = Console()
        if not console.is_terminal:
            console = Console(width=160)
        print_head(console, _head(check))
        render_gates(console, report)
    if not report.passed:
        raise typer.Exit(code=1)


def _head(check: Comparability) -> list[str]:
    """The warning and note lines; the changed variables when any changed."""
    return head_lines([check], variables=bool(check.changed))
