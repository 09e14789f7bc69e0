"""pathgrade's pytest plug-in (entry point ``pytest11``: ``pathgrade``; off with
``-p no:pathgrade``). See ``docs/pytest.md``.

* Fixtures: ``pathgrade_config`` (the scoring config), ``pathgrade_cases`` (cases by id),
  ``pathgrade_runs`` (:class:`pathgrade.testing.RecordedRuns`), ``pathgrade_case`` (a test
  that asks for it runs once per case of the cases file, the case id as its parameter id)
  and ``pathgrade_trial`` (the trial number under ``pathgrade_trials``, else 0).
* The ``pathgrade_trials(n, pass_hat_k=(k, minimum), pass_at_k=(k, minimum))`` marker: the
  test function runs ``n`` times (its fixtures are set up once); a trial fails when it
  raises ``AssertionError`` or calls ``pytest.fail``; the test passes when the trials meet
  the requirement (:class:`pathgrade.testing.TrialsRequirement`).
* Every :func:`pathgrade.testing.assert_path` call of a test is one of the session's
  results (:mod:`pathgrade.pytest_session`); ``--pathgrade-save NAME`` stores them and
  ``--pathgrade-baseline NAME --pathgrade-gates FILE`` gates them against a stored run at
  the end of the session, sets the exit status (1 when a gate fails) and prints a
  paragraph. Under pytest-xdist, workers send their results to the controller.

Importing this module imports nothing of pathgrade's beyond the package itself: pytest loads
it in every session of every project that installs pathgrade, so files are read and
pathgrade's scoring is imported only when a test asks for it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:
    from pathgrade.core.config import ScoringConfig
    from pathgrade.core.types import Case
    from pathgrade.pytest_session import Entry, Prepared, SessionOptions
    from pathgrade.testing import RecordedRuns

T = TypeVar("T")

#: ``(option, ini name, help)`` of the file options; an ini path is relative to the ini file.
_FILES = (
    ("--pathgrade-cases", "pathgrade_cases", "Cases file (JSONL) of the pathgrade fixtures."),
    ("--pathgrade-runs", "pathgrade_runs", "Runs file (JSONL) of the pathgrade_runs fixture."),
    (
        "--pathgrade-config",
        "pathgrade_config",
        "Scoring config (TOML); default: pathgrade.toml or pyproject.toml [tool.pathgrade]"
        " in the rootdir, else the defaults.",
    ),
    ("--pathgrade-gates", "pathgrade_gates", "Gates file (TOML) of --pathgrade-baseline."),
    (
        "--pathgrade-store",
        "pathgrade_store",
        "Run store folder; default: $PATHGRADE_STORE, else .pathgrade/runs.",
    ),
)
_MARKER = (
    "pathgrade_trials(n, pass_hat_k=(k, minimum), pass_at_k=(k, minimum)): run the test n"
    " times and require pass^k and/or pass@k of its trials to reach the minimum"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pathgrade", "pathgrade: agent paths in tests (docs/pytest.md)")
    for option, ini, text in _FILES:
        group.addoption(option, metavar="PATH", default=None, help=text)
        parser.addini(ini, f"{text} Relative to the ini file; {option} wins.", default=None)
    group.addoption(
        "--pathgrade-save",
        metavar="NAME",
        default=None,
        help="Store the session's assert_path results as run NAME (case id: the test's id).",
    )
    group.addoption(
        "--pathgrade-baseline",
        metavar="NAME",
        default=None,
        help="Gate the session's results against stored run NAME with --pathgrade-gates;"
        " a failed gate fails the session.",
    )
    group.addoption(
        "--pathgrade-label",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="A label of the saved run (a controlled variable, as pathgrade score --label).",
    )
    group.addoption(
        "--pathgrade-allow-config-change",
        action="store_true",
        default=False,
        help="Gate even when the sides were scored differently (config or cases changed).",
    )


class _State:
    """The plug-in's state for one session: its files, loaded once, and its results."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.entries: list[Entry] = []
        self.lines: list[str] = []
        self.failed = False
        self._loaded: dict[str, Any] = {}

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def path(self, option: str, ini: str) -> Path | None:
        """The option's path (relative to the invocation folder), else the ini value's
        (relative to the ini file), else ``None``."""
        value = self.config.getoption(option)
        if value:
            start = self.config.invocation_params.dir
            return Path(value) if start == Path.cwd() else Path(start, value)
        text = self.config.getini(ini)
        if not text:
            return None
        base = self.config.inipath.parent if self.config.inipath else self.config.rootpath
        return Path(base, str(text))

    def once(self, key: str, load: Callable[[], T]) -> T:
        """``load()``'s value, or its :class:`InputError`, made once and kept."""
        from pathgrade.core.errors import InputError

        if key not in self._loaded:
            try:
                self._loaded[key] = load()
            except InputError as error:
                self._loaded[key] = error
        value = self._loaded[key]
        if isinstance(value, InputError):
            raise value
        return value  # type: ignore[no-any-return]

    def scoring_config(self) -> ScoringConfig:
        from pathgrade.io.config import load_config

        path = self.path("--pathgrade-config", "pathgrade_config")
        return self.once("config", lambda: load_config(path, cwd=self.config.rootpath))

    def cases(self) -> dict[str, Case]:
        from pathgrade.core.errors import InputError
        from pathgrade.io.cases import load_cases

        path = self.path("--pathgrade-cases", "pathgrade_cases")
        if path is None:
            raise InputError(
                "no cases file: pass --pathgrade-cases FILE or set pathgrade_cases in the ini file"
            )
        return self.once("cases", lambda: {c.case_id: c for c in load_cases(path).items})

    def runs(self) -> RecordedRuns:
        from pathgrade.core.errors import InputError
        from pathgrade.io.cases import load_runs
        from pathgrade.testing import RecordedRuns

        path = self.path("--pathgrade-runs", "pathgrade_runs")
        if path is None:
            raise InputError(
                "no runs file: pass --pathgrade-runs FILE or set pathgrade_runs in the ini file"
            )
        cases = self.cases() if self.path("--pathgrade-cases", "pathgrade_cases") else None
        return self.once("runs", lambda: RecordedRuns(load_runs(path, cases).items, str(path)))

    def session_options(self) -> SessionOptions:
        from pathgrade.pytest_session import SessionOptions
        from pathgrade.store import parse_labels

        return SessionOptions(
            save=self.config.getoption("--pathgrade-save"),
            baseline=self.config.getoption("--pathgrade-baseline"),
            gates=self.path("--pathgrade-gates", "pathgrade_gates"),
            store=self.path("--pathgrade-store", "pathgrade_store"),
            labels=parse_labels(list(self.config.getoption("--pathgrade-label"))),
            allow_config_change=bool(self.config.getoption("--pathgrade-allow-config-change")),
        )

    def wanted(self) -> bool:
        """Whether the session's results are saved (worth sending from a worker)."""
        option = self.config.getoption
        return bool(option("--pathgrade-save") or option("--pathgrade-baseline"))


_STATE = pytest.StashKey[_State]()
#: The controller's session options and what :func:`pathgrade.pytest_session.prepare` checked.
_PREPARED = pytest.StashKey[tuple["SessionOptions", "Prepared"]]()


def _state(config: pytest.Config) -> _State:
    return config.stash[_STATE]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", _MARKER)
    state = config.stash[_STATE] = _State(config)
    if state.is_worker or not state.wanted():
        return
    from pathgrade.core.errors import InputError
    from pathgrade.pytest_session import prepare

    try:
        options = state.session_options()
        config.stash[_PREPARED] = (options, prepare(options))
    except InputError as error:
        raise pytest.UsageError(f"pathgrade: {error}") from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that asks for ``pathgrade_case`` runs once per case of the cases file."""
    if "pathgrade_case" not in metafunc.fixturenames or _parametrized_by_hand(metafunc):
        return
    state = _state(metafunc.config)
    if state.path("--pathgrade-cases", "pathgrade_cases") is None:
        return  # the fixture says so when the test runs
    from pathgrade.core.errors import InputError

    try:
        cases = state.cases()
    except InputError as error:
        raise pytest.Collector.CollectError(f"pathgrade: {error}") from None
    metafunc.parametrize("pathgrade_case", list(cases.values()), ids=list(cases))


def _parametrized_by_hand(metafunc: pytest.Metafunc) -> bool:
    """Whether the test's own ``parametrize`` marks give ``pathgrade_case``."""
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        if isinstance(names, str):
            names = [name.strip() for name in names.split(",")]
        if "pathgrade_case" in names:
            return True
    return False


def _fail_on_input_error(load: Callable[[], T]) -> T:
    from pathgrade.core.errors import InputError

    try:
        return load()
    except InputError as error:
        message = f"pathgrade: {error}"
    pytest.fail(message, pytrace=False)  # outside the handler: no chained traceback


@pytest.fixture(scope="session")
def pathgrade_config(request: pytest.FixtureRequest) -> ScoringConfig:
    """The scoring config: ``--pathgrade-config``/``pathgrade_config``, else
    ``pathgrade.toml`` or ``pyproject.toml``'s ``[tool.pathgrade]`` in the rootdir, else
    the defaults (what ``assert_path`` scores with when given no config)."""
    return _fail_on_input_error(_state(request.config).scoring_config)


@pytest.fixture(scope="session")
def pathgrade_cases(request: pytest.FixtureRequest) -> dict[str, Case]:
    """The cases of ``--pathgrade-cases``/``pathgrade_cases``, by case id."""
    return _fail_on_input_error(_state(request.config).cases)


@pytest.fixture(scope="session")
def pathgrade_runs(request: pytest.FixtureRequest) -> RecordedRuns:
    """The runs of ``--pathgrade-runs``/``pathgrade_runs`` (each must name a case of the
    cases file when one is set)."""
    return _fail_on_input_error(_state(request.config).runs)


@pytest.fixture
def pathgrade_case(request: pytest.FixtureRequest) -> Case:
    """One case of the cases file (the test is parametrized over all of them)."""
    param = getattr(request, "param", None)
    if param is not None:
        return param  # type: ignore[no-any-return]
    _fail_on_input_error(_state(request.config).cases)  # no cases file: says so
    pytest.fail("pathgrade: pathgrade_case was given no case", pytrace=False)


@pytest.fixture
def pathgrade_trial() -> int:
    """The trial being run under ``pathgrade_trials`` (0 to n - 1); 0 without the marker."""
    return 0


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """The test runs with a recorder: its ``assert_path`` calls are the session's results."""
    from pathgrade.pytest_session import TestRecorder
    from pathgrade.testing import recording

    state = _state(item.config)
    recorder = TestRecorder(item.nodeid, lambda: _fail_on_input_error(state.scoring_config))
    try:
        with recording(recorder):
            return (yield)
    finally:
        state.entries.extend(recorder.entries())


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Under ``pathgrade_trials``: run the test function ``n`` times and check the
    requirement on its trials' outcomes."""
    marker = pyfuncitem.get_closest_marker("pathgrade_trials")
    if marker is None:
        return None
    from pathgrade.testing import TrialsRequirement

    problem: str | None = None
    try:
        requirement = TrialsRequirement.parse(marker.args, marker.kwargs)
    except ValueError as error:
        problem = f"pathgrade_trials: {error}"
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        pytest.fail("pathgrade_trials: async tests are not supported", pytrace=False)
    names = pyfuncitem._fixtureinfo.argnames  # what pytest's own call passes
    passed: list[bool] = []
    first_failure: tuple[int, BaseException] | None = None
    for trial in range(requirement.n):
        arguments = {name: pyfuncitem.funcargs[name] for name in names}
        if "pathgrade_trial" in arguments:
            arguments["pathgrade_trial"] = trial
        try:
            pyfuncitem.obj(**arguments)
        except (AssertionError, pytest.fail.Exception) as error:
            passed.append(False)
            first_failure = first_failure or (trial, error)
        else:
            passed.append(True)
    ok, figures = requirement.check(passed)
    pyfuncitem.user_properties.append(("pathgrade_trials", figures))
    if not ok:
        message = f"pathgrade_trials: {figures}"
        if first_failure is not None:
            message += f"\nfirst failed trial ({first_failure[0]}):\n{first_failure[1]}"
        pytest.fail(message, pytrace=False)
    return True


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: the results a worker sent (at its session's end)."""
    from pathgrade.pytest_session import Entry

    sent = getattr(node, "workeroutput", {}).get("pathgrade") or []
    _state(node.config).entries.extend(Entry.from_json(item) for item in sent)


#: The exits after which the results are saved (not after an interruption or an error).
_SAVED_AFTER = (
    pytest.ExitCode.OK,
    pytest.ExitCode.TESTS_FAILED,
    pytest.ExitCode.NO_TESTS_COLLECTED,
)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _state(session.config)
    if state.is_worker:
        if state.wanted():
            sent = [entry.to_json() for entry in state.entries]
            session.config.workeroutput["pathgrade"] = sent  # type: ignore[attr-defined]  # xdist's
        return
    if _PREPARED not in session.config.stash or exitstatus not in _SAVED_AFTER:
        return
    from pathgrade.pytest_session import finish

    options, prepared = session.config.stash[_PREPARED]
    file_cases: list[Case] = []
    if state.path("--pathgrade-cases", "pathgrade_cases") is not None:
        from pathgrade.core.errors import InputError

        try:
            file_cases = list(state.cases().values())
        except InputError:
            file_cases = []  # the fixtures reported it; the results' own cases are hashed
    outcome = finish(state.entries, options, prepared, file_cases)
    state.lines, state.failed = outcome.lines, outcome.status != "ok"
    if outcome.status != "ok" and session.exitstatus == pytest.ExitCode.OK:
        failed = outcome.status == "failed"
        session.exitstatus = pytest.ExitCode.TESTS_FAILED if failed else pytest.ExitCode.USAGE_ERROR


def pytest_terminal_summary(terminalreporter: Any) -> None:
    state = _state(terminalreporter.config)
    if not state.lines:
        return
    terminalreporter.section("pathgrade", red=state.failed, green=not state.failed)
    for line in state.lines:
        terminalreporter.line(line)
