"""Headless Chromium for the browser tests: Debian's `chromium`, driven through Playwright.

No browser is ever downloaded: Playwright launches the system binary (`/usr/bin/chromium`, or
`REMGRAPH_TEST_CHROMIUM`). Without one the tests skip and say how to install it (`.ci/run` does
when apt-get is there).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def chromium_path() -> Path | None:
    """The system Chromium binary, if any."""
    explicit = os.environ.get("REMGRAPH_TEST_CHROMIUM")
    candidates = [explicit] if explicit else ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
    candidates += [shutil.which("chromium") or "", shutil.which("chromium-browser") or ""]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    return None


def require_chromium() -> Path:
    """The Chromium binary, or skip the test with the reason."""
    path = chromium_path()
    if path is None:
        pytest.skip(
            "no system Chromium: `apt-get install -y chromium` (or set REMGRAPH_TEST_CHROMIUM)"
        )
    try:
        import playwright.async_api  # noqa: F401  # installed with the dev extras
    except ImportError:
        pytest.skip("playwright is not installed: pip install -e '.[dev]'")
    return path


@contextlib.asynccontextmanager
async def chromium_page() -> AsyncIterator[object]:
    """A fresh page in a headless Chromium (a new profile each time)."""
    from playwright.async_api import async_playwright

    exe = require_chromium()
    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=str(exe), headless=True, args=CHROMIUM_ARGS
        )
        try:
            context = await browser.new_context(viewport={"width": 1400, "height": 900})
            yield await context.new_page()
        finally:
            await browser.close()
