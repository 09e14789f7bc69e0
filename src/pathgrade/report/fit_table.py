"""Terminal tables that never cut a value: the width of every column is chosen here, not by
rich's shrinking (which ends a cell in an ellipsis when the table is too wide).

A column is a **value** column (numbers, names, ids: never wrapped, never cut, always as
wide as its widest cell and its header) or a **prose** column (defect lists, rules: may wrap
between words, never inside one). At the console's width (``COLUMNS``, else the terminal,
else 80) a table is laid out in the first of these that fits:

1. every column at its natural width;
2. prose columns wrapped, each no narrower than its longest word;
3. the same with the least useful columns left out, highest ``drop`` first (then the
   rightmost), saying once under the table which ones (``--json`` has every value);
4. **stacked**: one block per row, its first cell as a heading and ``header  value`` lines
   (nothing is left out).

Cells are rich :class:`~rich.text.Text` or plain strings, which are never markup (traces are
untrusted text).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich import box as boxes
from rich.box import Box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

__all__ = ["FitColumn", "FitTable"]


@dataclass(frozen=True)
class FitColumn:
    """One column: ``drop`` 0 is never left out, higher is left out first; ``prose``
    columns may wrap between words."""

    header: str
    justify: str = "left"
    drop: int = 0
    prose: bool = False


def _text(cell: Text | str | None) -> Text:
    if cell is None:
        return Text("-", style="dim")
    return cell if isinstance(cell, Text) else Text(cell)


def _lines(text: Text) -> list[str]:
    return text.plain.split("\n")


def _natural(text: Text) -> int:
    return max(cell_len(line) for line in _lines(text))


def _longest_word(text: Text) -> int:
    return max((cell_len(word) for line in _lines(text) for word in line.split()), default=0)


class FitTable:
    """A table laid out to fit its console (module docstring); print it like any renderable."""

    def __init__(
        self,
        title: str | Text | None = None,
        *,
        caption: str | Text | None = None,
        box: Box | None = boxes.SIMPLE_HEAD,
        compact: bool = True,
        show_header: bool = True,
    ) -> None:
        self.title = title
        self.show_header = show_header
        self.caption = caption
        self.box = box
        self.compact = compact  # no outer edge or edge padding (as the summary tables)
        self.columns: list[FitColumn] = []
        self.rows: list[tuple[list[Text], str | None, bool]] = []

    def add_column(
        self, header: str, justify: str = "left", *, drop: int = 0, prose: bool = False
    ) -> None:
        self.columns.append(FitColumn(header, justify, drop, prose))

    def add_row(
        self, *cells: Text | str | None, style: str | None = None, end_section: bool = False
    ) -> None:
        """One row; fewer cells than columns are padded with empty ones."""
        if len(cells) > len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells in a table of {len(self.columns)}")
        padded = [*cells, *([""] * (len(self.columns) - len(cells)))]
        self.rows.append(([_text(c) for c in padded], style, end_section))

    # -- layout -----------------------------------------------------------------------
    def _cells(self, k: int) -> Iterable[Text]:
        if self.show_header:
            yield Text(self.columns[k].header)
        for cells, _, _ in self.rows:
            yield cells[k]

    def _bounds(self, k: int) -> tuple[int, int]:
        """(narrowest, natural) width of column ``k``."""
        natural = max((_natural(t) for t in self._cells(k)), default=1)
        if not self.columns[k].prose:
            return natural, natural
        return max(1, max((_longest_word(t) for t in self._cells(k)), default=1)), natural

    def _table(self, kept: Sequence[int], widths: Sequence[int], bare: bool = False) -> Table:
        table = Table(
            # a str title or caption is text, never markup (it may carry case data)
            title=None if bare or self.title is None else _text(self.title),
            caption=None if bare or self.caption is None else _text(self.caption),
            box=self.box,
            show_edge=not self.compact,
            pad_edge=not self.compact,
            show_header=self.show_header,
        )
        for k, width in zip(kept, widths, strict=True):
            column = self.columns[k]
            table.add_column(
                column.header,
                justify=column.justify,  # type: ignore[arg-type]
                width=width,
                no_wrap=not column.prose,
                overflow="fold",
            )
        for cells, style, end in self.rows:
            table.add_row(*(cells[k] for k in kept), style=style, end_section=end)
        return table

    def _chrome(self, console: Console, options: ConsoleOptions, kept: Sequence[int]) -> int:
        """The width the table's padding and rules take around ``kept`` columns."""
        probe = self._table(kept, [1] * len(kept), bare=True)
        return Measurement.get(console, options, probe).maximum - len(kept)

    def _widths(self, budget: int, bounds: Sequence[tuple[int, int]]) -> list[int] | None:
        """Column widths within ``budget`` (prose columns shrunk, none below its longest
        word), or None when even the narrowest do not fit."""
        if sum(natural for _, natural in bounds) <= budget:
            return [natural for _, natural in bounds]
        if sum(low for low, _ in bounds) > budget:
            return None
        widths = [low for low, _ in bounds]
        spare = budget - sum(widths)
        room = [natural - low for low, natural in bounds]
        total = sum(room)
        for k, extra in enumerate(room):
            share = spare * extra // total if total else 0
            widths[k] += share
        leftover = budget - sum(widths)
        for k in range(len(widths)):  # the rounding remainder, first prose column first
            add = min(leftover, bounds[k][1] - widths[k])
            widths[k] += add
            leftover -= add
        return widths

    def layout(self, console: Console, options: ConsoleOptions) -> tuple[list[int], list[int]]:
        """The kept columns and their widths at ``options.max_width`` (empty: stacked)."""
        kept = list(range(len(self.columns)))
        bounds = [self._bounds(k) for k in kept]  # of every column, read once
        while kept:
            budget = options.max_width - self._chrome(console, options, kept)
            widths = self._widths(budget, [bounds[k] for k in kept])
            if widths is not None:
                return kept, widths
            droppable = [k for k in kept if self.columns[k].drop > 0]
            if not droppable:
                break
            kept.remove(max(droppable, key=lambda k: (self.columns[k].drop, k)))
        return [], []

    # -- rendering --------------------------------------------------------------------
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.columns:
            return
        kept, widths = self.layout(console, options)
        if not kept:
            yield from self._stacked()
            return
        yield self._table(kept, widths)
        left_out = [self.columns[k].header for k in range(len(self.columns)) if k not in kept]
        if left_out:
            yield Text(
                f"not shown at {options.max_width} columns: {', '.join(left_out)} (see --json)",
                style="dim",
            )

    def _stacked(self) -> RenderResult:
        """One block per row: the first cell, then ``header  value`` lines."""
        if self.title is not None:
            yield _text(self.title) if isinstance(self.title, str) else self.title
        width = max(cell_len(c.header) for c in self.columns[1:]) if len(self.columns) > 1 else 0
        for cells, style, _ in self.rows:
            yield Text.assemble(cells[0], style=style or "bold")
            for column, cell in zip(self.columns[1:], cells[1:], strict=True):
                for n, line in enumerate(cell.split("\n")):
                    label = column.header if n == 0 else ""
                    yield Text.assemble(f"  {label:<{width}}  ", line)
        if self.caption is not None:
            yield _text(self.caption) if isinstance(self.caption, str) else self.caption
