"""Curated mutants for paper N's UFM / central-path / flow / NC-metric claims (see :mod:`verify.mutants`).

Each is one plausible wrong edit of the code behind a claim; the claim's own checks in
``proofs_checks/N/central_path/`` must fail on it.
"""

from verify.mutants import Mutant

UFM = "verify/numeric/ufm.py"
FLOW = "verify/numeric/central_path.py"
NCM = "verify/numeric/nc_metrics.py"
SYM = "verify/symbolic/central_path.py"

# the gradient (7) as coded: one factor K missing in the lH term (a slip that only a check independent of the code
# sees), and a wrong normalisation of the whole gradient; several claims rest on it
_GRAD_NO_K = (UFM, "H * (lh * K)) / (K * K * n)", "H * lh) / (K * K * n)",
              "gradient (7) missing the factor K of its lH K H term")
_GRAD_NORM = (UFM, "CHbar @ (CHbar.T @ H) / K", "CHbar @ (CHbar.T @ H)",
              "gradient (7): the 1/K of the C Hbar Hbar^T C H / K term dropped")
_RESID_N = (UFM, "return H - _same_shape_H0(H0, H, kind) + g * (K * n / _scalar(beta, kind))",
            "return H - _same_shape_H0(H0, H, kind) + g * (n / _scalar(beta, kind))",
            "first-order condition (8) with n/beta instead of Kn/beta")
_DTB = (FLOW, '"dT_B": 2 * _trace(c["Sigma_B"] @ C @ A @ C) / K,',
        '"dT_B": 2 * _trace(c["Sigma_B"] @ C @ c["Sigma_W"] @ C) / K,',
        "closed form dT_B/dt with Sigma_W in place of Sigma_W + lW/K I (the lW term dropped)")
_DTW = (FLOW, '"dT_W": -2 * _trace(c["Sigma_W"] @ C @ c["Sigma_B_tilde"] @ C) / K,',
        '"dT_W": -2 * _trace(c["Sigma_W"] @ C @ c["Sigma_B_tilde"] @ C) / (K * K),',
        "closed form dT_W/dt with 1/K^2 instead of 1/K")
_EXP_W = (FLOW, "= np.exp(2 * lam_H * t) * tw,", "= np.exp(lam_H * t) * tw,",
          "T_W weighted by e^{lH t} instead of e^{2 lH t}")
_EXP_B = (FLOW, "np.exp(2 * lam_H * t) * tb", "np.exp(lam_H * t) * tb",
          "T_B weighted by e^{lH t} instead of e^{2 lH t}")
_RHS_N = (FLOW, "return grad_central_path_loss(H, lam_W, lam_H, K) * (-K * n)",
          "return grad_central_path_loss(H, lam_W, lam_H, K) * (-n)",
          "flow (4) with -n grad L instead of -Kn grad L")
_SB_COV = (UFM, 'return {"Sigma_W": Hc @ Hc.T / (K * n), "Sigma_B": Mc @ Mc.T / K,',
           'return {"Sigma_W": Hc @ Hc.T / (K * n), "Sigma_B": Mc @ Mc.T / (K - 1),',
           "Sigma_B normalised by 1/(K-1) (unbiased) instead of the paper's 1/K")


def _m(claim, spec):
    path, old, new, why = spec
    return Mutant(claim, path, old, new, why)


MUTANTS = [
    # --- Thm 2.2: rho, W* = sqrt(lH/lW) Hbar^T, the reduced problem
    Mutant("N-thm2.2", UFM, "return max(0.0, (1 - c) * np.sqrt(float(lam_W) / float(lam_H)))",
           "return max(0.0, (1 - c) * np.sqrt(float(lam_H) / float(lam_W)))", "rho with sqrt(lH/lW) for sqrt(lW/lH)"),
    Mutant("N-thm2.2", UFM, "W = np.sqrt(float(lam_H) / float(lam_W)) * np.sqrt(rho) * R.T",
           "W = np.sqrt(rho) * R.T", "W* = Hbar^T without the factor sqrt(lH/lW)"),
    Mutant("N-thm2.2", SYM, "f = (w * s - 1) ** 2 / 2 + lw * w**2 / 2 + lh * s**2 / 2",
           "f = (w * s - 1) ** 2 / 2 + lw * w**2 / 2 + lh * s**2", "reduced objective: lH s^2 without its 1/2"),
    # --- ETF identity
    Mutant("N-etf", SYM, "P = sympy.eye(K) - sympy.ones(K, K) / K", "P = sympy.eye(K) - sympy.ones(K, K) / (K + 1)",
           "centring projector with 1/(K+1)"),
    Mutant("N-etf", SYM, "return P * (rho * sympy.eye(K)) * P, rho * P",
           "return P * (rho * sympy.eye(K)) * P, rho * sympy.eye(K) - sympy.ones(K, K) / K",
           "ETF Gram matrix rho I - 11^T/K (rho missing on the rank-one term)"),
    # --- every partial orthonormal R gives a minimiser
    Mutant("N-minimisers-R", UFM, "gH = W.T @ R / (K * n) + lh * H / (K * n)", "gH = W.T @ R / (K * n) + lh * H / K",
           "UFM gradient in H with lH H / K instead of lH H / (Kn)"),
    Mutant("N-minimisers-R", UFM, "return (R * R).sum() / (2 * K * n) + lw * (W * W).sum() / (2 * K)",
           "return (R * R).sum() / (2 * K * n) + lw * (W * W).sum() / (2 * K * n)",
           "objective (1) with lW/(2Kn) |W|^2 instead of lW/(2K) |W|^2"),
    # --- Cor 3.1: H0 = H* is kept
    Mutant("N-cor3.1", UFM, "M = H @ H.T + _eye(d, kind) * (_scalar(lam_W, kind) * n)",
           "M = H @ H.T + _eye(d, kind) * (_scalar(lam_W, kind) * K)", "W*(H) with K lW I instead of n lW I"),
    _m("N-cor3.1", _GRAD_NO_K),
    # --- App. A identities
    Mutant("N-Wstar", SYM, "return self.Hbar.T * self.C / self.K", "return self.Hbar.T * self.C",
           "W* = Hbar^T C without 1/K"),
    Mutant("N-Wstar", SYM, "return [ns.Y * ns.H.T * Inverse(ns.H * ns.H.T + n * ns.lam_W * I),",
           "return [ns.Y * ns.H.T * Inverse(ns.H * ns.H.T + ns.lam_W * I),", "W*(H) with lW I instead of n lW I"),
    Mutant("N-decomp", SYM, "return ns.ST, ns.SW + ns.SBt", "return ns.ST, ns.SW + ns.SB",
           "decomposition with the centred Sigma_B instead of Sigma_B~"),
    Mutant("N-decomp", SYM, "SBt = sum((outer(hbar[k]) for k in range(K)), sympy.zeros(d, d)) / K",
           "SBt = sum((outer(hbar[k]) for k in range(K)), sympy.zeros(d, d)) / (K * n)",
           "Sigma_B~ normalised by 1/(Kn) instead of 1/K"),
    Mutant("N-L-closed", UFM, "_scalar(Fraction(d - K, 2 * K), kind)", "_scalar(Fraction(d - K, K), kind)",
           "closed form of L with (d-K)/K instead of (d-K)/(2K)"),
    Mutant("N-L-closed", SYM, "Trace(A * C) / (2 * K) + lh / 2 * Trace(ST) - (d - K) / (2 * K)]",
           "Trace(A * C) / (2 * K) + lh * Trace(ST) - (d - K) / (2 * K)]",
           "closed form of L with lH Tr instead of lH/2 Tr"),
    Mutant("N-L-closed", SYM, "-lw / (2 * K**2) * Trace(C * C * SBt) - Trace(C * SBt) / (2 * K) + half,",
           "-lw / (2 * K) * Trace(C * C * SBt) - Trace(C * SBt) / (2 * K) + half,",
           "fit term, last step: lW/(2K) instead of lW/(2K^2)"),
    Mutant("N-eq7", SYM, "ns.lam_H * K * H) / (K**2 * n)", "ns.lam_H * H) / (K**2 * n)",
           "eq. (7) as transcribed: lH H instead of lH K H"),
    _m("N-eq7", _GRAD_NO_K),
    _m("N-eq7", _GRAD_NORM),
    Mutant("N-lemA.1", SYM, '"SB": (CB * (I - CBt) + (I - CBt.T) * CB.T) / K - 2 * lh * ns.SB,',
           '"SB": (CB * (I - CBt) + (I - CBt.T) * CB.T) / K - lh * ns.SB,', "dSigma_B/dt with -lH Sigma_B"),
    Mutant("N-lemA.1", SYM, '"SW": -(CW * CBt + CBt.T * CW.T) / K - 2 * lh * ns.SW,',
           '"SW": -(CW * CBt + CBt.T * CW.T) / K**2 - 2 * lh * ns.SW,', "dSigma_W/dt with 1/K^2"),
    Mutant("N-lemA.1", SYM, "ns.lam_H * K * H) / (K**2 * n)", "ns.lam_H * H) / (K**2 * n)",
           "the gradient the flow follows: lH H instead of lH K H"),
    # --- Thm 4.1 closed forms and flow
    Mutant("N-thm4.1-dT", SYM, "2 * E / K * (Trace(ns.SB * C * ns.SW * C) + lw / K * Trace(ns.SB * C * C))",
           "2 * E / K * (Trace(ns.SB * C * ns.SW * C) + lw * Trace(ns.SB * C * C))", "dT_B chain: lW instead of lW/K"),
    Mutant("N-thm4.1-dT", SYM, '"dT_B_lower": 2 * lw / K**2 * E * Trace(ns.SB * C * C),',
           '"dT_B_lower": 2 * lw / K**3 * E * Trace(ns.SB * C * C),', "lower bound with 1/K^3 (valid but not tight)"),
    _m("N-thm4.1-dT", _DTB),
    _m("N-thm4.1-dT", _DTW),
    _m("N-thm4.1-W", _DTW),
    _m("N-thm4.1-W", _EXP_W),
    _m("N-thm4.1-W", _RHS_N),
    # refuted (degenerate) claims: the corrected statements' code
    _m("N-thm4.1-nc1", _RHS_N),
    _m("N-thm4.1-nc1", _DTB),
    Mutant("N-thm4.1-nc1", FLOW, 'out["nc1_tilde"][i] = tw / tb if tb > 0 else np.inf',
           'out["nc1_tilde"][i] = tw / (K * tb) if tb > 0 else np.inf', "NC1~ along the flow with an extra 1/K"),
    _m("N-thm4.1-B", _EXP_B),
    _m("N-thm4.1-B", _DTB),
    Mutant("N-cor4.2", UFM, 'return _trace(c["Sigma_W"]) / tb if tb != 0 else float("inf")',
           'return _trace(c["Sigma_W"]) / (K * tb) if tb != 0 else float("inf")', "NC1~ with an extra 1/K"),
    _m("N-cor4.2", _GRAD_NO_K),
    _m("N-cor4.2", _SB_COV),
    # --- App. B
    _m("N-eq8", _RESID_N),
    _m("N-eq8", _GRAD_NO_K),
    _m("N-lemB.1", _GRAD_NO_K),
    _m("N-lemB.1", _GRAD_NORM),
    _m("N-B-distance", _GRAD_NO_K),
    _m("N-B-distance", _GRAD_NORM),
    Mutant("N-B-distance", UFM, "f = K * n * (central_path_loss(H, lw, lh, K) + b * (D * D).sum() / (2 * K * n))",
           "f = K * n * (central_path_loss(H, lw, lh, K) + b * (D * D).sum() / (2 * K))",
           "solver's objective (2) with beta/(2K) instead of beta/(2Kn) on the penalty"),
    _m("N-B-limit", _GRAD_NO_K),
    _m("N-B-limit", _RESID_N),
    _m("N-B-limit", _GRAD_NORM),
    # --- NC metrics (sec. 6, App. E.2)
    Mutant("N-metrics", NCM, "norm = np.linalg.norm(G)", "norm = np.linalg.norm(G, 2)",
           "NC2/NC3 normalised by the spectral norm instead of the Frobenius norm"),
    Mutant("N-metrics", NCM, "return (np.eye(K) - np.full((K, K), 1.0 / K)) / np.sqrt(K - 1)",
           "return (np.eye(K) - np.full((K, K), 1.0 / K)) / np.sqrt(K)", "ETF target normalised by sqrt(K)"),
    Mutant("N-metrics", NCM, "keep = s > max(centred.shape) * np.finfo(float).eps * s[0]",
           "keep = s > 1e-6 * s[0]", "pseudo-inverse cutoff rcond = 1e-6 (on singular values)"),
    Mutant("N-metrics", NCM, "keep = s > max(centred.shape) * np.finfo(float).eps * s[0]",
           "keep = s > np.sqrt(np.finfo(float).eps) * s[0]", "pseudo-inverse cutoff sqrt(eps) relative"),
    Mutant("N-metrics", NCM, "sigma_b = centred @ centred.T / self.K", "sigma_b = centred @ centred.T / (self.K - 1)",
           "Sigma_B normalised by 1/(K-1)"),
    Mutant("N-metrics", NCM, "nc3 = _etf_distance(Wn @ centred)", "nc3 = _etf_distance(Wn @ means)",
           "NC3 on uncentred class means"),
    Mutant("N-metrics", NCM, "sigma_w = _psd(scatter_w / N)", "sigma_w = _psd(scatter_w / (N - 1))",
           "Sigma_W normalised by 1/(N-1)"),
]
