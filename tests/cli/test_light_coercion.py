"""The light parameter coercion of :mod:`pathgrade.cli.group` gives each command exactly what
typer's own coercion gives, and errors stay typer's; ``pathgrade retrieval`` runs without
pydantic (the start-up saving it exists for, checked in a fresh interpreter, no timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pathgrade.cli.group import LightGroup, PlainValue, lighten


def _app(light: bool) -> tuple[typer.Typer, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    app = typer.Typer(cls=LightGroup if light else typer.core.TyperGroup, add_completion=False)

    @app.command("go")
    def go(
        path: Annotated[Path, typer.Argument()],
        name: Annotated[str, typer.Option("--name")] = "x",
        count: Annotated[int, typer.Option("--count")] = 1,
        ratio: Annotated[float, typer.Option("--ratio")] = 0.5,
        tags: Annotated[list[str] | None, typer.Option("--tag")] = None,
        files: Annotated[list[Path] | None, typer.Option("--file")] = None,
        bounded: Annotated[int, typer.Option("--bounded", min=0, max=9)] = 0,
        flag: Annotated[bool, typer.Option("--flag")] = False,
        maybe: Annotated[Path | None, typer.Option("--maybe")] = None,
    ) -> None:
        seen.append(
            {
                "path": path,
                "name": name,
                "count": count,
                "ratio": ratio,
                "tags": tags,
                "files": files,
                "bounded": bounded,
                "flag": flag,
                "maybe": maybe,
            }
        )

    @app.command("other")
    def other() -> None:  # a second command, so that "go" is a subcommand
        seen.append({})

    return app, seen


def _run(light: bool, args: list[str]) -> tuple[int, str, list[dict[str, Any]]]:
    app, seen = _app(light)
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output, seen


ARGS = [
    ["go", "a/b.txt"],
    ["go", "p", "--name", "n", "--count", "3", "--ratio", "1e-3", "--flag"],
    ["go", "p", "--tag", "x", "--tag", "y", "--file", "f1", "--file", "f2", "--maybe", "m"],
    ["go", "p", "--count", "-7", "--ratio", "nan", "--bounded", "4"],
    ["go", "p", "--count", "3.5"],  # typer's error, from typer's coercion
    ["go", "p", "--ratio", "abc"],
    ["go", "p", "--bounded", "12"],  # out of bounds: never coerced by PlainValue
    ["go", "p", "--count", " 4 "],
]


@pytest.mark.parametrize("args", ARGS, ids=" ".join)
def test_the_light_group_gives_what_typer_gives(args: list[str]) -> None:
    light = _run(True, args)
    plain = _run(False, args)
    assert light[0] == plain[0]
    assert light[1] == plain[1]
    assert repr(light[2]) == repr(plain[2])  # nan != nan: compare the reprs


def test_a_bad_value_is_typers_error() -> None:
    code, output, seen = _run(True, ["go", "p", "--count", "3.5"])
    assert code == 2 and seen == []
    assert "Invalid value for '--count'" in output


@settings(max_examples=400, deadline=None)
@given(
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0"), min_size=1),
    st.text(alphabet="0123456789-+_. e", min_size=1, max_size=6),
)
def test_any_text_is_coerced_as_typer_coerces_it(text: str, number: str) -> None:
    if text.startswith("-"):
        text = "x" + text
    args = ["go", text, "--name", text, "--count", number, "--ratio", number]
    assert repr(_run(True, args)[::2]) == repr(_run(False, args)[::2])


def test_only_plain_parameters_get_the_light_coercion() -> None:
    app, _ = _app(True)
    group = typer.main.get_command(app)
    assert isinstance(group, LightGroup)
    ctx = group.make_context("app", ["go", "p"], resilient_parsing=True)
    command = group.get_command(ctx, "go")
    assert command is not None
    lighten(command, ctx)
    params = command.get_params(ctx)
    light = {p.name: isinstance(getattr(p, "_runtime_param", None), PlainValue) for p in params}
    assert light == {
        "path": True,
        "name": True,
        "count": True,
        "ratio": True,
        "tags": True,
        "files": True,
        "bounded": False,  # min/max: typer's adapter checks the bounds
        "flag": True,
        "maybe": True,
        "help": True,
    }


def test_pathgrade_retrieval_runs_without_pydantic(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 2.0 x\n")
    script = (
        "import contextlib, io, json, sys\n"
        "from pathgrade.cli.main import main\n"
        "raw = io.BytesIO()\n"
        "with contextlib.redirect_stdout(io.TextIOWrapper(raw)) as out:\n"
        f"    code = main(['retrieval', {str(tmp_path / 'q.txt')!r}, "
        f"{str(tmp_path / 'r.txt')!r}, '--json', '-m', 'map'])\n"
        "    out.flush()\n"
        "assert code == 0\n"
        "print(json.dumps([json.loads(raw.getvalue())['summary']['map'], "
        "[m for m in ('pydantic', 'msgspec', 'numpy.ma') if m in sys.modules]]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    value, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert value == 1.0
    assert loaded == []
