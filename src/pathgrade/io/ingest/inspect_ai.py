"""Inspect AI eval logs: the ``.json`` log (one EvalLog) and the ``.eval`` zip archive.

One run per sample × epoch, in epoch order, then dataset order (``eval.dataset.sample_ids``),
so a ``.json`` log and an ``.eval`` log of the same eval give the same runs in the same order.

==================================  ========================================================
``samples[i].id``                   ``case_id`` (a string or integer sample id, as text)
``epoch`` (1-based)                 ``trial = epoch - 1``
assistant ``tool_calls[j]``         a step: ``function``, ``arguments`` (an object), ``id``
                                    (call id); the calls of one message share a turn
``tool`` message                    the result (``content``) of the call ``tool_call_id``
                                    (else the first open call of that ``function``);
                                    ``error.message`` fails the step
``tool`` event ``working_time``     the step's ``latency_ms``; ``timestamp``/``completed``
                                    its start and end (unix seconds)
``output.completion``               the answer (else the last assistant text)
``scores``                          ``success``: the first scorer (in the log's order) whose
                                    value is a pass or a failure: ``"C"``/``1``/``true``
                                    pass, ``"I"``/``"N"``/``0``/``false`` fail; any other
                                    value (``"P"``, 0.5, a dict) decides nothing. No deciding
                                    scorer and a sample ``error``: a failure. All values are
                                    kept in ``metadata["scores"]``
``model_usage``                     tokens (``total_tokens``, else input + output) and
                                    ``total_cost`` summed over models (else ``output.usage``);
                                    ``input_tokens``/``output_tokens`` summed likewise: the
                                    run's split; the eval's ``model``: ``metadata["model"]``
``total_time`` (seconds)            ``usage.latency_ms``; ``working_time`` in ``metadata``
``uuid``                            ``run_id`` (else ``<id>#epoch<n>``)
==================================  ========================================================

:func:`read_cases`: one case per sample id (its first epoch): ``query`` is the input (a
string, or the first user message's text), ``gold_answer`` the ``target`` (a string, or a
list of acceptable strings), ``metadata`` the task, ``choices`` and the sample's metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.io.ingest._common import (
    At,
    IngestOptions,
    arr,
    head_text,
    json_lines,
    obj,
    read_head,
)
from pathgrade.io.ingest._inspect_sample import (
    SOURCE,
    LogInfo,
    header_of,
    sample_case,
    sample_run,
)
from pathgrade.io.ingest._inspect_zip import (
    HEADER,
    ZIP_MAGIC,
    EvalArchive,
    looks_like_eval,
    sample_name,
)

NAME = SOURCE
_EVAL_KEY = re.compile(r'"eval"\s*:\s*\{')
_BODY_KEY = re.compile(r'"(?:samples|plan)"\s*:')


def sniff(head: bytes | str) -> bool:
    """An ``.eval`` zip (magic bytes and an Inspect member name), or a JSON object with an
    ``"eval"`` object and ``"samples"`` or ``"plan"``."""
    if isinstance(head, bytes) and head.startswith(ZIP_MAGIC):
        return looks_like_eval(head)
    start = head_text(head)
    return bool(_EVAL_KEY.search(start)) and bool(_BODY_KEY.search(start))


def _ranked(log: LogInfo, keys: list[tuple[Any, Any]]) -> list[int]:
    """Positions in epoch order, then dataset order, then file order."""
    return sorted(range(len(keys)), key=lambda i: (*log.rank(*keys[i]), i))


def _from_archive(path: str | Path, options: IngestOptions) -> Iterator[tuple[At, Any, LogInfo]]:
    options.line = None
    with EvalArchive(path) as archive:
        try:
            log = LogInfo.of(header_of(archive.header()), At(archive.where(HEADER), 1))
        except InputError as error:  # no usable header: the file's only error
            options.fail(error)
            return
        names = archive.samples()
        keys = [sample_name(name) or ("", 0) for name in names]
        for index in _ranked(log, keys):
            member = names[index]
            try:
                value = archive.load(member)
            except InputError as error:
                options.fail(error)
                continue
            yield At(archive.where(member), 1), value, log


def _from_json(path: str | Path, options: IngestOptions) -> Iterator[tuple[At, Any, LogInfo]]:
    for line, document in json_lines(path, options):
        at = At(str(path), line)
        try:
            record = obj(document, at, optional=False)
            log = LogInfo.of(record, at)
            samples = arr(record.get("samples"), at.key("samples"))
        except InputError as error:
            options.fail(error)
            continue
        keys = [_key(sample) for sample in samples]
        for index in _ranked(log, keys):
            yield at.key("samples").item(index), samples[index], log


def _key(sample: Any) -> tuple[Any, Any]:
    record: Mapping[str, Any] = sample if isinstance(sample, dict) else {}
    return record.get("id"), record.get("epoch")


def _samples(path: str | Path, options: IngestOptions) -> Iterator[tuple[At, Any, LogInfo]]:
    if read_head(path, len(ZIP_MAGIC)) == ZIP_MAGIC:
        return _from_archive(path, options)
    return _from_json(path, options)


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """One run per sample × epoch of a ``.json`` or ``.eval`` log."""
    options = options or IngestOptions()
    for at, sample, log in _samples(path, options):
        try:
            run = sample_run(sample, at, log, options)
        except InputError as error:
            options.fail(error)
            continue
        yield run


def read_cases(path: str | Path, options: IngestOptions | None = None) -> list[Case]:
    """One case per sample id (the first epoch read wins)."""
    options = options or IngestOptions()
    cases: dict[str, Case] = {}
    for at, sample, log in _samples(path, options):
        try:
            case = sample_case(sample, at, log)
        except InputError as error:
            options.fail(error)
            continue
        cases.setdefault(case.case_id, case)
    return list(cases.values())
