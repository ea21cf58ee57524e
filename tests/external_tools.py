"""The external programs some tests drive (pdflatex, a headless chromium), and the rule for their absence: skip (for
pdflatex: except in CI)."""

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def need(tool: str) -> None:
    """Skip where ``tool`` is absent, except in CI (``.ci/run`` sets VERIFY_REQUIRE_TOOLS=1 after installing
    texlive and chromium): there a missing tool fails, so the compile tests cannot silently skip."""
    if shutil.which(tool) is None:
        if os.environ.get("VERIFY_REQUIRE_TOOLS"):
            pytest.fail(f"{tool} is required here (VERIFY_REQUIRE_TOOLS is set) but not installed")
        pytest.skip(f"{tool} is not installed (Debian: texlive-latex-base, texlive-latex-recommended)")


def pdflatex(tex: str, folder: Path, name: str = "doc", timeout: float = 120) -> subprocess.CompletedProcess:
    """``tex`` written to ``folder/name.tex`` and compiled there (the PDF beside it)."""
    need("pdflatex")
    (folder / f"{name}.tex").write_text(tex, encoding="utf-8")
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=folder,
                          capture_output=True, text=True, timeout=timeout)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _chromedriver() -> str | None:
    for path in (shutil.which("chromedriver"), "/usr/lib/chromium/chromedriver"):
        if path and os.path.exists(path):
            return path
    return None


@contextlib.contextmanager
def headless_chromium(width: int = 1280, height: int = 1600):
    """A headless Debian chromium driven by selenium through the system chromedriver (no network, a fresh profile);
    the test skips where selenium, chromium or chromedriver is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the 'test' extra)")
    binary, driver_path = _chromium(), _chromedriver()
    if binary is None or driver_path is None:
        pytest.skip("chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", f"--window-size={width},{height}",
                f"--user-data-dir={tempfile.mkdtemp(prefix='verify-chromium-')}"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()
