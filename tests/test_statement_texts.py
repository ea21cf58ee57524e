"""The typeset texts (verify.statement_texts): one per claim statement and per hypothesis and note of the necessity
table, in the texts' grammar, every math part translated by latex2mathml and compiled by pdflatex, the same words as
the plain text; and each route that shows them (HTML report, Markdown report, errata, documentation pages) typesets
them, or shows the plain words where a report carries none or a broken one."""

import re
import subprocess
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from external_tools import pdflatex
from verify.claims import BEYOND, CLAIMS
from verify.necessity import NOT_SEARCHABLE, ROWS, typeset
from verify.report import necessity_table
from verify.reporters._common import statement_markdown, statement_parts, text_md, typeset_markdown
from verify.reporters.errata import _tex_quote
from verify.reporters.html import _necessity_html, statement_html
from verify.reporters.markdown import MAX_CELL, cell, cell_tex, certified_sections
from verify.reporters.mathtex import BINARY, RELATIONS, break_pieces, inline_math_ml, math_ml
from verify.statement_texts import NECESSITY, TEX, TEXT_FORBIDDEN, parts, problems

ALL = CLAIMS + BEYOND
IDS = [c.id for c in ALL]
NEC = ROWS + NOT_SEARCHABLE
#: every typeset text with its plain words: (name, plain, typeset)
TEXTS = ([(c.id, c.statement, TEX[c.id]) for c in ALL]
         + [(f"{r.objective or r.claim}: hypothesis", r.hypothesis, r.hypothesis_tex) for r in NEC]
         + [(f"{r.objective or r.claim}: note", r.note, r.note_tex) for r in NEC if r.note])
#: names the plain statements write as words inside their mathematics ("C_m / sqrt(d)", "grad L", "beta > 11 lH")
MATH_WORDS = {"sqrt", "exp", "diag", "grad", "alpha", "beta", "gamma", "delta", "lambda", "sigma", "kappa", "theta"}


def _words(text: str) -> list[str]:
    """The lowercase words of four or more letters, the words a reader reads (not 'C_W', 'Ltilde', 'sqrt(d)')."""
    toks = (t.strip(".,;:()") for t in text.split())
    return [t for t in toks if re.fullmatch(r"[a-z]{4,}", t) and t not in MATH_WORDS]


def test_every_claim_and_necessity_row_has_one_in_registry_order():
    assert list(TEX) == IDS
    assert list(NECESSITY) == [(r.claim, r.hypothesis) for r in NEC]
    assert all((r.note == "") == (r.note_tex == "") for r in NEC)


@pytest.mark.parametrize("name, plain, tex", TEXTS, ids=[t[0] for t in TEXTS])
def test_grammar_math_and_words(name, plain, tex):
    """The grammar holds; each math part is MathML with no macro left untranslated; the words outside the math are
    the plain text's, both ways (an edit of one that forgets the other fails here)."""
    assert problems(tex) == []
    if not any(k == "math" for k, _ in parts(tex)):   # nothing to typeset: the words themselves
        assert tex == plain
    for kind, s in parts(tex):
        if kind == "math":
            assert math_ml(s, display=False) is not None, s
    text = " ".join(s for k, s in parts(tex) if k == "text")
    assert sorted(set(_words(plain)) - set(_words(text))) == []
    assert sorted(set(_words(text)) - set(_words(plain))) == []


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_PLAIN_RELATION = re.compile(r">~|<=|>=|!=|->|<|>|=")
#: the typeset relations as the plain texts write them (a matrix order as the plain "<", "B < A")
_TEX_RELATION = {r"\leq": "<=", r"\le": "<=", r"\leqslant": "<=", r"\geq": ">=", r"\ge": ">=", r"\geqslant": ">=",
                 r"\neq": "!=", r"\ne": "!=", r"\to": "->", r"\mapsto": "->", r"\prec": "<", r"\succ": ">",
                 r"\preceq": "<=", r"\succeq": ">=", r"\gtrsim": ">~", "<": "<", ">": ">", "=": "="}


@pytest.mark.parametrize("name, plain, tex", TEXTS, ids=[t[0] for t in TEXTS])
def test_the_same_numbers_and_relations_as_the_plain_text(name, plain, tex):
    """Beyond the words: the numbers of the plain text and of the typeset one are the same set, and their relations
    the same multiset (an edit that changes a constant or turns a <= into a < in one of them fails here)."""
    plain = plain.replace("11^T", "1 1^T")   # the all-ones outer product, typeset as 1 1^T
    assert set(_NUMBER.findall(plain)) == set(_NUMBER.findall(re.sub(r"\\[a-zA-Z]+", " ", tex)))
    math = " ".join(s for k, s in parts(tex) if k == "math")
    typeset = Counter(_TEX_RELATION[t] for t in re.findall(r"\\[a-zA-Z]+|[<>=]", math) if t in _TEX_RELATION)
    # "<x, y>" in a plain text is an inner product, not two relations
    assert Counter(_PLAIN_RELATION.findall(re.sub(r"<[^<>=]*,[^<>=]*>", " ", plain))) == typeset


def test_all_of_them_compile(tmp_path):
    body = "\n\n".join(rf"\paragraph{{{i}}} {tex}" for i, (_, _, tex) in enumerate(TEXTS))
    doc = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n\\begin{document}\n" + body
           + "\n\\end{document}\n")
    proc = pdflatex(doc, tmp_path, "statements")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "Undefined control sequence" not in proc.stdout
    if subprocess.run(["pdftotext", "-v"], capture_output=True).returncode == 0:
        text = subprocess.run(["pdftotext", str(tmp_path / "statements.pdf"), "-"], capture_output=True,
                              text=True).stdout
        assert all(str(i) in text for i in range(len(TEXTS)))


@pytest.mark.parametrize("tex, problem", [
    ("a $x", "odd number"), ("$$x$$", "display"), (r"\[x\]", "display"), ("a_b $x$", "markup"),
    ("$\\lvert x| $", "'|'"), ("$ x$", "spaces inside"), ("$$", "empty math"), ('"x" $y$', "markup"),
])
def test_problems_name_each_break(tex, problem):
    assert any(problem in p for p in problems(tex)), problems(tex)


@given(st.lists(st.tuples(st.sampled_from(["text", "math"]),
                          st.text(st.characters(blacklist_characters="$"), min_size=1, max_size=12)), max_size=6))
def test_parts_read_back_what_was_joined(pieces):
    """parts() inverts the join of text and ``$math$`` (adjacent text pieces read back as one)."""
    tex = "".join(f"${s}$" if k == "math" else s for k, s in pieces)
    merged = []
    for k, s in pieces:
        if merged and k == "text" and merged[-1][0] == "text":
            merged[-1] = ("text", merged[-1][1] + s)
        else:
            merged.append((k, s))
    assert parts(tex) == merged


# ------------------------------------------------------------------------------------------------ the routes
ROW = {"id": "S-eq9", "where": "eq. (9)", "statement": next(c.statement for c in CLAIMS if c.id == "S-eq9"),
       "statement_tex": TEX["S-eq9"]}
BROKEN = [{k: v for k, v in ROW.items() if k != "statement_tex"}, {**ROW, "statement_tex": "a_b $x"},
          {**ROW, "statement_tex": 3}, {**ROW, "statement_tex": "  "}]


def test_html_typesets_each_math_part_with_its_latex_on_hover():
    out = statement_html(ROW)
    maths = [s for k, s in parts(TEX["S-eq9"]) if k == "math"]
    assert out.count("<math") == sum(len(break_pieces(s)) for s in maths) > len(maths)   # cut after relations, + and -
    for s in maths:
        assert f'title="{s}"' in out.replace("&#x27;", "'")
    assert "\\" not in re.sub(r'title="[^"]*"', "", out)   # no LaTeX source shown as text


def test_markdown_keeps_the_math_and_escapes_the_words():
    row = {**ROW, "statement_tex": r"If $A_{ii} = 1$ then *this* [holds] for $A$."}
    assert statement_markdown(row) == r"If $A_{ii} = 1$ then \*this\* \[holds\] for $A$."


@pytest.mark.parametrize("row", BROKEN)
def test_every_route_shows_the_plain_statement_without_a_sound_typeset_one(row):
    assert statement_parts(row) is None
    assert statement_html(row) == ROW["statement"]
    assert statement_markdown(row) == text_md(ROW["statement"])
    assert "p * sum{\\_}i" in _tex_quote("S-none", row)   # escaped by tex_escape, not typeset


def test_the_errata_quote_is_the_typeset_statement():
    assert TEX["S-eq9"] in _tex_quote("S-none", ROW)


def test_a_report_row_carries_both_statements(synthetic_report):
    doc = synthetic_report("statement_texts")
    rows = doc["claims"] + doc.get("beyond", [])
    assert rows and all(r["statement_tex"] == TEX[r["id"]] for r in rows)


def test_the_catalogue_page_typesets_them():
    from verify.docs_pages import catalogue_md

    page = catalogue_md()
    for c in ALL:
        line = next(x for x in page.splitlines() if x.startswith(f"| `{c.id}` |"))
        assert typeset_markdown(TEX[c.id], "") in line
        assert line.count(" | ") + 1 == (5 if c.beyond else 4)   # no '|' from a statement splits the row


def test_text_forbidden_covers_markdown_and_latex_markup():
    assert set("\\_^{}%&#~|<>$") <= TEXT_FORBIDDEN


# ------------------------------------------------------------------------------------------------ the necessity table
def _record(row, note=None) -> dict:
    """A claim row with one necessity record of ``row`` as a check writes it."""
    return {"id": row.claim, "verdict": "verified",
            "necessity": [{"hypothesis": row.hypothesis, "outcome": "needed",
                           "evidence": {"note": row.note if note is None else note,
                                        "search": {"best": 2.5, "threshold": 1.0, "starts_run": 1, "seed": 0,
                                                   "objective": row.objective},
                                        "counterexample": {"value": 2.5, "start": 0, "replay": 2.5}}}]}


def test_the_report_table_carries_the_typeset_texts_of_this_registry():
    row = next(r for r in ROWS if r.note)
    (line, *rest) = necessity_table([_record(row)])
    assert (line["hypothesis_tex"], line["note_tex"]) == (row.hypothesis_tex, row.note_tex)
    assert rest and all((n["hypothesis_tex"], n["note_tex"]) == NECESSITY[(n["claim"], n["hypothesis dropped"])]
                        for n in rest)
    # a record whose note is not the registry's keeps its own words; an unknown hypothesis has no typeset text
    (line, *_) = necessity_table([_record(row, note="another note")])
    assert "note_tex" not in line and line["note"] == "another note"
    assert typeset(row.claim, "a hypothesis of no row", "") == {}


def test_every_route_typesets_the_necessity_table():
    row = next(r for r in ROWS if r.note and "$" in r.note_tex)
    doc = {"claims": [], "necessity": necessity_table([_record(row)])}
    page = "".join(_necessity_html(doc))
    maths = [s for k, s in parts(row.hypothesis_tex) + parts(row.note_tex) if k == "math"]
    assert page.count("<math") >= len(maths)
    md = "\n".join(certified_sections(doc))
    assert cell_tex(row.hypothesis_tex, row.hypothesis) in md
    assert cell_tex(row.note_tex, row.note) in md and "$" in cell_tex(row.note_tex, row.note)


def test_a_markdown_cell_never_cuts_the_math():
    long = "word " * (MAX_CELL // 5) + "$x^{2}$"
    assert len(typeset_markdown(long, "plain")) > MAX_CELL
    assert cell_tex(long, "plain words") == cell("plain words")
    assert cell_tex("fits $x$", "plain") == "fits $x$"
    assert cell_tex("a_b $x$", "plain") == "plain"


@pytest.mark.parametrize("name, plain, tex", TEXTS, ids=[t[0] for t in TEXTS])
def test_every_formula_wraps_after_its_relations_and_binary_operators(name, plain, tex):
    """The HTML's inline formulas are cut after their top-level relations and binary + and - (a narrow column wraps
    there): the pieces join back to the formula, each but the last ends in one, and the pieces (or the whole)
    translate."""
    for kind, s in parts(tex):
        if kind != "math":
            continue
        pieces = break_pieces(s)
        assert "".join(pieces) == s
        assert all(any(p.rstrip().endswith(r) for r in RELATIONS | BINARY) for p in pieces[:-1])
        ml = inline_math_ml(s)
        assert ml is not None and ml.count("<math") in (1, len(pieces))
        assert ml.count("<wbr>") == ml.count("<math") - 1    # a break opportunity between each two pieces


def test_the_docs_data_keeps_the_typeset_texts():
    """The slim report the documentation pages are generated from (docs/_data/verdicts.json) keeps every typeset
    text of the full one."""
    from verify.docs_pages import slim_report

    row = next(r for r in ROWS if r.note)
    nec = necessity_table([_record(row)])
    slim = slim_report({"claims": [{**ROW, "paper": "S", "kind": "sym", "verdict": "verified"}], "necessity": nec})
    assert slim["claims"][0]["statement_tex"] == ROW["statement_tex"]
    assert [(n["hypothesis_tex"], n.get("note_tex")) for n in slim["necessity"]] == \
        [(n["hypothesis_tex"], n.get("note_tex")) for n in nec]


# ------------------------------------------------------------------------------------------------ whole documents
@pytest.fixture(scope="module")
def doc(synthetic_report):
    return synthetic_report("statement_texts_documents")


def test_the_markdown_report_typesets_each_refuted_statement(doc):
    from verify.reporters.markdown import format_markdown

    refuted = [r for r in doc["claims"] if r["verdict"] == "refuted"]
    page = format_markdown(doc)
    assert refuted and all(f"*Statement:* {statement_markdown(r)}" in page for r in refuted)
    assert all("$" in statement_markdown(r) for r in refuted)


def test_the_errata_quote_a_claim_without_paper_text_typeset(doc, monkeypatch):
    """Where the errata have no quote of the paper, the claim in our words is the typeset statement, in the LaTeX
    and the Markdown letter alike."""
    from verify.reporters import errata

    row = next(r for r in doc["claims"] if r["verdict"] == "refuted" and "$" in r["statement_tex"])
    monkeypatch.delitem(errata.PAPER_TEXT, row["id"], raising=False)
    assert f"in our words): {statement_markdown(row)}" in errata.errata_markdown(doc, paper=row["paper"])
    assert row["statement_tex"] in errata.errata_latex(doc, paper=row["paper"])


def test_a_markdown_text_is_one_line_and_a_cell_keeps_it_up_to_its_length():
    assert typeset_markdown("a\nb  $x$\n c", "") == "a b $x$ c"
    text = "w" * (MAX_CELL - 4) + " $x$"            # exactly a cell
    assert cell_tex(text, "plain") == text and cell_tex(text + "w", "plain") == "plain"


def test_a_formula_ending_in_a_relation_is_one_piece():
    assert break_pieces(r"a \leq") == [r"a \leq"] and break_pieces("a = ") == ["a = "]
    assert break_pieces("a = b") == ["a =", " b"]


def test_only_an_enclosure_stands_for_a_long_expression():
    """A long side shown as "expression = [a, b]" (a list or an interval, not an Arb ball) keeps its expression."""
    from verify.reporters._common import MAX_EXPRESSION, _side

    long = "x" * (MAX_EXPRESSION + 1)
    assert _side(f"{long} = [1, 2]") == f"{long} = [1, 2]"
    assert _side(f"{long} = [0.5 +/- 1e-30]") == "[0.5 +/- 1e-30]"
