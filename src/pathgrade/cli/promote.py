"""``pathgrade cases promote NAME --where SQL``: chosen stored runs become draft cases,
redacted, their reference the observed path marked unreviewed
(:func:`pathgrade.production.promote`; docs/production.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pathgrade.cli.store_option import StoreOption


def promote_command(
    name: Annotated[str, typer.Argument(help="Stored run name (pathgrade runs list).")],
    where: Annotated[
        str,
        typer.Option(
            "--where",
            help="SQL condition over the runs view, e.g. '\"metrics.goal_success\" = false'"
            " or 'penalty_total > 0' (columns: pathgrade runs query 'DESCRIBE runs').",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Draft cases JSONL (default: standard output)."),
    ] = None,
    runs: Annotated[
        Path | None,
        typer.Option(
            "--runs",
            help="The runs file that was scored: full content (turns, metadata, uncut"
            " outputs) instead of the store's trace excerpt; needed for runs stored from a"
            " results file.",
        ),
    ] = None,
    cases: Annotated[
        Path | None,
        typer.Option("--cases", help="The cases file: each draft keeps its case's fields."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Config with a [redact] table (default: pathgrade.toml, else pyproject.toml).",
        ),
    ] = None,
    redact_field: Annotated[
        list[str] | None,
        typer.Option(
            "--redact-field",
            help="A JSON key whose values are replaced whole (repeatable; added to [redact]"
            " fields).",
        ),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write a draft case per selected run: new case_id, the run's user input as query, its
    observed path as reference with metadata.reference_status = "unreviewed", its defects
    in metadata.promoted. Emails, phones, card numbers, keys and tokens (and the named
    fields) are replaced by placeholders before anything is written."""
    import orjson

    from pathgrade.core.errors import InputError
    from pathgrade.io.cases import load_cases, load_runs
    from pathgrade.io.ingest.writing import write_lines
    from pathgrade.io.redaction import load_redact_settings
    from pathgrade.production.promote import promote

    settings = load_redact_settings(config)
    by_id = None
    if cases is not None:
        by_id = {case.case_id: case for case in load_cases(cases).items}
    loaded_runs = None if runs is None else list(load_runs(runs).items)
    try:
        promoted = promote(
            name,
            where,
            store=store,
            runs=loaded_runs,
            cases=by_id,
            fields=(*settings.fields, *(redact_field or ())),
            kinds=settings.kinds,
        )
    except InputError as error:
        if error.field == "runs" and runs is not None:
            raise error.at(file=str(runs)) from None
        raise
    records = (
        orjson.dumps(case.model_dump(mode="json", by_alias=True, exclude_defaults=True))
        for case in promoted.cases
    )
    written = write_lines(records, None if out is None else str(out), "draft cases")
    replaced = ", ".join(f"{n} {kind}" for kind, n in sorted(promoted.redacted.items()))
    print(
        f"{written} draft cases (reference unreviewed); redacted: {replaced or 'nothing'}",
        file=sys.stderr,
    )
