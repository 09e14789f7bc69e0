"""The command line starts at once: ``import pathgrade``, ``import pathgrade.cli.main``,
building the app and every ``--help`` load none of the heavy libraries (checked in a fresh
interpreter's ``sys.modules``; no timing). Also: the lazily exported names resolve to their
definitions, and the CLI's literal defaults equal the library's."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import import_module

import pytest

import pathgrade
import pathgrade.api
from pathgrade.cli import defaults

#: What no start-up may import: the issue's list, and numba (long paths load it on first use).
FORBIDDEN = ("scipy.stats", "httpx", "duckdb", "pandas", "pyarrow", "numba")
#: Also absent from the help path: the two largest costs after those (about 0.2 s together).
HEAVY = (*FORBIDDEN, "numpy", "pydantic")

_LOADED = """
import contextlib, io, json, sys
{code}
print(json.dumps([name for name in {names!r} if name in sys.modules]))
"""


def _loaded(code: str, names: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of ``names`` are in ``sys.modules`` after ``code`` ran in a new interpreter."""
    script = _LOADED.format(code=code, names=names)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_the_probe_sees_an_import() -> None:
    # The check can fail: importing the scoring path loads NumPy and pyarrow.
    assert {"numpy", "pyarrow"} <= set(_loaded("import pathgrade.evaluate"))


def test_import_pathgrade_loads_nothing_heavy() -> None:
    assert _loaded("import pathgrade") == []


def test_import_of_the_cli_and_building_the_app_load_nothing_heavy() -> None:
    code = (
        "import typer.main\nimport pathgrade.cli.main as m\nm._register()\n"
        "typer.main.get_command(m.app)"
    )
    assert _loaded(code) == []


HELPS = [
    [],
    ["score"],
    ["compare"],
    ["ablation"],
    ["gate"],
    ["split"],
    ["retrieval"],
    ["judge"],
    ["judge-agreement"],
    ["ingest"],
    ["replay"],
    ["simulate"],
    ["report"],
    ["runs"],
    ["runs", "list"],
    ["runs", "query"],
    ["cases"],
    ["cases", "lint"],
    ["cases", "mine"],
    ["cases", "promote"],
    ["matcher-agreement"],
    ["collect"],
    ["monitor"],
]


@pytest.mark.parametrize("command", HELPS, ids=lambda c: " ".join(c) or "pathgrade")
def test_help_loads_nothing_heavy(command: list[str]) -> None:
    code = (
        "from pathgrade.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    code = main({[*command, '--help']!r})\n"
        "assert code == 0 and 'Usage:' in out.getvalue(), out.getvalue()"
    )
    # ingest's and replay's help list the trace formats and the matching modes, which come
    # with the readers and the config model (pydantic).
    names = FORBIDDEN if command in (["ingest"], ["replay"]) else HEAVY
    assert _loaded(code, names) == []


def test_every_help_is_probed() -> None:
    from pathgrade.cli import main as cli_main

    cli_main._register()
    names = {c.name for c in cli_main.app.registered_commands}
    names |= {g.name for g in cli_main.app.registered_groups}
    assert names == {c[0] for c in HELPS if c}


@pytest.mark.parametrize("name", pathgrade.__all__)
def test_each_exported_name_is_its_definition(name: str) -> None:
    value = getattr(pathgrade, name)
    if name == "report":
        assert value.__wrapped__ is pathgrade.api.report
        return
    if name in pathgrade.api.__all__:
        assert value is getattr(pathgrade.api, name)
    assert name in dir(pathgrade)


def test_api_names_resolve_to_their_modules() -> None:
    for name in pathgrade.api.__all__:
        module = import_module(pathgrade.api._LAZY[name])
        assert getattr(pathgrade.api, name) is getattr(module, name)
    with pytest.raises(AttributeError):
        _ = pathgrade.api.no_such_name  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        _ = pathgrade.no_such_name  # type: ignore[attr-defined]


def test_report_stays_the_function_and_reads_through_to_the_package() -> None:
    import pathgrade.report.display
    import pathgrade.report.html as html

    assert callable(pathgrade.report) and "rendering package" in repr(pathgrade.report)
    assert pathgrade.report.html is html  # the package's module, through the function
    assert pathgrade.report.display.clip("a") == "a"
    from pathgrade import report

    assert report is pathgrade.report
    with pytest.raises(AttributeError):
        _ = pathgrade.report.no_such_module


@pytest.mark.parametrize("name", sorted(defaults.SOURCES))
def test_the_literal_defaults_equal_their_definitions(name: str) -> None:
    module, attribute = defaults.SOURCES[name]
    assert getattr(defaults, name) == getattr(import_module(module), attribute)


def test_every_literal_default_has_a_source() -> None:
    literals = {k for k in vars(defaults) if k.isupper() and k != "SOURCES"}
    assert literals == set(defaults.SOURCES)


def test_the_ablation_flags_name_every_arm() -> None:
    from pathgrade.cli.ablation import _FLAGS
    from pathgrade.stats.ablation import ARMS

    assert tuple(_FLAGS) == ARMS
