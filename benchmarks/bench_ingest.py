"""Ingest speed on a large OTLP/JSON file: this checkout against a base commit, same run.

Writes one OTLP/JSON Lines file of about ``--mb`` MB (default 100) by repeating the traces of
recorded producer files (``tests/golden/ingest/producers``: OpenInference LangGraph, OTel GenAI
openai-v2 spans, Strands with span events; and the openai-v2 spans alone), each copy with
its own trace ids, then reads it
to runs in fresh processes, alternating base and head (base, head, head, base, ...), and
prints the best wall time of each and the ratio base / head (above 1: head is faster), with
the load average. The base is checked out into a temporary worktree.

Run: ``python benchmarks/bench_ingest.py BASE_REF [--mb 100] [--rounds 4] [--dir DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCERS = ROOT / "tests" / "golden" / "ingest" / "producers"
#: label -> (format, files repeated into its big file).
SOURCES = {
    "openinference": ("openinference", ["openinference_langgraph_otlp.jsonl"]),
    "otel-genai": ("otel-genai", ["otel_openai_v2_spans.jsonl", "strands_otel.jsonl"]),
    "otel-openai-v2": ("otel-genai", ["otel_openai_v2_spans.jsonl"]),
}
READ = (
    "import sys, time; from pathgrade.io.ingest import FORMATS; t = time.perf_counter();"
    " n = sum(1 for _ in FORMATS[sys.argv[2]].read(sys.argv[1], None));"
    " print(n, time.perf_counter() - t)"
)


def write_big(label: str, target: Path, megabytes: float) -> int:
    """The big file of one source; returns its number of traces."""
    lines = [
        line
        for name in SOURCES[label][1]
        for line in (PRODUCERS / name).read_text().splitlines()
        if line.strip()
    ]
    size, copy, traces = 0, 0, 0
    with target.open("w") as out:
        while size < megabytes * 1e6:
            copy += 1
            for line in lines:
                text = line
                for trace in {s["traceId"] for s in _spans(json.loads(line))}:
                    text = text.replace(trace, f"{copy:08x}{trace[8:]}")
                out.write(text + "\n")
                size += len(text) + 1
                traces += 1
    return traces


def _spans(record: dict[str, object]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for resource in record.get("resourceSpans", []):  # type: ignore[attr-defined]
        for scope in resource.get("scopeSpans", []):
            out.extend(scope.get("spans", []))
    return out


def timed(src: Path, path: Path, fmt: str) -> tuple[int, float]:
    env = dict(os.environ, PYTHONPATH=str(src))
    done = subprocess.run(
        [sys.executable, "-c", READ, str(path), fmt],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    runs, seconds = done.stdout.split()
    return int(runs), float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    work = Path(args.dir or tempfile.mkdtemp(prefix="pathgrade-ingest-"))
    work.mkdir(parents=True, exist_ok=True)
    base = work / "base"
    if not base.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
            check=True,
            capture_output=True,
        )
    print(f"load average {os.getloadavg()[0]:.2f}; base {args.base}; {args.mb:g} MB per file")
    print(f"{'format':<14} {'traces':>7} {'base s':>8} {'head s':>8} {'base/head':>9}")
    for label, (fmt, _) in SOURCES.items():
        path = work / f"{label}.jsonl"
        traces = write_big(label, path, args.mb)
        best = {"base": float("inf"), "head": float("inf")}
        counts = {}
        for i in range(args.rounds):
            order = ("base", "head") if i % 2 == 0 else ("head", "base")
            for which in order:
                src = base / "src" if which == "base" else ROOT / "src"
                counts[which], seconds = timed(src, path, fmt)
                best[which] = min(best[which], seconds)
        if counts["base"] != counts["head"]:
            print(f"  {label}: base read {counts['base']} runs, head {counts['head']}")
        ratio = best["base"] / best["head"]
        print(f"{label:<14} {traces:>7} {best['base']:>8.2f} {best['head']:>8.2f} {ratio:>8.2f}x")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
