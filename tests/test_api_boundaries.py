"""Every refusal of every public function of the mathematics is tested at its boundary, both sides (issue 41).

The bounds are not typed here: they are read from each public function's source (and from the private helpers of
its module that it passes the parameter to): every ``verify_int(x, "x", minimum=k[, maximum=j])``,
``verify_positive``, ``verify_nonnegative``, ``verify_probability``, ``verify_odd_m``, ``verify_choice`` and
``verify_at_least`` applied to one of its parameters. For each, with every other argument valid (:data:`VALID`, one
cheap valid call per function):

* the value just outside the bound (k - 1, j + 1, 0 and a negative number for "> 0", -1/4 for ">= 0", 0 and 5/4
  for a rate in (0, 1], an even and a non-positive m, an unknown choice) is refused with exactly the message the
  validator writes for that parameter and value (one ``ValueError`` naming it: a refusal that is dropped, moved to
  another parameter or loosened shows);
* the value on the bound (k; 0 for ">= 0", 1 for a rate, the smallest odd m) is accepted by that bound: the call returns, or raises for
  another reason, never that parameter's own refusal (a bound tightened by one shows).

A public function with such a bound and no valid call here fails
:func:`test_every_bounded_public_function_has_a_valid_call`, unless it is in :data:`PENDING` with the reason (a list
that can only shrink).
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import textwrap
from fractions import Fraction

import numpy as np
import pytest
import sympy

from verify import _validate as V
from verify.numeric import perturbation as P

KINDS = ("verify_int", "verify_positive", "verify_nonnegative", "verify_probability", "verify_odd_m",
         "verify_choice", "verify_at_least")


def bounds_of(func, depth: int = 2) -> list:
    """``[(kind, parameter, keyword expressions, further positional expressions, module)]``: the validations of
    ``func``'s own parameters in its source, and in the same-module private helpers it passes them to."""
    mod = importlib.import_module(func.__module__)
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    params = list(inspect.signature(func).parameters)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name = node.func.id
        if name in KINDS and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in params:
            out.append((name, node.args[0].id, {k.arg: ast.unparse(k.value) for k in node.keywords},
                        [ast.unparse(a) for a in node.args[1:]], mod))
        elif depth and name.startswith("_") and inspect.isfunction(getattr(mod, name, None)):
            helper = getattr(mod, name)
            hp = list(inspect.signature(helper).parameters)
            mapping = {hp[i]: a.id for i, a in enumerate(node.args[:len(hp)])
                       if isinstance(a, ast.Name) and a.id in params}
            out += [(k, mapping[p], kw, rest, m) for k, p, kw, rest, m in bounds_of(helper, depth - 1) if p in mapping]
    return out


def _value(expr: str | None, mod):
    """A bound's expression evaluated in its module (None when it names a local: a bound that depends on another
    argument, such as ``minimum=d``, is not tested here)."""
    if expr is None:
        return None
    try:
        return eval(expr, vars(mod))   # noqa: S307 - the package's own source
    except NameError:
        return None


#: every bounded public function's validations, as its source wrote them when this table was made: the domain of
#: the API, the reference the calls below are held to (rows: kind, parameter, minimum, maximum, further arguments).
#: :func:`test_the_bounds_in_the_source_are_the_table` fails when a bound is added, dropped or changed in the source
#: (then the table is updated on purpose, and the calls hold the function to the new bound).
BOUNDS: dict = {
    'verify.certified.central_point': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.certified.derivative_of_gradient': (('verify_int', 'K', '1', None, ()),),
    'verify.certified.directional_derivative_of_loss': (('verify_int', 'K', '1', None, ()),),
    'verify.certified.lema2_bound': (
        ('verify_int', 'N', '2', None, ()),
        ('verify_int', 'k', '1', 'N - 1', ()),
    ),
    'verify.certified.lemc3_bound': (('verify_int', 'm', '1', None, ()),),
    'verify.certified.lemc4_bounds': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.certified.objective_points': (
        ('verify_int', 'n', '0', None, ()),
        ('verify_int', 'search_starts', '0', None, ()),
    ),
    'verify.numeric.central_path.flow_rhs': (('verify_int', 'K', '1', None, ()),),
    'verify.numeric.central_path.flow_traces': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
    ),
    'verify.numeric.central_path.solve_flow': (
        ('verify_choice', 'method', None, None, ("('RK23', 'RK45', 'DOP853', 'Radau', 'BDF', 'LSODA')",)),
        ('verify_int', 'K', '1', None, ()),
        ('verify_nonnegative', 'atol', None, None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
        ('verify_positive', 'rtol', None, None, ()),
        ('verify_positive', 't_end', None, None, ()),
    ),
    'verify.numeric.central_path.solve_flow_mp': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'dps', '15', None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.distributions.moment_by_quadrature': (
        ('verify_int', 'dps', '5', None, ()),
        ('verify_int', 'k', '0', None, ()),
    ),
    'verify.numeric.frames.bounds.levenstein_bound': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.numeric.frames.bounds.levenstein_bound_sq': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.numeric.frames.bounds.weil_threshold_d': (('verify_int', 'm', '1', None, ()),),
    'verify.numeric.frames.bounds.welch_bound': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.numeric.frames.bounds.welch_bound_sq': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.numeric.frames.catalogue.best_frame': (
        ('verify_int', 'd', '2', None, ()),
        ('verify_int', 'max_forms', '1', None, ()),
        ('verify_int', 'n', '2', None, ()),
    ),
    'verify.numeric.frames.catalogue.frame_table': (
        ('verify_int', 'd', '2', None, ()),
        ('verify_int', 'max_forms', '1', None, ()),
    ),
    'verify.numeric.frames.cert_codes.code_certificate': (
        ('verify_choice', 'method', None, None, ("('rank', 'wht')",)),
    ),
    'verify.numeric.frames.cert_rank.evaluation_points': (('verify_int', 'r', '1', '63', ()),),
    'verify.numeric.frames.cert_rank.lemma_radical_dims': (('verify_int', 'r', '1', 'MAX_R', ()),),
    'verify.numeric.frames.cert_rank.quadratic_certificate': (
        ('verify_int', 'm', '1', '3', ()),
        ('verify_int', 'r', '1', 'MAX_R', ()),
    ),
    'verify.numeric.frames.cert_rank.radical_dim_counts': (
        ('verify_int', 'm', '1', '3', ()),
        ('verify_int', 'r', '1', 'MAX_R', ()),
    ),
    'verify.numeric.frames.cert_rank.sums_from_radicals': (('verify_int', 'r', '1', 'MAX_R', ()),),
    'verify.numeric.frames.cert_wht.certify': (
        ('verify_choice', 'method', None, None, ("('blas', 'butterfly')",)),
        ('verify_int', 'general_d', '1', None, ()),
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'm_paper', '1', None, ()),
        ('verify_int', 'n_columns', 'min_columns', 'total', ()),
        ('verify_int', 'r', '1', 'MAX_R', ()),
    ),
    'verify.numeric.frames.cert_wht.character_sums': (
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'n_codes', '2 ** r', 'total', ()),
        ('verify_int', 'r', '1', 'MAX_R', ()),
    ),
    'verify.numeric.frames.cert_wht.gram_coherence': (('verify_int', 'chunk', '1', None, ()),),
    'verify.numeric.frames.constructions.build_frame': (
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'n_columns', 'min_columns', 'total', ()),
        ('verify_int', 'r', '1', 'MAX_R', ()),
    ),
    'verify.numeric.frames.constructions.build_frame_reference': (
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'n_columns', 'min_columns', 'total', ()),
        ('verify_int', 'r', '1', 'MAX_R', ()),
    ),
    'verify.numeric.frames.constructions.code_parameters': (
        ('verify_choice', 'construction', None, None, ("('kerdock', 'dg')",)),
        ('verify_int', 'r', '2', 'MAX_R', ()),
    ),
    'verify.numeric.frames.constructions.general_parameters': (
        ('verify_int', 'd', '2', '2 ** (MAX_R + 1) - 1', ()),
        ('verify_int', 'm', '1', None, ()),
    ),
    'verify.numeric.frames.constructions.random_frame': (
        ('verify_choice', 'kind', None, None, ("('gaussian', 'sign')",)),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '2', None, ()),
        ('verify_int', 'seed', '0', None, ()),
    ),
    'verify.numeric.frames.field.fast_trace': (('verify_int', 'r', '1', 'MAX_R', ()),),
    'verify.numeric.frames.field.sign_bits': (
        ('verify_int', 'n_digits', '0', None, ()),
        ('verify_int', 'r', '1', 'MAX_R', ()),
        ('verify_int', 'start_digit', '0', None, ()),
    ),
    'verify.numeric.frames.field.wht_rows': (
        ('verify_choice', 'method', None, None, ("('blas', 'butterfly')",)),
        ('verify_int', 'r', '0', 'MAX_R', ()),
    ),
    'verify.numeric.frames.operator.fwht_kron': (('verify_int', 'r', '0', None, ()),),
    'verify.numeric.frames.theorem42.best_point': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
    ),
    'verify.numeric.frames.theorem42.code_block_stats': (
        ('verify_int', 'l', '0', 'delta * mp', ()),
        ('verify_int', 's', '0', 'mp', ()),
        ('verify_odd_m', 'm', None, None, ()),
    ),
    'verify.numeric.frames.theorem42.compare_frames': (
        ('verify_int', 'r', '2', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
    ),
    'verify.numeric.lower_bound.F_attained': (
        ('verify_int', 'r', '1', 'frames.MAX_R', ()),
        ('verify_odd_m', 'm', None, None, ()),
    ),
    'verify.numeric.lower_bound.eq22_bound': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'k', '1', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.lower_bound.lower_bound_point': (
        ('verify_int', 'k', '1', 'd ** m', ()),
        ('verify_int', 'r', '1', 'frames.MAX_R', ()),
        ('verify_odd_m', 'm', None, None, ()),
    ),
    'verify.numeric.lower_bound.paper_k': (
        ('verify_int', 'd', '2', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.lower_bound.row_terms': (
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.nc_metrics.etf_target': (('verify_int', 'K', '2', None, ()),),
    'verify.numeric.nc_metrics.nc_metrics': (('verify_int', 'K', '2', None, ()),),
    'verify.numeric.perturbation.F_exact_operator': (('verify_positive', 'rtol', None, None, ()),),
    'verify.numeric.perturbation.block': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'k', '0', 'K - 1', ()),
        ('verify_int', 'kt', '0', 'K - 1', ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.numeric.perturbation.block_summary': (
        ('verify_int', 'K', '2', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
        ('verify_nonnegative', 'rtol', None, None, ()),
    ),
    'verify.numeric.perturbation.check_problem': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.numeric.perturbation.closed_form_Fkk_spectrum': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '2', None, ()),
        ('verify_int', 'n', '1', None, ()),
        ('verify_positive', 'beta', None, None, ()),
        ('verify_positive', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.perturbation.collapsed_block_spectrum': (
        ('verify_int', 'k', '0', 'K - 1', ()),
        ('verify_nonnegative', 'tol', None, None, ()),
    ),
    'verify.numeric.perturbation.collapsed_full_spectrum': (('verify_nonnegative', 'tol', None, None, ()),),
    'verify.numeric.perturbation.collapsed_offdiag_singular_values': (
        ('verify_int', 'k', '0', 'K - 1', ()),
        ('verify_int', 'kt', '0', 'K - 1', ()),
        ('verify_nonnegative', 'tol', None, None, ()),
    ),
    'verify.numeric.perturbation.collapsed_point': (
        ('verify_int', 'n', '1', None, ()),
        ('verify_positive', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.perturbation.labels': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.numeric.perturbation.loss_hessian': (('verify_positive', 'lam_H', None, None, ()),),
    'verify.numeric.perturbation.orthonormal_frame': (
        ('verify_int', 'K', '1', 'd', ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'seed', '0', None, ()),
    ),
    'verify.numeric.perturbation.thmC2_sharp_constants': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
        ('verify_positive', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.perturbation.unvec': (('verify_int', 'cols', '1', None, ()), ('verify_int', 'rows', '1', None, ())),
    'verify.numeric.perturbation_figures.reproduce_fig1': (
        ('verify_choice', 'device', None, None, ("('auto', 'cpu', 'cuda')",)),
        ('verify_int', 'seed', '0', None, ()),
    ),
    'verify.numeric.perturbation_figures.reproduce_full_F': (
        ('verify_choice', 'device', None, None, ("('auto', 'cpu', 'cuda')",)),
        ('verify_int', 'seed', '0', None, ()),
    ),
    'verify.numeric.power_sums.choose_route': (
        ('verify_choice', 'route', None, None, ('ROUTES',)),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'n', '0', None, ()),
    ),
    'verify.numeric.power_sums.collapsed_flops': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'm', '1', None, ()),
    ),
    'verify.numeric.power_sums.collapsed_grad': (('verify_int', 'm', '1', None, ()),),
    'verify.numeric.power_sums.collapsed_sums': (
        ('verify_choice', 'kernel', None, None, ('KERNELS',)),
        ('verify_int', 'm', '1', None, ()),
    ),
    'verify.numeric.power_sums.contract': (('verify_int', 'k', '0', None, ()),),
    'verify.numeric.power_sums.monomial_count': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'k', '0', None, ()),
    ),
    'verify.numeric.power_sums.monomial_exponents': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'k', '0', None, ()),
    ),
    'verify.numeric.power_sums.monomials': (('verify_int', 'k', '0', None, ()),),
    'verify.numeric.power_sums.multinomial_weights': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'k', '0', None, ()),
    ),
    'verify.numeric.power_sums.power_sum_tensor': (('verify_int', 'k', '0', None, ()),),
    'verify.numeric.power_sums.route_costs': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'n', '0', None, ()),
    ),
    'verify.numeric.power_sums.tensor_flops': (('verify_int', 'd', '1', None, ()), ('verify_int', 'm', '1', None, ())),
    'verify.numeric.superposition_loss.exact_loss': (
        ('verify_int', 'dps', '5', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.superposition_loss.exact_loss_from_A': (
        ('verify_int', 'dps', '5', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.superposition_loss.exact_loss_grad': (
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.superposition_loss.first_order_objective': (('verify_odd_m', 'm', None, None, ()),),
    'verify.numeric.superposition_loss.loss_to_accuracy': (
        ('verify_choice', 'method', None, None, ("('auto', 'exact', 'rb_cv')",)),
        ('verify_int', 'samples', '4', None, ()),
        ('verify_int', 'seed', '0', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.superposition_loss.maximise_loss': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'maxiter', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
        ('verify_int', 'restarts', '1', None, ()),
        ('verify_int', 'seed', '0', None, ()),
        ('verify_nonnegative', 'ftol', None, None, ()),
        ('verify_nonnegative', 'gtol', None, None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_positive', 'init_scale', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.superposition_loss.monte_carlo_loss': (
        ('verify_int', 'chunk', '1', None, ()),
        ('verify_int', 'samples', '2', None, ()),
        ('verify_int', 'seed', '0', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.superposition_loss.power_sums': (('verify_int', 'm', '1', None, ()),),
    'verify.numeric.superposition_loss.quadrature_moment': (
        ('verify_int', 'max_points', '1', None, ()),
        ('verify_int', 'power', '1', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.superposition_loss.rb_loss_samples': (
        ('verify_int', 'outputs', '1', None, ()),
        ('verify_int', 'samples', '1', None, ()),
        ('verify_int', 'seed', '0', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.ufm.central_path_loss': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.ufm.class_means': (('verify_int', 'K', '1', None, ()),),
    'verify.numeric.ufm.collapse_rho': (
        ('verify_positive', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.ufm.collapsed_minimiser': (('verify_int', 'n', '1', None, ()),),
    'verify.numeric.ufm.covariances': (('verify_int', 'K', '1', None, ()),),
    'verify.numeric.ufm.grad_central_path_loss': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.ufm.optimal_W': (('verify_int', 'K', '1', None, ()), ('verify_positive', 'lam_W', None, None, ())),
    'verify.numeric.ufm.perturbed_objective': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_positive', 'beta', None, None, ()),
    ),
    'verify.numeric.ufm.solve_perturbed': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'dps', '15', None, ()),
        ('verify_int', 'n', '1', None, ()),
        ('verify_int', 'seed', '0', None, ()),
        ('verify_int', 'starts', '1', None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
        ('verify_positive', 'beta', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.ufm.solve_ufm': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
        ('verify_int', 'seed', '0', None, ()),
        ('verify_int', 'starts', '1', None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
        ('verify_positive', 'scale', None, None, ()),
    ),
    'verify.numeric.ufm.stationarity_residual': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_positive', 'beta', None, None, ()),
    ),
    'verify.numeric.ufm.ufm_objective': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_nonnegative', 'lam_H', None, None, ()),
        ('verify_positive', 'lam_W', None, None, ()),
    ),
    'verify.numeric.upper_bounds.centred_slc_1d': (
        ('verify_int', 'dps', '5', None, ()),
        ('verify_int', 'kmax', '2', None, ()),
    ),
    'verify.numeric.upper_bounds.conditional_energy_1d': (
        ('verify_positive', 'sigma2', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.upper_bounds.coordinate_cumulants': (
        ('verify_int', 'kmax', '1', None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.upper_bounds.eq11_terms': (('verify_positive', 'rtol', None, None, ()),),
    'verify.numeric.upper_bounds.eq12_projection_matrix': (
        ('verify_int', 'n', '1', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.upper_bounds.footnote3_sides': (('verify_odd_m', 'm', None, None, ()),),
    'verify.numeric.upper_bounds.gaussian_pattern_energy': (('verify_nonnegative', 'rcond', None, None, ()),),
    'verify.numeric.upper_bounds.lemA3_maximise': (('verify_int', 'seed', '0', None, ()),),
    'verify.numeric.upper_bounds.logcosh_gaussian': (
        ('verify_int', 'dps', '5', None, ()),
        ('verify_int', 'kmax', '2', None, ()),
        ('verify_positive', 'a', None, None, ()),
    ),
    'verify.numeric.upper_bounds.loss_parts': (('verify_odd_m', 'm', None, None, ()),),
    'verify.numeric.upper_bounds.monomial_exponents': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'm', '0', None, ()),
    ),
    'verify.numeric.upper_bounds.nu_sup_loss': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'restarts', '0', None, ()),
        ('verify_int', 'seed', '0', None, ()),
    ),
    'verify.numeric.upper_bounds.schur_ratio': (('verify_int', 'k', '1', 'A.shape[0] - 1', ()),),
    'verify.numeric.upper_bounds.sparsity_patterns': (
        ('verify_int', 'blocks', '1', 'n', ()),
        ('verify_int', 'k', '0', 'n', ()),
        ('verify_int', 'n', '1', None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.upper_bounds.structured_candidates': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', 'd', None, ()),
        ('verify_int', 'seed', '0', None, ()),
    ),
    'verify.numeric.upper_bounds.tensor_bound': (
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.upper_bounds.thm31_bound': (
        ('verify_int', 'd', '1', None, ()),
        ('verify_odd_m', 'm', None, None, ()),
        ('verify_probability', 'p', None, None, ()),
    ),
    'verify.numeric.upper_bounds.thm32_bound': (('verify_int', 'd', '1', None, ()),),
    'verify.numeric.upper_bounds.thm32_constant': (('verify_at_least', 'K', None, None, ('1', "'K'")),),
    'verify.symbolic.central_path.build': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.symbolic.central_path.etf_identity': (('verify_int', 'K', '2', None, ()),),
    'verify.symbolic.central_path.instance': (('verify_int', 'K', '1', None, ()),),
    'verify.symbolic.frames.frame_entry': (('verify_int', 'm', '1', None, ()),),
    'verify.symbolic.frames.gram_entry': (('verify_int', 'm', '1', None, ()),),
    'verify.symbolic.frames.weil_below_one_threshold': (('verify_int', 'm', '1', None, ()),),
    'verify.symbolic.frames.weil_coherence_bound': (
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'r', '1', None, ()),
    ),
    'verify.symbolic.lower_bound.homogeneity_defect': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.lower_bound.optimised_t': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.perturbation.Z_blocks_paper': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.symbolic.perturbation.cayley_frame': (
        ('verify_int', 'K', '1', 'd', ()),
        ('verify_int', 'd', '1', None, ()),
    ),
    'verify.symbolic.perturbation.commutation_matrix': (
        ('verify_int', 'm', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.symbolic.perturbation.derivative_residuals': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.symbolic.perturbation.exact_loss_hessian': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.symbolic.perturbation.paper_Fkk_spectrum': (
        ('verify_int', 'K', '1', None, ()),
        ('verify_int', 'd', '1', None, ()),
        ('verify_int', 'n', '1', None, ()),
    ),
    'verify.symbolic.perturbation.rational_collapsed_point': (('verify_int', 'n', '1', None, ()),),
    'verify.symbolic.superposition_loss.brute_force_loss': (
        ('verify_choice', 'objective', None, None, ("('Ltilde', 'L')",)),
        ('verify_odd_m', 'm', None, None, ()),
    ),
    'verify.symbolic.superposition_loss.collapsed_row_symbols': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.superposition_loss.diagonal_case': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.superposition_loss.grad_expression': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.superposition_loss.loss_expression': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.superposition_loss.row_symbols': (
        ('verify_choice', 'stats', None, None, ("('offdiag', 'full')",)),
        ('verify_odd_m', 'm', None, None, ()),
    ),
    'verify.symbolic.superposition_loss.scaling_identity': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.superposition_loss.tensor_identity': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.superposition_loss.unsuperposed_supremum': (('verify_odd_m', 'm', None, None, ()),),
    'verify.symbolic.upper_bounds.lemA3_symbols': (
        ('verify_int', 'q', '1', None, ()),
        ('verify_int', 'rr', '1', None, ()),
    ),
    'verify.symbolic.upper_bounds.second_moment_linear_form': (('verify_int', 'n', '1', None, ()),),
}


def normalise(found) -> tuple:
    """A validation as one row of :data:`BOUNDS`: ``(kind, parameter, minimum, maximum, further positional
    arguments)``, the expressions as written in the source (the parameter's own name left out)."""
    kind, p, kw, rest, _ = found
    if kind != "verify_at_least" and rest and rest[0] in (repr(p), f'"{p}"'):   # the parameter's own name
        rest = rest[1:]
    return (kind, p, kw.get("minimum"), kw.get("maximum"), tuple(rest))


def cases_from(rows, mod) -> list:
    """``[(parameter, value, expected message, side)]`` from rows of :data:`BOUNDS`: side "out" must raise exactly
    the message (or, for a maximum set by another argument, a ``(head, tail)`` of it); side "on" must not raise the
    parameter's own refusal. The messages come from the validators themselves."""
    out = []

    def message(validator, *args):
        with pytest.raises(V.VerifyInputError) as exc:
            validator(*args)
        return str(exc.value)

    for kind, p, lo_expr, hi_expr, rest in rows:
        if kind == "verify_int":
            lo, hi = _value(lo_expr, mod), _value(hi_expr, mod)
            if rest:   # validated under another name (a derived value): not this parameter's refusal
                continue
            if isinstance(lo, int):
                if hi_expr is not None and hi is None:   # a maximum set by another argument: its text not compared
                    whole = message(V.verify_int, lo - 1, p, lo, lo)
                    expected = (whole.split(" and <= ")[0] + " and <= ", f", not {lo - 1!r}.")
                else:
                    expected = message(V.verify_int, lo - 1, p, lo, hi)
                out += [(p, lo - 1, expected, "out"), (p, lo, None, "on")]
            if isinstance(hi, int):   # not called on a maximum: the largest sizes allowed take minutes and GiB
                out += [(p, hi + 1, message(V.verify_int, hi + 1, p, lo, hi), "out")]
        elif kind == "verify_positive":
            out += [(p, v, message(V.verify_positive, v, p), "out") for v in (0, -2.5)]
        elif kind == "verify_nonnegative":
            out += [(p, -0.25, message(V.verify_nonnegative, -0.25, p), "out"), (p, 0, None, "on")]
        elif kind == "verify_probability":
            out += [(p, v, message(V.verify_probability, v, p), "out") for v in (0, 1.25)] + [(p, 1, None, "on")]
        elif kind == "verify_odd_m":
            out += [(p, v, message(V.verify_odd_m, v, p), "out") for v in (2, -1)] + [(p, 1, None, "on")]
        elif kind == "verify_choice":
            choices = _value(rest[0], mod) if rest else None
            if choices is not None:
                out += [(p, "no-such-option", message(V.verify_choice, "no-such-option", p, choices), "out")]
        elif kind == "verify_at_least":
            bound = _value(rest[0], mod) if rest else None
            if isinstance(bound, (int, float)):
                out += [(p, bound - 0.5, message(V.verify_at_least, bound - 0.5, bound, p), "out"),
                        (p, bound, None, "on")]
    return list({(p, repr(v), side): (p, v, msg, side) for p, v, msg, side in out}.values())


def cases(qual: str) -> list:
    """The cases of :data:`BOUNDS`' rows for the function ``qual``."""
    return cases_from(BOUNDS.get(qual, ()), importlib.import_module(qual.rpartition(".")[0]))


# ---- one cheap valid call per function (keyword arguments) ------------------------------------------------------

#: an output folder in a valid call: each case gets pytest's own ``tmp_path`` instead (a figure writer's call leaves
#: nothing in the repository)
TMP_DIR = object()


def _H(d=3, K=2, n=2, seed=0):
    return np.random.default_rng(seed).normal(size=(d, K * n))


def _point(d=3, K=2, n=2, lw=0.5, lh=0.3):
    W, H = P.collapsed_point(d, K, n, lw, lh, seed=1)
    return W, H


def _flow_sol():
    from verify.numeric import central_path as CP
    return CP.solve_flow(_H(), 0.5, 0.3, 2, t_end=0.05)


@functools.lru_cache(maxsize=None)
def _valid():
    W, H = _point()
    F = P.F_first_order(W, H, 2.0, 0.5, 0.3, 2, 2)
    Wl = 0.7 * np.random.default_rng(3).normal(size=(2, 5))
    x = sympy.Symbol("x")
    spd = np.array([[2.0, 0.3], [0.3, 1.0]])
    R = np.linalg.qr(np.random.default_rng(4).normal(size=(3, 2)))[0]
    Rs = sympy.Matrix([[1, 0], [0, 1], [0, 0]])
    half, third, quarter = sympy.Rational(1, 2), sympy.Rational(1, 3), sympy.Rational(1, 4)
    from verify.numeric import lower_bound as LB
    from verify.numeric import power_sums as PS
    from verify.numeric import upper_bounds as UB
    T_row = LB.frame_block_stats(2, 3, 4).rows[0][1]   # a row's off-diagonal power sums T_2, T_4, T_6 (d = 4, k = 4)
    Hc = np.array([[0.3, -1.5, 2.5, 0.7], [1.1, 0.5, -0.8, 3.0]])
    return {
        # certified recomputation
        "verify.certified.central_point": dict(x=np.linspace(-1.5, 2.5, 10), d=2, K=2, n=2),
        "verify.certified.derivative_of_gradient": dict(H=Hc, D=0.5 * Hc[::-1], lam_W=0.5, lam_H=0.3, K=2),
        "verify.certified.directional_derivative_of_loss": dict(H=Hc, D=0.5 * Hc[::-1], lam_W=0.5, lam_H=0.3, K=2),
        "verify.certified.lema2_bound": dict(z=np.linspace(-1.0, 2.5, 16), N=4, k=2),
        "verify.certified.lemc3_bound": dict(x=np.linspace(0.3, 2.5, 12), m=3),
        "verify.certified.lemc4_bounds": dict(x=np.linspace(-1.5, 2.5, 13), d=3, K=2, n=2),
        "verify.certified.objective_points": dict(name="N-lemC.3", n=2, search_starts=0),
        # central path (paper N)
        "verify.numeric.central_path.flow_rhs": dict(H=_H(), lam_W=0.5, lam_H=0.3, K=2),
        "verify.numeric.central_path.flow_traces": dict(sol=_flow_sol(), ts=[0.0, 0.05], lam_H=0.3, K=2),
        "verify.numeric.central_path.solve_flow": dict(H0=_H(), lam_W=0.5, lam_H=0.3, K=2, t_end=0.05),
        "verify.numeric.central_path.solve_flow_mp": dict(H0=_H(2, 2, 1), lam_W=0.5, lam_H=0.3, K=2, ts=[0, 0.01],
                                                          dps=15),
        "verify.numeric.distributions.moment_by_quadrature": dict(mu="gaussian", k=2, dps=10),
        # frames: bounds and parameters
        "verify.numeric.frames.bounds.levenstein_bound": dict(d=3, n=10),
        "verify.numeric.frames.bounds.levenstein_bound_sq": dict(d=3, n=10),
        "verify.numeric.frames.bounds.weil_threshold_d": dict(m=3),
        "verify.numeric.frames.bounds.welch_bound": dict(d=3, n=10),
        "verify.numeric.frames.bounds.welch_bound_sq": dict(d=3, n=10),
        "verify.numeric.frames.catalogue.best_frame": dict(d=4, n=5, lp=False),
        "verify.numeric.frames.catalogue.frame_table": dict(d=4, lp=False),
        "verify.numeric.frames.cert_codes.code_certificate": dict(construction="kerdock", r=4),
        "verify.numeric.frames.cert_rank.evaluation_points": dict(r=3),
        "verify.numeric.frames.cert_rank.lemma_radical_dims": dict(r=3, a1=[0, 1], a2=[1, 0]),
        "verify.numeric.frames.cert_rank.quadratic_certificate": dict(r=3, m=2),
        "verify.numeric.frames.cert_rank.radical_dim_counts": dict(r=3, m=2),
        "verify.numeric.frames.cert_rank.sums_from_radicals": dict(r=3, counts={1: 7, 3: 1}),
        "verify.numeric.frames.cert_wht.certify": dict(r=3, m=2),
        "verify.numeric.frames.cert_wht.character_sums": dict(r=3, m=1),
        "verify.numeric.frames.cert_wht.gram_coherence": dict(V=np.eye(3)[:, [0, 1, 2, 0]] + 0.5, chunk=2),
        "verify.numeric.frames.constructions.build_frame": dict(r=3, m=1),
        "verify.numeric.frames.constructions.build_frame_reference": dict(r=3, m=1),
        "verify.numeric.frames.constructions.code_parameters": dict(construction="kerdock", r=3),
        "verify.numeric.frames.constructions.general_parameters": dict(d=12, m=2),
        "verify.numeric.frames.constructions.random_frame": dict(d=3, n=5),
        "verify.numeric.frames.field.fast_trace": dict(z=np.arange(8), r=3),
        "verify.numeric.frames.field.sign_bits": dict(r=3, codes=np.array([1, 2]), n_digits=1),
        "verify.numeric.frames.operator.fwht_kron": dict(X=np.ones((2, 8)), r=3),
        "verify.numeric.frames.field.wht_rows": dict(bits=np.array([[0, 1, 1, 0, 1, 0, 0, 1]], dtype=np.uint8), r=3),
        "verify.numeric.frames.theorem42.best_point": dict(stats_list=[LB.frame_block_stats(r=2, m=3, k=4)],
                                                           p=Fraction(1, 8), mu="gaussian", d=4, m=3),
        "verify.numeric.frames.theorem42.code_block_stats": dict(construction="kerdock", r=4, m=3, s=0, l=0),
        "verify.numeric.frames.theorem42.compare_frames": dict(r=3, ps=[Fraction(1, 8)], m=3),
        # lower bound (paper S, section 4)
        "verify.numeric.lower_bound.F_attained": dict(r=2, m=3),
        "verify.numeric.lower_bound.eq22_bound": dict(d=16, m=3, p=Fraction(1, 8), k=4),
        "verify.numeric.lower_bound.lower_bound_point": dict(r=2, m=3, p=Fraction(1, 8)),
        "verify.numeric.lower_bound.paper_k": dict(d=16, m=3, p=Fraction(1, 8)),
        "verify.numeric.lower_bound.row_terms": dict(m=3, p=Fraction(1, 8), mu="gaussian", T=T_row),
        # neural-collapse metrics
        "verify.numeric.nc_metrics.etf_target": dict(K=3),
        "verify.numeric.nc_metrics.nc_metrics": dict(H=np.random.default_rng(5).normal(size=(4, 6)), K=3),
        # perturbation (paper N, section 5)
        "verify.numeric.perturbation.block": dict(F=F, k=0, kt=1, d=3, n=2),
        "verify.numeric.perturbation.block_summary": dict(F=F, d=3, K=2, n=2),
        "verify.numeric.perturbation.check_problem": dict(W=W, H=H, K=2, n=2),
        "verify.numeric.perturbation.closed_form_Fkk_spectrum": dict(d=3, K=1, n=2, beta=2.0, lam_W=0.5, lam_H=0.3),
        "verify.numeric.perturbation.collapsed_block_spectrum": dict(W=W, H=H, k=0, beta=2.0, lam_W=0.5, lam_H=0.3,
                                                                     K=2, n=2),
        "verify.numeric.perturbation.collapsed_offdiag_singular_values": dict(W=W, H=H, k=0, kt=1, beta=2.0,
                                                                              lam_W=0.5, K=2, n=2),
        "verify.numeric.perturbation.collapsed_full_spectrum": dict(W=W, H=H, beta=2.0, lam_W=0.5, lam_H=0.3, K=2,
                                                                    n=2),
        "verify.numeric.perturbation.collapsed_point": dict(d=3, K=2, n=2, lam_W=0.5, lam_H=0.3, seed=1),
        "verify.numeric.perturbation.F_exact_operator": dict(W=W, H=H, beta=2.0, lam_W=0.5, lam_H=0.3, K=2, n=2),
        "verify.numeric.perturbation.labels": dict(K=2, n=3),
        "verify.numeric.perturbation.loss_hessian": dict(H=H, lam_W=0.5, lam_H=0.3, K=2, n=2),
        "verify.numeric.perturbation.orthonormal_frame": dict(d=3, K=2, seed=0),
        "verify.numeric.perturbation.thmC2_sharp_constants": dict(lam_W=0.5, lam_H=0.3, K=2, n=2),
        "verify.numeric.perturbation.unvec": dict(v=np.arange(6.0), rows=2, cols=3),
        "verify.numeric.perturbation_figures.reproduce_fig1": dict(out_dir=TMP_DIR, quick=True, seed=0),
        "verify.numeric.perturbation_figures.reproduce_full_F": dict(out_dir=TMP_DIR, quick=True, seed=0),
        # power sums and the superposition loss (paper S)
        "verify.numeric.power_sums.choose_route": dict(route="auto", d=3, n=5, m=3),
        "verify.numeric.power_sums.collapsed_flops": dict(d=3, m=3),
        "verify.numeric.power_sums.collapsed_grad": dict(W=Wl, m=1, cs=PS.collapsed_sums(Wl, 1), d_a=np.ones(5), d_P=[],
                                                         c_top=0.5),
        "verify.numeric.power_sums.collapsed_sums": dict(W=Wl, m=3),
        "verify.numeric.power_sums.contract": dict(S=np.ones((2, 2)), X=np.ones((2, 3)), k=2),
        "verify.numeric.power_sums.monomial_count": dict(d=2, k=2),
        "verify.numeric.power_sums.monomials": dict(X=np.ones((3, 2)), k=2),
        "verify.numeric.power_sums.route_costs": dict(d=3, n=5, m=3),
        "verify.numeric.power_sums.tensor_flops": dict(d=3, m=3),
        "verify.numeric.power_sums.monomial_exponents": dict(d=2, k=2),
        "verify.numeric.power_sums.multinomial_weights": dict(d=2, k=2),
        "verify.numeric.power_sums.power_sum_tensor": dict(W=Wl, k=2),
        "verify.numeric.superposition_loss.exact_loss": dict(W=Wl, p=0.3, m=3, dps=20),
        "verify.numeric.superposition_loss.exact_loss_from_A": dict(A=Wl.T @ Wl, p=0.3, m=3, dps=20),
        "verify.numeric.superposition_loss.exact_loss_grad": dict(W=Wl, p=0.3, m=3),
        "verify.numeric.superposition_loss.first_order_objective": dict(V=Wl, m=3),
        "verify.numeric.superposition_loss.loss_to_accuracy": dict(W=Wl, p=0.3, m=3, method="rb_cv", samples=8),
        "verify.numeric.superposition_loss.maximise_loss": dict(d=1, n=2, p=0.5, m=1, restarts=1, maxiter=20),
        "verify.numeric.superposition_loss.monte_carlo_loss": dict(W=Wl, p=0.3, m=3, samples=50, chunk=7),
        "verify.numeric.superposition_loss.power_sums": dict(A=Wl.T @ Wl, m=3),
        "verify.numeric.superposition_loss.quadrature_moment": dict(W=Wl[:, :2], p=0.3, m=1, power=1,
                                                                    max_points=10_000),
        "verify.numeric.superposition_loss.rb_loss_samples": dict(W=Wl, p=0.3, m=3, samples=3, outputs=2),
        # the UFM (paper N)
        "verify.numeric.ufm.central_path_loss": dict(H=_H(), lam_W=0.5, lam_H=0.3, K=2),
        "verify.numeric.ufm.class_means": dict(H=_H(), K=2),
        "verify.numeric.ufm.collapse_rho": dict(lam_W=0.5, lam_H=0.3),
        "verify.numeric.ufm.collapsed_minimiser": dict(R=R, lam_W=0.5, lam_H=0.3, n=2),
        "verify.numeric.ufm.covariances": dict(H=_H(), K=2),
        "verify.numeric.ufm.grad_central_path_loss": dict(H=_H(), lam_W=0.5, lam_H=0.3, K=2),
        "verify.numeric.ufm.optimal_W": dict(H=_H(), lam_W=0.5, K=2),
        "verify.numeric.ufm.perturbed_objective": dict(H=_H(), H0=_H(seed=1), beta=2.0, lam_W=0.5, lam_H=0.3, K=2),
        "verify.numeric.ufm.solve_perturbed": dict(H0=_H(), beta=2.0, lam_W=0.5, lam_H=0.3, K=2, n=2, starts=1,
                                                   polish=False),
        "verify.numeric.ufm.solve_ufm": dict(d=2, K=2, n=1, lam_W=0.5, lam_H=0.3, starts=1),
        "verify.numeric.ufm.stationarity_residual": dict(H=_H(), H0=_H(seed=1), beta=2.0, lam_W=0.5, lam_H=0.3, K=2),
        "verify.numeric.ufm.ufm_objective": dict(W=np.ones((2, 3)), H=_H(), lam_W=0.5, lam_H=0.3, K=2),
        # upper bounds (paper S, section 3)
        "verify.numeric.upper_bounds.centred_slc_1d": dict(v=x ** 2 / 2, x=x, kmax=2, dps=15),
        "verify.numeric.upper_bounds.conditional_energy_1d": dict(v=np.array([1.0, -0.5]), p=0.5, sigma2=2.0),
        "verify.numeric.upper_bounds.coordinate_cumulants": dict(mu="gaussian", p=Fraction(1, 3), kmax=2),
        "verify.numeric.upper_bounds.eq12_projection_matrix": dict(n=2, m=1, p=Fraction(1, 2)),
        "verify.numeric.upper_bounds.eq11_terms": dict(Sigma=spd, M=np.ones((1, 2)), rtol=1e-9),
        "verify.numeric.upper_bounds.footnote3_sides": dict(W=Wl, x=np.ones(5), m=3),
        "verify.numeric.upper_bounds.gaussian_pattern_energy": dict(W=Wl, Sigma=np.eye(5),
                                                                    patterns=UB.sparsity_patterns("fixed", 5, k=2)),
        "verify.numeric.upper_bounds.lemA3_maximise": dict(M=spd, Sigma=spd, seed=0),
        "verify.numeric.upper_bounds.logcosh_gaussian": dict(a=1.5, kmax=2, dps=15),
        "verify.numeric.upper_bounds.loss_parts": dict(W=Wl, cumulants=[0, 1, 0, 0, 0, 0, 0], m=3),
        "verify.numeric.upper_bounds.monomial_exponents": dict(d=2, m=2),
        "verify.numeric.upper_bounds.nu_sup_loss": dict(d=1, G=np.eye(2), cumulants=[0, 0, 1.0, 0, 0, 0, 0],
                                                        patterns=UB.sparsity_patterns("fixed", 2, k=2), m=1,
                                                        restarts=1, seed=0),
        "verify.numeric.upper_bounds.schur_ratio": dict(A=spd, k=1),
        "verify.numeric.upper_bounds.sparsity_patterns": dict(kind="fixed", n=3, k=1),
        "verify.numeric.upper_bounds.structured_candidates": dict(d=2, n=3),
        "verify.numeric.upper_bounds.tensor_bound": dict(W=Wl, p=0.3, m=3),
        "verify.numeric.upper_bounds.thm31_bound": dict(d=3, p=Fraction(1, 3), m=3),
        "verify.numeric.upper_bounds.thm32_bound": dict(d=3, K=2),
        "verify.numeric.upper_bounds.thm32_constant": dict(K=2),
        # symbolic
        "verify.symbolic.central_path.build": dict(d=2, K=2, n=1),
        "verify.symbolic.central_path.etf_identity": dict(K=3, rho=sympy.Rational(1, 3)),
        "verify.symbolic.central_path.instance": dict(Hv=sympy.Matrix([[1, 0, 2, 1], [0, 1, 1, 3]]), K=2, lam_W=half,
                                                      lam_H=third),
        "verify.symbolic.frames.frame_entry": dict(m=2),
        "verify.symbolic.frames.gram_entry": dict(m=2),
        "verify.symbolic.frames.weil_below_one_threshold": dict(m=2),
        "verify.symbolic.frames.weil_coherence_bound": dict(r=3, m=2),
        "verify.symbolic.lower_bound.homogeneity_defect": dict(m=3),
        "verify.symbolic.lower_bound.optimised_t": dict(m=3),
        # the smallest sizes (1 each): the "on" cases of d, K and n are this call itself (R's shape follows d, K)
        "verify.symbolic.perturbation.Z_blocks_paper": dict(d=1, K=1, n=1, R=sympy.Matrix([[1]]), sigma_H2=half,
                                                            lam_W_=third, c=quarter),
        "verify.symbolic.perturbation.cayley_frame": dict(d=3, K=2),
        "verify.symbolic.perturbation.commutation_matrix": dict(m=2, n=3),
        "verify.symbolic.perturbation.derivative_residuals": dict(d=1, K=1, n=1),
        "verify.symbolic.perturbation.exact_loss_hessian": dict(H=sympy.Matrix([[1], [2]]), lam_W_=half, lam_H_=third,
                                                                K=1, n=1),
        "verify.symbolic.perturbation.paper_Fkk_spectrum": dict(d=3, K=2, n=2),
        "verify.symbolic.perturbation.rational_collapsed_point": dict(a=sympy.Rational(1, 2), b=sympy.Rational(1, 3),
                                                                      R=Rs, n=1),
        "verify.symbolic.superposition_loss.brute_force_loss": dict(A=sympy.Matrix([[1, sympy.Rational(1, 2)],
                                                                                    [sympy.Rational(1, 2), 1]]), m=1),
        "verify.symbolic.superposition_loss.collapsed_row_symbols": dict(m=3),
        "verify.symbolic.superposition_loss.diagonal_case": dict(m=3),
        "verify.symbolic.superposition_loss.grad_expression": dict(W=sympy.Matrix([[1, 2]]), m=1),
        "verify.symbolic.superposition_loss.loss_expression": dict(A=sympy.Matrix([[1, 0], [0, 1]]), m=1),
        "verify.symbolic.superposition_loss.row_symbols": dict(m=3),
        "verify.symbolic.superposition_loss.scaling_identity": dict(m=3),
        "verify.symbolic.superposition_loss.tensor_identity": dict(d=2, m=1),
        "verify.symbolic.superposition_loss.unsuperposed_supremum": dict(m=3),
        "verify.symbolic.upper_bounds.lemA3_symbols": dict(q=1, rr=2),
        "verify.symbolic.upper_bounds.second_moment_linear_form": dict(n=2),
    }


#: valid calls for a parameter that only some calls validate (a bound that belongs to one ``kind``)
PARAM_CALLS = {
    ("verify.numeric.upper_bounds.sparsity_patterns", "p"): dict(kind="bernoulli", n=3, p=0.5),
    ("verify.numeric.upper_bounds.sparsity_patterns", "blocks"): dict(kind="blocks", n=4, p=0.5, blocks=2),
}

#: a function whose valid call needs an optional dependency: (available, why) for its "on" cases (the refusals
#: come before the dependency is used, so its "out" cases run everywhere)
REQUIRES = {
    "verify.numeric.power_sums.collapsed_grad": (
        lambda: importlib.import_module("verify.numeric._tensor_kernels").AVAILABLE,
        "numba not installed: collapsed_grad runs the numba kernels only"),
}

#: a bound whose own value is refused by a stricter one that involves another argument (the "on" side is then the
#: stricter bound's, tested where that bound is): (function, parameter) -> why
STRICTER = {
    ("verify.symbolic.perturbation.paper_Fkk_spectrum", "d"): "d >= 1 is implied by d > K >= 1 (Thm 5.2)",
}

#: bounded public functions without a valid call here yet (name -> why), to shrink
PENDING: dict = {}


def bounded_public() -> dict:
    """``{qualified name: function}`` of the public functions (as the reference registry finds them) with at least
    one tested bound."""
    from test_reference_registry import public_functions

    out = {}
    for q in sorted(public_functions()):
        mod, _, name = q.rpartition(".")
        obj = getattr(importlib.import_module(mod), name)
        if inspect.isfunction(obj) and cases_from(sorted({normalise(b) for b in bounds_of(obj)}),
                                                  importlib.import_module(mod)):
            out[q] = obj
    return out


def test_every_bounded_public_function_has_a_valid_call():
    found = set(bounded_public())
    missing = sorted(found - set(_valid()) - set(PENDING))
    assert not missing, f"bounded public functions with no valid call in VALID nor PENDING: {missing}"
    assert not set(PENDING) & set(_valid()), "a function with a valid call must leave PENDING"
    assert set(PENDING) <= found and set(_valid()) <= found, sorted((set(PENDING) | set(_valid())) - found)


def _params():
    valid = _valid()
    out = []
    for q in sorted(valid):
        for p, v, msg, side in cases(q):
            out.append(pytest.param(q, p, v, msg, side, id=f"{q.rpartition('verify.')[2]}-{p}={v!r}-{side}"))
    return out


@pytest.mark.parametrize("qual,param,value,expected,side", _params())
def test_the_bound_refuses_outside_and_accepts_on_it(qual, param, value, expected, side, request):
    mod, _, name = qual.rpartition(".")
    func = getattr(importlib.import_module(mod), name)
    kwargs = {**PARAM_CALLS.get((qual, param), _valid()[qual]), param: value}
    kwargs = {k: request.getfixturevalue("tmp_path") if v is TMP_DIR else v for k, v in kwargs.items()}
    if side == "out":
        with pytest.raises(ValueError) as exc:
            func(**kwargs)
        if isinstance(expected, tuple):
            head, tail = expected
            assert str(exc.value).startswith(head) and str(exc.value).endswith(tail), (str(exc.value), expected)
        else:
            assert str(exc.value) == expected
        return
    if (qual, param) in STRICTER:
        pytest.skip(STRICTER[(qual, param)])
    if qual in REQUIRES and not REQUIRES[qual][0]():
        pytest.skip(REQUIRES[qual][1])
    try:
        func(**kwargs)
    except ValueError as exc:   # another reason is allowed on the bound; this parameter's own refusal is not
        own = f"Argument '{param}' must be"
        assert not str(exc).startswith(own) or repr(value) not in str(exc), str(exc)



def test_the_bounds_in_the_source_are_the_table():
    """The table is the bounds the source enforces (read as the table was made): a bound that is added, dropped,
    loosened or tightened in the source differs from its row."""
    found = bounded_public()
    assert set(found) == set(BOUNDS), sorted(set(found) ^ set(BOUNDS))
    for q, func in found.items():
        assert tuple(sorted({normalise(b) for b in bounds_of(func)})) == BOUNDS[q], q
