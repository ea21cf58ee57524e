"""The README and the documentation site: the site builds with warnings as errors, every example runs and shows what
it prints, every internal link resolves, the generated pages match their sources, and the README stays short and
free of run logs.

Examples (``docs/contributing.md``): ````pycon```` blocks are doctests, ````console```` blocks are ``$ `` commands
whose output is compared (``...`` matches anything), both run in one temporary folder per page, in page order; a
block after ``<!-- example: slow (why) -->`` runs only in the slow tier; ````bash```` blocks are shown, never run
(the fresh-machine commands take minutes and build a virtual environment; the cluster commands need a scheduler).
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from external_tools import headless_chromium
from verify import docs_pages
from verify.claims import claim_ids

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: the catalogue the registry must cover, beside the checkout (or beside the folder of worktrees)
CATALOGUE = next((p for p in (ROOT.parent / "shared" / "claims.md", ROOT.parents[1] / "shared" / "claims.md")
                  if p.exists()), ROOT.parent / "shared" / "claims.md")
#: the pages whose examples run (the generated ones hold none)
PAGES = [README] + sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
SLOW_MARK = "<!-- example: slow"


def _sphinx_or_skip():
    try:
        import myst_parser  # noqa: F401
        import sphinx  # noqa: F401
    except ImportError:
        if os.environ.get("VERIFY_REQUIRE_TOOLS"):
            pytest.fail("sphinx and myst-parser are required here (VERIFY_REQUIRE_TOOLS is set): pip install -e '.[docs]'")
        pytest.skip("sphinx / myst-parser not installed (the 'docs' extra: pip install -e '.[docs]')")


def _env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), PYTHONUNBUFFERED="1")
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def _sphinx(src: Path, out: Path, conf: Path = DOCS) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-c", str(conf),
                           str(src), str(out)], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=600)


# --------------------------------------------------------------------------- the site
@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built once (``-W``) for the tests below: its html folder."""
    _sphinx_or_skip()
    out = tmp_path_factory.mktemp("site") / "html"
    res = _sphinx(DOCS, out)
    assert res.returncode == 0, res.stdout + res.stderr
    return out


def test_sphinx_builds_the_site_with_warnings_as_errors(site):
    api = (site / "api.html").read_text(encoding="utf-8")
    assert 'class="sig-name' in api and "<math" in api  # autodoc ran, and its math is typeset (MathML, offline)
    for page in ("getting_started", "verdicts/superposition", "verdicts/neural_collapse", "claims", "deciding",
                 "frames", "latex", "incremental", "performance", "architecture", "api"):
        assert (site / f"{page}.html").exists(), page
    # the claim catalogue's statements are typeset, a long inline formula as pieces a table column can wrap
    claims = (site / "claims.html").read_text(encoding="utf-8")
    assert claims.count("<math") > 100 and "</math><wbr><math" in claims


def test_every_page_keeps_an_800_px_window_width(site):
    """No page of the site scrolls sideways in an 800 px window: a table or a displayed formula wider than the text
    column scrolls by itself (docs/_static/verify.css), a long inline formula wraps after its relations."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    wide = {}
    with headless_chromium(800, 1000) as driver:
        for page in pages:
            driver.get(page.as_uri())
            width = driver.execute_script("return document.documentElement.scrollWidth")
            if width > 800:
                wide[str(page.relative_to(site))] = width
    assert wide == {}


class _ProseText(HTMLParser):
    """The text of a page outside code, preformatted blocks, MathML, scripts and styles."""

    SKIP = {"code", "pre", "math", "script", "style"}

    def __init__(self):
        super().__init__()
        self.depth, self.text = 0, []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self.SKIP

    def handle_endtag(self, tag):
        self.depth -= tag in self.SKIP

    def handle_data(self, data):
        if not self.depth:
            self.text.append(data)


@pytest.mark.parametrize("page", ["claims", "experiments", "verdicts/index", "verdicts/superposition",
                                  "verdicts/neural_collapse"])
def test_every_formula_of_a_generated_page_is_typeset(site, page):
    """A '$' left in the prose of a generated page is math that did not parse (a displayed formula inside a
    paragraph, which MyST reads only with myst_dmath_double_inline, printed "then $<math>..." in six corrected
    statements)."""
    parser = _ProseText()
    parser.feed((site / f"{page}.html").read_text(encoding="utf-8"))
    prose = "".join(parser.text)
    assert "$" not in prose, prose[max(prose.index("$") - 80, 0):prose.index("$") + 80]


def test_the_build_fails_on_a_broken_internal_link(tmp_path):
    """The build above is a real link check: the same configuration refuses a link to a missing page."""
    _sphinx_or_skip()
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text("# Index\n\nSee [the missing page](missing.md).\n", encoding="utf-8")
    res = _sphinx(src, tmp_path / "html")
    assert res.returncode != 0 and "missing" in res.stdout + res.stderr


def _links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```$", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    for target in _links(page):
        path = target.split("#")[0]
        if path:
            assert (page.parent / path).exists(), f"{page.relative_to(ROOT)} links to {target}, which does not exist"


# --------------------------------------------------------------------------- the README
def test_readme_is_short_and_names_no_commit_or_machine():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert not re.findall(r"`[0-9a-f]{7,40}`", text), "a commit hash in the README"
    for word in ("load average", "session", "AMD EPYC", "Intel Xeon", "2026-"):
        assert word not in text, word


def _bash_commands(path: Path) -> list[str]:
    return [line for lang, body in FENCE.findall(path.read_text(encoding="utf-8")) if lang == "bash"
            for line in body.splitlines() if line.strip()]


def test_ci_runs_exactly_the_readme_test_command():
    commands = _bash_commands(README)
    tests = [c for c in commands if c.endswith("python -m pytest -n 2")]
    main_job = [c for c in commands if " report " in c]
    assert len(tests) == 1 and len(main_job) == 1
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert tests[0] in ci
    assert tests[0] in _bash_commands(DOCS / "getting_started.md") and main_job[0] in _bash_commands(
        DOCS / "getting_started.md")


def test_readme_verdict_table_lists_every_claim_not_verified_or_supported():
    doc = docs_pages.read_report(ROOT / docs_pages.DATA)
    text = README.read_text(encoding="utf-8")
    block = text[text.index(docs_pages.MARK_START):text.index(docs_pages.MARK_END)]
    for row in doc["claims"]:
        assert (f"`{row['id']}`" in block) == (row["verdict"] not in docs_pages.PLAIN), row["id"]
    total = doc["summary"]["total"]
    assert f"({sum(total.values())} claims)" in block


def test_refutations_read_as_typeset_mathematics_and_are_not_cut():
    """Each refutation's finding in the README and on the verdict pages is the errata's sentence with ``$...$`` math
    (not ASCII pseudo-mathematics), whole (no ellipsis), its formulas free of bare bars that would end a table cell."""
    from verify.reporters.errata import ERRATA

    doc = docs_pages.read_report(ROOT / docs_pages.DATA)
    text = README.read_text(encoding="utf-8")
    block = text[text.index(docs_pages.MARK_START):text.index(docs_pages.MARK_END)]
    refuted = [r for r in doc["claims"] if r["verdict"] == "refuted"]
    assert refuted
    for row in refuted:
        line = next(x for x in block.splitlines() if f"`{row['id']}`" in x)
        assert "\u2026" not in line, line
        if row["id"] in ERRATA:
            cell = line.rsplit(" | ", 1)[1]
            assert cell.count("$") >= 2 and cell.count("$") % 2 == 0, line
            assert all("|" not in m for m in cell.split("$")[1::2]), line
            page = (DOCS / "verdicts" / f"{docs_pages.PAGES[row['paper']]}.md").read_text(encoding="utf-8")
            assert docs_pages.finding_md(row, short=False) in page


@pytest.mark.parametrize("tex", [r"a $\|x\|_{2} = |y|$ b", r"$x$", r"no math | here *", r"one $ sign", r"$|a|$ and $b$"])
def test_math_in_a_table_cell_keeps_its_formulas_and_no_bare_bar(tex):
    out = docs_pages.math_md(tex)
    assert "|" not in out.replace("\\|", "")      # every bar is escaped text or \vert / \Vert in math
    if tex.count("$") % 2 == 0:
        assert out.count("$") == tex.count("$")   # the formulas stay formulas


# --------------------------------------------------------------------------- generated pages and the catalogue
def test_generated_pages_match_their_sources():
    """``python -m verify.docs_pages`` (the registry and docs/_data/verdicts.json) would change nothing."""
    assert docs_pages.stale(ROOT) == []


def test_performance_page_is_generated_from_its_results_file(tmp_path):
    out = tmp_path / "performance.md"
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--from-json",
                          str(DOCS / "_data" / "performance.json"), "--out", str(out)],
                         capture_output=True, text=True, env=_env(), timeout=300)
    assert res.returncode == 0, res.stderr
    # the same text, but for the links to the scaling plots, which are relative to the written file
    fix = re.compile(r"\]\((?:\.\./)*[^)]*?(performance/scaling_\w+\.png)\)")
    assert fix.sub(r"](\1)", out.read_text(encoding="utf-8")) == (DOCS / "performance.md").read_text(encoding="utf-8")
    bad = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--from-json", str(tmp_path / "no.json"),
                          "--out", str(out)], capture_output=True, text=True, env=_env(), timeout=300)
    assert bad.returncode == 2 and "from-json" in bad.stderr


def test_the_generator_is_idempotent_on_a_full_report(tmp_path):
    doc = docs_pages.read_report(ROOT / docs_pages.DATA)
    slim = docs_pages.slim_report(doc)
    assert docs_pages.slim_report(slim) == slim
    assert docs_pages.paper_page(doc, "N") == docs_pages.paper_page(slim, "N")


def test_check_mode_names_a_stale_page(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "claims.md").write_text("# old\n", encoding="utf-8")
    assert docs_pages.main(["--root", str(tmp_path), "--check"]) == 1
    assert docs_pages.main(["--root", str(tmp_path)]) == 0
    assert docs_pages.main(["--root", str(tmp_path), "--check"]) == 0
    assert docs_pages.main(["--root", str(tmp_path / "nowhere")]) == 2


def test_generator_docstring_examples():
    result = doctest.testmod(docs_pages, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_catalogue_lists_every_registered_claim():
    text = (DOCS / "claims.md").read_text(encoding="utf-8")
    for cid in claim_ids(beyond=True):
        assert f"| `{cid}` |" in text, cid


@pytest.mark.skipif(not CATALOGUE.exists(), reason="shared/claims.md is not beside this checkout")
def test_registry_covers_the_shared_catalogue():
    shared = set(re.findall(r"^\| `([A-Z][\w.\-]+)` \|", CATALOGUE.read_text(encoding="utf-8"), re.M))
    assert shared and not shared - set(claim_ids())


# --------------------------------------------------------------------------- examples
def _blocks(page: Path):
    """``(kind, body, line, slow)`` of every runnable block of ``page``, in order."""
    text = page.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        lang, body = m.group(1), m.group(2)
        if lang not in ("pycon", "console"):
            continue
        line = text[: m.start()].count("\n") + 1
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        yield lang, body, line, before.startswith(SLOW_MARK)


def _run_console(body: str, where: str, cwd: Path) -> None:
    checker = doctest.OutputChecker()
    steps, cur = [], None
    for line in body.splitlines():
        if line.startswith("$ "):
            cur = [line[2:], []]
            steps.append(cur)
        elif cur is not None:
            cur[1].append(line)
    assert steps, f"{where}: a console block without a '$ ' command"
    for command, want in steps:
        argv = shlex.split(command)
        tool = {"verify": [sys.executable, "-m", "verify"], "pytest": [sys.executable, "-m", "pytest"]}[argv[0]]
        res = subprocess.run(tool + argv[1:], cwd=ROOT if argv[0] == "pytest" else cwd, env=_env(), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        expected = "\n".join(want) + "\n"
        assert checker.check_output(expected, res.stdout, FLAGS), (
            f"{where}: `{command}` printed\n{res.stdout}\nexpected\n{expected}")


def _run_page(page: Path, slow: bool, tmp_path: Path, monkeypatch) -> int:
    monkeypatch.chdir(tmp_path)
    globs: dict = {"__name__": "__docs__"}
    parser, ran = doctest.DocTestParser(), 0
    for lang, body, line, is_slow in _blocks(page):
        if is_slow != slow:
            continue
        where = f"{page.relative_to(ROOT)}:{line}"
        if lang == "console":
            _run_console(body, where, tmp_path)
        else:
            test = parser.get_doctest(body, globs, where, str(page), line)
            runner = doctest.DocTestRunner(optionflags=FLAGS)
            out: list[str] = []
            result = runner.run(test, out=out.append, clear_globs=False)
            assert result.failed == 0, "".join(out)
            globs.update(test.globs)  # the page's later blocks see its earlier names (DocTest copies the dict)
        ran += 1
    return ran


EXAMPLE_PAGES = [p for p in PAGES if any(True for _ in _blocks(p))]


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run_and_print_what_the_page_shows(page, tmp_path, monkeypatch):
    _run_page(page, False, tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in EXAMPLE_PAGES if any(b[3] for b in _blocks(p))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_slow_examples_run(page, tmp_path, monkeypatch):
    assert _run_page(page, True, tmp_path, monkeypatch) > 0


def test_every_example_page_is_covered():
    """The README and the guides hold examples; a page whose blocks the runner does not see would go unchecked."""
    names = {p.name for p in EXAMPLE_PAGES}
    assert {"README.md", "getting_started.md", "frames.md", "latex.md", "papers.md", "command_line.md"} <= names


def test_frames_guide_documents_every_member_and_key_of_real_files(tmp_path):
    """docs/frames.md specifies the file format in full: every array and every metadata and certificate key of the
    files that ``verify frame build`` writes (dense and implicit, Lemma A.4, general d and code frames)."""
    import json

    import numpy as np

    builds = {"dense.npz": ["--d", "16", "--m", "2"], "general.npz": ["--d", "12", "--m", "2", "--general"],
              "kerdock.npz": ["--d", "16", "--construction", "kerdock"],
              "implicit.npz": ["--d", "64", "--m", "3", "--implicit"],
              "dg.npz": ["--d", "64", "--construction", "dg", "--delta", "1", "--implicit"]}
    guide = (DOCS / "frames.md").read_text(encoding="utf-8")
    seen = set()
    for name, args in builds.items():
        res = subprocess.run([sys.executable, "-m", "verify", "frame", "build", *args, "-o", str(tmp_path / name)],
                             capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=600)
        assert res.returncode == 0, res.stderr
        with np.load(tmp_path / name, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            seen |= set(z.files)
        seen |= set(meta) | set(meta.get("certificate", {}))
    missing = sorted(k for k in seen if f"`{k}`" not in guide)
    assert not missing, f"docs/frames.md does not document {missing}"


def test_the_experiments_page_shows_each_regime_and_sensitivity_run_of_the_report():
    """What a reader of the experiments page must find, per experiment of the committed report: the distance from zero
    training error per setting (the regime text the run recorded) and every sensitivity run with its verdict."""
    doc = docs_pages.read_report(ROOT / docs_pages.DATA)
    page = (DOCS / "experiments.md").read_text(encoding="utf-8")
    regimes = sensitivity = 0
    for row in doc["claims"]:
        e = row.get("experiment") or {}
        if e.get("regime"):
            regimes += 1
            assert "wrong training images per setting: " + docs_pages.text_md(e["regime"]) in page, row["id"]
        for run in e.get("sensitivity") or []:
            sensitivity += 1
            assert (f"**Sensitivity run.** {docs_pages.text_md(run['what'])}. Verdict by the same rule: "
                    f"**{run['verdict']}**") in page, (row["id"], run["what"])
    # the committed report was made with --sensitivity: Table 1 and App. E.2, two runs each; Fig. 2 and Fig. 6 regimes
    assert regimes >= 2 and sensitivity == 4, (regimes, sensitivity)
