"""Every symbol a reader sees in an exported formula is the paper's (issue 41, gap class (a): typeset text not
compared whole).

A formula's LaTeX is printed from the same sympy object the checks evaluate, so a symbol renamed in a derivation
(a dimension ``d`` built as another name, a moment ``mu_4`` spelt otherwise) passes every numeric check and every
test that matches a fragment of the LaTeX, and reaches the reader. Here the names of every symbol, matrix symbol and
named function in every registered formula (``verify latex``'s items, default parameters) are compared, as one set
per paper, with the notation tables below: transcribed from the papers (paper S: the loss, its rows and gradient,
the bounds, the frame; paper N: the central path, its flow, the perturbation matrix F), with the display names the
package gives derived quantities. A new formula's new symbol goes into the table on purpose, in the same change.
"""

import pytest
import sympy
from sympy.core.function import AppliedUndef

from verify.latex import formulas

NOTATION = {
    "S": {
        '(V^T V)_{\\mathbf{a};\\mathbf{b}}', 'A_{ii}', 'A_{ii}^{*}', 'A_{ij}', 'C_00', 'C_01', 'C_2', 'C_3', 'G',
        'G_{ij}', 'K', 'M_00', 'M_01', 'S_00', 'S_01', 'S_11', 'S_{2,i}', 'S_{4,i}', 'S_{6,i}', 'S_{k,i}', 'T_{2,i}',
        'T_{4,i}', 'T_{6,i}', 'V_{x;\\mathbf{a}}', 'W', '\\delta_{ij}',
        '\\left|(V^T V)_{\\mathbf{a};\\mathbf{b}}\\right|', '\\mathbb{E}\\langle x, (M^{(k)}x)^{\\odot m}\\rangle',
        '\\mathbb{E}\\|M^{(k)}x\\|_{2m}^{2m}', '\\mathcal{M}(W)', '\\nabla_{W} \\tilde{L}', '\\operatorname{tr}',
        '\\operatorname{tr}(2A - A^2)', '\\partial_{A_{ii}} f_m', '\\partial_{T_{2,i}} f_m', '\\partial_{T_{4,i}} f_m',
        '\\partial_{T_{6,i}} f_m', '\\psi', '\\sup_W \\tilde{L}(W)', '\\sup_{A\\ \\mathrm{diagonal}} \\tilde{L}',
        '\\sup_{k \\le d^m}', '\\tilde{L}', '\\tilde{L}(W)', '\\tilde{L}(t M^{(k)})', 'a', 'a_0', 'a_1', 'a_2', 'b',
        'b_0', 'b_1', 'b_2', 'd', 'f(C)', 'f_1', 'f_m', 'i', 'j', 'k', 'm', 'mu_2', 'mu_4', 'mu_6', 'n', 'p', 'r', 't',
        'x', 'z',
    },
    "N": {
        '1_{n}^{T}', 'H', 'K', 'Kn\\,\\mathrm{Lip}(\\nabla\\mathcal{L})', 'W^{*}(H)', 'Y', '\\Sigma_{B}', '\\Sigma_{W}',
        '\\frac{dT_B}{dt}', '\\frac{dT_W}{dt}', '\\frac{d\\Sigma_{B}}{dt}', '\\frac{d\\Sigma_{W}}{dt}',
        '\\frac{d\\tilde{\\Sigma}_{T}}{dt}', '\\lambda_{\\times 1}(F_{kk})', '\\lambda_{\\times 2}(F_{kk})',
        '\\mathbf{C}_{B}', '\\mathbf{C}_{W}', '\\mathcal{L}(H)', '\\mathrm{Lip}(H_0\\mapsto{}H^*)',
        '\\mathrm{eig}_{\\times 1}(F_{kk})', '\\mathrm{eig}_{\\times 2}(F)', '\\mathrm{eig}_{\\times 2}(F_{kk})',
        '\\mathrm{eig}_{\\times 3}(F)', '\\mathrm{eig}_{\\times 4}(F)', '\\nabla\\mathcal{L}(H)', '\\overline{H}',
        '\\sigma^2_{\\times 1}(F_{k\\tilde{k}})', '\\sigma^2_{\\times 5}(F_{k\\tilde{k}})', '\\sigma_{W}^{2}',
        '\\sigma_{\\bar{H}}\\sigma_{W}', '\\sigma_{\\bar{H}}^{2}', '\\tilde{\\Sigma}_{B}', '\\tilde{\\Sigma}_{T}',
        '\\tilde{\\mathbf{C}}_{B}', 'beta', 'd', 'lambda_H', 'lambda_W', 'n', 't',
    },
}


def symbol_names(item) -> set:
    """The names of the symbols, matrix symbols and undefined functions of one display item."""
    names = {str(s.name) for s in item.atoms(sympy.Symbol, sympy.MatrixSymbol)}
    return names | {str(f.func) for f in item.atoms(AppliedUndef)}


@pytest.mark.parametrize("paper", sorted(NOTATION))
def test_every_exported_symbol_is_the_papers(paper):
    seen = set()
    for name, f in sorted(formulas().items()):
        if not name.startswith(paper + "-"):
            continue
        for item in f.items():
            if isinstance(item, str):
                continue
            names = symbol_names(item)
            assert names <= NOTATION[paper], (name, sorted(names - NOTATION[paper]))
            seen |= names
    assert seen == NOTATION[paper], sorted(NOTATION[paper] - seen)     # no entry of the table is dead either
