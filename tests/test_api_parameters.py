"""Each parameter of each public function of paper N's and paper S's numerics (and of :mod:`verify.certified`, their
exact / ball recomputation) is refused on its own.

For every public function (module ``__all__``) of the modules in :data:`MODULES` there is one valid call
(:data:`VALID`, built from a vocabulary of parameter names at non-unit scales: features of size ~1e3, weight decays
~1e-3, a ridge ~1e2; paper S's W with entries 0.3 to 3, a rate 3/10 and the laws gaussian(5/2), laplace(1/3)).
Each parameter in turn, every other argument kept valid, is replaced by the bad values of
its kind (:data:`BAD`: negative / zero where positive is required, nan, inf, text, complex, None, a fraction where
an integer is meant, a wrong number of dimensions, nan / inf / complex / text entries): the call must raise a
``ValueError`` (the package's ``VerifyInputError``) whose message starts with exactly ``Argument '<that
parameter>'``, on one line ending in a full stop (:data:`MESSAGE`). A validation dropped for one parameter, moved
to another one (a positional shift in a call to a shared checker), or a message re-worded, shows.

:mod:`tests.test_api_refusals` passes bad values to all the required parameters at once (so only the first one
checked is ever reached); this is its one-at-a-time complement, and :mod:`tests.test_api_boundaries` holds the
bounds themselves to their exact edges.

Functions without a valid call here are listed in :data:`NOT_COVERED` with the reason; parameters not swept (any
value is meaningful, or an object made by another function) in :data:`UNSWEPT`; refusals the package does not make yet are strict xfails in
:data:`MISSING` (one that starts to pass must leave the list); a parameter refused under another name by design is
in :data:`REFUSED_AS` with that name; an array parameter that takes any shape by design (a batch) is in
:data:`SHAPE_FREE` (its "ndim" bad value is left out).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import re
from fractions import Fraction

import numpy as np
import pytest

MODULES = ("verify.numeric.perturbation", "verify.numeric.nc_metrics", "verify.numeric.lower_bound",
           "verify.numeric.central_path", "verify.numeric.ufm",
           # paper S
           "verify.numeric.power_sums", "verify.numeric.superposition_loss", "verify.numeric.distributions",
           "verify.numeric.upper_bounds", "verify.numeric.frames",
           # certified (exact / ball) recomputation
           "verify.certified")

PS_, SL_, DI_, UB_ = ("verify.numeric.power_sums.", "verify.numeric.superposition_loss.",
                      "verify.numeric.distributions.", "verify.numeric.upper_bounds.")
FR_ = "verify.numeric.frames."
CE_ = "verify.certified."

#: public names without a valid call here, and why
NOT_COVERED = {
    "verify.numeric.nc_metrics.to_numpy": "a converter whose messages name its caller's parameter (its argument "
                                          "'name'), by design; swept through nc_metrics' H and W",
    "verify.numeric.lower_bound.as_fraction": "a converter whose messages name its caller's parameter (its argument "
                                              "'name'), by design; swept through the functions' p",
    "verify.numeric.ufm.as_exact": "a converter of the UFM features whose messages name 'H' (its callers' parameter); "
                                   "a known gap of tests/test_api_refusals.py (KNOWN_GAPS)",
    "verify.numeric.ufm.as_mp": "a converter of the UFM features (mpf of anything mpmath takes); a known gap of "
                                "tests/test_api_refusals.py (KNOWN_GAPS: complex / None raise TypeError)",
    "verify.numeric.nc_metrics.NCMetrics": "a plain record (dataclass of results): no validation by design",
    "verify.numeric.lower_bound.FrameBlockStats": "a plain record (dataclass of results): no validation by design",
    PS_ + "CollapsedSums": "a plain record (named tuple of results): no validation by design",
    SL_ + "LossEstimate": "a plain record (dataclass of results): no validation by design",
    SL_ + "MaximiseResult": "a plain record (dataclass of results): no validation by design",
    UB_ + "TensorBound": "a plain record (dataclass of results): no validation by design",
    UB_ + "to_fraction": "a converter of its callers' entries (W's, p) whose messages name 'value', by design; swept "
                         "through tensor_bound's W and the functions' p",
    UB_ + "thm32_chain": "symbolic by design (floats, Fractions and sympy symbols): a sign is not decidable for a "
                         "symbol, so nothing is refused; the numeric chain is thm32_constant's (swept)",
    UB_ + "marginal_curvature": "symbolic arguments only (a sympy potential, its symbols and a point): no numeric "
                                "parameter to sweep",
    **{FR_ + f: "a plain record (dataclass of results): no validation by design" for f in (
        "Frame", "Certificate", "LowerBound", "LPBound", "CodeCertificate", "QuadraticCertificate", "TableRow",
        "BestFrame", "LoadedFrame")},
    **{FR_ + f: "file I/O (a path, a Frame or an operator, a certificate): its refusals are "
                "tests/numeric/test_frames_fileformat*.py's" for f in (
        "save_frame", "load_frame", "save_implicit", "load_implicit", "is_implicit_file")},
    FR_ + "certify_frame": "its one parameter is a Frame (made by build_frame): nothing numeric to sweep",
    FR_ + "coherence_one_reason": "its one parameter is a certificate (made by certify and the others)",
    FR_ + "frame_matvec_torch": "a torch operator product (an ImplicitFrame and a torch tensor): torch is optional",
    CE_ + "Enclosure": "a plain record (frozen dataclass of two certified ends): no validation by design; "
                       "enclosure() is its checked constructor (swept)",
    UB_ + "lemA1_sides": "symbolic arguments only (a sympy potential and test function, their symbols and a point): "
                         "no numeric parameter to sweep",
}

# ---- the vocabulary: a parameter name's kind, and the bad values of each kind --------------------------------------

#: kind of each parameter name (a function may override it in :data:`KIND_OF`)
KIND = {
    "beta": "positive", "lam_W": "positive", "lam_H": "nonnegative", "t_end": "positive", "rtol": "positive",
    "tol": "nonnegative", "atol": "nonnegative", "scale": "positive",
    "K": "size", "n": "size", "d": "size", "rows": "size", "cols": "size", "r": "size", "starts": "size",
    "dps": "size", "n_power": "size", "k": "size",
    "kt": "index",
    "m": "odd",
    "p": "probability",
    "seed": "seed",
    "W": "matrix", "H": "matrix", "H0": "matrix", "dH": "matrix", "F": "matrix", "R": "matrix",
    "v": "vector", "xs": "vector", "errs": "vector", "ts": "vector", "t_eval": "vector",
    "mu": "choice", "method": "choice",
    # paper S
    "chunk": "size", "samples": "size", "restarts": "size", "maxiter": "size", "outputs": "size", "power": "size",
    "max_points": "size", "kmax": "size", "blocks": "size", "degrees": "sizes",
    "confidence": "unit-open", "init_scale": "positive", "gtol": "nonnegative", "ftol": "nonnegative",
    "sigma2": "positive", "value": "positive", "c_top": "real", "rcond": "nonnegative", "costs": "costs",
    "kernel": "choice", "route": "choice", "kind": "choice",
    "A": "matrix", "X": "matrix", "V": "matrix", "Sigma": "matrix", "M": "matrix", "C": "matrix", "G": "matrix",
    "P": "matrix", "L": "matrix",
    "S": "vector", "x": "vector", "cumulants": "vector", "moments": "vector", "d_a": "vector",
    "d_P": "vectors", "x0": "matrices",
    # frames
    "irreducible_poly": "size", "n_columns": "size", "n_codes": "size", "n_digits": "size", "start_digit": "size",
    "j": "size", "delta": "size", "general_d": "size", "m_paper": "size", "grid": "size", "max_forms": "size",
    "chunk_elements": "size", "construction": "choice", "dtype": "dtype",
    "z": "vector", "codes": "vector", "a": "vector", "a1": "vector", "a2": "vector", "columns": "vector",
    "bits": "matrix", "q": "matrix",
    # certified
    "B": "matrix", "D": "matrix", "N": "size", "eps": "positive", "rel": "positive", "values": "vector",
    "try_first": "vector", "margins": "vector", "lo": "end", "hi": "end", "num": "end", "den": "end", "e": "end",
    "what": "text", "certified": "text", "claim_id": "text", "search_starts": "size", "name": "choice",
}

#: (function, parameter) -> kind, where a function reads a parameter otherwise than its name's kind says
KIND_OF = {
    **{(f"verify.numeric.perturbation.{f}", "lam_H"): "positive" for f in (
        "collapsed_point", "hessian_blocks", "gradients", "objective", "F_exact", "dW_map", "F_first_order",
        "F1_operator", "F_exact_operator", "collapsed_block_spectrum", "collapsed_full_spectrum",
        "grad_L_derivative_paper", "loss_hessian", "thmC2_sharp_constants", "hessian_extremes_ratio",
        "closed_form_Fkk_spectrum", "check_problem")},
    ("verify.numeric.perturbation.collapsed_block_spectrum", "k"): "index",
    ("verify.numeric.perturbation.collapsed_offdiag_singular_values", "k"): "index",
    ("verify.numeric.perturbation.block", "k"): "index",
    ("verify.numeric.perturbation.block_summary", "k"): "index",
    ("verify.numeric.perturbation.block_summary", "kt"): "index",
    ("verify.numeric.ufm.collapse_rho", "lam_H"): "positive",
    ("verify.numeric.ufm.collapsed_minimiser", "lam_H"): "positive",
    ("verify.numeric.lower_bound.frame_block_stats", "m"): "size",
    ("verify.numeric.perturbation.block_summary", "rtol"): "nonnegative",
    # paper S: power sums of any order m >= 1 (odd or even), degree m >= 0, K >= 1 a real constant, schur's k < d
    **{(PS_ + f, "m"): "size" for f in ("RowPowerSums", "row_power_sums", "TensorPowerSums", "tensor_flops",
                                        "collapsed_sums", "collapsed_grad", "collapsed_flops", "route_costs",
                                        "choose_route")},
    (SL_ + "power_sums", "m"): "size",
    (UB_ + "monomial_exponents", "m"): "size",
    (UB_ + "thm32_constant", "K"): "at-least-one",
    (UB_ + "thm32_bound", "K"): "at-least-one",
    (UB_ + "schur_ratio", "k"): "index",
    (SL_ + "loss_to_accuracy", "rtol"): "unit-open",
    # frames: m is the degree of the character sums (any m >= 1), a the vector of fwht; upper_bounds' a a constant
    **{(FR_ + f, "m"): "size" for f in (
        "build_frame", "build_general_frame", "general_parameters", "build_frame_reference", "character_sums",
        "certify", "certify_general", "weil_threshold_d", "radical_dim_counts", "quadratic_certificate",
        "ImplicitFrame")},
    (UB_ + "logcosh_gaussian", "a"): "positive",
    (FR_ + "lp_bound", "K"): "size",
    (FR_ + "gf2_rank", "rows"): "matrix",
    # certified: x a scalar (a number or a ball) where it is not a point; S a matrix; m any size; route free text
    (CE_ + "to_fmpq", "x"): "exact", (CE_ + "to_arb", "x"): "exact",
    (CE_ + "lower_float", "x"): "end", (CE_ + "upper_float", "x"): "end",
    **{(CE_ + f, "S"): "matrix" for f in ("count_below", "spectrum_matches", "lambda_max")},
    (CE_ + "count_below", "t"): "real",
    (CE_ + "lemc3_bound", "m"): "size",
    (CE_ + "margin_evidence", "route"): "text", (CE_ + "interval_evidence", "route"): "text",
    (CE_ + "interval_evidence", "value"): "end",
}


def _wrong_ndim(a):
    a = np.asarray(a)
    return a.reshape(-1) if a.ndim >= 2 else a.reshape(1, -1)


def _int_with(a, value):
    """``a`` as an int64 array with its middle entry ``value``: an integer array one step outside its range."""
    a = np.array(a, dtype=np.int64)
    a.flat[a.size // 2] = value
    return a


def _with(a, value):
    a = np.array(a, dtype=complex if isinstance(value, complex) else (object if isinstance(value, str) else float))
    a.flat[a.size // 2] = value
    return a


#: kind -> {label: value, or a function of the valid value}; None only for required parameters (added below)
BAD = {
    "positive": {"zero": 0.0, "negative": -2.5e3, "nan": math.nan, "inf": math.inf, "text": "x", "complex": 1j},
    "nonnegative": {"negative": -2.5e-3, "nan": math.nan, "inf": math.inf, "text": "x", "complex": 1j},
    "size": {"negative": -1, "fraction": 2.5, "text": "2", "nan": math.nan, "bool": True},
    "index": {"negative": -1, "too-large": 2, "fraction": 0.5, "text": "0"},
    "odd": {"even": 2, "negative": -1, "fraction": 2.5, "text": "3"},
    "probability": {"zero": 0, "above-one": Fraction(5, 4), "negative": -0.5, "nan": math.nan, "text": "x"},
    "seed": {"negative": -1, "fraction": 2.5, "text": "x"},
    "choice": {"unknown": "no-such-option", "number": 3},
    "matrix": {"ndim": _wrong_ndim, "nan": lambda a: _with(a, math.nan), "inf": lambda a: _with(a, math.inf),
               "complex": lambda a: _with(a, 1j), "text": lambda a: _with(a, "x"), "string": "x"},
    "vector": {"ndim": _wrong_ndim, "nan": lambda a: _with(a, math.nan), "inf": lambda a: _with(a, -math.inf),
               "complex": lambda a: _with(a, 1j), "string": "x"},
    # paper S
    "real": {"nan": math.nan, "inf": math.inf, "text": "x", "complex": 1j},
    "unit-open": {"zero": 0.0, "one": 1.0, "negative": -0.25, "nan": math.nan, "text": "x", "complex": 1j},
    "at-least-one": {"below-one": Fraction(1, 2), "zero": 0, "nan": math.nan, "inf": math.inf, "text": "x",
                     "complex": 1j},
    "sizes": {"negative": lambda a: (*a[:-1], -1), "fraction": lambda a: (*a[:-1], 2.5), "text": "x"},
    "vectors": {"nan": lambda a: [_with(a[0], math.nan), *a[1:]], "complex": lambda a: [_with(a[0], 1j), *a[1:]],
                "string": "x"},
    "dtype": {"int": lambda a: np.int64, "complex": lambda a: np.complex128, "text": "x"},   # types are callables
    "matrices": {"ndim": lambda a: [_wrong_ndim(a[0])], "nan": lambda a: [_with(a[0], math.nan)],
                 "complex": lambda a: [_with(a[0], 1j)], "string": "x"},
    # loss_to_accuracy's host costs: a dict of CPU seconds keyed by route
    "costs": {"string": "x", "number": 2.5, "unknown-key": {"gram": 2.5}, "negative": {"exact": -2.5e-3},
              "nan": {"exact": math.nan}, "inf": {"rb_cv_sample": math.inf}, "text": {"exact": "x"},
              "complex": {"exact": 1j}, "bool": {"rb_cv_prepare": True}},
    # certified: an exact scalar (a rational or a finite float), an interval's end (that, or an Arb ball), free text
    "exact": {"nan": math.nan, "inf": math.inf, "text": "x", "complex": 1j, "bool": True, "array": np.ones(2)},
    "end": {"nan": math.nan, "inf": -math.inf, "text": "x", "complex": 1j, "bool": False, "array": np.ones(2),
            "nan-ball": lambda a: _nan_ball()},
    "text": {"number": 3, "bytes": b"x", "list": ["x"]},
}


def _nan_ball():
    from flint import arb

    return arb("nan")

#: (function, parameter) -> why the parameter is not swept here
UNSWEPT = {
    ("verify.numeric.perturbation.vec", "X"): "any array-like is reshaped (the matrix-free products' own helper)",
    ("verify.numeric.nc_metrics.nc_metrics", "labels"): "given, it switches H to the N x d layout (another valid "
                                                        "call); its refusals are tests/numeric/test_nc_metrics.py's",
    ("verify.numeric.lower_bound.row_terms", "T"): "power sums of a row (a dict made by frame_block_stats)",
    ("verify.numeric.lower_bound.numerator_denominator", "stats"): "a FrameBlockStats record (made by frame_block_stats)",
    ("verify.numeric.central_path.flow_traces", "sol"): "an ODE solution object (made by solve_flow)",
    ("verify.numeric.nc_metrics.nc_metrics", "per_class"): "a flag: any truth value",
    ("verify.numeric.nc_metrics.NCAccumulator", "per_class"): "a flag: any truth value",
    ("verify.numeric.ufm.solve_perturbed", "polish"): "a flag: any truth value",
    # paper S
    **{(q, p): "a flag: any truth value" for q, p in (
        (PS_ + "RowPowerSums", "for_grad"), (PS_ + "tensor_flops", "grad"), (PS_ + "collapsed_flops", "grad"),
        (PS_ + "route_costs", "grad"), (PS_ + "choose_route", "grad"), (PS_ + "choose_route", "tensor"),
        (UB_ + "coordinate_cumulants", "exact"), (UB_ + "tensor_bound", "exact"), (UB_ + "thm31_bound", "sharp"))},
    **{(FR_ + q, p): "a flag: any truth value" for q, p in (
        ("weil_threshold_d", "general"), ("gram_coherence", "exact_int"), ("best_lower_bound", "lp"),
        ("code_certificate", "include_identity"), ("code_certificate", "progress"), ("code_certificate", "symmetry"),
        ("radical_dim_counts", "symmetry"), ("radical_dim_counts", "progress"), ("quadratic_certificate", "symmetry"),
        ("quadratic_certificate", "progress"), ("sums_from_radicals", "exclude_zero_code"), ("frame_table", "lp"),
        ("frame_table", "progress"), ("best_frame", "lp"), ("best_frame", "progress"))},
    **{(FR_ + q, "client"): "a dask client (None runs here)" for q in (
        "certify", "radical_dim_counts", "quadratic_certificate")},
    (FR_ + "sums_from_radicals", "counts"): "the radical dimension counts (a dict made by radical_dim_counts)",
    (PS_ + "RowPowerSums", "_skip_stats"): "private (the class's own shortcut)",
    (PS_ + "collapsed_grad", "cs"): "a CollapsedSums record (made by collapsed_sums)",
    **{(DI_ + f, "named"): "the family's parameter by its keyword: the same check as 'value' (swept, REFUSED_AS)"
       for f in ("Gaussian", "Uniform", "Laplace")},
    (DI_ + "MomentSequence", "name"): "a label: any text (None names it from the moments)",
    (UB_ + "scaling_coefficients", "loss"): "a callable (any loss of W)",
    (UB_ + "nu_loss_parts", "patterns"): "a (patterns, probabilities) pair (made by sparsity_patterns)",
    (UB_ + "nu_sup_loss", "patterns"): "a (patterns, probabilities) pair (made by sparsity_patterns)",
    (UB_ + "gaussian_pattern_energy", "patterns"): "a (patterns, probabilities) pair (made by sparsity_patterns)",
    (UB_ + "centred_slc_1d", "v"): "a sympy potential (symbolic)",
    (UB_ + "centred_slc_1d", "x"): "a sympy symbol",
    (UB_ + "coordinate_cumulants", "mu"): "overridden by the valid call's moments (None is its callers' value then); "
                                          "swept through the other functions' mu",
    (CE_ + "margin_evidence", "strict"): "a flag: any truth value",
    (CE_ + "margin_evidence", "extra"): "keyword fields copied into the record as they are",
    (CE_ + "interval_evidence", "extra"): "keyword fields copied into the record as they are",
    (UB_ + "sparsity_patterns", "k"): "read for kind 'fixed' only (the valid call is 'blocks'): its bounds are "
                                      "tests/test_api_boundaries.py's",
}

#: (function, parameter) -> {label: value}: bad values of one function's parameter beyond its kind's (an optional
#: parameter whose None is refused in the valid call's context)
EXTRA = {
    ("verify.numeric.nc_metrics.nc_metrics", "K"): {"none-without-labels": None},
    (SL_ + "exact_loss_from_A", "A"): {"not-square": lambda a: a[:, :-1]},
    (UB_ + "conditional_energy_1d", "v"): {"not-unit": lambda a: 2.5 * np.asarray(a)},
    **{(CE_ + f, p): {"not-square": lambda a: np.asarray(a)[:, :-1]} for f, p in (
        ("is_pd", "M"), ("is_psd", "M"), ("count_below", "S"), ("spectrum_matches", "S"), ("gen_lambda_max", "B"),
        ("gen_lambda_max", "A"), ("lambda_max", "S"))},
    (CE_ + "gen_lambda_max", "A"): {"not-square": lambda a: np.asarray(a)[:, :-1], "not-pd": lambda a: -np.asarray(a)},
    (CE_ + "ratio_interval", "den"): {"zero": 0, "negative": -2.5},
    (CE_ + "sqrt_enclosure", "e"): {"negative": -2.5},
    (CE_ + "margin_evidence", "margins"): {"empty": [], "not-positive": lambda a: -np.asarray(a)},
    **{(CE_ + f, "x"): {"wrong-length": lambda a: np.asarray(a)[:-1]} for f in (
        "central_point", "lemb1_sq_ratio", "tw_margin", "lemc3_bound", "lemc4_bounds")},
    (CE_ + "lema2_bound", "z"): {"wrong-length": lambda a: np.asarray(a)[:-1]},
    (CE_ + "lema2_bound", "k"): {"too-large": 4},
    # the field kernels' integer arrays one step outside their ranges, on both sides (the valid calls have r = 3):
    # bits and quadratic-form values in {0, 1}, field elements in [0, 2^3), codes >= 0
    **{(FR_ + f, p): {"above": lambda a, hi=hi: _int_with(a, hi + 1), "below": lambda a: _int_with(a, -1)}
       for f, p, hi in (("alternating_rows", "q", 1), ("fast_trace", "z", 7),
                        ("lemma_radical_dims", "a1", 7), ("lemma_radical_dims", "a2", 7))},
    # codes are int64 (>= 0): one above is 2^63, an unsigned array (an int64 cast would wrap it negative)
    (FR_ + "sign_bits", "codes"): {"below": lambda a: _int_with(a, -1),
                                   "above": lambda a: np.array([*np.asarray(a).tolist(), 2 ** 63], dtype=np.uint64)},
    # rows of length 2^r of any leading shape: wrong lengths at one, two and three axes (the length read off the
    # last axis whatever the number of axes)
    **{(FR_ + f, p): {"short-rows": lambda a: np.asarray(a)[..., :-1], "1-d-long": lambda a: np.zeros(16, a.dtype),
                      "3-d-short": lambda a: np.zeros((2, 2, 4), a.dtype),
                      **({"above": lambda a: _int_with(a, 2), "below": lambda a: _int_with(a, -1)} if p == "bits" else {})}
       for f, p in (("fwht_kron", "X"), ("wht_rows", "bits"))},
    **{(CE_ + f, p): v for f in ("directional_derivative_of_loss", "derivative_of_gradient") for p, v in (
        ("D", {"wrong-shape": lambda a: np.asarray(a)[:, :-1]}), ("K", {"not-dividing": 3}),
        ("lam_H", {"negative": -0.5}))},
}

#: (function, parameter) -> the name its refusals give: a one-parameter family's value is refused under the family's
#: own name (the keyword of ``Gaussian(variance=...)`` and the parameter of ``get_distribution("gaussian(5/2)")``)
REFUSED_AS = {(DI_ + "Gaussian", "value"): "variance", (DI_ + "Uniform", "value"): "half_width",
              (DI_ + "Laplace", "value"): "scale"}

#: (function, parameter) -> why its "ndim" bad value is not one: an array of any shape (a batch) by design
SHAPE_FREE = {
    (FR_ + "fwht", "a"): "the transform runs along the last axis, any leading axes",
    (FR_ + "fwht_kron", "X"): "rows of length 2^r of any leading shape (reshaped to (B, 2^r))",
    (FR_ + "wht_rows", "bits"): "rows of length 2^r of any leading shape (reshaped to (C, 2^r))",
    (FR_ + "fast_trace", "z"): "elementwise: the traces of field elements of any shape",
    (FR_ + "lemma_radical_dims", "a1"): "vectorised: a1 and a2 broadcast against each other",
    (FR_ + "lemma_radical_dims", "a2"): "vectorised: a1 and a2 broadcast against each other",
    (FR_ + "code_sign_bits", "columns"): "column indices (flattened)",
    (CE_ + "exact_array", "A"): "elementwise: an array of any shape",
    (CE_ + "frob_sq", "X"): "the sum of the squares of the entries of an array of any shape",
}

#: (function, parameter, label) -> why: refusals the package does not make yet (strict xfails)
MISSING: dict = {}


# ---- one valid call per function, at non-unit scales ------------------------------------------------------------
D, K_, N_ = 3, 2, 2
LW, LH, BETA = 2.5e-3, 1.6e2, 5e2        # lam_W lam_H = 0.4 < 1 (non-degenerate collapse)


def _H(d=D, K=K_, n=N_, seed=0, scale=1e3):
    return scale * np.random.default_rng(seed).normal(size=(d, K * n))


@functools.lru_cache(maxsize=None)
def valid() -> dict:
    from verify.numeric import central_path as CP
    from verify.numeric import lower_bound as LB
    from verify.numeric import perturbation as P

    W, H = P.collapsed_point(D, K_, N_, LW, LH, seed=1)
    Wg = 1e-3 * np.random.default_rng(2).normal(size=(K_, D))
    Hg = _H()
    F = P.F_first_order(W, H, BETA, LW, LH, K_, N_)
    R = np.linalg.qr(np.random.default_rng(4).normal(size=(D, K_)))[0]
    stats = LB.frame_block_stats(2, 3, 4)
    sol = CP.solve_flow(_H(scale=1.0), 0.5, 0.3, K_, t_end=0.05)
    pert = dict(W=Wg, H=Hg, beta=BETA, lam_W=LW, lam_H=LH, K=K_, n=N_)
    coll = dict(W=W, H=H, beta=BETA, lam_W=LW, lam_H=LH, K=K_, n=N_)
    p_ = "verify.numeric.perturbation."
    u_ = "verify.numeric.ufm."
    c_ = "verify.numeric.central_path."
    l_ = "verify.numeric.lower_bound."
    nc_ = "verify.numeric.nc_metrics."
    return {
        p_ + "vec": dict(X=Hg),
        p_ + "unvec": dict(v=np.arange(6.0) * 1e3, rows=2, cols=3),
        p_ + "labels": dict(K=K_, n=N_),
        p_ + "check_problem": dict(W=Wg, H=Hg, K=K_, n=N_, beta=BETA, lam_W=LW, lam_H=LH),
        p_ + "collapsed_point": dict(d=D, K=K_, n=N_, lam_W=LW, lam_H=LH, seed=1),
        p_ + "E_matrix": dict(W=Wg, H=Hg, K=K_, n=N_),
        p_ + "hessian_blocks": pert,
        p_ + "gradients": dict(pert, H0=_H(seed=3)),
        p_ + "objective": dict(pert, H0=_H(seed=3)),
        p_ + "F_exact": coll,
        p_ + "dW_map": coll,
        p_ + "Z_star": dict(W=Wg, H=Hg, lam_W=LW, K=K_, n=N_),
        p_ + "F_first_order": pert,
        p_ + "block": dict(F=F, k=0, kt=1, d=D, n=N_),
        p_ + "F1_operator": pert,
        p_ + "F_exact_operator": dict(coll, rtol=1e-9),
        p_ + "collapsed_block_spectrum": dict(coll, k=0, tol=1e-12),
        p_ + "collapsed_offdiag_singular_values": dict(W=W, H=H, k=0, kt=1, beta=BETA, lam_W=LW, K=K_, n=N_,
                                                       tol=1e-12),
        p_ + "collapsed_full_spectrum": dict(coll, tol=1e-12),
        p_ + "grad_L_derivative_paper": dict(H=Hg, dH=_H(seed=5, scale=1e-2), lam_W=LW, lam_H=LH, K=K_, n=N_),
        p_ + "lemma_c4_norms": dict(H=Hg, lam_W=LW, K=K_, n=N_),
        p_ + "orthonormal_frame": dict(d=D, K=K_, seed=7),
        p_ + "closed_form_Fkk_spectrum": dict(d=D, K=K_, n=N_, beta=BETA, lam_W=LW, lam_H=LH),
        p_ + "fitted_order": dict(xs=np.array([1e2, 1e3, 1e4]), errs=np.array([3e-4, 3e-6, 3e-8])),
        p_ + "block_summary": dict(F=F, d=D, K=K_, n=N_, k=0, kt=1, rtol=1e-10),
        p_ + "loss_hessian": dict(H=Hg, lam_W=LW, lam_H=LH, K=K_, n=N_),
        p_ + "thmC2_sharp_constants": dict(lam_W=LW, lam_H=LH, K=K_, n=N_),
        p_ + "hessian_extremes_ratio": dict(H=Hg, lam_W=LW, lam_H=LH, K=K_, n=N_),
        # neural-collapse metrics
        nc_ + "nc_metrics": dict(H=_H(4, 3, 2), K=3, W=1e-3 * np.ones((3, 4))),
        nc_ + "etf_target": dict(K=3),
        nc_ + "NCAccumulator": dict(d=D, K=K_, per_class=True),
        # lower bound (paper S)
        l_ + "frame_block_stats": dict(r=2, m=3, k=4, n_power=3),
        l_ + "row_terms": dict(m=3, p=Fraction(1, 8), mu="gaussian", T=stats.rows[0][1]),
        l_ + "numerator_denominator": dict(stats=stats, p=Fraction(1, 8), mu="gaussian"),
        l_ + "paper_k": dict(d=16, m=3, p=Fraction(1, 8)),
        l_ + "lower_bound_point": dict(r=2, m=3, p=Fraction(1, 8), mu="gaussian", k=4),
        l_ + "F_attained": dict(r=2, m=3),
        l_ + "eq22_bound": dict(d=16, m=3, p=Fraction(1, 8), k=4),
        # central path
        c_ + "flow_rhs": dict(H=Hg, lam_W=LW, lam_H=LH, K=K_),
        c_ + "solve_flow": dict(H0=_H(scale=1.0), lam_W=0.5, lam_H=0.3, K=K_, t_end=0.05, rtol=1e-8, atol=1e-11,
                                t_eval=[0.0, 0.02, 0.05], method="RK45"),
        c_ + "flow_traces": dict(sol=sol, ts=[0.0, 0.05], lam_H=0.3, K=K_),
        c_ + "trace_derivatives": dict(H=Hg, lam_W=LW, lam_H=LH, K=K_),
        c_ + "solve_flow_mp": dict(H0=_H(2, 2, 1, scale=1.0), lam_W=0.5, lam_H=0.3, K=K_, ts=[0, 0.01], dps=15),
        # the UFM
        u_ + "class_means": dict(H=Hg, K=K_),
        u_ + "covariances": dict(H=Hg, K=K_),
        u_ + "nc1_tilde": dict(H=Hg, K=K_),
        u_ + "optimal_W": dict(H=Hg, lam_W=LW, K=K_),
        u_ + "central_path_loss": dict(H=Hg, lam_W=LW, lam_H=LH, K=K_),
        u_ + "central_path_loss_direct": dict(H=Hg, lam_W=LW, lam_H=LH, K=K_),
        u_ + "grad_central_path_loss": dict(H=Hg, lam_W=LW, lam_H=LH, K=K_),
        u_ + "ufm_objective": dict(W=Wg, H=Hg, lam_W=LW, lam_H=LH, K=K_),
        u_ + "collapse_rho": dict(lam_W=LW, lam_H=LH),
        u_ + "collapsed_minimiser": dict(R=R, lam_W=LW, lam_H=LH, n=N_),
        u_ + "solve_ufm": dict(d=2, K=2, n=1, lam_W=0.5, lam_H=0.3, starts=1, seed=3, scale=1e-2),
        u_ + "perturbed_objective": dict(H=Hg, H0=_H(seed=3), beta=BETA, lam_W=LW, lam_H=LH, K=K_),
        u_ + "stationarity_residual": dict(H=Hg, H0=_H(seed=3), beta=BETA, lam_W=LW, lam_H=LH, K=K_),
        u_ + "solve_perturbed": dict(H0=_H(scale=1.0), beta=2.0, lam_W=0.5, lam_H=0.3, K=K_, n=N_, starts=1, seed=3,
                                     polish=False),
        **valid_s(),
        **valid_frames(),
        **valid_certified(),
    }


#: paper S's W (d = 2, n = 5, entries 0.3 to 3), its rate p and two laws with a non-unit parameter
WS = np.array([[0.3, -1.2, 2.5, 0.7, -0.4], [1.1, 0.5, -0.8, 3.0, 0.9]])
PS, GAUSS, LAPLACE = Fraction(3, 10), "gaussian(5/2)", "laplace(1/3)"


def valid_s() -> dict:
    """The valid calls of paper S's numerics (cheap: d = 2, n = 5, a few samples)."""
    from verify.numeric import power_sums as PSM
    from verify.numeric import upper_bounds as UB

    A = WS.T @ WS
    spd = np.array([[2.5, 0.3], [0.3, 0.4]])
    kap = [0, Fraction(5, 2), 0, Fraction(3, 4), 0, Fraction(7, 3), 0]   # cumulants k_1 .. k_7 (odd ones 0)
    pats = UB.sparsity_patterns("fixed", 5, k=2)
    return {
        # power sums
        PS_ + "monomial_count": dict(d=3, k=4),
        PS_ + "monomial_exponents": dict(d=3, k=4),
        PS_ + "multinomial_weights": dict(d=3, k=4),
        PS_ + "monomials": dict(X=WS.T, k=3),
        PS_ + "power_sum_tensor": dict(W=WS, k=3),
        PS_ + "contract": dict(S=PSM.power_sum_tensor(WS, 1), X=2.5 * WS.T, k=2),
        PS_ + "RowPowerSums": dict(W=WS, m=3, chunk=2, degrees=(2, 4), for_grad=False),
        PS_ + "row_power_sums": dict(W=WS, m=3, chunk=2),
        PS_ + "TensorPowerSums": dict(W=WS, m=3, chunk=2, kernel="numpy"),
        PS_ + "tensor_flops": dict(d=3, m=3, grad=True),
        PS_ + "collapsed_sums": dict(W=WS, m=3, kernel="numpy"),
        PS_ + "collapsed_grad": dict(W=WS, m=3, cs=PSM.collapsed_sums(WS, 3, kernel="numba"), d_a=0.3 * np.ones(5),
                                     d_P=[2.5 * np.ones(5), -1.5 * np.ones(5)], c_top=0.7),
        PS_ + "collapsed_flops": dict(d=3, m=3, grad=True),
        PS_ + "route_costs": dict(d=3, n=7, m=3, grad=True),
        PS_ + "choose_route": dict(route="gram", d=3, n=7, m=3, grad=False, tensor=False),
        # the superposition loss
        SL_ + "exact_loss": dict(W=WS, p=PS, m=3, mu=GAUSS, dps=20, route="gram"),
        SL_ + "exact_loss_from_A": dict(A=A, p=PS, m=3, mu=LAPLACE, dps=20),
        SL_ + "exact_loss_grad": dict(W=WS, p=PS, m=3, mu=GAUSS, route="gram"),
        SL_ + "monte_carlo_loss": dict(W=WS, p=PS, m=3, mu=LAPLACE, samples=50, seed=3, chunk=7),
        SL_ + "loss_to_accuracy": dict(W=WS, p=PS, m=3, mu=GAUSS, rtol=0.3, seed=3, confidence=0.9, method="rb_cv",
                                       samples=8),
        SL_ + "rb_loss_samples": dict(W=WS, p=PS, m=3, mu=LAPLACE, samples=3, seed=3, outputs=2),
        SL_ + "maximise_loss": dict(d=1, n=2, p=PS, m=1, mu=LAPLACE, restarts=1, seed=3, init_scale=0.7,
                                    x0=[np.array([[0.3, 2.5]])], maxiter=5, gtol=1e-8, ftol=1e-12),
        SL_ + "power_sums": dict(A=A, m=3),
        SL_ + "quadrature_moment": dict(W=WS[:, :2], p=PS, m=1, mu=GAUSS, power=1, max_points=10_000),
        SL_ + "single_blas_thread": dict(),
        SL_ + "first_order_objective": dict(V=WS, m=3),
        # distributions
        DI_ + "Distribution": dict(),
        DI_ + "Gaussian": dict(value=Fraction(5, 2)),
        DI_ + "Uniform": dict(value=Fraction(1, 3)),
        DI_ + "Laplace": dict(value=Fraction(7, 2)),
        DI_ + "Rademacher": dict(),
        DI_ + "MomentSequence": dict(moments=[0, 2.5, 0, 20.0], name="m4"),
        DI_ + "get_distribution": dict(mu=LAPLACE),
        DI_ + "moment_by_quadrature": dict(mu=GAUSS, k=4, dps=10),
        # upper bounds (paper S, section 3)
        UB_ + "coordinate_cumulants": dict(mu=LAPLACE, p=PS, kmax=4, exact=True, moments=[1, 0, 2.5, 0, 20.0]),
        UB_ + "linear_form_moment": dict(L=np.array([[0.3, -2.5, 1.5], [2.0, 0.7, -1.1]]), cumulants=kap),
        UB_ + "monomial_exponents": dict(d=3, m=3),
        UB_ + "tensor_bound": dict(W=WS, p=PS, m=3, mu=GAUSS, exact=False),
        UB_ + "eq11_terms": dict(Sigma=spd, M=np.array([[0.7, -1.5]]), rtol=1e-9),
        UB_ + "lemA3_objective": dict(C=np.array([[0.4, 2.0]]), M=np.array([[0.7, -1.5]]), Sigma=spd),
        UB_ + "lemA3_value": dict(M=np.array([[0.7, -1.5]]), Sigma=spd),
        UB_ + "lemA3_maximise": dict(M=np.array([[0.7, -1.5]]), Sigma=spd, seed=3),
        UB_ + "eq12_projection_matrix": dict(n=2, m=1, p=PS, mu=LAPLACE),
        UB_ + "thm31_constant": dict(mu=LAPLACE),
        UB_ + "thm31_bound": dict(d=3, p=PS, m=3, mu=GAUSS, sharp=True),
        UB_ + "strong_log_concavity_K": dict(mu=GAUSS),
        UB_ + "logcosh_gaussian": dict(a=2.5, kmax=2, dps=15),
        UB_ + "thm32_constant": dict(K=Fraction(5, 2)),
        UB_ + "thm32_bound": dict(d=3, K=Fraction(5, 2)),
        UB_ + "schur_ratio": dict(A=spd, k=1),
        UB_ + "footnote4_factor": dict(W=WS),
        UB_ + "footnote3_sides": dict(W=WS, x=np.array([0.3, -2.5, 1.5, 0.7, 3.0]), m=3),
        UB_ + "loss_parts": dict(W=WS, cumulants=kap, m=3),
        UB_ + "general_loss": dict(W=WS, cumulants=kap, m=3),
        UB_ + "scaling_coefficients": dict(W=WS, p=PS, m=3, mu=LAPLACE, loss=None),
        UB_ + "optimally_scaled": dict(W=WS, p=PS, m=3, mu=GAUSS),
        UB_ + "structured_candidates": dict(d=2, n=5, seed=3),
        UB_ + "conditional_energy_1d": dict(v=np.array([0.6, -0.8]), p=PS, sigma2=2.5),
        UB_ + "sparsity_patterns": dict(kind="blocks", n=4, p=PS, k=None, blocks=2),
        UB_ + "centred_slc_1d": dict(v=_x() ** 2 / 5, x=_x(), kmax=2, dps=15),
        UB_ + "nu_loss_parts": dict(W=WS, G=np.diag([0.3, 2.5, 1.5, 0.7, 3.0]), cumulants=kap, patterns=pats, m=3),
        UB_ + "nu_sup_loss": dict(d=1, G=np.diag([0.3, 2.5]), cumulants=kap,
                                  patterns=UB.sparsity_patterns("fixed", 2, k=1), m=1, restarts=1, seed=3, x0=[np.array([[0.3, 2.5]])]),
        UB_ + "gaussian_conditional_chain": dict(Sigma=spd, P=np.array([[0.6, 0.8]])),
        UB_ + "gaussian_pattern_energy": dict(W=WS, Sigma=np.diag([0.3, 2.5, 1.5, 0.7, 3.0]), patterns=pats,
                                              rcond=1e-12),
    }


def valid_frames() -> dict:
    """The valid calls of the frames package (r = 3 or 4: a few milliseconds each)."""
    from verify.numeric import frames as FR

    return {
        FR_ + "field_of": dict(r=3, irreducible_poly=None),
        FR_ + "parity_table": dict(r=3),
        FR_ + "trace_mask": dict(r=3, irreducible_poly=None),
        FR_ + "fast_trace": dict(z=np.arange(8), r=3, irreducible_poly=None),
        FR_ + "trace_form": dict(r=3, irreducible_poly=None),
        FR_ + "power_table": dict(r=3, j=2, irreducible_poly=None),
        FR_ + "fwht": dict(a=np.array([0.3, -1.5, 2.5, 0.7])),
        FR_ + "wht_rows": dict(bits=np.array([[0, 1, 1, 0, 1, 0, 0, 1]], dtype=np.uint8), r=3, method="blas"),
        FR_ + "sign_bits": dict(r=3, codes=np.array([1, 2, 5]), n_digits=1, start_digit=0, irreducible_poly=None),
        FR_ + "build_frame": dict(r=3, m=1, n_columns=5, irreducible_poly=None),
        FR_ + "build_general_frame": dict(d=12, m=2),
        FR_ + "general_parameters": dict(d=12, m=2),
        FR_ + "build_frame_reference": dict(r=3, m=1, n_columns=5),
        FR_ + "character_sums": dict(r=3, m=1, n_codes=8, irreducible_poly=None),
        FR_ + "certify": dict(r=3, m=2, n_columns=None, irreducible_poly=None, general_d=None, m_paper=None,
                              method="blas", client=None),
        FR_ + "certify_general": dict(d=12, m=2),
        FR_ + "welch_bound": dict(d=3, n=10),
        FR_ + "levenstein_bound": dict(d=3, n=10),
        FR_ + "weil_threshold_d": dict(m=3, general=False),
        FR_ + "gram_coherence": dict(V=np.eye(3)[:, [0, 1, 2, 0]] + 0.5, chunk=2, exact_int=False, dtype=np.float64),
        FR_ + "random_frame": dict(d=3, n=5, kind="gaussian", seed=3),
        FR_ + "welch_bound_sq": dict(d=3, n=10),
        FR_ + "levenstein_bound_sq": dict(d=3, n=10),
        FR_ + "best_lower_bound": dict(d=3, n=10, lp=False),
        FR_ + "lp_bound": dict(d=3, n=10, K=4, grid=50),
        FR_ + "code_parameters": dict(construction="kerdock", r=4, delta=None),
        FR_ + "build_code_frame": dict(construction="kerdock", r=4, delta=None, irreducible_poly=None),
        FR_ + "code_sign_bits": dict(construction="kerdock", r=4, columns=np.array([0, 1, 2]), delta=None,
                                     irreducible_poly=None),
        FR_ + "code_certificate": dict(construction="kerdock", r=4, delta=None, method="rank", include_identity=False,
                                       irreducible_poly=None, progress=False, symmetry=True),
        FR_ + "gf2_rank": dict(rows=np.array([[1, 2], [3, 3]], dtype=np.uint64)),
        FR_ + "alternating_rows": dict(q=np.zeros((2, 6), dtype=np.uint64), r=3),
        FR_ + "evaluation_points": dict(r=3),
        FR_ + "lemma_radical_dims": dict(r=3, a1=[0, 1], a2=[1, 0], irreducible_poly=None),
        FR_ + "radical_dim_counts": dict(r=3, m=2, symmetry=True, irreducible_poly=None, progress=False, client=None),
        FR_ + "quadratic_certificate": dict(r=3, m=2, symmetry=True, irreducible_poly=None, progress=False,
                                            client=None),
        FR_ + "sums_from_radicals": dict(r=3, counts=FR.radical_dim_counts(3, 2), exclude_zero_code=True),
        FR_ + "ImplicitFrame": dict(r=3, m=1, n_columns=5, irreducible_poly=None, dtype=np.float64,
                                    chunk_elements=64),
        FR_ + "ImplicitCodeFrame": dict(construction="kerdock", r=4, delta=None, n_columns=5, irreducible_poly=None,
                                        dtype=np.float64, chunk_elements=64),
        FR_ + "fwht_kron": dict(X=np.full((2, 8), 0.3), r=3),
        FR_ + "frame_table": dict(d=4, max_forms=1024, lp=False, progress=False),
        FR_ + "best_frame": dict(d=4, n=5, max_forms=1024, lp=False, progress=False),
    }


def valid_certified() -> dict:
    """The valid calls of the certified recomputation (2 x 2 to 3 x 3 exact matrices: milliseconds each)."""
    from fractions import Fraction as Fr

    from verify import certified as CE

    spd = np.array([[2.5, 0.3], [0.3, 0.4]])
    X = np.array([[0.3, -2.5, 1e3], [1.5, 0.7, -4.0]])
    H = np.array([[0.3, -1.5, 2.5, 0.7], [1.1, 0.5, -0.8, 3.0]])
    point = np.array([0.3, -1.5, 2.5, 0.7, 1.1, 0.5, -0.8, 3.0, -0.7, 0.4])   # vec H (2 x 4), log lam_W, log lam_H
    words = dict(what="the margin", route="exact rationals", certified="the inequality at these points")
    return {
        CE_ + "to_fmpq": dict(x=2.5e3),
        CE_ + "exact_array": dict(A=X),
        CE_ + "to_arb": dict(x=Fr(7, 3)),
        CE_ + "is_pd": dict(M=spd),
        CE_ + "is_psd": dict(M=spd),
        CE_ + "count_below": dict(S=spd, t=1.5),
        CE_ + "spectrum_matches": dict(S=np.diag([0.3, 2.5]), values=[0.3, 2.5], eps=1e-3),
        CE_ + "gen_lambda_max": dict(B=spd, A=np.diag([2.0, 0.5]), rel=2.0 ** -52, try_first=(3.0,)),
        CE_ + "lambda_max": dict(S=spd),
        CE_ + "op_norm_sq": dict(X=X),
        CE_ + "frob_sq": dict(X=X),
        CE_ + "enclosure": dict(lo=Fr(1, 3), hi=2.5),
        CE_ + "ratio_interval": dict(num=2.5, den=Fr(7, 3)),
        CE_ + "sqrt_enclosure": dict(e=CE.enclosure(2.5, 3)),
        CE_ + "margin_evidence": dict(margins=np.array([0.5, 0.25]), strict=True, **words),
        CE_ + "interval_evidence": dict(value=CE.enclosure(Fr(1, 3), 2.5), **words),
        CE_ + "lower_float": dict(x=Fr(1, 3)),
        CE_ + "upper_float": dict(x=Fr(1, 3)),
        CE_ + "objective_points": dict(name="N-lemC.3", n=2, search_starts=0),
        CE_ + "central_point": dict(x=point, d=2, K=2, n=2),
        CE_ + "lemb1_sq_ratio": dict(x=point, d=2, K=2, n=2),
        CE_ + "tw_margin": dict(x=point),
        CE_ + "lemc3_bound": dict(x=np.linspace(0.3, 2.5, 12), m=3),
        CE_ + "lemc4_bounds": dict(x=np.linspace(-1.5, 2.5, 13), d=3, K=2, n=2),
        CE_ + "lema2_bound": dict(z=np.linspace(-1.0, 2.5, 16), N=4, k=2),
        CE_ + "directional_derivative_of_loss": dict(H=H, D=0.5 * H[::-1], lam_W=2.5e-3, lam_H=0.3, K=2),
        CE_ + "derivative_of_gradient": dict(H=H, D=0.5 * H[::-1], lam_W=2.5e-3, lam_H=0.3, K=2),
        CE_ + "why_not_certified": dict(claim_id="S-eq11"),
    }


def _x():
    import sympy

    return sympy.Symbol("x", real=True)


def public(modules: tuple = MODULES) -> dict:
    """Every public callable (in ``__all__``) of ``modules``, by qualified name."""
    out = {}
    for m in modules:
        mod = importlib.import_module(m)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if callable(obj):
                out[f"{m}.{name}"] = obj
    return out


def kind_of(qual: str, param: str) -> str | None:
    return KIND_OF.get((qual, param), KIND.get(param))


def bad_cases(qual: str) -> list:
    """``[(parameter, label, value)]``: every parameter of ``qual``'s signature with the bad values of its kind."""
    func = public()[qual]
    call = valid()[qual]
    out = []
    for p in inspect.signature(func).parameters.values():
        if (qual, p.name) in UNSWEPT:
            continue
        kind = kind_of(qual, p.name)
        bads = dict(BAD[kind]) if kind in BAD else {}
        if p.default is p.empty:
            bads["none"] = None
        bads.update(EXTRA.get((qual, p.name), {}))
        if (qual, p.name) in SHAPE_FREE:
            bads.pop("ndim", None)
        for label, value in bads.items():
            out.append((p.name, label, value(call[p.name]) if callable(value) else value))
    return out


def test_every_public_function_has_a_valid_call_or_a_reason():
    names = set(public())
    assert names == set(valid()) | set(NOT_COVERED), (sorted(names - set(valid()) - set(NOT_COVERED)),
                                                      sorted((set(valid()) | set(NOT_COVERED)) - names))
    assert not set(valid()) & set(NOT_COVERED)


def test_every_parameter_has_bad_values_or_is_listed():
    """Each parameter of a covered function has a kind with bad values, or is listed in UNSWEPT (with why)."""
    loose = [(q, p) for q in valid() for p in inspect.signature(public()[q]).parameters
             if (q, p) not in UNSWEPT and kind_of(q, p) not in BAD]
    assert not loose, loose
    assert all(q in valid() and p in inspect.signature(public()[q]).parameters for q, p in UNSWEPT)
    assert all(kind_of(q, p) in ("vector", "matrix") and p in inspect.signature(public()[q]).parameters
               for q, p in SHAPE_FREE)
    assert all((q, p, label) in {(q2, p2, l2) for q2 in valid() for p2, l2, _ in bad_cases(q2)}
               for q, p, label in MISSING), "a MISSING entry names no case"


@pytest.mark.parametrize("qual", sorted(valid()))
def test_the_valid_call_is_valid(qual):
    """The baseline of the sweep: with every argument valid the call returns (so a refusal below is the bad
    parameter's)."""
    public()[qual](**valid()[qual])


#: one line, starting with the parameter(s) it names and ending with a full stop (or a closing bracket after one)
MESSAGE = re.compile(r"^Arguments? '[A-Za-z_][A-Za-z0-9_]*'[^\n]*[.)]$")


def _sweep():
    out = []
    for q in sorted(valid()):
        for p, label, value in bad_cases(q):
            marks = [pytest.mark.xfail(strict=True, reason=MISSING[(q, p, label)])] if (q, p, label) in MISSING else []
            out.append(pytest.param(q, p, value, id=f"{q.rpartition('numeric.')[2]}-{p}-{label}", marks=marks))
    return out


@pytest.mark.parametrize("qual,param,value", _sweep())
def test_one_bad_parameter_is_refused_by_its_own_name(qual, param, value):
    kwargs = {**valid()[qual], param: value}
    with np.errstate(all="ignore"):
        with pytest.raises(ValueError) as exc:
            public()[qual](**kwargs)
    assert str(exc.value).startswith(f"Argument '{REFUSED_AS.get((qual, param), param)}'"), str(exc.value)
    assert MESSAGE.match(str(exc.value)), f"{exc.value!r} is not in the form {MESSAGE.pattern!r}"
