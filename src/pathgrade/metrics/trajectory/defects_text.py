"""Every run's defects list as the JSON text a record holds, built column-wise.

Most defects are step defects: a reference step that never happened (``missing_step``), an
agent step that repeats an earlier call (``wasted_step``) or writes where no reference step
asked for it (``unexpected_write``). Their JSON objects differ only in the penalty, the
call's text and a position, so they are assembled from small tables by Arrow's string
kernels, with no Python object per defect. The rarer defects of a run (the order defect,
missing required tools, budget, forbidden and unrecovered-error defects) come as JSON text
made by the caller (``orjson.dumps`` of their dicts) and are placed after its step defects,
in the order ``Diagnoser.defects`` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pathgrade.core.config import Penalties
from pathgrade.core.results import Defect
from pathgrade.core.types import Step, format_step
from pathgrade.metrics.json_text import join_per_run, text_array, text_piece
from pathgrade.metrics.trajectory.encode import EncodedPaths
from pathgrade.metrics.trajectory.winners import WinnerBatch

IntArray = npt.NDArray[np.int64]

#: Entry kinds, in a run's list order after the position (``WASTED_EARLY``: a wasted
#: premature copy of a later call that the reference counts).
MISSING, WASTED, UNEXPECTED, WASTED_EARLY, MADE = 0, 1, 2, 3, 4

KIND_NAMES = ("missing_step", "wasted_step", "unexpected_write", "wasted_step")


def _heads(penalties: Penalties) -> pa.Array:
    """The text before the call's text, per kind (``MADE``: nothing)."""
    missing = orjson.dumps(penalties.missing_step)
    wasted = orjson.dumps(penalties.wasted_step)
    unexpected = orjson.dumps(penalties.unexpected_write)
    return text_array(
        [
            b'{"kind":"missing_step","penalty":%s,"detail":"reference step ' % missing,
            b'{"kind":"wasted_step","penalty":%s,"detail":"' % wasted,
            b'{"kind":"unexpected_write","penalty":%s,"detail":"' % unexpected,
            b'{"kind":"wasted_step","penalty":%s,"detail":"' % wasted,
            b"",
        ]
    )


_MIDDLES = text_array(
    [
        b' never happened","reference_step":',
        b' repeats an earlier call","agent_step":',
        b' is a write no reference step asked for","agent_step":',
        b' is repeated later, where the reference counts it","agent_step":',
        b"",
    ]
)
_CLOSE = text_array([b"}", b"}", b"}", b"}", b""])


def defects_json_column(
    n_runs: int,
    entry_run: IntArray,
    entry_kind: IntArray,
    entry_pos: IntArray,
    entry_text: IntArray,
    call_texts: list[bytes],
    made_texts: list[bytes],
    penalties: Penalties,
) -> list[bytes]:
    """The JSON text of each of ``n_runs`` runs' defects list (``[]`` for a run without).

    Entry ``e`` belongs to run ``entry_run[e]``; a step defect (``entry_kind`` ``MISSING``,
    ``WASTED`` or ``UNEXPECTED``) is at reference or agent position ``entry_pos[e]`` and
    names the call whose text is the JSON string ``call_texts[entry_text[e]]``; a ``MADE``
    entry is ``made_texts[entry_text[e]]`` (one or more JSON objects, comma-separated).
    A run's entries are written in the order ``(kind != MADE, missing before the others,
    position)``: missing steps by reference position, then wasted and unexpected steps by
    agent position, then its ``MADE`` entry.
    """
    if not entry_run.size:
        return [b"[]"] * n_runs
    made = entry_kind == MADE
    section = np.where(made, 2, np.where(entry_kind == MISSING, 0, 1))
    order = np.lexsort((entry_pos, section, entry_run))
    run, kind = entry_run[order], entry_kind[order]
    pos, text = entry_pos[order], entry_text[order]
    made = made[order]
    # A call's text goes between the quotes of "detail": its JSON string without them.
    strings = text_array([t[1:-1] for t in call_texts] + made_texts)
    text = np.where(made, text + len(call_texts), text)
    top = int(pos.max(initial=0)) + 1
    digits = text_array([b"%d" % k for k in range(top)] + [b""])
    entries = pc.binary_join_element_wise(
        _heads(penalties).take(pa.array(kind)),
        strings.take(pa.array(text)),
        _MIDDLES.take(pa.array(kind)),
        digits.take(pa.array(np.where(made, top, pos))),
        _CLOSE.take(pa.array(kind)),
        text_piece(b""),
    )
    counts = np.bincount(run, minlength=n_runs)
    offsets = np.zeros(n_runs + 1, np.int32)
    np.cumsum(counts, out=offsets[1:])
    return [b"[" + text + b"]" for text in join_per_run(entries, offsets)]


def order_defect(
    partner: list[int],
    premature: list[int],
    agent_text: Sequence[str],
    ref_text: Sequence[str],
    reference: Sequence[Step],
    partial: bool,
    penalty: float,
) -> Defect:
    """The ``out_of_order`` defect of a run whose winning pair is out of order.

    It names the first agent step (in agent order) that ran before a reference step it
    depends on (every earlier reference step in a total order, the steps its ``after`` ids
    name in a partial one) or whose dependency never ran; failing that, the first step made
    before its turn and again later (``premature`` agent positions). ``partner[j]`` is the
    reference position agent step ``j`` was paired with (-1: none).
    """
    made_at = [-1] * len(reference)  # the agent step each reference step was paired with
    for j, i in enumerate(partner):
        if i >= 0:
            made_at[i] = j
    preds: list[list[int]] = []
    if partial:
        ids = {s.id: k for k, s in enumerate(reference) if s.id is not None}
        preds = [[ids[d] for d in s.after] for s in reference]
    for j, i in enumerate(partner):
        if i < 0:
            continue
        for p in preds[i] if partial else range(i):
            if made_at[p] < 0:
                detail = f"{agent_text[j]} ran but {ref_text[p]}, which it depends on, never did"
                return Defect("out_of_order", penalty, detail, j, i)
            if made_at[p] > j:
                detail = f"{agent_text[j]} ran before {ref_text[p]}, which it depends on"
                return Defect("out_of_order", penalty, detail, j, i)
    for j in premature:
        detail = f"{agent_text[j]} ran before its turn and was made again later"
        return Defect("out_of_order", penalty, detail, j)
    return Defect("out_of_order", penalty, "the reference order was not followed")


def run_defects(
    budget_violations: Sequence[tuple[str, float, float]],
    forbidden: Sequence[tuple[int, str]],
    unrecovered: Sequence[int],
    steps: Sequence[Step],
    penalties: Penalties,
) -> list[Defect]:
    """A run's defects that no reference path decides: over budget, forbidden actions and
    errors the agent went on from (``unrecovered`` step positions), in that order."""
    out: list[Defect] = []
    if budget_violations:
        text = "; ".join(
            f"{name} {value:g} > budget {limit:g}" for name, value, limit in budget_violations
        )
        budgets = [v[0] for v in budget_violations]
        out.append(Defect("over_budget", penalties.over_budget, text, extra={"budgets": budgets}))
    for index, reason in forbidden:
        out.append(Defect("forbidden_action", penalties.forbidden_action, reason, index))
    for index in unrecovered:
        failed, after = steps[index], steps[index + 1]
        out.append(
            Defect(
                "unrecovered_error",
                penalties.unrecovered_error,
                f"{format_step(failed)} failed and the agent went on with"
                f" {format_step(after)} (no retry, fallback or stop)",
                index,
            )
        )
    return out


#: What a total-order defect says: a dependency that never ran, one that ran later, a step
#: made before its turn (and again later), or nothing more precise.
NEVER_RAN, RAN_LATER, PREMATURE, UNSPECIFIED = 0, 1, 2, 3


def total_order_violations(
    partner: IntArray, lengths: IntArray, n_ref: int, premature: npt.NDArray[np.bool_]
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """What :func:`order_defect` finds for rows whose reference is in total order, for all
    the rows at once: per row ``(what, agent step j, its reference step i, dependency p)``.

    Row ``r``'s agent step ``j < lengths[r]`` was paired with reference step
    ``partner[r, j]`` (-1: none); ``premature[r]`` flags the steps made before their turn.
    The first agent step (in agent order) with a reference step ``p < i`` that was never
    made (``NEVER_RAN``) or made after it (``RAN_LATER``, the smallest such ``p``); else the
    first premature step (``PREMATURE``); else ``UNSPECIFIED``. Unused entries are -1.
    """
    n_rows, width = partner.shape
    agent = np.arange(width)
    valid = (agent < lengths[:, None]) & (partner >= 0)
    made_at = np.full((n_rows, max(n_ref, 1)), -1, np.int64)  # the (last) step pairing p
    rows, steps = np.nonzero(valid)
    np.maximum.at(made_at, (rows, partner[rows, steps]), steps)
    dependency = np.arange(made_at.shape[1])
    bad: npt.NDArray[np.bool_] = (
        valid[:, :, None]
        & (dependency[None, None, :] < partner[:, :, None])
        & ((made_at[:, None, :] < 0) | (made_at[:, None, :] > agent[None, :, None]))
    )
    step_bad = np.any(bad, axis=2)
    found = np.any(step_bad, axis=1)
    every = np.arange(n_rows)
    j = np.where(found, step_bad.argmax(axis=1), -1)
    p = np.where(found, bad[every, np.maximum(j, 0)].argmax(axis=1), -1)
    i = np.where(found, partner[every, np.maximum(j, 0)], -1)
    never = made_at[every, np.maximum(p, 0)] < 0
    early = ~found & premature.any(axis=1)
    what = np.where(found, np.where(never, NEVER_RAN, RAN_LATER), UNSPECIFIED)
    what = np.where(early, PREMATURE, what)
    j = np.where(early, premature.argmax(axis=1), j)
    return what, j, i, p


def order_defect_json(
    what: int, j: int, i: int, agent_text: bytes, ref_text: bytes, penalty: bytes
) -> bytes:
    """The JSON text of the defect :func:`order_defect` makes, from the ``what, j, i`` of
    :func:`total_order_violations`, the JSON strings of agent step ``j``'s call and of the
    dependency's call, and the penalty's JSON text."""
    head = b'{"kind":"out_of_order","penalty":%s,"detail":"' % penalty
    agent, ref = agent_text[1:-1], ref_text[1:-1]
    if what == NEVER_RAN:
        detail = b"%s ran but %s, which it depends on, never did" % (agent, ref)
    elif what == RAN_LATER:
        detail = b"%s ran before %s, which it depends on" % (agent, ref)
    elif what == PREMATURE:
        return head + b'%s ran before its turn and was made again later","agent_step":%d}' % (
            agent,
            j,
        )
    else:
        return head + b'the reference order was not followed"}'
    return head + detail + b'","agent_step":%d,"reference_step":%d}' % (j, i)


def total_order_texts(
    batches: Sequence[WinnerBatch],
    total_order: Callable[[int], bool],
    agents: EncodedPaths,
    refs: EncodedPaths,
    json_of: Callable[[int], bytes],
    penalty: float,
) -> dict[int, bytes]:
    """The order defect's JSON text of every out-of-order run of ``batches`` whose
    reference is in total order (``total_order(run)``), found for each batch at once;
    ``json_of(code)`` is the JSON string of call ``code``'s text."""
    out: dict[int, bytes] = {}
    penalty_text = orjson.dumps(penalty)
    for batch in batches:
        rows = np.flatnonzero(batch.out_of_order)
        rows = rows[np.fromiter(map(total_order, batch.runs[rows].tolist()), np.bool_, rows.size)]
        if not rows.size:
            continue
        runs = batch.runs[rows]
        what, j, i, p = total_order_violations(
            batch.agent_partner[rows],
            agents.offsets[runs + 1] - agents.offsets[runs],
            batch.ref_missing.shape[1],
            batch.premature[rows],
        )
        agent_call = agents.calls[agents.offsets[runs] + np.maximum(j, 0)]
        ref_call = refs.calls[refs.offsets[batch.ref_paths[rows]] + np.maximum(p, 0)]
        for run, kind, step, ref_step, agent_code, ref_code in zip(
            runs.tolist(),
            what.tolist(),
            j.tolist(),
            i.tolist(),
            agent_call.tolist(),
            ref_call.tolist(),
            strict=True,
        ):
            agent_text = json_of(agent_code) if kind != UNSPECIFIED else b'""'
            ref_text = json_of(ref_code) if kind in (NEVER_RAN, RAN_LATER) else b'""'
            out[run] = order_defect_json(kind, step, ref_step, agent_text, ref_text, penalty_text)
    return out
