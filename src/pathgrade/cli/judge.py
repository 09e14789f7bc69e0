"""``pathgrade judge`` and ``pathgrade judge-agreement``: fill judged labels; check the judge.

The API key is read from ``PATHGRADE_JUDGE_API_KEY`` only (never an option: command lines are
visible to other users) and is never printed or written: the judged runs, ``--record``,
``--log`` and the summary all pass through the client's
:class:`~pathgrade.judge.redact.Redactor` (the key and the base URL's credentials, in raw,
JSON-escaped and URL-encoded forms), and the base URL is printed without credentials.
Item names and metric names (data) are printed through :func:`pathgrade.report.display.clip`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pathgrade.cli.defaults import ENV_BASE_URL, ENV_MODEL
from pathgrade.cli.outputs import check_output_file
from pathgrade.report.display import clip

if TYPE_CHECKING:
    from rich.console import Console

    from pathgrade.judge.client import JudgeClient
    from pathgrade.judge.config import JudgeConfig
    from pathgrade.judge.fill import FillResult


def _quiet() -> bool:
    return bool(os.environ.get("CI")) or not sys.stderr.isatty()


def _config(offline: bool, **settings: Any) -> JudgeConfig:
    from pathgrade.judge.config import JudgeConfig

    if offline:  # no request is made; the names still enter the keys of recorded verdicts
        settings.setdefault("base_url", None)
        settings.setdefault("model", None)
        if settings["base_url"] is None and not os.environ.get(ENV_BASE_URL):
            settings["base_url"] = "http://offline.invalid"
        if settings["model"] is None and not os.environ.get(ENV_MODEL):
            settings["model"] = "offline"
    return JudgeConfig.from_env(**settings)


async def _run(client: JudgeClient, fill: Any) -> FillResult:
    async with client:
        result: FillResult = await fill()
        return result


def judge_command(
    cases: Annotated[Path, typer.Argument(help="Cases file (JSONL or JSON array).")],
    runs: Annotated[Path, typer.Argument(help="Runs file to judge.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the judged runs.")],
    cache: Annotated[
        Path | None, typer.Option("--cache", help="Verdict cache directory (re-runs are free).")
    ] = None,
    offline: Annotated[
        Path | None,
        typer.Option("--offline", help="Replay recorded verdicts from FILE; make no calls."),
    ] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Write the verdicts to FILE for --offline.")
    ] = None,
    chunks: Annotated[
        Path | None, typer.Option("--chunks", help="Chunk texts: {id, version_id, text} JSONL.")
    ] = None,
    rubric: Annotated[
        Path | None, typer.Option("--rubric", help="Rubric JSON (default: built-in rubric).")
    ] = None,
    no_rubric: Annotated[bool, typer.Option("--no-rubric", help="Grade no rubric.")] = False,
    label_claims: Annotated[
        bool, typer.Option("--label-claims", help="Relabel the claims runs already have.")
    ] = False,
    trajectory: Annotated[
        bool, typer.Option("--trajectory", help="Also grade whole trajectories (separately).")
    ] = False,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", min=1, help="Requests in flight (default 8).")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help=f"Endpoint root (or {ENV_BASE_URL}).")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help=f"Model (or {ENV_MODEL}).")] = None,
    model_version: Annotated[
        str | None, typer.Option("--model-version", help="Version tag for the cache key.")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", min=0.001, help="Seconds each read of an attempt may take."),
    ] = None,
    deadline: Annotated[
        float | None,
        typer.Option("--deadline", min=0.001, help="Seconds one attempt may take in all (60)."),
    ] = None,
    max_response_bytes: Annotated[
        int | None,
        typer.Option("--max-response-bytes", min=1, help="Largest decoded reply body (10 MiB)."),
    ] = None,
    max_retries: Annotated[
        int | None, typer.Option("--max-retries", min=0, help="Retries on 429/5xx/timeouts.")
    ] = None,
    backoff: Annotated[
        float | None, typer.Option("--backoff", min=0, help="First backoff delay in seconds.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Request seed and jitter seed.")] = 0,
    log: Annotated[
        Path | None, typer.Option("--log", help="Write one record per HTTP call (JSONL).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Fill claims, citation entailment, rubric scores and goal success with an LLM judge."""
    import asyncio
    import random

    import orjson
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from pathgrade.io.cases import load_cases, load_runs
    from pathgrade.judge.cache import JudgeCache, Recording
    from pathgrade.judge.client import JudgeClient
    from pathgrade.judge.files import Chunks, load_chunks, write_jsonl, write_runs
    from pathgrade.judge.fill import FillOptions, fill_runs
    from pathgrade.judge.rubric import DEFAULT_RUBRIC, load_rubric
    from pathgrade.judge.summary import summarize

    for path, option in ((out, "--out"), (record, "--record"), (log, "--log")):
        check_output_file(path, option)  # before any judge call, not after
    config = _config(
        offline is not None,
        base_url=base_url,
        model=model,
        model_version=model_version,
        timeout=timeout,
        deadline=deadline,
        max_response_bytes=max_response_bytes,
        max_retries=max_retries,
        backoff_base=backoff,
        concurrency=concurrency,
        seed=seed,
    )
    loaded_cases = load_cases(cases).items
    cases_by_id = {case.case_id: case for case in loaded_cases}
    loaded_runs = load_runs(runs, cases_by_id).items
    options = FillOptions(
        label_claims=label_claims,
        rubric=None if no_rubric else (load_rubric(rubric) if rubric else DEFAULT_RUBRIC),
        trajectory=trajectory,
    )
    client = JudgeClient(
        config,
        cache=JudgeCache(cache) if cache is not None else None,
        recording=Recording.load(offline) if offline is not None else None,
        rng=random.Random(seed),
    )
    texts = load_chunks(chunks) if chunks is not None else Chunks()
    stderr = Console(stderr=True)
    columns = (TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=stderr, disable=_quiet(), transient=True) as progress:
        bar = progress.add_task("judge", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(bar, completed=done, total=total)

        def fill() -> Any:
            return fill_runs(
                cases_by_id, loaded_runs, client, options=options, chunks=texts, on_item=advance
            )

        result = asyncio.run(_run(client, fill))
    redact = client.redactor  # every sink: judged runs, recording, log, summary
    write_runs(out, result.runs, redact)
    if record is not None:
        write_jsonl(record, result.recording(), redact)
    if log is not None:
        write_jsonl(log, [c.to_dict() for o in result.outcomes for c in o.calls], redact)
    document = redact(summarize(cases_by_id, result, client))
    document["output"] = str(out)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        _render(Console(soft_wrap=True), document)


def _render(console: Console, doc: dict[str, Any]) -> None:
    from rich.text import Text

    from pathgrade.judge.summary import OFFLINE_NOTICE
    from pathgrade.report.fit_table import FitTable
    from pathgrade.report.number_text import format_number, format_share, format_value

    if doc["mode"] == "offline":
        console.print(OFFLINE_NOTICE, markup=False, style="bold yellow")
    judge = doc["judge"]
    console.print(
        f"judge {judge['model']} at {judge['base_url']} (temperature {judge['temperature']:g},"
        f" seed {judge['seed']}); prompts {', '.join(doc['prompts']) or '-'}",
        markup=False,
    )
    table = FitTable(f"judged metrics over {doc['runs']} runs")
    table.add_column("metric")
    table.add_column("mean", "right")
    for column, drop in (("n", 3), ("undefined", 2), ("not computed", 1)):
        table.add_column(column, "right", drop=drop)
    for name, row in doc["metrics"].items():
        table.add_row(
            Text(clip(name)), format_value(row["mean"], name), str(row["n"]),
            str(row["undefined"]), str(row["not_computed"]),
        )  # fmt: skip
    console.print(table)
    if doc["judged_trajectory"]["n"]:
        trajectory = doc["judged_trajectory"]
        console.print(
            f"judged trajectory (separate from path metrics): accurate"
            f" {format_share(trajectory['accurate_rate'])} over {trajectory['n']} runs",
            markup=False,
        )
    calls, cache = doc["calls"], doc["cache"]
    line = (
        f"items {doc['items']}: judged {doc['judged']}, judge_error {doc['judge_errors']},"
        f" skipped {len(doc['skipped'])}; requests {calls['requests']}, retries"
        f" {calls['retries']}, repairs {calls['repairs']}; tokens"
        f" {format_number(calls['prompt_tokens'])}+{format_number(calls['completion_tokens'])}"
    )
    if calls["cost"] is not None:
        line += f", cost {format_value(calls['cost'], 'cost')}"
    if cache is not None:
        line += f"; cache hit rate {format_share(cache['hit_rate'])} ({cache['hits']}/"
        line += f"{cache['hits'] + cache['misses']})"
    console.print(line, markup=False)
    for error in doc["errors"][:20]:
        item, message = clip(error["item"]), clip(error["judge_error"], 240)
        console.print(f"  judge_error {item}: {message}", markup=False)
    if len(doc["errors"]) > 20:
        console.print(f"  ... {len(doc['errors']) - 20} more (see --json)", markup=False)
    console.print(f"wrote {doc['output']}", markup=False)


def judge_agreement_command(
    labels: Annotated[Path, typer.Argument(help="Runs file with the experts' labels.")],
    judged: Annotated[Path, typer.Argument(help="Judged runs file (pathgrade judge -o).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Agreement of judge verdicts with expert labels: kappa, alpha, confusion matrices."""
    import orjson
    from rich.console import Console
    from rich.text import Text

    from pathgrade.io.cases import load_runs
    from pathgrade.judge.agreement import judge_agreement
    from pathgrade.report.fit_table import FitTable
    from pathgrade.report.number_text import format_share

    expert_runs = load_runs(labels).items
    judged_runs = load_runs(judged).items
    report = judge_agreement(expert_runs, judged_runs).to_dict()
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
        return
    console = Console(soft_wrap=True)
    table = FitTable("judge agreement with expert labels")
    table.add_column("field")
    for column, drop in (("n", 0), ("missing", 1), ("agreement", 0), ("kappa", 0), ("alpha", 0)):
        table.add_column(column, "right", drop=drop)
    for row in report["fields"]:
        table.add_row(
            Text(clip(row["field"])), str(row["n"]), str(row["missing"]),
            format_share(row["observed_agreement"]), format_share(row["cohen_kappa"]),
            format_share(row["krippendorff_alpha"]),
        )  # fmt: skip
    console.print(table)
    for row in report["fields"]:
        labels_ = row["labels"]
        console.print(f"{clip(row['field'])} (rows expert, columns judge):", markup=False)
        console.print("  " + " ".join(f"{x:>14}" for x in ["", *labels_]), markup=False)
        for name, counts in zip(labels_, row["confusion"], strict=True):
            cells = " ".join(f"{c:>14}" for c in counts)
            console.print(f"  {name:>14} {cells}", markup=False)
        for note in row["notes"]:
            console.print(f"  note: {note}", markup=False)
    if report["unmatched_runs"]:
        console.print(f"{len(report['unmatched_runs'])} labelled run(s) not judged", markup=False)
