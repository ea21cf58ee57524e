r"""The route map: per claim, the code paths that can produce the claimed quantity, and how a check crosses each.

A verified claim is only as strong as the routes its checks run. Many numeric functions switch on size
(row blocks, strips, chunks, tabulated versus untabulated paths), on the number type (float64, exact
rationals, mpmath), on the operator (dense or matrix-free), on the array library (numpy or torch) or on an
option. :data:`ROUTE_MAP` lists, for the claims whose quantity has more than one route, each route with the
switch that selects it, the default-tier check that crosses it (thresholds injected small with
:func:`inject`, so the scaling code runs at small cost) and the independent route it is compared with.

:func:`claim_coverage` measures it: per claim, the branch coverage (coverage.py, one context per check, see
:mod:`verify.coverage_map`) of the package functions behind the claim - every function of
``verify/numeric``, ``verify/symbolic`` and ``verify/objectives.py`` that the claim's own checks execute, plus the route functions
listed here - by that claim's own checks. Missing branches are listed; those that are no route of the claim -
a validation raise, an unreachable guard, a number type or caller constant the claim's quantity never takes -
are counted apart as exceptions, each matched by a row of the reviewable table :data:`EXCEPTIONS` and listed
per claim with its kind and reason.

    python -m verify.route_map --out coverage.json        # runs proofs_checks (default tier) under coverage
    verify report --fast --coverage coverage.json --json report.json

One claim group per run (the run is CPU-heavy), the figures merged into one file::

    python -m verify.route_map --out cov_S.json --snapshot /tmp/snap_S -- --verify-paper=S
    python -m verify.route_map --out coverage.json --snapshot /tmp/snap_N --merge cov_S.json -- --verify-paper=N

``--snapshot`` measures a copy of the package and the checks (a checkout edited during the run would shift the
recorded lines against the source they are read back with); keep the copy while the figures are read.

During the run :class:`FreshCaches` empties the lru caches of the mathematics whenever the next check belongs to
another claim, so a cached helper (moment tables, sympy derivations, GF(2^r) tables) is counted for every claim
that depends on it, not only for the first one that happened to fill the cache.

>>> sorted(ROUTE_MAP)  # doctest: +NORMALIZE_WHITESPACE
['N-B-distance', 'N-B-limit', 'N-C-derivs', 'N-C2-derivative', 'N-D-eig', 'N-D-residual', 'N-D.1-full-F',
 'N-L-closed', 'N-cor3.1', 'N-eq7', 'N-eq8', 'N-lemB.1', 'N-lemC.4', 'N-metrics', 'N-minimisers-R', 'N-thm2.2',
 'N-thm4.1-W', 'N-thm4.1-dT', 'N-thmC.2', 'S-eq11', 'S-eq12', 'S-eq9', 'S-exact-loss', 'S-lem4.1', 'S-lemA.3',
 'S-lemA.4-general', 'S-lemA.4-pow2', 'S-linear', 'S-thm2.2-2', 'S-thm3.1']
>>> all(r.crossed_by.startswith("proofs_checks/") for c in ROUTE_MAP.values() for r in c.routes)
True
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from .check_ids import check_nodeid
from .coverage_map import lru_caches as _lru_caches  # one definition, shared with the coverage recorder

__all__ = ["Route", "ClaimRoutes", "ROUTE_MAP", "Exempt", "EXCEPTIONS", "inject", "claim_coverage", "main",
           "BEHIND"]

#: the package files whose functions are "behind" a claim (the mathematics, not the plumbing): the numeric and
#: symbolic modules and the shared violation ratios of verify/objectives.py (the quantity several claims check)
BEHIND = ("verify/numeric/", "verify/symbolic/", "verify/objectives.py")


@dataclass(frozen=True)
class Route:
    """One code path to a claimed quantity.

    :param name: what the route is.
    :param function: ``file:qualname`` of the function that holds the switch.
    :param switch: what selects the route (a keyword, a module constant and its default, an input type).
    :param check: the name of the default-tier check that runs it past its threshold (its node id,
        :attr:`crossed_by`, is derived from where the check is defined, never written out).
    :param independent: the route the check compares it with.
    """

    name: str
    function: str
    switch: str
    check: str
    independent: str

    @property
    def crossed_by(self) -> str:
        """The node id of :attr:`check`: ``proofs_checks/<part>/test_<kind>.py::<check>``."""
        return check_nodeid(self.check)


@dataclass(frozen=True)
class ClaimRoutes:
    claim: str
    routes: tuple

    @property
    def functions(self) -> set:
        """``{(file, qualname)}`` of the route functions (counted behind the claim even if no check ran them)."""
        return {tuple(r.function.split(":", 1)) for r in self.routes}


_SL = "verify/numeric/superposition_loss.py"
_PS = "verify/numeric/power_sums.py"
_EQ8 = "test_perturbed_minimiser_every_solver_route_is_a_joint_stationary_point"
_TENSOR = "test_tensor_route_both_kernels_past_group_and_chunk_equal_exact_rationals"



def _loss_claim_routes(claim: str, check: str) -> ClaimRoutes:
    """The routes of a loss claim's quantity that ``route="auto"`` and the options of exact_loss select."""
    return ClaimRoutes(claim, (
        Route("auto -> power sums / tensor (numba and numpy kernels), chunked", f"{_PS}:route_costs",
              "cost constants _PS_OVERHEAD_FLOPS, _TENSOR_OVERHEAD_FLOPS, _ELEMENTWISE_FLOPS, _tensor_kernels.AVAILABLE "
              "(the route_costs switch) and every chunk threshold", check, "the Gram route, exact rationals"),
        Route("mpmath routes and the law's spellings", f"{_SL}:_mp_loss_power_sums",
              "dps=30 with route auto / gram / power_sums / tensor; mu as a name, Distribution or moment list",
              check, "exact rationals (cumulant formula)"),
    ))


def _ufm_claim_routes(claim: str, check: str) -> ClaimRoutes:
    """The three arithmetics of the central-path closed forms behind an N claim."""
    return ClaimRoutes(claim, (
        Route("exact rationals (int / Fraction / sympy / fmpq entries) and mpmath object arrays",
              "verify/numeric/ufm.py:_prepare", "the entry type of H (object arrays)", check,
              "float64 route; exact values compared exactly"),
    ))


def _solver_claim_routes(claim: str, check: str) -> ClaimRoutes:
    """The arithmetics of (8) and every route of ``solve_perturbed`` behind a claim about the minimiser of (2)."""
    return ClaimRoutes(claim, (
        *_ufm_claim_routes(claim, check).routes,
        Route("exact-typed H0, seeded restarts, no polish, refused polish (and mpmath Newton where listed)",
              "verify/numeric/ufm.py:solve_perturbed", "H0 entry type, starts=3, polish=False, root replaced by one "
              "that walks away, dps=30", check, "the exact stationary point (8) at which H0 is built"),
    ))


def _frame_switch_routes(claim: str, check: str, what: str) -> ClaimRoutes:
    """The certificate switches (streamed chunks, untabulated trace, butterfly WHT) of a frame claim."""
    return ClaimRoutes(claim, (
        Route(f"{what}: streamed WHT chunks, untabulated trace, butterfly WHT",
              "verify/numeric/frames/field.py:_wht_rows",
              "CHUNK_ELEMENTS, TABLE_MAX_R injected small; method='butterfly'", check, "dense Gram of the frame"),
    ))


ROUTE_MAP: dict[str, ClaimRoutes] = {c.claim: c for c in (
    _solver_claim_routes("N-B-distance", "test_exact_stationary_pair_is_the_minimiser_by_every_route_eq8_and_distance_bound"),
    _solver_claim_routes("N-cor3.1", "test_cor31_collapsed_H0_is_the_unique_minimiser_in_every_arithmetic_and_solver_route"),
    _solver_claim_routes("N-B-limit", "test_B_limit_by_every_arithmetic_and_solver_route"),
    _ufm_claim_routes("N-thm4.1-W", "test_trace_derivatives_equal_the_definition_along_the_flow_in_every_arithmetic"),
    _ufm_claim_routes("N-C-derivs", "test_first_derivatives_11_against_objective_1_in_every_arithmetic"),
    _ufm_claim_routes("N-C2-derivative", "test_C2_derivative_expression_against_mpmath_difference_of_the_gradient"),
    _ufm_claim_routes("N-lemC.4", "test_lemma_c4_norms_against_mpmath_eigenvalues_of_exact_covariances"),
    ClaimRoutes("N-D-eig", (
        Route("default frame (seed=None), rational lams (exact collapse_rho), n = 1",
              "verify/numeric/perturbation.py:orthonormal_frame", "seed=None; Fraction lam_W, lam_H; n = 1 (zero "
              "multiplicities of (21) skipped)", "test_collapsed_point_default_frame_rational_lams_and_n1_spectrum_and_Z_blocks",
              "float lams' point; dense F_kk eigenvalues"),
    )),
    _frame_switch_routes("S-lem4.1", "test_general_d_certificate_by_every_switch_equals_dense_gram", "general d"),
    _frame_switch_routes("S-lemA.4-general", "test_general_d_certificate_by_every_switch_equals_dense_gram", "general d"),
    *(ClaimRoutes(c, (
        Route("the law as a name, Distribution or moment list; p as Fraction, float or int",
              "verify/numeric/distributions.py:get_distribution", "type of mu and of p",
              "test_tensor_bound_and_eq12_by_every_law_spelling_and_number_type_of_p", "the name spelling, exact"),
    )) for c in ("S-eq12", "S-eq11", "S-lemA.3")),
    _loss_claim_routes("S-thm3.1", "test_thm31_maximiser_by_every_route_below_the_bound_above_eq10"),
    _loss_claim_routes("S-thm2.2-2", "test_thm22_2_maximiser_by_every_route_below_C3_d"),
    _loss_claim_routes("S-linear", "test_linear_case_maximum_p_mu2_d_attained_by_every_route"),
    _loss_claim_routes("S-eq9", "test_eq9_diagonal_A_by_every_route_law_spelling_and_precision"),
    _ufm_claim_routes("N-L-closed", "test_loss_closed_form_equals_definition_in_every_arithmetic"),
    _ufm_claim_routes("N-eq7", "test_gradient_code_equals_printed_eq7_in_every_arithmetic"),
    _ufm_claim_routes("N-lemB.1", "test_lemma_b1_bound_in_every_arithmetic_and_tight"),
    _ufm_claim_routes("N-D-residual", "test_residual_minus_cY_with_W_from_optimal_W_in_every_arithmetic"),
    _ufm_claim_routes("N-minimisers-R", "test_collapsed_point_is_stationary_with_value_c_minus_half_c2_in_every_arithmetic"),
    _ufm_claim_routes("N-thm2.2", "test_collapsed_minimiser_form_exact_in_every_arithmetic"),
    ClaimRoutes("S-exact-loss", (
        Route("gram: strips of the upper triangle of A", f"{_SL}:_stats_symmetric",
              "route='gram' (auto at small n); _STRIP_ENTRIES = 2^16 entries per strip",
              "test_loss_routes_past_every_chunk_threshold_equal_exact_rationals", "exact rationals"),
        Route("gram_rows: full row blocks of A", f"{_SL}:_stats", "route='gram_rows'; _BLOCK_ENTRIES = 2^16",
              "test_loss_routes_past_every_chunk_threshold_equal_exact_rationals", "exact rationals"),
        Route("power sums: moment matrices, chunked", f"{_PS}:RowPowerSums._build",
              "route='power_sums' (auto at large n); _CHUNK_ENTRIES = 2^20 entries per chunk",
              "test_loss_routes_past_every_chunk_threshold_equal_exact_rationals", "exact rationals"),
        Route("power-sum gradient without the kept psi_k H_k", f"{_PS}:RowPowerSums._grad",
              "_KEEP_ENTRIES = 2^25 (above it the products are recomputed)",
              "test_gradient_routes_chunked_and_without_kept_products_agree",
              "gram strips, gram rows, exact central difference"),
        Route("gram gradient on strips", f"{_SL}:_grad_symmetric", "route='gram' in exact_loss_grad",
              "test_gradient_routes_chunked_and_without_kept_products_agree", "gram rows, power sums"),
        Route("mpmath, Gram matrix", f"{_SL}:_mp_loss", "dps=..., route='gram'",
              "test_mpmath_routes_both_equal_exact_rationals", "exact rationals"),
        Route("mpmath, power sums", f"{_SL}:_mp_loss_power_sums", "dps=..., route='power_sums'",
              "test_mpmath_routes_both_equal_exact_rationals", "exact rationals"),
        Route("power sums on torch tensors", f"{_PS}:_einsum", "type(W) is a torch.Tensor (the Fig. 3 training)",
              "test_power_sums_on_torch_tensors_equal_numpy", "numpy route and the dense definition"),
        Route("tensor route, numba kernel, grouped partial sums", f"{_PS}:TensorPowerSums.__init__",
              # the switch is read here; the njit kernels themselves are compiled code, invisible to coverage.py
              "route='tensor' (auto at large n with numba); _tensor_kernels.GROUP = 4096 features per partial sum",
              _TENSOR, "exact rational row sums and loss, moment-matrix gradient"),
        Route("tensor route, numpy kernel, chunked (object, mpmath and torch arrays)",
              f"{_PS}:TensorPowerSums.__init__", "kernel='numpy' or non-float64 W; _CHUNK_ENTRIES = 2^20",
              _TENSOR, "exact rational row sums and loss"),
        Route("tensor gradient, both kernels", f"{_PS}:TensorPowerSums.grad", "route='tensor' in exact_loss_grad",
              _TENSOR, "moment-matrix gradient, gram rows"),
        Route("row polynomial in row chunks", f"{_SL}:_float_loss", "_ROW_CHUNK = 2^16 rows per lambdified call",
              _TENSOR, "exact rational loss"),
    )),
    ClaimRoutes("S-lemA.4-pow2", (
        Route("streamed WHT chunks", "verify/numeric/frames/cert_wht.py:_sum_chunks", "CHUNK_ELEMENTS = 2^20",
              "test_certificate_streamed_untabulated_and_butterfly_equal_dense_gram", "dense Gram of galois V"),
        Route("untabulated trace (r > 12)", "verify/numeric/frames/field.py:_sign_bits", "TABLE_MAX_R = 12",
              "test_certificate_streamed_untabulated_and_butterfly_equal_dense_gram", "dense Gram of galois V"),
        Route("butterfly WHT", "verify/numeric/frames/field.py:_wht_rows", "method='butterfly' (default 'blas')",
              "test_certificate_streamed_untabulated_and_butterfly_equal_dense_gram", "dense Gram of galois V"),
        Route("Dask tasks", "verify/numeric/frames/cert_wht.py:certify", "client=...",
              "test_distributed_certificate_equals_local", "local certificate"),
        Route("matrix-free operator, chunked", "verify/numeric/frames/operator.py:ImplicitFrame.matvec",
              "chunk_elements = CHUNK_ELEMENTS; dtype float64/float32",
              "test_implicit_operator_chunked_equals_dense_frame", "dense galois V"),
        Route("chunked Gram coherence", "verify/numeric/frames/cert_wht.py:gram_coherence", "chunk = 2048",
              "test_implicit_operator_chunked_equals_dense_frame", "certificate"),
    )),
    ClaimRoutes("N-metrics", (
        Route("torch tensors", "verify/numeric/nc_metrics.py:nc1", "type(x) is a torch.Tensor",
              "test_nc_metrics_torch_and_streaming_equal_numpy", "numpy float64 definitions"),
        *_ufm_claim_routes("N-metrics", "test_nc1_tilde_in_every_arithmetic_equals_the_scatter_definition").routes,
    )),
    ClaimRoutes("N-eq8", (
        Route("Newton-Krylov root polish (large H)", "verify/numeric/ufm.py:solve_perturbed",
              "_HYBR_MAX_UNKNOWNS = 400 unknowns (hybr up to it)",
              _EQ8, "first derivatives (11) of the joint objective (perturbation.gradients)"),
        Route("seeded restarts, no polish, mpmath Newton", "verify/numeric/ufm.py:solve_perturbed",
              "starts=3, polish=False, dps=30", _EQ8, "joint first derivatives (11), the hybr route"),
        *_solver_claim_routes("N-eq8", "test_exact_stationary_pair_is_the_minimiser_by_every_route_eq8_and_distance_bound"
                              ).routes,
    )),
    ClaimRoutes("N-D.1-full-F", (
        Route("matrix-free first-order F (5)", "verify/numeric/perturbation.py:F1_operator",
              "a LinearOperator instead of F_first_order's dense matrix (large dnK)",
              "test_matrix_free_first_order_F_equals_dense_and_structured_spectrum",
              "dense (5); structured whole spectrum"),
    )),
    ClaimRoutes("N-thmC.2", (
        Route("matrix-free exact F (CG with 2I - F_1)", "verify/numeric/perturbation.py:F_exact_operator",
              "a LinearOperator instead of F_exact's dense Schur complement",
              "test_matrix_free_exact_F_equals_dense_at_a_minimiser", "dense Schur-complement inverse"),
    )),
    ClaimRoutes("N-thm4.1-dT", (
        Route("exact rationals / mpmath (object arrays)", "verify/numeric/ufm.py:_pieces", "object-dtype H",
              "test_trace_derivatives_exact_route_equals_float_route", "float64 route at the same point"),
    )),
)}


def inject(monkeypatch, name: str, value, module: ModuleType | None = None, package: str | None = None) -> int:
    """Set the threshold ``name`` to ``value`` for one test (``monkeypatch``: pytest's fixture or its context).

    ``module``: that module only. ``package``: every loaded module under it that defines ``name`` (a constant
    imported by name into several modules, ``from .field import CHUNK_ELEMENTS``, has one copy per module).
    Returns the number of modules patched; none is an error (a renamed threshold must not pass silently)."""
    if (module is None) == (package is None):
        raise ValueError("Argument 'module' or 'package' must be given (one of them).")
    mods = [module] if module is not None else [
        m for k, m in list(sys.modules.items())
        if m is not None and (k == package or k.startswith(package + ".")) and name in vars(m)]
    mods = [m for m in mods if name in vars(m)]
    if not mods:
        raise ValueError(f"Argument 'name' must be a threshold defined in {module or package}, not {name!r}.")
    for m in mods:
        monkeypatch.setattr(m, name, value)
    return len(mods)


class FreshCaches:
    """pytest plugin of the coverage run: empty every lru cache of the mathematics when the next check
    belongs to another claim than the previous one.

    Without it a cached helper (moment tables, sympy derivations, GF(2^r) tables) runs once, in the context of
    the first check that calls it, and every later claim that reads it from the cache would be counted as not
    executing it: its branches would be missing from that claim's figure although the claim's result depends
    on them. Emptying on every change of claim (not every check) keeps the cost at one recomputation per
    claim."""

    def __init__(self):
        self.last = None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        """Leave out the checks of experiments only (kind emp): no coverage figure is asked of them, and training
        loops under coverage's tracer cost tens of minutes."""
        from .claims import get_claim

        def emp_only(item):
            marker = item.get_closest_marker("claim")
            return bool(marker and marker.args) and all(get_claim(c).kind == "emp" for c in marker.args)

        drop = [i for i in items if emp_only(i)]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = [i for i in items if not emp_only(i)]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        marker = item.get_closest_marker("claim")
        ids = frozenset(marker.args) if marker else frozenset()
        if ids != self.last:
            for f in _lru_caches():
                f.cache_clear()
        self.last = ids


def pytest_configure(config):
    """``-p verify.route_map`` (what :func:`main` passes) registers :class:`FreshCaches`."""
    config.pluginmanager.register(FreshCaches(), "verify-route-map-fresh-caches")


@dataclass(frozen=True)
class Exempt:
    """A kind of branch that is no route of a claim, and why (one row of :data:`EXCEPTIONS`).

    A missing branch ``file:src->dst`` of function ``qualname``, counted for ``claim``, is an exception when
    ``file``, ``function`` and ``claims`` match (``fnmatch`` patterns) and the regular expressions ``source`` and
    ``dest`` are found in the text of its source line and of its destination line (``<exit>`` for a return out
    of the function); ``"a|b"`` in a pattern matches either, ``"!a"`` in ``claims`` leaves ``a`` out. ``kind``: ``validation`` (the branch only raises
    an input error), ``guard`` (a defensive check that the mathematics or the callers make unreachable) or
    ``type`` (a number type or a caller's constant that the claim's quantity never takes; the reason says why).
    """

    kind: str
    reason: str
    dest: str = ""
    source: str = ""
    file: str = "verify/*"
    function: str = "*"
    claims: str = "*"

    def matches(self, claim: str, rel: str, qualname: str, src: str, dst: str) -> bool:
        def any_of(name, patterns):   # "a|b": either pattern
            return any(fnmatch.fnmatchcase(name, p) for p in patterns.split("|"))

        pats = self.claims.split("|")
        claim_ok = (any(fnmatch.fnmatchcase(claim, c) for c in pats if not c.startswith("!"))
                    and not any(fnmatch.fnmatchcase(claim, c[1:]) for c in pats if c.startswith("!")))
        return (claim_ok and any_of(rel, self.file) and any_of(qualname, self.function)
                and re.search(self.source, src) is not None and re.search(self.dest, dst) is not None)


#: The branches that are honestly not a route of the claim they are counted for, with the reason. Kept short
#: and strict: a branch a user can reach with the claim's own inputs (an exact/float branch, a chunk, a
#: threshold, a torch or mpmath input, an option) is a route and needs a check, never a row here.
EXCEPTIONS: tuple[Exempt, ...] = (
    Exempt("validation", "validation message (raises VerifyInputError on bad input)",
           dest=r"^raise (VerifyInputError|_bad_file|_fail)\b"),
    Exempt("validation", "a missing input file: FileNotFoundError re-raised as is",
           file="verify/numeric/frames/fileformat.py", function="load_frame", source=r"FileNotFoundError",
           dest=r"^raise$"),
    Exempt("guard", "Q_2k is even by the Gegenbauer recurrence (its odd coefficients vanish identically)",
           file="verify/numeric/frames/delsarte_lp.py", dest=r"^raise AssertionError\b"),
    Exempt("guard", "the Frobenius and scaling orbits tile every pair class exactly once (the orbit count is "
                    "a theorem of the construction); raised only if the orbit bookkeeping were wrong",
           file="verify/numeric/frames/cert_codes.py", function="code_certificate", dest=r"^raise AssertionError\b"),
    Exempt("guard", "the number of solutions of a fixed closed-form sympy derivation (no input reaches it): "
                    "raised only if the derivation changed",
           file="verify/symbolic/*", dest=r"^raise (RuntimeError|ArithmeticError)\b"),
    Exempt("guard", "_kind is called by _prepare only for object arrays (float64 arrays are dispatched before it): "
                    "its float return is unreachable",
           file="verify/numeric/ufm.py", function="_kind", source=r"A\.dtype != object", dest=r'return "float"'),
    Exempt("type", "replay_point dispatches on the type of the objective's replay value (exact Fraction, mpmath, "
                   "non-finite float) and on whether the objective has a replay: each objective has one kind, so "
                   "the other branches belong to other claims' objectives (each claim's own kind is run by its checks)",
           file="verify/objectives.py", function="replay_point",
           source=r"^(if obj\.replay is None|if isinstance\(v, Fraction\)|elif isinstance\(v, float\) and not math)"),
    Exempt("type", "exact_loss and exact_loss_grad call choose_route with tensor=True (their input is numpy "
                   "float64); tensor=False is the call of the torch training (verify.empirical, experiment claims "
                   "only), no route of a proof claim",
           file="verify/numeric/power_sums.py", function="choose_route", source=r"^if not tensor:",
           dest=r"costs\.pop", claims="S-*|X-S-*"),
    Exempt("type", "exact_loss / exact_loss_grad convert W to a float64 numpy array (verify_array) before the "
                   "power sums: torch tensors reach these helpers only by direct RowPowerSums / TensorPowerSums use "
                   "(the torch training of the experiments; S-exact-loss's own torch route checks, not excepted)",
           file="verify/numeric/power_sums.py", function="_const|_einsum|_take_last|_one_blas_thread|_check_W",
           source=r"^if (_is_torch\([A-Za-z]+\)|W\.dim\(\) < 2):",
           dest=r"^(import torch|return contextlib\.nullcontext|if W\.dim|return W$)", claims="S-*|X-S-*|!S-exact-loss"),
    Exempt("type", "exact_loss / exact_loss_grad build TensorPowerSums with the default kernel ('auto'): an explicit "
                   "kernel='numba' is direct use only (S-exact-loss's own tensor route check, not excepted)",
           file="verify/numeric/power_sums.py", function="_use_numba",
           source=r'^if (kernel == "numba"|not TK\.AVAILABLE|not numeric):',
           dest=r"^(if not TK\.AVAILABLE:|if not numeric:|return kernel != )", claims="S-*|X-S-*|!S-exact-loss"),
    Exempt("guard", "x_moment's k = 0 case: its callers (the cumulants of x and the cross term's E x^(k+1)) pass "
                    "k >= 1 only",
           file="verify/symbolic/superposition_loss.py", function="x_moment", source=r"^if k == 0:",
           dest=r"^return sympy\.Integer\(1\)"),
    Exempt("type", "row_polynomial(stats='full') (the row polynomial in S_k instead of T_k) is the call of "
                   "first_order_term, linear_case and the LaTeX export only; the loss these claims evaluate "
                   "(exact_loss's lambdified polynomial, the symbolic checks) takes the default off-diagonal form",
           file="verify/symbolic/superposition_loss.py", function="row_polynomial", source=r'^if stats == "full":',
           dest=r"^f = f\.subs\(", claims="S-*|X-S-*|!S-exact-loss|!S-rem4.3-first-order|!S-linear"),
    Exempt("type", "normal_then_uniform's extra uniform blocks (more=...) are passed only by the start of N-thmC.2's "
                   "map objective (a third log-scale parameter); the other objectives' starts pass none",
           file="verify/objectives.py", function="normal_then_uniform", source=r"^for lo2, hi2, m2 in more:",
           dest=r"^parts\.append\(", claims="*|!N-thmC.2"),
    Exempt("type", "Figure 1's configuration is fixed (FIG1_CONFIG: d = 10, K = 4, n = 10, float lam_W = sqrt 2 and "
                   "lam_H, the frame seeded with seed + 1): reproduce_fig1 never passes seed=None, rational lams or "
                   "a size where a multiplicity of (21) is zero (n = 1)",
           file="verify/numeric/perturbation.py|verify/numeric/ufm.py|verify/symbolic/perturbation.py",
           function="orthonormal_frame|collapse_rho|paper_Fkk_spectrum", claims="N-fig1",
           source=r"^if (seed is None:|isinstance\(lam_W, \(sympy\.Basic, Fraction\)\)|m == 0:)"),
    Exempt("validation", "builds the message of the VerifyInputError raised on the next line (d < K, or d = K "
                         "where Thm 5.2 needs d > K)",
           file="verify/symbolic/perturbation.py", function="_dims", dest=r"^rel, why = "),
    Exempt("guard", "_zero's entrywise matrix branch: its only callers in the package (paper_Fkk_spectrum, "
                    "spectra_equal) pass differences of scalar eigenvalue expressions, never a matrix",
           file="verify/symbolic/perturbation.py", function="_zero", source=r"MatrixBase", dest=r"^return all\("),
    Exempt("type", "check_problem validates what its caller passes: whether W is given and which of beta, lam_W, "
                   "lam_H are checked are constants of each calling function of verify/numeric/perturbation.py "
                   "(W absent from the H-only quantities, every hyper-parameter from F and the gradients), not "
                   "inputs of the user; the other combination is another function's call",
           file="verify/numeric/perturbation.py", function="check_problem", source=r"^if value is not _ABSENT:"),
    Exempt("type", "the frame statistics behind eqs. (19)-(22), Thm 4.2 and Remark 4.3 (lower_bound.frame_block_stats, "
                   "their only route to the field) call character_sums with n_codes = K and without irreducible_poly: "
                   "the default-field and all-codes defaults, and certify's butterfly WHT (character_sums runs the "
                   "default method='blas'), are the certificate claims' routes (S-lemA.4-*, S-lem4.1, checked there)",
           file="verify/numeric/frames/field.py|verify/numeric/frames/cert_wht.py",
           function="field_of|_check_codes|_wht_rows", claims="S-eq19|S-eq21|S-eq22|S-thm4.2|S-rem4.3-*",
           source=r'^if (irreducible_poly is None|n_codes is None|method == "butterfly"):',
           dest=r"^(ok = _is_int\(irreducible_poly\)|return total|return _fwht\()"),
    Exempt("type", "quadrature_moment (these claims' route to the Gauss rule) builds a new MomentSequence per call, so "
                   "the rule is never cached there; the cached return is sample()'s second draw (Monte Carlo, "
                   "other claims)",
           file="verify/numeric/distributions.py", function="MomentSequence.quadrature", claims="S-eq19|S-eq22",
           source=r"^if self\._rule is None:", dest=r"^return self\._rule"),
    Exempt("type", "RowPowerSums(_skip_stats=True) is the call of power_sum_tensor only (S-tensor's quantity, not "
                   "excepted there): exact_loss / exact_loss_grad always need the row statistics",
           file="verify/numeric/power_sums.py", function="RowPowerSums._build", source=r"^if _skip_stats:",
           dest=r"^return$", claims="S-*|X-S-*|!S-tensor"),
    Exempt("guard", "the Gaussian mixture's density in mpmath is never exactly 0 on the real line (mpmath's exponent "
                    "range has no underflow, and the all-ones pattern has weight p^n > 0 and a unit-norm v_b): the "
                    "zero-density guard of conditional_energy_1d's integrand is unreachable",
           file="verify/numeric/upper_bounds.py", function="conditional_energy_1d*", source=r"^if total == 0:",
           dest=r"^return mpmath\.mpf\(0\)"),
    Exempt("type", "the linear claim's phi is t^1 (m = 1): the loops over the higher power sums T_4, T_6, ... of the "
                   "row statistics and gradients run only for m >= 3, and linear_form_moment's products of T = 2 "
                   "linear forms have set partitions that share no block (its cache is hit only for T >= 3)",
           file="verify/numeric/superposition_loss.py|verify/numeric/upper_bounds.py", claims="S-linear",
           source=r"^(for l in range\((1, m|m - 2, -1, -1|m - 1, 0, -1)\):|if l:|if B not in block_cache:)",
           dest=r"^(pw = pw \* sq|np\.multiply\(pw, sq, out=pw\)|H \*= sq|G \*= sq|term = term \* block_cache)"),
    Exempt("type", "eq. (9) is the diagonal case: with A diagonal, y_i = A_ii x_i and the brute-force expansion has "
                   "only even monomials, so its skip of odd ones (a symmetric law's vanishing moments) never runs",
           file="verify/symbolic/superposition_loss.py", function="brute_force_loss", claims="S-eq9",
           source=r"^if any\(e % 2 for e in exps\):", dest=r"^continue"),
    Exempt("type", "Lemma A.2's exact enclosure (verify.certified.lema2_bound) calls _inv(..., 'exact') on fmpq "
                   "entries only (exact_array of the objective's float point): the float64 and mpmath kinds and the "
                   "int / Fraction / sympy conversions of this shared helper are no route of S-lemA.2",
           file="verify/numeric/ufm.py", function="_inv|_to_fmpq", claims="S-lemA.2",
           source=r"^if (kind == |isinstance\(x, )"),
)


def _exception(claim: str, rel: str, qualname: str, src: str, dst: str) -> Exempt | None:
    """The first row of :data:`EXCEPTIONS` that matches the branch, or None (a gap: a route without a check)."""
    return next((e for e in EXCEPTIONS if e.matches(claim, rel, qualname, src, dst)), None)


def _line(path: Path, line: int, cache: dict) -> str:
    """The stripped text of ``line`` (1-based; ``<exit>`` for coverage.py's negative exits). Lines split on
    ``\\n`` only, as the compiler does (``str.splitlines`` also splits on form feeds and would shift them)."""
    if line < 0:
        return "<exit>"
    lines = cache.setdefault(path, path.read_text(encoding="utf-8").split("\n") if path.exists() else [])
    return lines[line - 1].strip() if line - 1 < len(lines) else ""


def _exits_through_with(done: set, src: int, dst: int, path: Path, cache: dict) -> bool:
    """Whether the branch ``src -> dst`` was taken as the two recorded arcs ``src -> w -> dst`` through the ``with``
    line ``w`` that encloses ``src``: a loop that ends inside a ``with`` block (``maximise_loss``'s restarts) jumps
    back to the ``with`` line (its ``__exit__``) and from there to the next statement, which the tracer records
    as those two arcs while coverage.py's static analysis lists the one arc ``src -> dst``. Only a ``with`` line
    above ``src`` (``w < src``: a jump back to it) with both arcs recorded by the same checks counts."""
    for a, w in done:
        if a == src and w < src and (w, dst) in done and _line(path, w, cache).startswith(("with ", "async with ")):
            return True
    return False


def claim_coverage(cmap, nodeids_by_claim: dict, limit: int = 40) -> dict:
    """Per claim: the branch coverage of the functions behind it by its own checks.

    ``cmap``: a :class:`verify.coverage_map.CoverageMap`; ``nodeids_by_claim``: claim -> the nodeids of its
    checks. Returns claim -> ``{"covered", "total", "percent", "exceptions", "percent_net", "functions",
    "gaps": [first ``limit`` missing branches], "n_gaps", "excepted": [every exception, with its kind and
    reason], "exceptions_by_kind"}``; ``percent_net`` leaves the exceptions (:data:`EXCEPTIONS`) out of the
    total. A loop exit that the tracer recorded through its enclosing ``with`` line counts as taken
    (:func:`_exits_through_with`)."""
    from .coverage_map import source_index

    out = {}
    cache: dict = {}
    for claim in sorted(nodeids_by_claim):
        nodeids = sorted(nodeids_by_claim[claim])
        funcs = set()
        for n in nodeids:
            funcs |= {f for f in cmap.executed_functions(n) if f[0].startswith(BEHIND)}
        if claim in ROUTE_MAP:
            funcs |= ROUTE_MAP[claim].functions
        bc = cmap.branch_coverage(nodeids, functions=funcs)
        gaps, excepted, taken, through_with = [], [], None, 0
        for item in bc["missing"]:
            rel, arc = item.rsplit(":", 1)
            src, dst = (int(v) for v in arc.split("->"))
            path = cmap._abs(rel)
            if dst > 0:
                taken = cmap._query(nodeids, "arcs") if taken is None else taken
                if _exits_through_with(taken.get(rel, set()), src, dst, path, cache):
                    through_with += 1
                    continue
            index = source_index(path)
            qual = index.function_of(src) if index is not None else ""
            why = _exception(claim, rel, qual, _line(path, src, cache), _line(path, dst, cache))
            if why is None:
                gaps.append(item)
            else:
                excepted.append({"branch": item, "function": qual, "kind": why.kind, "reason": why.reason})
        total, covered = bc["total"], bc["covered"] + through_with
        net_total = total - len(excepted)
        kinds: dict = {}
        for e in excepted:
            kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
        out[claim] = {"covered": covered, "total": total,
                      "percent": round(100.0 * covered / total, 1) if total else 100.0,
                      "exceptions": len(excepted), "exceptions_by_kind": dict(sorted(kinds.items())),
                      "percent_net": round(100.0 * covered / net_total, 1) if net_total else 100.0,
                      "functions": bc["functions"], "gaps": gaps[:limit], "n_gaps": len(gaps),
                      "excepted": excepted}
    return out


def _nodeids_by_claim(checks_json: Path) -> dict:
    rows = json.loads(Path(checks_json).read_text())["checks"]
    out: dict = {}
    for row in rows:
        for cid in row["ids"]:
            out.setdefault(cid, set()).add(row["nodeid"])
    return out


def _option(argv: list, name: str):
    """The value of pytest option ``name`` in ``argv`` (``--name=V`` or ``--name V``), or None."""
    for a, b in zip(argv, [*argv[1:], None]):
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
        if a == name:
            return b
    return None


def main(argv=None) -> int:
    """``python -m verify.route_map --out coverage.json``: run the default tier of proofs_checks under coverage
    and write the per-claim coverage figures (``verify report --coverage FILE`` shows them)."""
    from ._io import atomic_write_text, check_output_path
    from .coverage_map import CoverageMap, collect

    ap = argparse.ArgumentParser(prog="python -m verify.route_map", description=main.__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the JSON file of per-claim coverage figures")
    ap.add_argument("--data", default=None, help="coverage data file (default: beside --out)")
    ap.add_argument("--reuse", action="store_true", help="read an existing --data file instead of running")
    ap.add_argument("-n", dest="workers", type=int, default=0, help="pytest-xdist workers (default 0)")
    ap.add_argument("--snapshot", default=None, metavar="DIR",
                    help="copy verify/, proofs_checks/, tests/ and pyproject.toml to DIR (a new folder) and measure that copy, "
                         "so that edits to the checkout during the run cannot shift the recorded lines")
    ap.add_argument("--merge", action="append", default=[], metavar="FILE",
                    help="figures of an earlier run (another claim group) kept in --out; this run's win")
    ap.add_argument("pytest_args", nargs="*",
                    help="extra pytest arguments after '--' (a check file, --verify-paper S, --verify-claim ID)")
    args = ap.parse_args(argv)
    try:
        out = check_output_path(args.out, "--out")
        merged = {}
        for f in args.merge:
            try:
                merged.update(json.loads(Path(f).read_text(encoding="utf-8"))["coverage"])
            except (OSError, ValueError, KeyError, TypeError):
                raise ValueError(f"Argument '--merge' must be a file written by 'python -m verify.route_map', "
                                 f"not {f!r}.") from None
        data = Path(args.data) if args.data else out.with_suffix(".coverage")
        check_output_path(data, "--data")
        if args.workers < 0:
            raise ValueError(f"Argument '-n' must be an integer >= 0, not {args.workers}.")
        checks = data.with_name(data.stem + ".checks.json")   # not data.*: collect() treats those as its parts
        snap = Path(args.snapshot).resolve() if args.snapshot else None
        if snap is not None and (snap.exists() or not snap.parent.is_dir() or args.reuse):
            raise ValueError(f"Argument '--snapshot' must be a new folder in an existing one (and not with --reuse), "
                             f"not {args.snapshot!r}.")
        if args.reuse and not (data.is_file() and checks.is_file()):
            raise ValueError(f"Argument '--reuse' needs {str(data)!r} and {str(checks)!r} from an earlier run.")
    except ValueError as exc:
        print(f"route_map: {exc}", file=sys.stderr)
        return 2
    if not args.reuse:
        root, cwd = Path(__file__).resolve().parents[1], os.getcwd()
        if snap is not None:
            # a frozen copy: ``python -m pytest`` run from it imports its verify/ (the cwd comes first on sys.path)
            # and the recorded lines stay those of the copy, which CoverageMap reads back
            snap.mkdir()
            for part in ("verify", "proofs_checks", "tests"):   # a few checks import helpers from tests/
                shutil.copytree(root / part, snap / part, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy2(root / "pyproject.toml", snap / "pyproject.toml")
            root = snap
            os.chdir(snap)
        suite = root / "proofs_checks"
        paths = [a for a in args.pytest_args if Path(a.split("::")[0]).exists()]
        try:
            code = collect([*args.pytest_args, *([] if paths else [str(suite)]), "-m", "not slow", "-q",
                            "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "verify.route_map",
                            f"--verify-json={checks.resolve()}", "-n", str(args.workers)], data.resolve())
        finally:
            os.chdir(cwd)
        if code not in (0, 1):
            print(f"route_map: pytest exited with {code}", file=sys.stderr)
            return 2
    by_claim = _nodeids_by_claim(checks)
    # a run restricted with --verify-claim measures those claims only (the others ran a part of their checks)
    wanted = {a.split("=", 1)[1] for a in args.pytest_args if a.startswith("--verify-claim=")}
    wanted |= {b for a, b in zip(args.pytest_args, args.pytest_args[1:]) if a == "--verify-claim"}
    if wanted:
        by_claim = {c: v for c, v in by_claim.items() if c in wanted}
    paper = _option(args.pytest_args, "--verify-paper")
    if paper:
        from .claims import get_claim
        by_claim = {c: v for c, v in by_claim.items() if get_claim(c).paper == paper}
    figures = {**merged, **claim_coverage(CoverageMap.load(data), by_claim)}
    atomic_write_text(out, json.dumps({"coverage": figures}, indent=1, sort_keys=True) + "\n")
    for claim, f in figures.items():
        print(f"{claim:24s} {f['covered']:5d}/{f['total']:<5d} {f['percent']:5.1f}%  net {f['percent_net']:5.1f}%  "
              f"gaps {f['n_gaps']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
