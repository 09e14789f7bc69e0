"""The system Chromium through Playwright, for the browser tests (no download, no network).

Importing this module skips the importing test module when Playwright or Chromium is absent.
A :class:`Page` records every non-local request (blocked), page error and dialog; screenshots
go to ``$PATHGRADE_ARTIFACTS`` (default ``test-artifacts/report/``, gitignored).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("PATHGRADE_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(
    os.environ.get("PATHGRADE_ARTIFACTS")
    or Path(__file__).resolve().parents[2] / "test-artifacts" / "report"
)

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
)
if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
    pytest.skip(
        f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y chromium`"
        " (.ci/run does); browser tests skipped",
        allow_module_level=True,
    )


class Page:
    """A page plus what it tried to do: requests blocked, errors, dialogs."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on(
            "console",
            lambda msg: (
                self.errors.append(f"console {msg.type}: {msg.text}")
                if msg.type == "error"
                else None
            ),
        )
        page.on("dialog", self._dialog)
        page.route("**/*", self._route)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def clean(self) -> None:
        assert self.blocked == [], f"non-local requests: {self.blocked}"
        assert self.errors == [], self.errors
        assert self.dialogs == []
        assert self.page.evaluate("typeof window.__pwned") == "undefined"


def launch() -> Iterator[Any]:
    """The browser of the ``browser`` fixture (``conftest.py``), closed at the end."""
    with sync_api.sync_playwright() as playwright:
        try:
            instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as error:  # a broken install: say so, do not fail the suite
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {error}")
        yield instance
        instance.close()


def open_page(browser: Any, path: Path, width: int = 1280, *, script: bool = True) -> Page:
    """``path`` opened offline at ``width`` pixels; waits for the case table when the page
    has a script (the history page has none)."""
    page = Page(browser.new_page(viewport={"width": width, "height": 900}))
    page.page.goto(path.as_uri())
    if script:
        page.page.wait_for_function("document.getElementById('count').textContent.length > 0")
    return page


def shot(page: Page, name: str, selector: str | None = None) -> Path:
    """A screenshot of the page (or of one element) kept as a test artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    if selector is None:
        page.page.screenshot(path=str(path), full_page=True)
    else:
        page.page.locator(selector).first.screenshot(path=str(path))
    assert path.stat().st_size > 0
    return path
