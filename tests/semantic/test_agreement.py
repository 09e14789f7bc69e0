"""Matcher agreement: hand-computed kappa/precision/recall, the sweep, pair loading errors,
and the ``matcher-agreement`` command through a Typer app built here."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pathgrade.core.errors import InputError
from pathgrade.plugins import register_embedder, unregister_embedder
from pathgrade.semantic.agreement import Scored, agreement, grid, sweep
from pathgrade.semantic.calibrate import load_pairs


def test_hand_computed_figures() -> None:
    pairs = [Scored(True, 0.9), Scored(True, 0.6), Scored(False, 0.7), Scored(False, None, False)]
    # at 0.65: predicted T F T F; truth T T F F: tp 1, fp 1, fn 1, agree 2/4
    # p_o = 0.5, p_e = (2*2 + 2*2) / 16 = 0.5 -> kappa 0
    a = agreement(pairs, 0.65)
    assert (a.precision, a.recall, a.accuracy, a.kappa) == (0.5, 0.5, 0.5, 0.0)
    # at 0.8: predicted T F F F: tp 1, fp 0, fn 1; p_o = 3/4, p_e = (1*2 + 3*2)/16 = 1/2
    b = agreement(pairs, 0.8)
    assert (b.precision, b.recall) == (1.0, 0.5)
    assert b.kappa == pytest.approx((0.75 - 0.5) / 0.5)
    rows, best = sweep(pairs, [0.65, 0.8, 0.95])
    assert best == 0.8 and [r.threshold for r in rows] == [0.65, 0.8, 0.95]


def test_grid() -> None:
    assert grid(0.3, 0.5, 0.1) == [0.3, 0.4, 0.5]
    assert len(grid()) == 14


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.floats(-1, 1)), min_size=1, max_size=30))
def test_sweep_best_has_the_highest_kappa(items: list[tuple[bool, float]]) -> None:
    pairs = [Scored(label, cosine) for label, cosine in items]
    rows, best = sweep(pairs, grid())
    kappas = [r.kappa for r in rows if not math.isnan(r.kappa)]
    chosen = next(r for r in rows if r.threshold == best)
    if kappas:
        assert chosen.kappa == max(kappas)


def test_bad_pair_lines_name_the_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    good = {"tool": "t", "field": "f", "reference": "a", "agent": "b", "equivalent": True}
    bad = {**good, "equivalent": "yes"}
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError, match=r"pairs.jsonl:2: field 'equivalent': must be a bool"):
        load_pairs(path)


def test_command_prints_figures_and_best_threshold(tmp_path: Path) -> None:
    # two paraphrases at cosine 1 and 0.8, one different entity at 0: 0.8 separates them
    vectors = {"a b": [1.0, 0.0], "a c": [1.0, 0.0], "d e": [0.8, 0.6], "x y": [0.0, 1.0]}
    register_embedder("toy-agree", lambda texts: np.asarray([vectors[t] for t in texts]))
    rows = [("a b", "a c", True), ("a b", "d e", True), ("a b", "x y", False)]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"tool": "s", "field": "q", "reference": r, "agent": a,
                                         "equivalent": e}) + "\n" for r, a, e in rows))  # fmt: skip
    config = tmp_path / "pathgrade.toml"
    config.write_text(
        f'[matching.semantic]\nbackend = "toy-agree"\nthreshold = 0.85\ncache_dir = "{tmp_path}"\n'
    )
    from pathgrade.cli.matcher_agreement import matcher_agreement_command

    app = typer.Typer()
    app.command("matcher-agreement")(matcher_agreement_command)
    app.callback()(lambda: None)
    try:
        out = CliRunner().invoke(
            app, ["matcher-agreement", str(pairs), "--config", str(config), "--json"]
        )
    finally:
        unregister_embedder("toy-agree")
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    # at 0.85: predicted T F F -> recall 1/2; best kappa (1.0) first reached at 0.3
    assert report["at_threshold"]["recall"] == 0.5
    assert report["best_kappa_threshold"] == 0.3
    assert report["pairs"] == 3 and report["equivalent"] == 2


def _line(**fields: object) -> str:
    row = {"tool": "t", "field": "f", "reference": "a", "agent": "b", "equivalent": True}
    row.update(fields)
    return json.dumps({k: v for k, v in row.items() if v is not None}) + "\n"


def test_an_unknown_kind_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(_line(kind="paraphrase") + _line(agent="c", kind="synonym"))
    with pytest.raises(InputError, match=r"pairs.jsonl:2: field 'kind': unknown kind 'synonym'"):
        load_pairs(path)


def test_a_missing_label_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(_line() + "\n" + _line(agent="c", equivalent=None))
    with pytest.raises(InputError, match=r"pairs.jsonl:3: field 'equivalent': is missing"):
        load_pairs(path)


def test_a_duplicated_pair_names_both_lines_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(_line(kind="paraphrase", domain="x"))
    (tmp_path / "b.jsonl").write_text(_line(agent="c") + _line(equivalent=False))
    with pytest.raises(InputError) as error:
        load_pairs(tmp_path)  # a directory: its *.jsonl files, sorted, read as one set
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{tmp_path / 'b.jsonl'}:2: field 'agent': duplicated pair")
    assert message.endswith(f"{tmp_path / 'a.jsonl'}:1")


def test_several_files_and_directories_are_read_together(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.jsonl").write_text(_line(kind="id", domain="x"))
    (tmp_path / "d" / "notes.txt").write_text("not pairs")
    (tmp_path / "b.jsonl").write_text(_line(agent="c"))
    pairs = load_pairs(tmp_path / "d", tmp_path / "b.jsonl")
    assert [(p.agent, p.kind, p.domain) for p in pairs] == [("b", "id", "x"), ("c", None, None)]
    with pytest.raises(InputError, match="no such file"):
        load_pairs(tmp_path / "missing.jsonl")


def test_bundled_pairs_load_with_kinds_and_domains() -> None:
    pairs = load_pairs(Path(__file__).parents[2] / "examples" / "semantic")
    assert len(pairs) >= 366 and all(p.kind is not None and p.domain for p in pairs)
    share = sum(p.equivalent for p in pairs) / len(pairs)
    assert 0.4 <= share <= 0.5
