"""The claims registry: every checkable statement of the two papers, as data.

Each :class:`Claim` carries a stable ID (as spelled in ``shared/claims.md``), the paper, where the
statement lives in it, the statement in our own words, and the kind of method that checks it:

* ``sym`` - symbolic derivation or identity (sympy, also evaluated at random exact rational points);
* ``hp``  - high precision (mpmath on a precision ladder) or exact integer arithmetic;
* ``num`` - float64 numerics with a stated tolerance and fixed seeds;
* ``emp`` - training networks (torch backend), a statistical verdict over seeds.

Checks live in ``proofs_checks/`` and point at claims with ``@pytest.mark.claim("ID")``.

Example
-------
>>> from verify.claims import get_claim
>>> get_claim("S-eq9").where
'eq. (9)'
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import VerifyInputError
from .statement_texts import TEX

PAPERS = {
    "S": "Effects of sparsity and superposition on loss in simple autoencoders",
    "N": "A perturbation analysis of neural collapse (unconstrained features, central path)",
}
#: the papers' titles as they print them (``PAPERS`` describes them in our words): the errata and the pages use these
TITLES = {"S": "Effects of sparsity and superposition on loss in simple autoencoders",
          "N": "Perturbation Analysis of Neural Collapse"}

#: verdicts of a proof claim (sym / hp / num)
VERDICTS = ("verified", "refuted", "inconclusive", "not-checked")
#: verdicts of an experimental claim (emp): experiments support or contradict, only proofs verify or refute
EMP_VERDICTS = ("supported", "contradicted", "inconclusive", "not-checked")
#: every verdict word, in the order the report counts them
ALL_VERDICTS = ("verified", "supported", "refuted", "contradicted", "inconclusive", "not-checked")
#: the kinds of refutation (``shared/claims.md``, "Verdicts"), most serious first:
#: ``error`` - fails inside the regime the paper intends (hypotheses hold, instance non-degenerate);
#: ``missing-hypothesis`` - fails only where an unstated hypothesis that the proof uses is violated;
#: ``degenerate`` - fails only where the claimed quantity is undefined or trivial.
SEVERITIES = ("error", "missing-hypothesis", "degenerate")
#: what a refutation's ``justification`` must name, per severity
SEVERITY_FIELDS = {
    "error": ("instance", "ratio"),               # an instance well inside the hypotheses; failure size as a ratio
    "missing-hypothesis": ("hypothesis", "repair"),  # the unstated hypothesis; how adding it repairs the statement
    "degenerate": ("quantity",),                  # the undefined or trivial quantity
}


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    where: str
    statement: str
    kind: str

    beyond: bool = False        # a result past the paper (ID ``X-...``), not a claim the paper makes
    #: emp claims: what the decision rule tests (verify.decision), shown in the report
    estimand: str = ""

    @property
    def experimental(self) -> bool:
        """An ``emp`` claim: supported / contradicted at a stated scale, never verified / refuted."""
        return "emp" in (k.strip() for k in self.kind.split(","))

    @property
    def verdicts(self) -> tuple:
        return EMP_VERDICTS if self.experimental else VERDICTS

    @property
    def part(self) -> str:
        """The part of its paper the claim belongs to, and so the folder of ``proofs_checks/`` that holds its checks
        (``"S/loss"``, ..., ``"experiments"`` for every ``emp`` claim of both papers): see :data:`PARTS`."""
        if self.experimental:
            return "experiments"
        return next(part for part, ids in PARTS.items() if self.id in ids)

    @property
    def statement_tex(self) -> str:
        r"""The statement typeset: text with inline ``$...$`` math in the paper's notation
        (:data:`verify.statement_texts.TEX`)."""
        return TEX[self.id]

    def as_dict(self) -> dict:
        d = {"id": self.id, "paper": self.paper, "where": self.where, "statement": self.statement,
             "statement_tex": self.statement_tex, "kind": self.kind}
        if self.estimand:
            d["estimand"] = self.estimand
        return d


def _c(id_, where, kind, statement, estimand=""):
    return Claim(id=id_, paper=id_[0], where=where, statement=statement, kind=kind, estimand=estimand)


CLAIMS: tuple[Claim, ...] = (
    # ---- paper S: superposition, sparsity and loss -------------------------------------------
    _c("S-eq6", "eq. (6)-(7)", "sym",
       "The reconstruction loss splits as L(W) = p n mu_2 - Ltilde(W), so minimising L is maximising Ltilde."),
    _c("S-exact-loss", "sec. 2", "sym, hp",
       "For every odd m, Ltilde(W) = 2E<x, phi(Ax)> - E|phi(Ax)|^2 (A = W^T W) is an explicit polynomial in p, "
       "the moments of mu and the entries of A; it matches Monte Carlo."),
    _c("S-eq9", "eq. (9)", "sym",
       "If A is diagonal, Ltilde = p * sum_i (2 mu_{m+1} A_ii^m - mu_{2m} A_ii^{2m})."),
    _c("S-eq10", "eq. (10)", "sym, hp",
       "Without superposition (A diagonal, rank <= d) the best Ltilde is exactly p d mu_{m+1}^2 / mu_{2m}, i.e. Theta(p d)."),
    _c("S-linear", "sec. 2", "sym, num",
       "With phi(t) = t, Ltilde = p mu_2 tr(2A - A^2), at most p mu_2 d, with equality for rank-d projections."),
    _c("S-tensor", "proof of Thm 3.1", "sym",
       "<u, v>^m equals the inner product of the m-fold tensor powers, which rewrites Ltilde through the matrix C_W."),
    _c("S-lemA.3", "Lemma A.3", "sym, num",
       "The supremum over linear maps C of 2E<x, Cy> - E|Cy|^2 equals tr(M Sigma^+ M^T), M = E[x y^T], Sigma = E[y y^T]."),
    _c("S-eq11", "eq. (11)", "num",
       "M(W) equals the sum over eigen-directions of |E[x <y, u_i>]|^2 / lambda_i; each normalised polynomial has unit variance."),
    _c("S-eq12", "eq. (12)-(13)", "num",
       "For an odd polynomial psi of degree m with E psi(x)^2 = 1, |E[x psi(x)]|^2 <= p mu_2."),
    _c("S-thm3.1", "Thm 3.1, Thm 2.2(1)", "num",
       "sup_W Ltilde(W) <= C_2 p d^m, with the explicit constant C_2 that the proof produces."),
    _c("S-fn3", "footnote 3", "num",
       "Restricting a sample to its support S (and W to the columns in S) does not lower the per-sample objective."),
    _c("S-fn4", "footnote 4", "num",
       "Any W factors as W = W' P with P an orthogonal projection of rank d (from the SVD)."),
    _c("S-eq16", "eq. (15)-(16)", "num, hp",
       "Ltilde(W) is bounded by E|E[x | Px]|^2, the energy of the best reconstruction from the projected input."),
    _c("S-lemA.1", "Lemma A.1", "hp",
       "For a family mu_s with density prop. to exp(-V_s), d/ds E_{mu_s} f = -Cov(f, dV_s/ds)."),
    _c("S-lemA.2", "Lemma A.2", "num",
       "For a positive definite block matrix A, ||A12 A22^{-1} A21||_op <= ||A||_op."),
    _c("S-thm2.2-2", "Thm 2.2(2)", "num",
       "For a symmetric i.i.d. (1/K, K)-strongly log-concave mu and Bernoulli(p) supports, sup_W Ltilde <= C_3 d "
       "with the explicit constant of the proof."),
    _c("S-thm3.2", "Thm 3.2, Remark 2.3", "num",
       "For any (1/K, K)-strongly log-concave nu on (xi_1..xi_n) and any distribution of sparsity patterns, "
       "sup_W Ltilde <= C_3 d with the explicit constant of the proof."),
    _c("S-lem4.1", "Lemma 4.1", "hp",
       "There is V in R^{d x d^m} whose Gram matrix M = V^T V has unit diagonal and off-diagonal entries at most "
       "C_m / sqrt(d) < 1 once d is large enough."),
    _c("S-lemA.4-trace", "Lemma A.4", "hp",
       "The field trace GF(2^r) -> GF(2) is GF(2)-linear, psi(z) = (-1)^tr(z) is an additive character, and psi(-z) = psi(z)."),
    _c("S-lemA.4-weil", "Lemma A.4", "hp",
       "For a polynomial P of odd degree, |sum_x psi(P(x))| <= (deg P - 1) sqrt(2^r) (Weil bound)."),
    _c("S-lemA.4-pow2", "Lemma A.4", "hp",
       "For d = 2^r the character-sum frame satisfies |(V^T V)_ab| <= (2m - 2)/sqrt(d) for a != b."),
    _c("S-lemA.4-general", "Lemma A.4", "hp",
       "For arbitrary d, building with 2m in place of m, keeping the first d^m columns and padding zero rows gives the lemma."),
    _c("S-random-frames", "after Lemma 4.1", "num",
       "Random frames only achieve coherence of order sqrt(log d / d), worse than the algebraic construction."),
    _c("S-eq19", "eq. (19)-(20)", "sym",
       "For A = t M^(k), Ltilde = 2 t^m a - t^{2m} b and the optimum over t > 0 is a^2 / b."),
    _c("S-eq21", "eq. (21)", "sym, hp",
       "The numerator a is at least p mu_{m+1} k because every term of its multinomial expansion is non-negative."),
    _c("S-eq22", "eq. (22)", "hp",
       "The denominator b is at most a constant times max(p k, p^m k (1 + k/d)^m) (Rosenthal's inequality)."),
    _c("S-thm4.2", "Thm 4.2, Thm 2.2(1)", "hp",
       "With the paper's choice of k, sup_W Ltilde is at least a constant times min(p d^m, d p^{1/m})."),
    _c("S-rem4.3-first-order", "Remark 4.3", "sym",
       "To first order in p, Ltilde = p (2 mu_{m+1} sum_i A_ii^m - mu_{2m} sum_ij A_ij^{2m}) + O(p^2)."),
    _c("S-rem4.3-scaling", "eq. (23)", "sym",
       "Taking A = c B with c = (mu_{m+1}/mu_{2m})^{1/m} turns the first-order term into p mu_{m+1}^2 / mu_{2m} F(B)."),
    _c("S-rem4.3-bound", "Remark 4.3", "num",
       "F(B) = tr(2 Btilde - Btilde^2) is at most rank Btilde, which is at most d^m."),
    _c("S-rem4.3-attained", "Remark 4.3", "hp",
       "The frame of Lemma 4.1, optimally scaled, reaches F(B) of order d^m."),
    _c("S-fig3", "Figure 3", "emp",
       "Trained Ltilde for d = 10, 15, m = 3, n = 6000 grows with slope 1 in log_d p once p <= d^{-m}.",
       estimand="per d, the median over seeds of the per-seed least-squares slope of log_d Ltilde on log_d p for "
                "p <= d^-m; signed equivalence (TOST): slope - 0.9 > 0 and 1.1 - slope > 0, two simple effects per d"),
    # ---- paper N: perturbation analysis of neural collapse -------------------------------------
    _c("N-thm2.2", "Thm 2.2", "sym, num",
       "Every global minimiser of the UFM (1) is orthogonally collapsed with rho = (1 - c) sqrt(lW/lH) and "
       "W* = sqrt(lH/lW) Hbar*^T; for c > 1 the only minimiser is (0, 0)."),
    _c("N-etf", "sec. 2", "sym",
       "If Hbar^T Hbar = rho I, the globally centred class means form a simplex ETF."),
    _c("N-minimisers-R", "sec. 2", "num",
       "Every partial orthonormal matrix R yields a global minimiser of (1)."),
    _c("N-cor3.1", "Cor. 3.1", "num",
       "With H0 = H*, the perturbed problem (2) has the unique minimiser (W*, H*)."),
    _c("N-Wstar", "sec. 4, App. A", "sym",
       "The optimal classifier is W*(H) = Y H^T (H H^T + n lW I)^{-1} = (1/K) Hbar^T (SigmaT~ + lW/K I)^{-1}."),
    _c("N-decomp", "App. A", "sym",
       "The non-centred total covariance splits as SigmaT~ = SigmaW + SigmaB~."),
    _c("N-L-closed", "App. A", "sym",
       "The central-path loss has the closed form (1/2K) Tr((SigmaW + lW/K I)(SigmaT~ + lW/K I)^{-1}) + (lH/2) Tr SigmaT~ "
       "- (d - K)/(2K), and every intermediate equality of App. A holds."),
    _c("N-eq7", "App. A", "sym, hp",
       "The gradient of L is given by eq. (7)."),
    _c("N-lemA.1", "Lemma A.1", "sym",
       "Along the flow (4), d SigmaB/dt, d SigmaW/dt and d SigmaT~/dt are given by Lemma A.1."),
    _c("N-thm4.1-nc1", "Thm 4.1", "hp",
       "NC1~(H_t) decreases strictly along the gradient flow until it reaches zero."),
    _c("N-thm4.1-W", "Thm 4.1", "hp",
       "exp(2 lH t) Tr SigmaW(H_t) is non-increasing along the flow."),
    _c("N-thm4.1-B", "Thm 4.1", "hp",
       "exp(2 lH t) Tr SigmaB(H_t) is strictly increasing along the flow."),
    _c("N-thm4.1-dT", "App. A", "sym",
       "Closed forms of dT_W/dt and dT_B/dt along the flow."),
    _c("N-eq8", "eq. (8)", "num",
       "The minimiser of (2) satisfies H_{1/beta} - H0 = -(Kn/beta) grad L(H_{1/beta})."),
    _c("N-cor4.2", "Cor. 4.2", "num",
       "NC1~(H_{1/beta}) < NC1~(H0) once beta exceeds a constant C(H0)."),
    _c("N-lemB.1", "Lemma B.1", "num",
       "||grad L(H)||_F <= (1/Kn)(3/lW + lH) ||H||_F."),
    _c("N-B-distance", "App. B", "num",
       "||H_{1/beta} - H0||_F <= (beta/(nKM) - 1)^{-1} ||H0||_F."),
    _c("N-B-limit", "App. B", "num",
       "beta (H_{1/beta} - H0) tends to -Kn grad L(H0) as beta grows."),
    _c("N-C-derivs", "App. C", "sym, num",
       "The first derivatives (11), the Hessian blocks and the mixed block with E(W, H) of the objective of (2)."),
    _c("N-thmC.1", "Thm C.1", "num",
       "vec(dH) = F vec(dH0) + O(|dH0|^2) with F = (beta/Kn) times the inverse Schur complement; dW follows."),
    _c("N-thm5.1", "Thm 5.1", "num",
       "The first-order (Neumann) approximation (5) of F has error O(beta^-2) plus O(|dH0|^2)."),
    _c("N-lemC.3", "Lemma C.3", "num",
       "If B < A and A > 0 then ||A^{-1/2} B A^{-1/2}||_op <= 1."),
    _c("N-lemC.4", "Lemma C.4", "num",
       "The four operator-norm bounds (13)-(16)."),
    _c("N-C2-derivative", "proof of Thm C.2", "num",
       "The expression used for d/dt grad L(H_t) in the proof of Theorem C.2."),
    _c("N-thmC.2", "Thm C.2", "num",
       "grad L is (11 lH/(Kn))-Lipschitz, and H0 -> H* is (1 - 11 lH/beta)^{-1}-Lipschitz when beta > 11 lH and lW lH < 1."),
    _c("N-D-sigmas", "App. D", "sym",
       "At a collapsed minimiser sigma_Hbar^2 = sqrt(lW/lH) - lW, sigma_W^2 = sqrt(lH/lW) - lH, with product (1 - c)^2."),
    _c("N-D-residual", "App. D", "sym",
       "At a collapsed minimiser W*H* - Y = -c Y."),
    _c("N-D-commutation", "App. D", "sym",
       "The commutation-matrix identities (17) for K_{d,K}."),
    _c("N-D-Z-blocks", "App. D", "sym, num",
       "The blocks Z*_{k,k~} of eq. (18)."),
    _c("N-D-mu-lambda", "App. D", "sym",
       "The scalars mu_i and lambda_i of eqs. (19)-(20)."),
    _c("N-D-eig", "App. D", "sym, num",
       "The eigendecomposition (21) of F_kk; a fraction (1 - K/d)/n of its eigenvalues equal 1."),
    _c("N-thm5.2", "Thm 5.2", "sym, num",
       "F_kk has full rank and F_kk~ rank 1; sigma_max(F_kk) = 1, sigma_min(F_kk) = 1 - sqrt(lH/lW)/beta and "
       "sigma_max(F_kk~) = 2 lH (1 - sqrt(lH lW))/beta."),
    _c("N-D.1-full-F", "App. D.1", "num",
       "The spectrum of the whole F looks like a stretched version of the diagonal blocks' spectrum."),
    _c("N-fig1", "Figure 1", "num",
       "The spectrum of F_kk for beta = 100, K = 4, d = 10, n = 10, lW = sqrt 2 and several lH, as plotted."),
    _c("N-metrics", "sec. 6, App. E.2", "sym, num",
       "Definitions of NC1, NC1~, NC2, NC3 and per-class NC1^(k), with NC1 = (1/K) sum_k NC1^(k)."),
    _c("N-fig2-layerwise", "Fig. 2, App. E.1", "emp",
       "In a layer-wise trained MLP, NC1 and NC1~ of the deepest features fall as layers are added.",
       estimand="median over seeds of minus the per-seed least-squares slope of log10 NC1 (and of log10 NC1~) of the "
                "deepest features against the number of layers; signed (positive = falls); two simple effects"),
    _c("N-table1-wd", "Fig. 3, Table 1", "emp",
       "Changing the feature layers' weight decay moves NC1/NC2 more than changing the last layer's.",
       estimand="median over seeds of paired contrasts, per loss (MSE, CE) and metric (NC1, NC2): "
                "log m(WDx2 on W) - log m(WDx2 on H) and log m(WD=0 on H) - log m(WD=0 on W); signed in the "
                "paper's direction (not absolute deviations); 8 contrasts (the baseline cancels)"),
    _c("N-fig6-interference", "Fig. 6", "emp",
       "With two degraded classes, larger last-layer weight decay lowers the NC metrics of the other classes.",
       estimand="median over seeds of log O(WD_W = 0) - log O(WD_W = base) on the data with classes 4 and 9 "
                "blurred, O = the other classes' mean NC1; signed (positive = the paper's direction); one simple "
                "effect. The paper's explanation (interference) is decided beside it, not in this verdict: the same "
                "on blurred minus on clean data"),
    _c("N-E2-depth", "App. E.2", "emp",
       "NC metrics are larger at intermediate features than at the deepest ones.",
       estimand="median over seeds of log m(intermediate) - log m(deepest) for NC1 and NC2 (CE with bias, baseline "
                "WD; the same network); signed (positive = larger at intermediate); two simple effects"),
)

def _x(id_, where, kind, statement):
    return Claim(id=id_, paper=id_[2], where=where, statement=statement, kind=kind, beyond=True)


#: results past the papers (IDs ``X-<paper>-...``), checked like claims and reported in their own,
#: clearly marked table; they are not statements of the papers and not in ``shared/claims.md``.
BEYOND: tuple[Claim, ...] = (
    _x("X-S-quadratic-certificate", "beyond Lemma A.4", "num",
       "For m <= 3 the full histogram of the Lemma A.4 frame's character sums follows exactly from the GF(2) "
       "radical dimensions of its quadratic parts; it equals the WHT certificate wherever both run and "
       "Kasami's weight distributions of the duals of the 2- and 3-error-correcting BCH codes."),
    _x("X-S-kerdock-frames", "beyond Lemma A.4", "num",
       "For even r the binary Kerdock frame (d^2/2 columns, plus the standard basis) has coherence exactly "
       "1/sqrt(d): half the paper's m = 2 coherence, meeting the Levenstein bound with equality."),
    _x("X-S-dg-frames", "beyond Lemma A.4", "num",
       "The Delsarte-Goethals frame DG(r, delta) has d^(delta+2)/2^(delta+1) columns at coherence exactly "
       "2^delta/sqrt(d) (DG(r, 1): about d^3/4 columns at the paper's m = 2 coherence)."),
    _x("X-S-thm4.2-better-frames", "beyond Thm 4.2", "num",
       "Rerunning Thm 4.2's exact bound a^2/b (m = 3) with every frame at its own best power-of-two k separates two "
       "gains over the paper's worst constant over p: choosing k better for the paper's own frame (about 1.15x at "
       "d = 16, 1.2x at d = 64), and, at that same k rule, the lower-coherence DG(r, 1) sub-frames (about 1.15-1.2x "
       "more), which are never worse than the paper's frame at any p tested. More columns at the paper's coherence "
       "(DG(r, 2) against DG(r, 1)) give exactly the same bound at every p where that was tested: in full at d = 64, "
       "and at d = 256 (slow tier) one bit of c beyond DG(8, 1); Thm 3.1 caps the bound at order p d^m anyway."),
)


#: the parts of the papers, each a folder of ``proofs_checks/`` (``proofs_checks/S/loss/``, ...) with the checks of its
#: claims, filed by kind (``test_statements.py``, ``test_routes.py``, ``test_outputs.py``, ``test_certified.py``,
#: ``test_searches.py``) and its curated mutants (``mutants.py``); the experiments (kind ``emp``) of both papers have
#: the one part ``experiments``. A check marked with several claims lives in the part of the first.
PARTS: dict[str, tuple[str, ...]] = {
    "S/loss": ("S-eq6", "S-exact-loss", "S-eq9", "S-eq10", "S-linear", "S-tensor", "S-rem4.3-first-order",
               "S-rem4.3-scaling", "S-rem4.3-bound"),
    "S/upper_bounds": ("S-lemA.3", "S-eq11", "S-eq12", "S-thm3.1", "S-fn3", "S-fn4", "S-eq16", "S-lemA.1",
                       "S-lemA.2", "S-thm2.2-2", "S-thm3.2"),
    "S/frames": ("S-lem4.1", "S-lemA.4-trace", "S-lemA.4-weil", "S-lemA.4-pow2", "S-lemA.4-general",
                 "S-random-frames", "X-S-quadratic-certificate", "X-S-kerdock-frames", "X-S-dg-frames"),
    "S/lower_bound": ("S-eq19", "S-eq21", "S-eq22", "S-thm4.2", "S-rem4.3-attained", "X-S-thm4.2-better-frames"),
    "N/central_path": ("N-thm2.2", "N-etf", "N-minimisers-R", "N-cor3.1", "N-Wstar", "N-decomp", "N-L-closed",
                       "N-eq7", "N-lemA.1", "N-thm4.1-nc1", "N-thm4.1-W", "N-thm4.1-B", "N-thm4.1-dT", "N-eq8",
                       "N-cor4.2", "N-lemB.1", "N-B-distance", "N-B-limit", "N-metrics"),
    "N/perturbation": ("N-C-derivs", "N-thmC.1", "N-thm5.1", "N-lemC.3", "N-lemC.4", "N-C2-derivative", "N-thmC.2",
                       "N-D-sigmas", "N-D-residual", "N-D-commutation", "N-D-Z-blocks", "N-D-mu-lambda", "N-D-eig",
                       "N-thm5.2", "N-D.1-full-F", "N-fig1"),
    "experiments": (),
}
#: the kinds of check, each one file name in every part folder (``test_<kind>.py``), in the order they are listed
CHECK_KINDS = ("statements", "routes", "outputs", "certified", "searches")

_BY_ID = {c.id: c for c in CLAIMS + BEYOND}
assert len(_BY_ID) == len(CLAIMS) + len(BEYOND), "duplicate claim ID"
assert sorted(i for ids in PARTS.values() for i in ids) == sorted(c.id for c in CLAIMS + BEYOND if not c.experimental), \
    "every claim of a proof in exactly one part"


def get_claim(claim_id: str) -> Claim:
    """Return the claim with this ID; an unknown ID raises :class:`VerifyInputError`."""
    try:
        return _BY_ID[claim_id]
    except KeyError:
        raise VerifyInputError(
            f"Argument 'claim_id' must be a registered claim ID (see `verify report`), not {claim_id!r}."
        ) from None


def claims_of_part(part: str) -> list[str]:
    """The IDs of the claims whose checks live in ``proofs_checks/<part>/``, in registry order."""
    if part not in PARTS:
        raise VerifyInputError(f"Argument 'part' must be one of {', '.join(PARTS)}, not {part!r}.")
    return [c.id for c in CLAIMS + BEYOND if c.part == part]


def claim_ids(paper: str | None = None, beyond: bool = False) -> list[str]:
    """All claim IDs in registry order, optionally for one paper ('S' or 'N'); ``beyond=True`` adds the
    beyond-the-paper results after them."""
    return [c.id for c in CLAIMS + (BEYOND if beyond else ()) if paper is None or c.paper == paper]
