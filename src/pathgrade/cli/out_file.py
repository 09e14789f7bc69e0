"""``pathgrade score --out FILE``: the results file is written whole, or kept as ``.partial``.

Both scoring paths (in memory and partitioned) write through :func:`staged_out`
(:class:`pathgrade.io.results.staged.StagedOutput`): ``FILE`` appears only when every
result is in it. On an input error the error says how many results were kept and where; on
Ctrl-C, a killed worker or any other failure one line on stderr says so, and the failure
goes on as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from pathgrade.core.errors import InputError
from pathgrade.io.results.staged import StagedOutput


def _kept(output: StagedOutput, kept: Path | None) -> str:
    if output.direct:
        return f"{output.count:,} result(s) were written to {output.target} (incomplete)"
    if kept is None:
        return f"no result was written; {output.target} was left as it was"
    return (
        f"{output.count:,} computed result(s) kept in {kept} (incomplete);"
        f" {output.target} was left as it was"
    )


@contextmanager
def staged_out(out: Path) -> Iterator[StagedOutput]:
    """An open :class:`StagedOutput` for ``out``, committed when the block ends normally and
    abandoned (partial results kept, and said) when it raises."""
    output = StagedOutput(out)
    try:
        yield output
    except InputError as error:
        kept = output.abandon()
        raise InputError(
            f"{error.message} ({_kept(output, kept)})",
            file=error.file,
            line=error.line,
            field=error.field,
        ) from None
    except BaseException as error:
        kept = output.abandon()
        what = "interrupted" if isinstance(error, KeyboardInterrupt) else "scoring failed"
        message = f"pathgrade: {what}: {_kept(output, kept)}"
        Console(stderr=True).print(message, markup=False, soft_wrap=True)
        raise
    output.commit()


def write_out(out: Path, chunks: Iterable[bytes]) -> int:
    """Write JSONL ``chunks`` to ``out`` through :func:`staged_out`; the number of records."""
    with staged_out(out) as output:
        for chunk in chunks:
            output.write(chunk)
    return output.count
