"""The external programs some tests drive (pdflatex), and the rule for their absence: skip, except in CI."""

import os
import shutil
import subprocess
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
