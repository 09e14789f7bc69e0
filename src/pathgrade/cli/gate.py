"""``pathgrade gate GATES.toml --baseline FILE --variant FILE``: regression gates for CI.

Exit code 0 when every gate passes, 1 when any gate fails, 2 for bad input (sides scored
differently included, unless ``--allow-config-change``: then the text, the JSON, the JUnit XML
(a first ``pathgrade.provenance`` test case and a suite property ``pathgrade.warning``) and
the GitHub summary say so first).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pathgrade.cli.outputs import check_output_file
from pathgrade.cli.provenance import AllowConfigChange, head_lines, print_head
from pathgrade.cli.store_option import StoreOption


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
    store: StoreOption = None,
    allow_config_change: AllowConfigChange = False,
) -> None:
    """Check a variant against a baseline with regression gates; exit 1 if any gate fails."""
    import orjson
    from rich.console import Console

    from pathgrade.api.gating import gate
    from pathgrade.cli.gate_text import junit_cases, render_gates
    from pathgrade.io.junit import write_junit
    from pathgrade.report.github import github_outputs

    check_output_file(junit, "--junit")
    check_output_file(markdown, "--markdown")
    found = gate(gates, baseline, variant, store=store, allow_config_change=allow_config_change)
    report, check = found.report, found.check
    warning = check.warning
    for annotation in github_outputs(report, str(gates), markdown, warning=warning):
        print(annotation, file=sys.stderr if as_json else sys.stdout)
    if junit is not None:
        properties = {"pathgrade.warning": warning} if warning else None
        suite = f"pathgrade gates ({gates.name})"
        write_junit(junit, suite, junit_cases(report, warning), properties)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(found.to_dict(), option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
    else:
        console = Console()  # COLUMNS, the terminal, else 80: tables fit without cutting
        # The warning and note lines; the changed variables when any changed.
        print_head(console, head_lines([check], variables=bool(check.changed)))
        render_gates(console, report)
    if not report.passed:
        raise typer.Exit(code=1)
