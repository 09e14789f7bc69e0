"""Every command's ``--help`` renders, shows its help strings as written (a bracketed word
such as ``[matching]`` is not taken for markup), and every command that reads stored runs
has ``--store``, which it uses."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main

from pathgrade.cli import main as cli_main
from pathgrade.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"
CONFIG = ROOT / "examples" / "pathgrade.toml"
GATES = ROOT / "examples" / "gates.toml"

_BRACKETED = re.compile(r"\[[^\[\]\s]+\]")


def _commands() -> Iterator[tuple[list[str], Any]]:
    """``(path, click command)`` of the app and of every command and subcommand in it."""
    cli_main._register()
    root = typer.main.get_command(cli_main.app)
    stack: list[tuple[list[str], Any]] = [([], root)]
    while stack:
        path, command = stack.pop(0)
        yield path, command
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            stack.append(([*path, name], sub))


COMMANDS = list(_commands())


def _flat(text: str) -> str:
    return " ".join(text.split())


def _source_texts(command: Any) -> list[str]:
    """The help strings as written in the source: the command's and its parameters'."""
    texts = [command.help or ""]
    texts += [getattr(param, "help", None) or "" for param in command.params]
    return texts


def test_the_source_has_bracketed_words_to_check() -> None:
    # The check below is not vacuous: these help strings carry words in brackets.
    found = {w for _, c in COMMANDS for t in _source_texts(c) for w in _BRACKETED.findall(t)}
    assert {"[matching]", "[compare]", "[NAME]"} <= found


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "-")
def test_help_renders_every_help_string_as_written(
    path: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    command = dict((tuple(p), c) for p, c in COMMANDS)[tuple(path)]
    assert main([*path, "--help"]) == 0
    shown = _flat(capsys.readouterr().out)
    assert shown.startswith("Usage: pathgrade")
    for text in _source_texts(command):
        for word in _BRACKETED.findall(text):
            assert word in shown, (path, word)
    for param in command.params:
        if getattr(param, "help", None) and param.name not in FILLED:
            assert _flat(param.help)[:30] in shown, (path, param.name)


#: The help texts filled in when shown (cli.lazy_help): option -> what they must list.
FILLED = {"fmt": ("ingest", "FORMATS"), "mode": ("replay", "CALL_MODES")}


@pytest.mark.parametrize("name", sorted(FILLED))
def test_filled_help_lists_every_value(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pathgrade.core.config import CALL_MODES
    from pathgrade.io.ingest import FORMATS

    command, values = FILLED[name]
    assert main([command, "--help"]) == 0
    shown = _flat(capsys.readouterr().out).replace("- ", "-")  # words cut at hyphens
    listed = {"FORMATS": list(FORMATS), "CALL_MODES": list(CALL_MODES)}[values]
    assert len(listed) > 3 and all(value in shown for value in listed)


READS_STORED_RUNS = [["compare"], ["gate"], ["ablation"], ["report"], ["score"]]
READS_STORED_RUNS += [["runs", name] for name in ("list", "show", "rm", "add", "query")]
READS_STORED_RUNS += [["cases", "promote"], ["collect"], ["monitor"]]


@pytest.mark.parametrize("path", READS_STORED_RUNS, ids=" ".join)
def test_store_is_an_option_of_every_command_on_stored_runs(path: list[str]) -> None:
    command = dict((tuple(p), c) for p, c in COMMANDS)[tuple(path)]
    options = {opt for param in command.params for opt in getattr(param, "opts", ())}
    assert "--store" in options


def _resolves_stored_runs(command: Any) -> bool:
    """Whether a command's help says it takes a stored run name."""
    return any("stored run" in text for text in _source_texts(command))


def test_every_command_naming_stored_runs_is_listed() -> None:
    named = {tuple(p) for p, c in COMMANDS if p and _resolves_stored_runs(c)}
    assert named <= {tuple(p) for p in READS_STORED_RUNS}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the example runs as ``v1`` and the variant runs as ``v2`` (and their
    results files ``v1.jsonl``, ``v2.jsonl`` beside it)."""
    folder = tmp_path_factory.mktemp("store")
    for name, runs in (("v1", RUNS), ("v2", RUNS.with_name("runs_variant.jsonl"))):
        args = ["score", str(CASES), str(runs), "--config", str(CONFIG), "--json"]
        out = ["--out", str(folder.parent / f"{name}.jsonl")]
        assert main([*args, *out, "--save", name, "--store", str(folder)]) == 0
    return folder


def test_compare_gate_and_ablation_read_runs_of_the_given_store(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no v1 file here, and the default store is empty
    monkeypatch.delenv("PATHGRADE_STORE", raising=False)
    capsys.readouterr()
    fast = ["--resamples", "200", "--json"]
    assert main(["compare", "v1", "v2", *fast]) == 2
    assert "no stored run named 'v1'" in capsys.readouterr().err
    assert main(["compare", "v1", "v2", *fast, "--store", str(store)]) == 0
    by_name = json.loads(capsys.readouterr().out)
    files = [str(store.parent / "v1.jsonl"), str(store.parent / "v2.jsonl")]
    assert main(["compare", *files, *fast]) == 0
    assert by_name["metrics"] == json.loads(capsys.readouterr().out)["metrics"]
    assert by_name["paired_cases"] == 4
    gate = ["gate", str(GATES), "--baseline", "v1", "--variant", "v2", "--json"]
    assert main(gate) == 2
    capsys.readouterr()
    assert main([*gate, "--store", str(store)]) == 0  # examples/gates.toml: every gate passes
    assert json.loads(capsys.readouterr().out)["passed"] is True
    arms = ["--baseline", "v1", "--a", "v2", "--b", "v1", "--ab", "v2", "--resamples", "200"]
    assert main(["ablation", *arms, "--json"]) == 2
    capsys.readouterr()
    assert main(["ablation", *arms, "--json", "--store", str(store)]) == 0
    assert json.loads(capsys.readouterr().out)["cases"] == 4
