"""Plain-text renderings of cases and runs for judge prompts (no I/O, no network)."""

from __future__ import annotations

from pathgrade.core.types import Case, Run, format_step
from pathgrade.judge.files import Chunks
from pathgrade.metrics.answer.grounding import gold_evidence_ids
from pathgrade.metrics.trajectory.grammar import written_step


def gold_answer_text(case: Case) -> str | None:
    """The gold answers joined by `` | ``; None without one."""
    golds = case.gold_answers()
    return " | ".join(golds) if golds else None


def gold_evidence_text(case: Case, chunks: Chunks) -> str | None:
    """``[id] text`` per gold evidence chunk (ids graded above 0); None without evidence."""
    if case.gold_evidence is None:
        return None
    lines = []
    for chunk_id in sorted(gold_evidence_ids(case.gold_evidence)):
        text = chunks.any_text(chunk_id)
        lines.append(f"[{chunk_id}] {text if text is not None else '(text not provided)'}")
    return "\n".join(lines) or None


def context_text(run: Run, chunks: Chunks) -> str | None:
    """``[id@version] text`` per context unit shown, in order; None without a context."""
    if run.context is None:
        return None
    lines = []
    for unit in run.context:
        name = unit.id if unit.version_id is None else f"{unit.id}@{unit.version_id}"
        text = chunks.text(unit.id, unit.version_id)
        lines.append(f"[{name}] {text if text is not None else '(text not provided)'}")
    return "\n".join(lines)


def steps_text(run: Run, limit: int = 300) -> str:
    """Numbered steps, each with its error or its (cut) output."""
    lines = []
    for number, step in enumerate(run.steps, start=1):
        line = f"{number}. {format_step(step)}"
        if step.error:
            line += f" -> error: {step.error}"
        elif step.output is not None:
            shown = step.output if isinstance(step.output, str) else repr(step.output)
            line += f" -> {shown[:limit]}{'...' if len(shown) > limit else ''}"
        lines.append(line)
    return "\n".join(lines) or "(no steps)"


def references_text(case: Case) -> str | None:
    """The case's reference paths, one line each, as written (path grammar included:
    :func:`~pathgrade.metrics.trajectory.grammar.written_step`); None without one."""
    paths = case.reference_paths()
    if not paths:
        return None
    return "\n".join(
        f"path {i}: " + " ; ".join(written_step(s) for s in path) for i, path in enumerate(paths)
    )
