"""Gate results for GitHub Actions: a Markdown summary and ``::error`` annotations.

``pathgrade gate`` appends the summary to ``$GITHUB_STEP_SUMMARY`` and prints one annotation
per failed gate when ``GITHUB_ACTIONS`` is set (or writes the summary to ``--markdown``).
A provenance ``warning`` (sides scored differently, compared with ``--allow-config-change``)
is the summary's first line and a ``::warning`` annotation.
Gate names and messages can carry user text: Markdown table cells are escaped, and workflow
commands are encoded as GitHub specifies (``%``, CR and LF; also ``:`` and ``,`` in
properties), so no text can end an annotation early or inject another command; direction
controls are shown as their escape (:func:`pathgrade.report.display.visible`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pathgrade.gates import GateReport
from pathgrade.report.display import visible
from pathgrade.report.markdown import md_cell as _cell
from pathgrade.report.markdown import publish
from pathgrade.report.number_text import format_number, format_value


def gate_markdown(
    report: GateReport, title: str = "pathgrade gates", warning: str | None = None
) -> str:
    """A Markdown summary: the ``warning`` (first line), overall verdict, one row per gate."""
    failed = [r for r in report.results if not r.passed]
    verdict = (
        f"all {len(report.results)} gate(s) passed"
        if not failed
        else f"{len(failed)} of {len(report.results)} gate(s) failed"
        f" ({len(report.hard_failures)} hard)"
    )
    lines = [f"> ⚠️ **{_cell(warning)}**", ""] if warning else []
    lines += [
        f"### {_cell(title)}: {'✅' if not failed else '❌'} {verdict}",
        "",
        f"{report.paired_cases} paired cases"
        + (f", {report.unpaired_cases} on one side only" if report.unpaired_cases else ""),
        "",
        "| gate | rule | baseline | variant | value | threshold | result |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in report.results:
        name = _cell(r.gate.name) + (" **[hard]**" if r.gate.hard else "")
        sides = [format_value(v, r.gate.metric) for v in (r.baseline, r.variant)]
        lines.append(
            f"| {name} | {_cell(f'{r.gate.statistic} {r.gate.rule}')} |"
            f" {sides[0]} | {sides[1]} |"
            f" {format_number(r.observed)} | {format_number(r.threshold)} |"
            f" {'pass' if r.passed else '**FAIL**'} |"
        )
    if failed:
        lines += ["", *(f"- **{_cell(r.gate.name)}**: {_cell(r.message)}" for r in failed)]
    return "\n".join(lines) + "\n"


def _data(text: str) -> str:
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def gate_annotations(report: GateReport, file: str | None = None) -> list[str]:
    """One ``::error`` workflow command per failed gate."""
    where = f"file={_property(file)}," if file else ""
    return [
        f"::error {where}title={_property('pathgrade gate: ' + r.gate.name)}::{_data(r.message)}"
        for r in report.results
        if not r.passed
    ]


def github_outputs(
    report: GateReport,
    gates_file: str,
    markdown: Path | None = None,
    environ: Mapping[str, str] | None = None,
    warning: str | None = None,
) -> list[str]:
    """Write the Markdown summary where asked; return the annotation lines to print.

    ``markdown`` is written (replaced); under GitHub Actions (``GITHUB_ACTIONS=true``) the
    summary is also appended to ``$GITHUB_STEP_SUMMARY`` and annotations are returned.
    """
    env: Mapping[str, Any] = os.environ if environ is None else environ
    text = gate_markdown(report, f"pathgrade gates ({Path(gates_file).name})", warning)
    publish(text, markdown, env)
    if env.get("GITHUB_ACTIONS") != "true":
        return []
    notes = [f"::warning title={_property('pathgrade gate')}::{_data(warning)}"] if warning else []
    return notes + gate_annotations(report, gates_file)
