"""``pathgrade collect --save NAME [--host 127.0.0.1] [--port 4318] [--sample RATE]``.

An OTLP/HTTP trace receiver (``POST /v1/traces``, protobuf or JSON, gzip) that makes the
received traces runs, scores them with the scores that need no reference and saves them to
the run store in batches named ``NAME.<window>.<batch>`` (docs/production.md), over
:class:`pathgrade.collect.Collector`. It binds to loopback unless ``--host`` says otherwise;
a bearer token, when wanted, comes from ``PATHGRADE_COLLECT_TOKEN`` (never from an option).
SIGTERM or Ctrl-C stops it after saving everything it holds (exit 0); a stop within
``--duration`` seconds is the same. Exit 2: bad input (a port in use, a bad name).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from pathgrade.cli.store_option import StoreOption
from pathgrade.core.errors import InputError

#: CollectConfig's fields -> the options that set them.
_OPTIONS = {
    "sample": "--sample",
    "idle_s": "--idle",
    "flush_s": "--flush",
    "window_s": "--window",
    "max_body": "--max-body",
    "max_pending_spans": "--max-pending",
    "max_spans_per_s": "--max-rate",
}


def collect_command(
    save: Annotated[str, typer.Option("--save", help="Stored runs are named NAME.<window>.<n>.")],
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (4318: OTLP/HTTP's).")] = 4318,
    sample: Annotated[
        float, typer.Option(help="Share of traces kept (by trace id, as TraceIdRatioBased).")
    ] = 1.0,
    config: Annotated[
        Path | None, typer.Option("--config", help="pathgrade.toml for scoring the runs.")
    ] = None,
    store: StoreOption = None,
    spool: Annotated[
        Path | None, typer.Option(help="Spool folder (default: <store>/.collect/NAME).")
    ] = None,
    idle: Annotated[float, typer.Option(help="Seconds without spans that end a trace.")] = 30.0,
    flush: Annotated[float, typer.Option(help="Seconds between saved batches.")] = 5.0,
    window: Annotated[float, typer.Option(help="Seconds of one partition window.")] = 3600.0,
    max_body: Annotated[int, typer.Option(help="Largest request body, bytes.")] = 16 << 20,
    max_pending: Annotated[int, typer.Option(help="Spans held before 503.")] = 200_000,
    max_rate: Annotated[float, typer.Option(help="Spans a second before 429.")] = 50_000.0,
    duration: Annotated[
        float | None, typer.Option(help="Stop by itself after this many seconds.")
    ] = None,
) -> None:
    """Receive OTLP/HTTP traces, score them without references and save them in batches."""
    import logging

    from pathgrade.collect import CollectConfig, Collector
    from pathgrade.collect.config import TOKEN_VARIABLE
    from pathgrade.collect.http import CollectorServer
    from pathgrade.core.fields import FieldError
    from pathgrade.io.config import load_config
    from pathgrade.store.manifest import check_name

    check_name(save)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        settings = CollectConfig(
            name=save,
            store=store,
            spool=spool,
            host=host,
            port=port,
            token=os.environ.get(TOKEN_VARIABLE) or None,
            sample=sample,
            idle_s=idle,
            flush_s=flush,
            window_s=window,
            max_body=max_body,
            max_pending_spans=max_pending,
            max_spans_per_s=max_rate,
        )
    except FieldError as error:  # named as the option that set it
        raise InputError(str(error), field=_OPTIONS.get(error.field, error.field)) from None
    collector = Collector(settings, load_config(config) if config else None)
    try:
        server = CollectorServer(collector)
    except OSError as error:
        raise InputError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    stopping = threading.Event()

    def ask_stop(*_: object) -> None:
        stopping.set()

    previous = {s: signal.signal(s, ask_stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        print(
            f"pathgrade collect: listening on http://{host}:{server.port}/v1/traces",
            file=sys.stderr,
        )
        stopping.wait(duration)
    finally:
        saved = server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    counters = collector.counters
    print(
        f"pathgrade collect: stopped; {counters.spans} span(s) received, {counters.runs} run(s)"
        f" saved in {counters.batches} batch(es) ({saved} at the stop)",
        file=sys.stderr,
    )
