"""The table ``benchmarks/ab.py`` prints (and its ``--json``): one row a benchmark."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class _Sample(Protocol):
    cpu: float
    wall: float
    items: int


@dataclass
class Row:
    name: str
    unit: str
    size: int
    samples: dict[str, list[Any]]  # side -> ab.Sample

    def best(self, side: str) -> _Sample:
        return min(self.samples[side], key=lambda s: s.cpu)

    @property
    def ratio(self) -> float:
        head = self.best("head").cpu
        return self.best("base").cpu / head if head > 0 else float("inf")

    def spread(self, side: str) -> float:
        """Largest over smallest CPU time of ``side``'s processes, minus 1 (a noise gauge)."""
        cpus = [s.cpu for s in self.samples[side]]
        return max(cpus) / min(cpus) - 1 if min(cpus) > 0 else 0.0


def _seconds(value: float) -> str:
    return f"{value * 1000:,.1f} ms" if value < 1 else f"{value:,.3f} s"


def _rate(row: Row) -> str:
    if not row.unit:
        return "-"
    return f"{row.size / row.best('head').cpu:,.0f} {row.unit}/s"


def render(
    *,
    base: str,
    head: str,
    rows: list[Row],
    load: tuple[tuple[float, float, float], tuple[float, float, float]],
    settings: str,
    rerun: list[str],
    failed: list[str],
    fail_below: float | None,
) -> str:
    """The A/B table, plain text (CI logs), with its header and verdict lines."""
    header = ("benchmark", "size", "base CPU", "head CPU", "head/base", "head rate", "spread")
    body = [
        (
            row.name,
            f"{row.size:,} {row.unit}".strip() if row.unit else "-",
            _seconds(row.best("base").cpu),
            _seconds(row.best("head").cpu),
            f"{row.ratio:.2f}x",
            _rate(row),
            f"{max(row.spread('base'), row.spread('head')) * 100:.0f}%",
        )
        for row in rows
    ]
    widths = [max(len(r[i]) for r in (header, *body)) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        first = cells[0].ljust(widths[0])
        return "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    before, after = load
    out = [
        f"A/B  base {base}",
        f"     head {head}",
        f"     {settings}; CPU seconds decide; head/base above 1 = head faster",
        f"     load average {before[0]:.2f} {before[1]:.2f} {before[2]:.2f} before,"
        f" {after[0]:.2f} {after[1]:.2f} {after[2]:.2f} after",
        "",
        line(header),
        *(line(r) for r in body),
    ]
    if rerun:
        out.append(f"re-run once (below {fail_below}): {', '.join(rerun)}")
    if fail_below is not None:
        out.append(
            f"FAILED: below {fail_below} after a re-run: {', '.join(failed)}"
            if failed
            else f"passed: every ratio at least {fail_below}"
        )
    return "\n".join(out)


def as_json(rows: list[Row]) -> list[dict[str, Any]]:
    return [
        {
            "benchmark": row.name,
            "size": row.size,
            "unit": row.unit,
            "ratio": row.ratio,
            **{
                f"{side}_{key}": [getattr(s, key) for s in row.samples[side]]
                for side in ("base", "head")
                for key in ("cpu", "wall")
            },
        }
        for row in rows
    ]
