"""report/fit_table.py: a table never cuts a value at any width; it leaves out the least
useful columns first (naming them), else stacks; prose wraps between words only."""

from __future__ import annotations

import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from pathgrade.report.fit_table import FitTable


def _render(table: FitTable, width: int) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(table)
    return buffer.getvalue()


def _table() -> FitTable:
    table = FitTable("Summary")
    table.add_column("metric")
    table.add_column("mean", "right")
    table.add_column("runs", "right", drop=2)
    table.add_column("undefined", "right", drop=1)
    table.add_column("note", prose=True)
    table.add_row("required_tool_coverage", "0.750", "4", "4", "one two three")
    table.add_row("latency_ms", "6,050", "2", "6", "-")
    return table


def test_wide_enough_every_column_at_its_natural_width() -> None:
    text = _render(_table(), 160)
    assert "not shown" not in text
    row = next(line for line in text.splitlines() if line.startswith("required_tool_coverage"))
    assert row.split() == ["required_tool_coverage", "0.750", "4", "4", "one", "two", "three"]


def test_prose_wraps_before_anything_is_left_out() -> None:
    # natural: 22 + 5 + 4 + 9 + 13 = 53 and 4 gaps of 3: 65; at 60 the note wraps to 8
    text = _render(_table(), 60)
    assert "not shown" not in text
    assert any(line.rstrip().endswith("one two") for line in text.splitlines())


def test_the_highest_drop_goes_first_and_is_named() -> None:
    # the narrowest, note at its longest word (5): 22 + 5 + 4 + 9 + 5 + 4 gaps of 3 = 57;
    # without runs (drop 2) 50, without undefined (drop 1) too 38
    text = _render(_table(), 50)
    assert "not shown at 50 columns: runs (see --json)" in text
    text = _render(_table(), 44)
    assert "not shown at 44 columns: runs, undefined (see --json)" in " ".join(text.split())
    assert "6,050" in text and "required_tool_coverage" in text


def test_too_narrow_for_the_kept_columns_stacks_every_row() -> None:
    text = _render(_table(), 30)
    assert "not shown" not in text
    lines = text.splitlines()
    at = lines.index("latency_ms")
    assert [line.split() for line in lines[at + 1 : at + 5]] == [
        ["mean", "6,050"],
        ["runs", "2"],
        ["undefined", "6"],
        ["note", "-"],
    ]


def test_cells_are_never_markup() -> None:
    table = FitTable()
    table.add_column("id")
    table.add_row("[bold]x[/bold]")
    assert "[bold]x[/bold]" in _render(table, 80)


def test_titles_and_captions_are_never_markup() -> None:
    # A title may carry case data (split's field name): text, in the wide and stacked forms.
    table = FitTable("split by [red]field[/red]", caption="[b]c[/b]")
    table.add_column("split")
    table.add_column("cases", "right")
    table.add_row("train", "12")
    text = _render(table, 80)
    # as markup, "[red]" and "[b]" would be styles and vanish from the text
    assert "[red]" in text and "[/r" in text and "[b]c[/b]" in text, text


VALUE = st.from_regex(r"[A-Za-z0-9_.,:+\-]{1,18}", fullmatch=True)
WORDS = st.lists(st.from_regex(r"[a-z0-9@\-]{1,12}", fullmatch=True), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(0, 2),
    st.lists(st.data(), min_size=1, max_size=5),
    st.integers(40, 200),
)
def test_no_value_is_ever_cut(
    values: int, prose: int, rows: list[st.DataObject], width: int
) -> None:
    # Random tables at random widths: no ellipsis, no line wider than the console, every
    # value cell whole on one line and every prose word whole (unless its column is named
    # as left out).
    table = FitTable("t")
    for k in range(values):
        table.add_column(f"v{k}", "right" if k else "left", drop=k % 3)
    for k in range(prose):
        table.add_column(f"p{k}", prose=True, drop=(k + 1) % 2)
    drawn = []
    for data in rows:
        cells = [data.draw(VALUE) for _ in range(values)]
        cells += [" ".join(data.draw(WORDS)) for _ in range(prose)]
        table.add_row(*cells)
        drawn.append(cells)
    text = _render(table, width)
    assert "…" not in text
    assert all(len(line) <= width for line in text.splitlines())
    found = re.search(r"not shown at \d+ columns:\s+(.*?)\s+\(see", text, re.S)
    left_out = {h.strip() for h in found.group(1).split(",")} if found else set()
    tokens = set(text.split())
    for cells in drawn:
        for k, cell in enumerate(cells):
            header = f"v{k}" if k < values else f"p{k - values}"
            if header in left_out:
                continue
            assert all(word in tokens for word in cell.split()), (cell, text)
