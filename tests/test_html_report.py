"""The HTML report (verify.reporters.html, .figures, .mathtex): the page's content, its determinism, and the page
in a real headless browser (Debian's chromium, driven by selenium through the system chromedriver)."""

import base64
import json
import re
import shutil
import tempfile
import textwrap

import numpy as np
from pathlib import Path

import pytest

from verify.report import aggregate, run_suite
from verify.reporters import figures as F
from verify.reporters.html import render_html, render_value, summary_counts
from verify.reporters.mathtex import formula_items, math_uri



SUITE = (Path(__file__).parent / "data" / "synthetic_suite.txt").read_text()  # the suite of test_report.py

# evidence of the kinds the pictures read: order series, a precision ladder, an experiment decided by
# verify.decision, Figure 1 curves, nested records for the evidence tables
EXTRA = textwrap.dedent(
    """
    @pytest.mark.claim("N-thmC.1")
    def test_orders(verdict):
        ts = [0.1, 0.03, 0.01, 0.003]
        verdict.verified(method="num: orders", evidence={
            "t": ts, "err_dH": [3 * t * t for t in ts], "err_dW": [2 * t * t for t in ts],
            "nested": {"a": {"b": [1, 2]}, "rows": [{"x": 1, "y": 2.5}, {"x": 3, "y": 4.25}]}})

    @pytest.mark.claim("S-exact-loss")
    def test_ladder(verdict):
        verdict.verified(method="hp", evidence={"dps": [15, 30, 50], "ladder_rel_discrepancy": 1e-17})

    @pytest.mark.claim("N-fig2-layerwise")
    def test_emp(verdict):
        from verify.decision import decide
        r = decide({"depth": [0.3, 0.5, 0.2, 0.4, 0.6, 0.1]}, claimed="NC1 decreases with depth",
                   descriptive={"raw": [0.1, -0.1, 0.2, 0.0, 0.1, 0.3]})
        verdict.supported(scale="reduced: digits", evidence={"decision": r, "seeds": [0, 1, 2, 3, 4, 5]})

    @pytest.mark.claim("S-fig3")
    def test_fig3_curves(verdict):
        verdict.supported(scale="reduced: d = 16, 32", evidence={"curves": {"m": 3, "per_d": {
            "16": {"log_d_p": [-3.0, -2.0, -1.0], "Ltilde": [1e-4, 1e-3, 1e-2, 2e-4, 2e-3, 2e-2]},
            "32": {"log_d_p": [-3.0, -2.0, -1.0], "Ltilde": [1e-5, 1e-4, 1e-3, 2e-5, 2e-4, 2e-3]}}}})

    @pytest.mark.claim("N-thm5.2")
    def test_expression_keys(verdict):
        verdict.verified(evidence={"spectrum": {
            "d=4": {"1 - sqrt(lam_H/lam_W)/beta": 2, "1 - 4*lam_H*(1 - sqrt(lam_H*lam_W))/beta": 1},
            "d=5": {"1 - sqrt(lam_H/lam_W)/beta": 3, "1 - 4*lam_H*(1 - sqrt(lam_H*lam_W))/beta": 1}},
            "node_ids": "proofs_checks/test_N_perturbation.py::test_a_very_long_check_name_that_must_wrap_somewhere_"
                        "in_a_narrow_window_without_overflowing_the_main_column_of_the_report"})

    @pytest.mark.claim("N-fig1")
    def test_fig1(verdict):
        verdict.verified(evidence={"curves": {"0.05": {"closed_form": [1.0, 0.9, 0.5], "numeric_dense": [1.0, 0.9, 0.5]},
                                              "0.3": {"closed_form": [1.0, 0.7, 0.2], "numeric_dense": [1.0, 0.7, 0.2]}},
                                   "config": {"beta": 100.0, "K": 4, "d": 10, "n": 10}})
    """
)


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    root = tmp_path_factory.mktemp("html_suite")
    (root / "test_synthetic_html.py").write_text(SUITE + EXTRA)
    code, checks = run_suite(fast=True, suite=root, progress=False)
    assert code == 0
    return aggregate(checks)


def _pictures(doc):
    """Cheap pictures: the evidence-driven ones plus small computed ones (frames, a two-start search)."""
    pics = F.build_figures(doc, which=("fig1", "orders", "ladder", "emp"), compute=False)
    pics.append(F.frames_figure(ms=(2,), rs=(2, 3, 4)))
    pics.append(F.search_figure(doc, names=("N-lemB.1",), budget=2))
    return pics


@pytest.fixture(scope="module")
def page(doc):
    return render_html(doc, figures=_pictures(doc), formulas=_formulas())


def _formulas():
    import sympy

    from verify.reporters.mathtex import mathml

    formulas = formula_items(["S-eq9", "N-thm5.2"])
    formulas.append({"name": "X-broken", "description": "mathtext cannot typeset this", "params": {},
                     "items": [{"tex": r"\begin{pmatrix} a & b \end{pmatrix}", "img": math_uri(r"\begin{pmatrix} a & b \end{pmatrix}"),
                                "mathml": None}]})
    m = sympy.Matrix([[1, sympy.Symbol("x")], [2, 3]])
    formulas.append({"name": "X-matrix", "description": "a matrix, as MathML", "params": {},
                     "items": [{"tex": sympy.latex(m), "img": None, "mathml": mathml(m)}]})
    return formulas


# --------------------------------------------------------------------------- content (no browser)
def test_pictures_come_from_the_evidence(doc):
    pics = {p["key"]: p for p in F.build_figures(doc, which=("fig1", "orders", "ladder", "emp"), compute=False)}
    assert pics["fig1"]["img"] and "the N-fig1 evidence" in pics["fig1"]["caption"]
    assert pics["orders"]["img"] and "checks' evidence" in pics["orders"]["caption"]
    assert pics["ladder"]["img"] and F.ladder_points(doc) == [("S-exact-loss: test_ladder", 1e-17)]
    assert pics["emp-N-fig2-layerwise"]["img"]
    assert pics["emp-N-fig6-interference"]["img"] is None and "No per-seed effects" in pics["emp-N-fig6-interference"]["note"]


def test_order_fit_slopes_are_the_evidence_orders(doc):
    (pts,) = [s for s in F._order_points(doc) if s["label"].startswith("|dH")]
    slope = np.polyfit(np.log10(pts["x"]), np.log10(pts["y"]), 1)[0]
    assert abs(slope - 2) < 1e-12  # err = 3 t^2 exactly: the fitted order is 2 up to round-off


def test_comparisons_found_in_decision_evidence(doc):
    row = next(r for r in doc["claims"] if r["id"] == "N-fig2-layerwise")
    comps = F.comparisons(row["evidence"])
    names = {c["name"]: c for c in comps}
    assert names["depth"]["primary"] and names["depth"]["ci"] and names["depth"]["outcome"] == "for"
    assert names["raw"]["primary"] is False
    assert names["depth"]["effects"] == [0.3, 0.5, 0.2, 0.4, 0.6, 0.1]


def test_summary_counts_by_verdict_severity_and_scale(doc):
    c = summary_counts(doc)
    assert c["N"]["severity"] == {"error": 1, "missing-hypothesis": 0, "degenerate": 1}
    assert c["total"]["verdict"]["refuted"] == 3
    assert c["N"]["scale"]["reduced scale"]["supported"] == 1 and c["N"]["scale"]["reduced scale"]["contradicted"] == 1


def test_card_parts_and_sections(doc, page):
    assert page.count('<article class="card"') == len(doc["claims"])
    assert page.count('<article class="card beyond"') == len(doc["beyond"])
    assert 'id="beyond"' in page and "Results of this package that the papers do not claim" in page
    card = page[page.index('id="claim-S-eq10"'):]
    card = card[:card.index("</article>")]
    for part in ("refuted (missing-hypothesis)", "counterexample", "corrected statement", "the fixed statement",
                 "test_synthetic_html.py::test_two_claims", "corrected statement checked by",
                 "test_synthetic_html.py::test_corrected", "why missing-hypothesis"):
        assert part in card, part
    assert 'data-paper="S" data-verdict="refuted" data-severity="missing-hypothesis" data-kind="sym hp"' in page


def test_evidence_is_tables_not_json(doc):
    row = next(r for r in doc["claims"] if r["id"] == "N-thmC.1")
    html = render_value(row["evidence"])
    assert html.count('<table class="ev">') >= 3 and '"a"' not in html and "{" not in html
    assert '<th title="x">x</th><th title="y">y</th>' in html  # a list of records: one table, a column per key
    long = render_value(list(range(40)))
    assert "<details>" in long and "all 40" in long


def test_formula_fallback_is_a_code_block(page):
    assert math_uri(r"\begin{pmatrix} a & b \end{pmatrix}") is None
    assert math_uri(r"\frac{1}{\undefinedmacro{x}}") is None  # mathtext's parse error
    assert r'<pre class="tex"><code>\begin{pmatrix} a &amp; b \end{pmatrix}</code></pre>' in page
    assert page.count('alt="\\tilde{L}') >= 1  # S-eq9 typeset as a picture, its LaTeX as alt text


def test_formulas_typeset_every_sympy_line():
    """Every registry line that is a sympy object is typeset: a mathtext picture, else MathML from the object (a
    matrix); only lines a module gives as LaTeX strings may fall back to source. Spellings mathtext lacks (\\le,
    \\Bigl) are mapped for the picture only."""
    from verify.latex import get_formula

    # the lines of every kind: a long matrix equation (N-lemA.1), \le (S-eq19-20), a matrix given as a LaTeX string
    # (S-lemA.3), \Bigl (S-loss-first-order), roots and spectra (N-thm5.2); all 22 formulas cost ~15 s of mathtext
    names = ["N-lemA.1", "S-eq19-20", "S-lemA.3", "S-loss-first-order", "N-thm5.2"]
    items = formula_items(names)
    objs = {n: get_formula(n).items() for n in names}
    for f in items:
        for obj, item in zip(objs[f["name"]], f["items"]):
            assert item["img"] or item["mathml"] or isinstance(obj, str), (f["name"], item["tex"][:80])
    assert math_uri(r"a \le b") and math_uri(r"p \Bigl(x\Bigr)")
    import sympy

    from verify.reporters.mathtex import mathml

    ml = mathml(sympy.Matrix([[1, sympy.Symbol("x")], [2, 3]]))
    assert ml.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">') and "<mtable" in ml


def test_finding_headers_in_words_unknown_fields(doc):
    card = lambda page, cid: page[page.index(f'id="claim-{cid}"'):][:page[page.index(f'id="claim-{cid}"'):].index("</article>")]
    row = dict(next(r for r in doc["claims"] if r["id"] == "N-thm5.2"), coverage={"lines_hit": 3, "lines": 4})
    page = render_html({**doc, "claims": [row] + [r for r in doc["claims"] if r["id"] == "N-thmC.2"],
                        "necessity": [{"claim": "N-thmC.2", "hypothesis": "beta > 11 lam_H", "outcome": "needed"}]},
                       figures=[], formulas=[])
    c = card(page, "N-thmC_2")
    assert '<p class="finding">Fails by a factor 9 at lH = lW = 0.1.</p>' in c
    ev = card(page, "N-thm5_2")
    assert "<th>1 - sqrt(lam_H/lam_W)/beta</th>" in ev  # an expression is a row label, never a column header
    assert "<th></th><th>1 - sqrt" not in ev and 'title="1 - sqrt' not in ev  # no header row of expressions
    assert "<b>coverage</b>" in ev and "lines hit" not in ev and "<th>lines_hit</th>" in ev
    assert '<h2 id="doc-necessity">Necessity</h2>' in page and '<th title="hypothesis">hypothesis</th>' in page
    recs = render_value([{"max_abs_err": 1, "seed": 2}, {"max_abs_err": 3, "seed": 4}])
    assert '<th title="max_abs_err">max abs err</th>' in recs  # a column header in words


def test_fig3_caption_is_filled(doc):
    pic = F.fig3_figure(doc, compute=False)
    assert pic["img"] and "Scale: d = 16, 32, m = 3, 3 sparsities, 2 seeds." in pic["caption"], pic["caption"]


def test_page_is_self_contained(page):
    refs = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert refs and all(r.startswith(("data:", "#")) for r in refs), [r for r in refs if not r.startswith(("data:", "#"))]
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "<script src" not in page and "<link rel=\"stylesheet\"" not in page


def test_same_document_same_bytes(doc, page):
    again = render_html(json.loads(json.dumps(doc)), figures=_pictures(doc), formulas=_formulas())
    assert again == page
    svg = base64.b64decode(F.frames_figure(ms=(2,), rs=(2, 3))["img"].split(",", 1)[1]).decode()
    assert "<dc:date>" not in svg


def test_unknown_picture_name():
    with pytest.raises(ValueError, match="'figures' must name pictures among"):
        F.build_figures({"claims": [], "beyond": []}, which=("fig9",))


def test_cli_writes_html(tmp_path, monkeypatch, capsys):
    from verify.cli import main
    from verify.reporters import html as H, mathtex

    (tmp_path / "proofs_checks").mkdir()
    (tmp_path / "proofs_checks" / "test_synthetic_html.py").write_text(SUITE + EXTRA)
    monkeypatch.chdir(tmp_path)
    # the full picture set trains Figure 3 and runs searches: the command's wiring is what is tested here
    monkeypatch.setattr(F, "build_figures", lambda doc, progress=False, compute=True: [F.ladder_figure(doc)])
    monkeypatch.setattr(mathtex, "formula_items", lambda names=None: [])
    assert main(["report", "--fast", "--no-progress", "--html", "out.html"]) == 0
    text = (tmp_path / "out.html").read_text()
    assert text.startswith("<!DOCTYPE html>") and "Precision-ladder agreement" in text and H.esc("S-eq10") in text
    assert main(["report", "--fast", "--no-progress", "--html", "missing/out.html"]) == 2
    assert "'--html' must be a file in an existing folder" in capsys.readouterr().err
    # rendering the saved report: no run, no computed picture
    assert main(["report", "--fast", "--no-progress", "--json", "r.json"]) == 0
    assert main(["report", "--from-json", "r.json", "--no-progress", "--html", "again.html"]) == 0
    assert H.esc("S-eq10") in (tmp_path / "again.html").read_text()


# --------------------------------------------------------------------------- in a headless browser
def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _chromedriver():
    for path in (shutil.which("chromedriver"), "/usr/lib/chromium/chromedriver"):
        if path and shutil.os.path.exists(path):
            return path
    return None


@pytest.fixture(scope="module")
def browser(page, tmp_path_factory):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the 'test' extra)")
    binary, driver_path = _chromium(), _chromedriver()
    if binary is None or driver_path is None:
        pytest.skip("chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,1600",
                f"--user-data-dir={tempfile.mkdtemp(prefix='verify-chromium-')}"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(page, encoding="utf-8")
    driver = webdriver.Chrome(options=opts, service=Service(driver_path))
    try:
        driver.get(path.as_uri())
        yield driver
    finally:
        driver.quit()


def test_browser_loads_without_console_errors_or_requests(browser):
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    fetched = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert [u for u in fetched if not u.startswith("data:")] == []
    assert browser.title == "verify: claim-by-claim verdicts"


def test_browser_every_image_loads(browser, page):
    imgs = browser.execute_script(
        "return Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight])")
    assert len(imgs) == page.count("<img ") and len(imgs) >= 8
    bad = [i for i in imgs if not (i[1] and i[2] > 0 and i[3] > 0)]
    assert bad == []


def _visible(browser):
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('.card')).filter(c => !c.hidden && c.offsetParent !== null)"
        ".map(c => [c.id, c.dataset.paper, c.dataset.verdict, c.dataset.severity, c.dataset.kind])")


def test_browser_filters_hide_and_show_cards(browser, doc):
    from selenium.webdriver.support.ui import Select

    rows = doc["claims"] + doc["beyond"]
    assert len(_visible(browser)) == len(rows)
    Select(browser.find_element("id", "filter-verdict")).select_by_value("refuted")
    shown = _visible(browser)
    assert len(shown) == sum(r["verdict"] == "refuted" for r in rows) == 3 and {s[2] for s in shown} == {"refuted"}
    Select(browser.find_element("id", "filter-paper")).select_by_value("N")
    assert sorted(s[0] for s in _visible(browser)) == ["claim-N-cor4_2", "claim-N-thmC_2"]
    Select(browser.find_element("id", "filter-severity")).select_by_value("error")
    assert [s[0] for s in _visible(browser)] == ["claim-N-thmC_2"]
    assert "1 of" in browser.find_element("id", "shown").text
    for name in ("verdict", "paper", "severity"):
        Select(browser.find_element("id", f"filter-{name}")).select_by_value("")
    Select(browser.find_element("id", "filter-kind")).select_by_value("emp")
    shown = _visible(browser)
    assert len(shown) == sum("emp" in r["kind"] for r in rows) and all("emp" in s[4].split() for s in shown)
    Select(browser.find_element("id", "filter-kind")).select_by_value("")
    assert len(_visible(browser)) == len(rows)


_OVERFLOW_JS = """
var main = document.querySelector('main'), doc = document.documentElement;
var wide = Array.from(main.querySelectorAll('*')).filter(function(e){
  var r = e.getBoundingClientRect(), m = main.getBoundingClientRect();
  var inScroll = e.closest('.scroll') && e.closest('.scroll') !== e;
  return !inScroll && r.width > 0 && r.right > m.right + 1;
}).slice(0, 5).map(function(e){ return e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 60); });
return [doc.scrollWidth, window.innerWidth, main.scrollWidth, main.clientWidth, wide];
"""


@pytest.mark.parametrize("width", [1400, 800])
def test_browser_fits_the_window_and_is_not_blank(browser, width, tmp_path):
    """At 1400 and 800 px: no horizontal overflow of the page or of the main column (wide evidence and formulas
    scroll inside their own box), and the screenshot is not blank."""
    import io

    import matplotlib.image

    browser.set_window_size(width, 1200)
    doc_w, win_w, main_sw, main_cw, wide = browser.execute_script(_OVERFLOW_JS)
    assert doc_w <= win_w and main_sw <= main_cw and wide == [], (width, doc_w, win_w, main_sw, main_cw, wide)
    counts_w, box_w = browser.execute_script("var t = document.querySelector('table.counts'); "
                                             "return [t.scrollWidth, t.parentElement.clientWidth]")
    assert counts_w <= box_w, (width, counts_w, box_w)  # the summary fits without its scroll box
    png = browser.get_screenshot_as_png()
    (tmp_path / f"report-{width}.png").write_bytes(png)
    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]
    # a blank page is one colour (variance 0); text, badges and tables give a clearly positive variance
    assert pixels.shape[0] > 100 and float(pixels.var()) > 1e-3
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 16


def test_browser_overflow_check_can_fail(browser):
    """The overflow check sees a table that is wider than the main column (outside a scroll box)."""
    browser.set_window_size(800, 1200)
    browser.execute_script("var t = document.createElement('table'); t.id = 'too-wide'; t.style.width = '2000px';"
                           "t.innerHTML = '<tr><td>x</td></tr>'; document.querySelector('main').appendChild(t);")
    try:
        doc_w, win_w, main_sw, main_cw, wide = browser.execute_script(_OVERFLOW_JS)
        assert main_sw > main_cw and wide
    finally:
        browser.execute_script("document.getElementById('too-wide').remove();")


def test_browser_mathml_is_typeset(browser, page):
    """A MathML formula (a matrix line) is laid out by the browser with a real size."""
    assert "<math " in page
    sizes = browser.execute_script("return Array.from(document.querySelectorAll('math')).map(m => "
                                   "[m.getBoundingClientRect().width, m.getBoundingClientRect().height])")
    assert sizes and all(w > 10 and h > 5 for w, h in sizes)


@pytest.mark.parametrize("module", ["verify.reporters._common", "verify.reporters.figures", "verify.reporters.mathtex",
                                    "verify.reporters.html"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.slow
def test_every_picture_builds_at_full_settings(doc):
    """The whole picture set as ``verify report --html`` draws it (Figure 3 trains the quick preset when torch is
    installed and the evidence holds no curves; the searches and the frames at their report sizes)."""
    pics = F.build_figures(doc)
    failed = [p for p in pics if p["note"] and p["note"].startswith("Could not be drawn")]
    assert failed == []
    keys = {p["key"] for p in pics if p["img"]}
    assert {"fig1", "orders", "ladder", "search", "frames"} <= keys


def test_card_shows_mutant_power(doc):
    row = dict(next(r for r in doc["claims"] if r["id"] == "S-eq9"), power={"killed": 2, "total": 3, "survivors": ["m1"]})
    page = render_html({**doc, "claims": [row], "beyond": []}, figures=[], formulas=[])
    assert "mutant power</b> killed 2 of 3" in page and "surviving: m1" in page
    assert "verified [killed 2/3; SURVIVING: m1]" in page


def test_corrected_statement_typeset_on_the_card(doc):
    """A corrected statement the errata typeset (its recorded text matches a fingerprint) shows its math as pictures,
    with the recorded text one click away; any other stays the recorded text."""
    from verify.reporters.errata import corrected_parts

    fp = corrected_parts()["N-thm5.2"][0]
    row = dict(next(r for r in doc["claims"] if r["id"] == "S-eq10"), id="N-thm5.2", paper="N",
               evidence={"counterexample": {"d": 2}, "corrected": fp + " and so on"})
    page = render_html({**doc, "claims": [row], "beyond": []}, figures=[], formulas=[])
    assert page.count('class="inline-math"') >= 6 and 'alt="\\beta &gt; \\sqrt{\\frac{\\lambda_{H}}{\\lambda_{W}}}"' in page
    assert "<summary>as recorded</summary>" + F_esc(fp) in page
    plain = render_html({**doc, "beyond": []}, figures=[], formulas=[])
    card = plain[plain.index('id="claim-S-eq10"'):]
    assert "corrected statement</b> the fixed statement" in card[:card.index("</article>")]


def F_esc(text):
    from verify.reporters.html import esc

    return esc(text)
