"""The long-path kernels (band alignment, sort-based matching, twins) against the dense
kernels and the executable definition, on paths of up to 300 steps; each on both of its
paths: the numba kernels (``compiled=True``) and the NumPy passes (the fallback)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import numpy as np
import numpy.typing as npt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest import mark

from pathgrade import Case, Run, ScoringConfig, Step
from pathgrade.metrics.trajectory import batching
from pathgrade.metrics.trajectory.align import OP_DELETE, OP_INSERT, OP_PAIR, align
from pathgrade.metrics.trajectory.assignment import first_fit_matching
from pathgrade.metrics.trajectory.band_align import band_align, compiled_kernels, tool_distances
from pathgrade.metrics.trajectory.long_pairs import _twins, occurrence_matching

from .test_definition_differential import assert_engine_is_the_definition

IntArray = npt.NDArray[np.int64]
WIDTHS = [1, 5, 63, 64, 65, 128, 129]
KERNEL = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _rows(paths: list[list[int]], pad: int) -> tuple[IntArray, IntArray]:
    lengths = np.array([len(p) for p in paths], dtype=np.int64)
    rows = np.full((len(paths), max(int(lengths.max()), 1)), pad, dtype=np.int64)
    for b, p in enumerate(paths):
        rows[b, : len(p)] = p
    return rows, lengths


def _levenshtein(a: list[int], b: list[int]) -> int:
    """The plain DP table, row by row."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row = row, [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x != y))
    return row[-1]


BOTH = mark.parametrize("compiled", [True, False], ids=["numba", "numpy"])


def test_the_compiled_kernels_load() -> None:
    # numba is a dependency: without this, compiled=True would quietly test the fallback.
    assert compiled_kernels() is not None


@BOTH
def test_band_alignment_of_a_small_pair_by_hand(compiled: bool) -> None:
    # Tools: reference [a, b, c] = [0, 1, 2], agent [a, c, c] = [0, 2, 2]; keys: the agent's
    # first c has other arguments (key 21, the reference's c is 20).
    # Tool DP (rows: reference prefix, columns: agent prefix):
    #        -  a  c  c
    #   -    0  1  2  3
    #   a    1  0  1  2
    #   b    2  1  1  2
    #   c    3  2  1  1      distance 1.
    # Cheapest scripts of 1 tool edit: a-a, b-c (sub), c-c (agent 2): tool pairs 2 (a, c),
    # full pairs 2; or a-a, b deleted, c paired with agent 1 (argument mismatch), agent 2
    # inserted: 2 edits, not optimal. Walking back from (3, 3): pair c-c (full), pair b-c,
    # pair a-a.
    ref_tool, ref_len = _rows([[0, 1, 2]], -1)
    agent_tool, agent_len = _rows([[0, 2, 2]], -2)
    ref_key, _ = _rows([[0, 10, 20]], -3)
    agent_key, _ = _rows([[0, 21, 20]], -4)
    got = band_align(ref_tool, agent_tool, ref_key, agent_key, ref_len, agent_len, compiled)
    assert got.distance.tolist() == [1]
    assert got.n_ops.tolist() == [3]
    assert got.ops[0, :3].tolist() == [OP_PAIR, OP_PAIR, OP_PAIR]
    assert got.ref_pos[0, :3].tolist() == [0, 1, 2]
    assert got.agent_pos[0, :3].tolist() == [0, 1, 2]
    assert got.full_op[0, :3].tolist() == [True, False, True]
    assert (got.tool_pairs.tolist(), got.full_pairs.tolist()) == ([2], [2])


@BOTH
def test_band_alignment_prefers_an_insertion_then_a_deletion(compiled: bool) -> None:
    # Reference [a], agent [a, a] (same arguments): distance 1. At (1, 2) the insertion of
    # agent step 1 costs cost(1, 1) + 1 = 0 + 1 = 1, as much as pairing it, and an insertion
    # wins ties: the later of two equal calls is the extra. Ops: pair 0-0, insertion 1.
    ref_tool, ref_len = _rows([[0]], -1)
    agent_tool, agent_len = _rows([[0, 0]], -2)
    got = band_align(ref_tool, agent_tool, ref_tool, agent_tool, ref_len, agent_len, compiled)
    assert got.ops[0, :2].tolist() == [OP_PAIR, OP_INSERT]
    assert got.agent_pos[0, :2].tolist() == [0, 1]
    # Reference [a, a], agent [a]: the deletion is reference step 1.
    got = band_align(agent_tool, ref_tool, agent_tool, ref_tool, agent_len, ref_len, compiled)
    assert got.ops[0, :2].tolist() == [OP_PAIR, OP_DELETE]
    assert got.ref_pos[0, :2].tolist() == [0, 1]


@KERNEL
@given(st.integers(0, 2**32 - 1), st.sampled_from(WIDTHS))
def test_tool_distance_equals_the_plain_dp(seed: int, width: int) -> None:
    rng = random.Random(seed)
    n_tools = rng.randint(1, 6)
    refs = [[rng.randrange(n_tools) for _ in range(rng.randint(0, width))] for _ in range(4)]
    agents = [[rng.randrange(n_tools) for _ in range(rng.randint(0, width + 2))] for _ in refs]
    agents[0] = refs[0][: width // 2] + agents[0]  # a similar pair: a narrow band
    ref_tool, ref_len = _rows(refs, -1)
    agent_tool, agent_len = _rows(agents, -2)
    got = tool_distances(ref_tool, agent_tool, ref_len, agent_len).tolist()
    assert got == [_levenshtein(a, b) for a, b in zip(refs, agents, strict=True)]


@KERNEL
@given(st.integers(0, 2**32 - 1), st.sampled_from(WIDTHS), st.booleans(), st.booleans())
def test_band_alignment_equals_the_dense_alignment(
    seed: int, width: int, close: bool, compiled: bool
) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    ref_len = rng.integers(0, width + 1, n)
    agent_len = np.clip(ref_len + rng.integers(-3, 4, n), 0, None) if close else None
    if agent_len is None:
        agent_len = rng.integers(0, width + 4, n)
    width_r, width_a = max(int(ref_len.max()), 1), max(int(agent_len.max()), 1)
    n_tools = int(rng.integers(1, 6))
    ref_tool = rng.integers(0, n_tools, (n, width_r))
    agent_tool = rng.integers(0, n_tools, (n, width_a))
    if close:  # mostly the reference's tools: a narrow band
        shared = min(width_r, width_a)
        keep = rng.random((n, shared)) < 0.85
        agent_tool[:, :shared] = np.where(keep, ref_tool[:, :shared], agent_tool[:, :shared])
    ref_key = ref_tool * 10 + rng.integers(0, 3, (n, width_r))
    agent_key = agent_tool * 10 + rng.integers(0, 3, (n, width_a))
    for rows, lengths, pads in ((ref_tool, ref_len, -1), (agent_tool, agent_len, -2)):
        rows[np.arange(rows.shape[1])[None, :] >= lengths[:, None]] = pads
    ref_key[ref_tool < 0], agent_key[agent_tool < 0] = -3, -4
    tool_eq = ref_tool[:, :, None] == agent_tool[:, None, :]
    full_eq = (ref_key[:, :, None] == agent_key[:, None, :]) & (ref_key[:, :, None] >= 0)
    want = align(tool_eq, full_eq, ref_len, agent_len)
    got = band_align(ref_tool, agent_tool, ref_key, agent_key, ref_len, agent_len, compiled)
    for name in ("ops", "ref_pos", "agent_pos", "full_op", "n_ops", "distance"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert np.array_equal(got.tool_pairs, want.tool_pairs)
    assert np.array_equal(got.full_pairs, want.full_pairs)


@KERNEL
@given(st.integers(0, 2**32 - 1), st.sampled_from(WIDTHS), st.booleans(), st.booleans())
def test_occurrence_matching_is_the_first_fit(
    seed: int, width: int, interned: bool, compiled: bool
) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    ref_len, agent_len = rng.integers(0, width + 1, n), rng.integers(0, width + 3, n)
    width_r, width_a = max(int(ref_len.max()), 1), max(int(agent_len.max()), 1)
    n_codes = int(rng.integers(1, 8))
    ref_code = rng.integers(0, n_codes, (n, width_r))
    agent_code = rng.integers(0, n_codes, (n, width_a))
    if interned:  # codes far apart, as interned keys are (from 2**40 on): hash collisions
        ref_code, agent_code = (ref_code << 40) - 7, (agent_code << 40) - 7
    ref_code[np.arange(width_r)[None, :] >= ref_len[:, None]] = -3
    agent_code[np.arange(width_a)[None, :] >= agent_len[:, None]] = -4
    eq = ref_code[:, :, None] == agent_code[:, None, :]
    want = first_fit_matching(eq, agent_len)
    got = occurrence_matching(ref_code, agent_code, ref_len, agent_len, compiled)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_twins_of_a_small_row_by_hand() -> None:
    # Identities [7, 8, 7, 7, 8] (positions 0-4); position 0 failed (not sound); matched:
    # positions 1 and 3. Earlier sound twin: 2 (no: 0 failed), 3 (yes: 2), 4 (yes: 1).
    # First later matched twin: 0 -> 3, 1 -> none (4 is not matched), 2 -> 3, 3, 4 -> none.
    ident = np.array([[7, 8, 7, 7, 8, -5]])
    valid = np.array([[True] * 5 + [False]])
    sound = np.array([[False, True, True, True, True, True]])
    matched = np.array([[False, True, False, True, False, False]])
    for compiled in (True, False):
        earlier, later, twin = _twins(ident, valid, sound, matched, compiled)
        assert earlier.tolist() == [[False, False, False, True, True, False]]
        assert twin.tolist() == [[3, -1, 3, -1, -1, -1]]
        assert later.tolist() == [[True, False, True, False, False, False]]


@KERNEL
@given(st.integers(0, 2**32 - 1), st.sampled_from(WIDTHS), st.booleans())
def test_compiled_twins_equal_the_numpy_twins(seed: int, width: int, interned: bool) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    agent_len = rng.integers(0, width + 1, n)
    ident = rng.integers(0, int(rng.integers(1, 8)), (n, width)) << (40 if interned else 0)
    valid = np.arange(width)[None, :] < agent_len[:, None]
    ident[~valid] = -5
    sound = rng.random((n, width)) < 0.7
    matched = (rng.random((n, width)) < 0.5) & valid
    want = _twins(ident, valid, sound, matched, False)
    got = _twins(ident, valid, sound, matched, True)
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(a, b)


def test_use_compiled_follows_the_switch_the_cells_and_the_loaded_kernels() -> None:
    # Runs of 100 steps against 2 references of 100: 20,000 cells each; COMPILE_FROM / 20,000
    # runs reach the threshold. Runs of 10 steps never count (not long).
    def use(n_runs: int, length: int, pure: bool = False, loaded: bool = False) -> bool:
        lengths = np.full(n_runs, length)
        with mock.patch.object(batching, "kernels_loaded", return_value=loaded):
            return batching.use_compiled(lengths, 2 * lengths, np.full(n_runs, 2), pure)

    enough = batching.COMPILE_FROM // 20_000
    assert (use(enough, 100), use(enough - 1, 100)) == (True, False)
    assert use(10 * enough, 100, pure=True) is False
    assert use(1, 100, loaded=True) is True
    assert use(100 * enough, 10) is False


_NUMBA_PROBE = """
import json, sys
from pathgrade import Case, Run, Step, score
from pathgrade.metrics.trajectory.band_align import compiled_kernels
calls = [Step(tool="t%d" % (i % 7), arguments={"i": i % 5}) for i in range({length})]
case, run = Case(case_id="c", reference=tuple(calls)), Run(case_id="c", steps=tuple(calls[1:]))
{load}
score([case], [run])
print(json.dumps("numba" in sys.modules))
"""


@mark.parametrize(
    ("length", "load", "loaded"), [(10, False, False), (100, False, False), (100, True, True)]
)
def test_a_small_scoring_does_not_load_numba(length: int, load: bool, loaded: bool) -> None:
    # The 10-step path never reaches the long kernels; one 100-step run is far below
    # COMPILE_FROM (100 * 99 cells), so the NumPy passes serve it without loading numba.
    # The probe can fail: once the kernels are loaded, numba is in sys.modules.
    code = _NUMBA_PROBE.replace("{length}", str(length))
    code = code.replace("{load}", "compiled_kernels()" if load else "")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) is loaded


TOOLS = ["search", "read", "edit", "test", "grep", "plan"]


@st.composite
def long_scorings(draw: st.DrawFn) -> tuple[list[Case], list[Run], ScoringConfig]:
    """Cases of 65-300 steps with 1-3 references (repeated calls: few arguments), runs made
    from a reference by random edits and repeats; total order (the long-path kernels) or,
    now and then, partial and no order (the dense kernels, at these widths)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    order = draw(st.sampled_from(["total", "total", "total", "partial", "none"]))
    cases, runs = [], []
    for c in range(draw(st.integers(1, 2))):
        length = draw(st.integers(65, 300 if order == "total" else 90))

        def call() -> Step:
            return Step(tool=rng.choice(TOOLS), arguments={"id": rng.randrange(6)})

        base = [call() for _ in range(length)]
        refs = [base]
        for _ in range(draw(st.integers(0, 2))):
            alt = list(base)
            for _ in range(rng.randint(1, 6)):
                i = rng.randrange(length - 1)
                alt[i], alt[i + 1] = alt[i + 1], alt[i]
            refs.append(alt)
        if order == "partial":
            base = [
                Step(tool=s.tool, arguments=s.arguments, id=f"s{i}", after=[f"s{i - 1}"])
                if i and rng.random() < 0.5
                else Step(tool=s.tool, arguments=s.arguments, id=f"s{i}")
                for i, s in enumerate(base)
            ]
            refs = [base]
        cases.append(
            Case(case_id=f"c{c}", reference=tuple(refs[0]), references=tuple(map(tuple, refs[1:])),
                 order=order)
        )  # fmt: skip
        for r in range(draw(st.integers(1, 3))):
            rate = rng.choice([0.02, 0.1, 0.3])
            steps: list[Step] = []
            for step in rng.choice(refs):
                roll = rng.random()
                if roll < rate:
                    continue
                if roll < 2 * rate:
                    steps.append(call())
                if roll < 2.5 * rate:
                    steps.append(step)  # a repeat
                steps.append(step if roll > 1.5 * rate or roll < rate else call())
            if rng.random() < 0.2:
                steps = steps[: rng.randint(0, len(steps))]  # stopped early
            error = rng.random() < 0.3
            if error and steps:
                i = rng.randrange(len(steps))
                steps[i] = Step(tool=steps[i].tool, arguments=steps[i].arguments, error="x")
            runs.append(Run(case_id=f"c{c}", run_id=f"r{c}-{r}", steps=tuple(steps)))
    return cases, runs, ScoringConfig()


@contextmanager
def _kernels(compiled: bool) -> Iterator[None]:
    """Score long batches with the numba kernels or the NumPy passes, whatever their size."""
    with mock.patch.object(batching, "use_compiled", return_value=compiled):
        yield


@LONG
@given(long_scorings(), st.booleans())
def test_engine_equals_definition_on_long_paths(
    scoring: tuple[list[Case], list[Run], ScoringConfig], compiled: bool
) -> None:
    with _kernels(compiled):
        assert_engine_is_the_definition(*scoring)
