"""``pathgrade split CASES --by group|time [FIELD]``: train/dev/test splits without leakage."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathgrade.cli.outputs import check_output_dir
from pathgrade.core.errors import InputError

if TYPE_CHECKING:
    from rich.console import Console


class SplitBy(StrEnum):
    group = "group"
    time = "time"


def _ratios(text: str) -> tuple[float, ...]:
    from pathgrade.stats.splits import validate_ratios

    try:
        return validate_ratios([float(part) for part in text.split(",")])
    except ValueError as error:
        raise InputError(f"{error}", field="--ratios") from None


def split_command(
    cases: Annotated[Path, typer.Argument(help="Cases file (JSONL or JSON array).")],
    field: Annotated[
        str | None,
        typer.Argument(help="Field to split by (default: 'group' for --by group)."),
    ] = None,
    by: Annotated[SplitBy, typer.Option("--by", help="Split by group or by time.")] = SplitBy.group,
    ratios: Annotated[
        str, typer.Option("--ratios", help="train,dev,test (or train,test) shares.")
    ] = "0.7,0.15,0.15",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the group shuffle.")] = 0,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for <split>.jsonl files.")
    ] = None,
    query_field: Annotated[
        str, typer.Option("--query-field", help="Text compared by the leakage check.")
    ] = "query",
    threshold: Annotated[
        float,
        typer.Option("--threshold", min=0, max=100, help="Near-duplicate score (rapidfuzz ratio)."),
    ] = 90.0,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when near-duplicates cross splits.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document to stdout.")
    ] = False,
) -> None:
    """Split cases into train/dev/test so that no group crosses splits; check for leakage."""
    import orjson
    from rich.console import Console

    from pathgrade.io.splits import read_case_objects, write_splits
    from pathgrade.stats.splits import group_split, near_duplicates, split_names, time_split

    check_output_dir(out, "--out")
    shares = _ratios(ratios)
    names = split_names(len(shares))
    loaded = read_case_objects(cases)
    key = field or ("group" if by is SplitBy.group else None)
    if key is None:
        raise InputError("--by time needs the name of the time field, e.g. created_at")
    values: list[Any] = []
    for line, case in loaded:
        value = case.get(key)
        if value is None:
            raise InputError("missing split field", file=str(cases), line=line, field=key)
        values.append(value if by is SplitBy.time else orjson.dumps(value))
    objects = [case for _, case in loaded]
    if by is SplitBy.group:
        assignment = group_split(values, shares, seed)
    else:
        kinds = {type(v) for v in values}
        if not (kinds <= {str} or kinds <= {int, float}):
            raise InputError(
                "time values must be all ISO strings or all numbers", file=str(cases), field=key
            )
        assignment = time_split(values, shares)
    texts = [c.get(query_field) if isinstance(c.get(query_field), str) else None for c in objects]
    leaks = near_duplicates(texts, assignment, threshold)
    sizes = [assignment.count(i) for i in range(len(names))]
    groups = [
        len({repr(v) for v, a in zip(values, assignment, strict=True) if a == i})
        for i in range(len(names))
    ]
    written = write_splits(out, names, objects, assignment) if out is not None else []
    document = {
        "by": by.value,
        "field": key,
        "seed": seed,
        "ratios": dict(zip(names, shares, strict=True)),
        "splits": {name: {"cases": sizes[i], "groups": groups[i]} for i, name in enumerate(names)},
        "files": [str(p) for p in written],
        "leakage": {
            "threshold": threshold,
            "query_field": query_field,
            "pairs": [
                {
                    "case_id": objects[leak.first]["case_id"],
                    "split": names[assignment[leak.first]],
                    "other_case_id": objects[leak.second]["case_id"],
                    "other_split": names[assignment[leak.second]],
                    "score": round(leak.score, 2),
                }
                for leak in leaks
            ],
        },
    }
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        _render(Console(), document)
    if strict and leaks:
        raise typer.Exit(code=1)


def _render(console: Console, document: dict[str, Any]) -> None:
    from pathgrade.report.fit_table import FitTable

    table = FitTable(f"split by {document['by']} '{document['field']}', seed {document['seed']}")
    table.add_column("split")
    for column in ("ratio", "cases", f"{document['field']} values"):
        table.add_column(column, "right")
    for name, size in document["splits"].items():
        ratio = document["ratios"][name]
        table.add_row(name, f"{ratio:g}", str(size["cases"]), str(size["groups"]))
    console.print(table)
    pairs = document["leakage"]["pairs"]
    if pairs:
        console.print(
            f"leakage: {len(pairs)} near-duplicate {document['leakage']['query_field']!r} pair(s)"
            f" across splits (ratio >= {document['leakage']['threshold']:g}):",
            markup=False,
        )
        for pair in pairs[:20]:
            console.print(
                f"  {pair['score']:6.2f}  {pair['case_id']} ({pair['split']})"
                f"  ~  {pair['other_case_id']} ({pair['other_split']})",
                markup=False,
            )
        if len(pairs) > 20:
            console.print(f"  ... {len(pairs) - 20} more (see --json)", markup=False)
    else:
        console.print("leakage: no near-duplicate queries across splits", markup=False)
    for path in document["files"]:
        console.print(f"wrote {path}", markup=False)
