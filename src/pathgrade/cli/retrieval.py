"""``pathgrade retrieval QRELS RUN``: retrieval metrics of a run against qrels (TREC or JSONL)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from pathgrade.metrics.retrieval import RetrievalResult

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10", "hit_rate@10")


def _render(console: Console, result: RetrievalResult, per_query: bool) -> None:
    from rich.text import Text

    from pathgrade.report.display import clip
    from pathgrade.report.fit_table import FitTable
    from pathgrade.report.number_text import format_value

    if per_query:
        table = FitTable("per query")
        table.add_column("query")
        for metric in result:
            table.add_column(metric.name, "right")
        names = [metric.name for metric in result]
        for qid, row in result.per_query().items():
            values = (format_value(v, n) for n, v in zip(names, row.values(), strict=True))
            table.add_row(Text(clip(qid)), *values)
        console.print(table)
    summary = FitTable(f"retrieval: {len(result.query_ids)} queries")
    summary.add_column("metric")
    summary.add_column("macro", "right")
    summary.add_column("micro", "right", drop=1)
    for column, drop in (("scored", 4), ("no gold", 2), ("skipped", 3)):
        summary.add_column(column, "right", drop=drop)
    for metric in result:
        summary.add_row(
            metric.name,
            format_value(metric.mean, metric.name),
            format_value(metric.micro, metric.name),
            str(metric.scored),
            str(metric.no_gold),
            str(metric.skipped),
        )
    console.print(summary)
    notes = [
        f"missing in run (scored 0): {len(result.missing_in_run)}",
        f"run queries not in qrels (ignored): {len(result.not_in_gold)}",
        f"duplicate documents removed: {result.duplicates_removed}",
    ]
    console.print("; ".join(notes), markup=False)


def retrieval_command(
    qrels: Annotated[Path, typer.Argument(help="Qrels: TREC 'qid iter doc rel' or JSONL.")],
    run: Annotated[Path, typer.Argument(help="Run: TREC 'qid Q0 doc rank score tag' or JSONL.")],
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "-m",
            "--metric",
            help="Metric spec, repeatable: ndcg@10, map, ap@5(denominator=gold), ...",
        ),
    ] = None,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="Also show one row per query.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document to stdout.")
    ] = False,
    parent_map: Annotated[
        Path | None,
        typer.Option("--parent-map", help="'chunk_id parent_id' lines: count parents once."),
    ] = None,
) -> None:
    """Retrieval metrics of RUN against QRELS, trec_eval-compatible (see docs/retrieval.md)."""
    import orjson

    from pathgrade.io.trec import read_parent_map, read_qrels_columns, read_run_columns
    from pathgrade.metrics.retrieval.batch_columns import from_columns
    from pathgrade.metrics.retrieval.evaluate import evaluate_batch, resolve_all

    specs = resolve_all(list(metric) if metric else list(DEFAULT_METRICS))
    gold = read_qrels_columns(qrels)  # vectorised: pathgrade.io.trec_columns
    run_file = read_run_columns(run)
    parents = read_parent_map(parent_map) if parent_map is not None else None
    # Duplicates in the run file were resolved when reading (first occurrence in rank order).
    result = evaluate_batch(from_columns(gold, run_file.columns, parent_of=parents), specs)
    duplicates = run_file.duplicates + result.duplicates_removed
    if as_json:
        document: dict[str, Any] = result.to_dict()
        document["duplicates_removed"] = duplicates
        document["options"] = {
            "ties": "score descending, then doc id descending (trec_eval)",
            "duplicates": "first occurrence kept",
            "parent_map": None if parent_map is None else str(parent_map),
            "missing_in_run": "scored 0 and counted (trec_eval -c)",
        }
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
        return
    from rich.console import Console

    console = Console()
    _render(console, result, per_query)
    if run_file.duplicates:
        console.print(
            f"{run_file.duplicates} duplicate (query, doc) lines in {run}: first kept",
            markup=False,
        )
