r"""Every public function of the mathematics has a differential test (issue 41).

The public functions are found by introspection: every module under :mod:`verify.symbolic` and
:mod:`verify.numeric` (the frames package included) and :mod:`verify.certified`; in each, the names of
``__all__`` (or, without one, the non-underscore names defined there) that are functions or classes (sympy symbols
and function symbols, which name the papers' quantities, are not). A re-exported object counts once, under the module
that defines it. Each must be either

* in :data:`REFERENCES`, mapped to the test (``path::name``) that compares it with an independent reference
  (a slow, simple implementation: exact rationals, brute force, a textbook formula, mpmath, Arb) over random
  parameters, or
* in :data:`PENDING`: not yet covered, listed by name so that the gap is visible and can only shrink.

A newly added public function in neither fails :func:`test_every_public_function_has_a_differential_test`; a
reference to a test that does not exist fails :func:`test_every_reference_names_an_existing_test`.
"""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import sympy

import verify.certified
import verify.numeric
import verify.symbolic

ROOT = Path(__file__).resolve().parents[1]

REFERENCES = {
    "verify.symbolic.superposition_loss.collapsed_row_polynomial":
        "tests/numeric/test_collapsed_loss.py::test_collapsed_polynomial_equals_enumeration_of_supports",
    "verify.symbolic.superposition_loss.collapsed_row_symbols": "tests/numeric/test_collapsed_loss.py::test_collapsed_polynomial_shape",
    "verify.numeric.power_sums.collapsed_sums": "tests/numeric/test_collapsed_loss.py::test_collapsed_sums_exact_rationals",
    "verify.numeric.power_sums.CollapsedSums": "tests/numeric/test_collapsed_loss.py::test_collapsed_sums_exact_rationals",
    "verify.numeric.power_sums.collapsed_grad": "tests/numeric/test_collapsed_loss.py::test_collapsed_gradient_exact_and_thresholds",
    "verify.numeric.superposition_loss.loss_to_accuracy": "tests/numeric/test_loss_to_accuracy.py::test_rb_intervals_cover_the_exact_loss_at_their_rate",
    "verify.numeric.superposition_loss.LossEstimate": "tests/numeric/test_loss_to_accuracy.py::test_rb_intervals_cover_the_exact_loss_at_their_rate",
    "verify.numeric.superposition_loss.rb_loss_samples":
        "tests/numeric/test_loss_to_accuracy.py::test_rb_samples_are_unbiased_and_the_controls_mean_zero",
    "verify.symbolic.perturbation.rational_collapsed_point":
        "tests/symbolic/test_perturbation_reference.py::test_rational_collapsed_point_is_stationary",
    "verify.symbolic.perturbation.cayley_frame":
        "tests/symbolic/test_perturbation_reference.py::test_cayley_frame_is_exactly_orthonormal",
    "verify.symbolic.perturbation.commutation_matrix":
        "tests/symbolic/test_perturbation_reference.py::test_vec_kron_and_commutation",
    "verify.symbolic.perturbation.kron":
        "tests/symbolic/test_perturbation_reference.py::test_vec_kron_and_commutation",
    "verify.symbolic.perturbation.svec":
        "tests/symbolic/test_perturbation_reference.py::test_vec_kron_and_commutation",
    "verify.numeric.nc_metrics.to_numpy":
        "tests/numeric/test_nc_metrics_reference.py::test_etf_target_and_to_numpy",
    "verify.numeric.nc_metrics.etf_target":
        "tests/numeric/test_nc_metrics_reference.py::test_etf_target_and_to_numpy",
    "verify.numeric.nc_metrics.NCMetrics":
        "tests/numeric/test_nc_metrics_reference.py::test_nc_metrics_against_exact_definitions",
    "verify.numeric.nc_metrics.NCAccumulator":
        "tests/numeric/test_nc_metrics_reference.py::test_nc_metrics_against_exact_definitions",
    "verify.numeric.nc_metrics.nc_metrics":
        "tests/numeric/test_nc_metrics_reference.py::test_nc_metrics_against_exact_definitions",
    "verify.symbolic.frames.weil_below_one_threshold":
        "tests/numeric/test_formulas_reference.py::test_weil_bound_and_threshold",
    "verify.symbolic.frames.weil_coherence_bound":
        "tests/numeric/test_formulas_reference.py::test_weil_bound_and_threshold",
    "verify.numeric.lower_bound.as_fraction":
        "tests/numeric/test_formulas_reference.py::test_paper_k_and_eq22",
    "verify.numeric.lower_bound.eq22_bound":
        "tests/numeric/test_formulas_reference.py::test_paper_k_and_eq22",
    "verify.numeric.lower_bound.paper_k":
        "tests/numeric/test_formulas_reference.py::test_paper_k_and_eq22",
    "verify.numeric.upper_bounds.schur_ratio":
        "tests/numeric/test_formulas_reference.py::test_schur_ratio_against_exact_complement",
    "verify.numeric.upper_bounds.thm32_bound":
        "tests/numeric/test_formulas_reference.py::test_theorem_constants",
    "verify.numeric.upper_bounds.thm32_constant":
        "tests/numeric/test_formulas_reference.py::test_theorem_constants",
    "verify.numeric.upper_bounds.thm31_bound":
        "tests/numeric/test_formulas_reference.py::test_theorem_constants",
    "verify.numeric.upper_bounds.thm31_constant":
        "tests/numeric/test_formulas_reference.py::test_theorem_constants",
    "verify.numeric.perturbation.orthonormal_frame":
        "tests/numeric/test_formulas_reference.py::test_orthonormal_frame",
    "verify.numeric.perturbation.fitted_order":
        "tests/numeric/test_formulas_reference.py::test_fitted_order_is_the_least_squares_slope",
    "verify.numeric.perturbation.block":
        "tests/numeric/test_formulas_reference.py::test_vec_unvec_labels_block",
    "verify.numeric.perturbation.labels":
        "tests/numeric/test_formulas_reference.py::test_vec_unvec_labels_block",
    "verify.numeric.perturbation.unvec":
        "tests/numeric/test_formulas_reference.py::test_vec_unvec_labels_block",
    "verify.numeric.perturbation.vec":
        "tests/numeric/test_formulas_reference.py::test_vec_unvec_labels_block",
    "verify.numeric.distributions.moment_by_quadrature":
        "tests/numeric/test_distributions_reference.py::test_moment_by_quadrature_against_the_table",
    "verify.numeric.distributions.MomentSequence":
        "tests/numeric/test_distributions_reference.py::test_moment_sequence_of_a_finite_law_and_an_invalid_one",
    "verify.numeric.distributions.get_distribution":
        "tests/numeric/test_distributions_reference.py::test_moments_against_the_table",
    "verify.numeric.distributions.Rademacher":
        "tests/numeric/test_distributions_reference.py::test_moments_against_the_table",
    "verify.numeric.distributions.Laplace":
        "tests/numeric/test_distributions_reference.py::test_moments_against_the_table",
    "verify.numeric.distributions.Uniform":
        "tests/numeric/test_distributions_reference.py::test_moments_against_the_table",
    "verify.numeric.distributions.Gaussian":
        "tests/numeric/test_distributions_reference.py::test_moments_against_the_table",
    "verify.numeric.distributions.Distribution":
        "tests/numeric/test_distributions_reference.py::test_moments_against_the_table",
    "verify.numeric.upper_bounds.coordinate_cumulants":
        "tests/symbolic/test_superposition_loss_reference.py::test_linear_form_moment_and_coordinate_cumulants",
    "verify.numeric.upper_bounds.linear_form_moment":
        "tests/symbolic/test_superposition_loss_reference.py::test_linear_form_moment_and_coordinate_cumulants",
    "verify.numeric.upper_bounds.general_loss":
        "tests/symbolic/test_superposition_loss_reference.py::test_loss_parts_any_law_against_index_sums",
    "verify.numeric.upper_bounds.loss_parts":
        "tests/symbolic/test_superposition_loss_reference.py::test_loss_parts_any_law_against_index_sums",
    "verify.symbolic.superposition_loss.diagonal_case":
        "tests/symbolic/test_superposition_loss_reference.py::test_F_objective_and_diagonal_case_formulas",
    "verify.symbolic.superposition_loss.F_objective":
        "tests/symbolic/test_superposition_loss_reference.py::test_F_objective_and_diagonal_case_formulas",
    "verify.symbolic.superposition_loss.grad_expression":
        "tests/symbolic/test_superposition_loss_reference.py::test_symbolic_gradient_is_the_derivative_of_the_index_sums",
    "verify.symbolic.superposition_loss.moment_from_cumulants":
        "tests/symbolic/test_superposition_loss_reference.py::test_symbolic_loss_and_brute_force_against_index_sums",
    "verify.symbolic.superposition_loss.x_cumulant":
        "tests/symbolic/test_superposition_loss_reference.py::test_symbolic_loss_and_brute_force_against_index_sums",
    "verify.symbolic.superposition_loss.x_moment":
        "tests/symbolic/test_superposition_loss_reference.py::test_symbolic_loss_and_brute_force_against_index_sums",
    "verify.symbolic.superposition_loss.brute_force_loss":
        "tests/symbolic/test_superposition_loss_reference.py::test_symbolic_loss_and_brute_force_against_index_sums",
    "verify.symbolic.superposition_loss.loss_expression":
        "tests/symbolic/test_superposition_loss_reference.py::test_symbolic_loss_and_brute_force_against_index_sums",
    "verify.symbolic.superposition_loss.loss_of_W":
        "tests/symbolic/test_superposition_loss_reference.py::test_symbolic_loss_and_brute_force_against_index_sums",
    "verify.certified.Enclosure":
        "tests/test_certified_reference.py::test_enclosure_shift_by_every_kind_of_number",
    "verify.certified.central_point":
        "tests/test_certified_reference.py::test_lemb1_sq_ratio_is_the_exact_gradient_norm_ratio",
    "verify.certified.count_below":
        "tests/test_certified_reference.py::test_count_below_counts_eigenvalues_of_known_spectrum",
    "verify.certified.derivative_of_gradient":
        "tests/test_certified_reference.py::test_derivative_of_gradient_is_the_mixed_second_derivative_of_the_loss",
    "verify.certified.directional_derivative_of_loss":
        "tests/test_certified_reference.py::test_directional_derivative_of_loss_against_jets",
    "verify.certified.enclosure":
        "tests/test_certified_reference.py::test_lower_and_upper_float_round_outward_by_at_most_two_steps",
    "verify.certified.exact_array":
        "tests/test_certified_reference.py::test_to_fmpq_and_to_arb_are_the_exact_value",
    "verify.certified.frob_sq":
        "tests/test_certified_reference.py::test_op_norm_sq_and_frob_sq_against_exact_gram",
    "verify.certified.gen_lambda_max":
        "tests/test_certified_reference.py::test_gen_lambda_max_encloses_the_exact_value",
    "verify.certified.interval_evidence":
        "tests/test_certified_reference.py::test_interval_evidence_reports_the_outward_bounds",
    "verify.certified.is_pd":
        "tests/test_certified_reference.py::test_is_pd_and_is_psd_agree_with_minors",
    "verify.certified.is_psd":
        "tests/test_certified_reference.py::test_is_pd_and_is_psd_agree_with_minors",
    "verify.certified.lambda_max":
        "tests/test_certified_reference.py::test_gen_lambda_max_encloses_the_exact_value",
    "verify.certified.lema2_bound":
        "tests/test_certified_reference.py::test_lema2_bound_encloses_the_exact_schur_ratio",
    "verify.certified.lemb1_sq_ratio":
        "tests/test_certified_reference.py::test_lemb1_sq_ratio_is_the_exact_gradient_norm_ratio",
    "verify.certified.lemc3_bound":
        "tests/test_certified_reference.py::test_lemc3_bound_hypotheses_and_enclosure_exact",
    "verify.certified.lemc4_bounds":
        "tests/test_certified_reference.py::test_lemc4_bounds_enclose_the_four_exact_ratios",
    "verify.certified.lower_float":
        "tests/test_certified_reference.py::test_outward_rounding_is_the_tightest_float_and_keeps_the_sign",
    "verify.certified.margin_evidence":
        "tests/test_certified_reference.py::test_margin_evidence_certifies_exactly_when_every_margin_is_decided",
    "verify.certified.objective_points":
        "tests/test_certified_reference.py::test_objective_points_are_the_objectives_seeded_draws",
    "verify.certified.op_norm_sq":
        "tests/test_certified_reference.py::test_op_norm_sq_and_lambda_max_against_arb_on_zero_singular_wide_and_ranged",
    "verify.certified.ratio_interval":
        "tests/test_certified_reference.py::test_ratio_interval_contains_every_corner_ratio",
    "verify.certified.spectrum_matches":
        "tests/test_certified_reference.py::test_spectrum_matches_never_certifies_a_wrong_spectrum",
    "verify.certified.sqrt_enclosure":
        "tests/test_certified_reference.py::test_sqrt_enclosure_contains_the_square_roots",
    "verify.certified.to_arb":
        "tests/test_certified_reference.py::test_to_fmpq_and_to_arb_are_the_exact_value",
    "verify.certified.to_fmpq":
        "tests/test_certified_reference.py::test_to_fmpq_and_to_arb_are_the_exact_value",
    "verify.certified.tw_margin":
        "tests/test_certified_reference.py::test_tw_margin_encloses_the_float_objective",
    "verify.certified.upper_float":
        "tests/test_certified_reference.py::test_outward_rounding_is_the_tightest_float_and_keeps_the_sign",
    "verify.certified.why_not_certified":
        "tests/test_certified_reference.py::test_not_certified_reasons_name_registered_claims",
    "verify.numeric._tensor_kernels.accumulate":
        "tests/numeric/test_power_sums_reference.py::test_tensor_power_sums_tiled_threshold_compiled",
    "verify.numeric._tensor_kernels.accumulate_tiled":
        "tests/numeric/test_power_sums_reference.py::test_row_and_tensor_power_sums_at_every_chunk_position",
    "verify.numeric._tensor_kernels.contract":
        "tests/numeric/test_power_sums_reference.py::test_row_and_tensor_power_sums_at_every_chunk_position",
    "verify.numeric._tensor_kernels.contract_grad":
        "tests/numeric/test_superposition_loss_reference.py::test_exact_loss_grad_is_the_derivative_of_the_reference",
    "verify.numeric._tensor_kernels.Target":
        "tests/numeric/test_kernel_shapes.py::test_tiled_accumulation_every_target_exact_and_bit_identical",
    "verify.numeric._tensor_kernels.host_target":
        "tests/numeric/test_kernel_shapes.py::test_host_target_is_read_off_the_compiled_code",
    "verify.numeric._tensor_kernels.host_cpu":
        "tests/numeric/test_kernel_shapes.py::test_host_target_is_read_off_the_compiled_code",
    "verify.numeric._tensor_kernels.kernel_plan":
        "tests/numeric/test_kernel_shapes.py::test_host_target_is_read_off_the_compiled_code",
    "verify.numeric.frames.bounds.levenstein_bound":
        "tests/numeric/frames/test_field_reference.py::test_coherence_bounds_formula_attainment_and_random_frames",
    "verify.numeric.frames.bounds.levenstein_bound_sq":
        "tests/numeric/frames/test_field_reference.py::test_coherence_bounds_formula_attainment_and_random_frames",
    "verify.numeric.frames.bounds.weil_threshold_d":
        "tests/numeric/frames/test_field_reference.py::test_weil_threshold_is_the_smallest_power_of_two",
    "verify.numeric.frames.bounds.welch_bound":
        "tests/numeric/frames/test_field_reference.py::test_coherence_bounds_formula_attainment_and_random_frames",
    "verify.numeric.frames.bounds.welch_bound_sq":
        "tests/numeric/frames/test_field_reference.py::test_coherence_bounds_formula_attainment_and_random_frames",
    "verify.numeric.frames.field.fast_trace":
        "tests/numeric/frames/test_field_reference.py::test_trace_mask_form_and_power_table_against_reference",
    "verify.numeric.frames.field.field_of":
        "tests/numeric/frames/test_field_reference.py::test_trace_mask_form_and_power_table_against_reference",
    "verify.numeric.frames.field.fwht":
        "tests/numeric/frames/test_field_reference.py::test_walsh_hadamard_against_sylvester_matrix",
    "verify.numeric.frames.field.parity_table":
        "tests/numeric/frames/test_field_reference.py::test_trace_mask_form_and_power_table_against_reference",
    "verify.numeric.frames.field.power_table":
        "tests/numeric/frames/test_field_reference.py::test_trace_mask_form_and_power_table_against_reference",
    "verify.numeric.frames.field.sign_bits":
        "tests/numeric/frames/test_field_reference.py::test_sign_bits_against_galois_both_sides_of_the_table_size",
    "verify.numeric.frames.field.trace_form":
        "tests/numeric/frames/test_field_reference.py::test_trace_mask_form_and_power_table_against_reference",
    "verify.numeric.frames.field.trace_mask":
        "tests/numeric/frames/test_field_reference.py::test_trace_mask_form_and_power_table_against_reference",
    "verify.numeric.frames.field.wht_rows":
        "tests/numeric/frames/test_field_reference.py::test_walsh_hadamard_against_sylvester_matrix",
    "verify.numeric.power_sums.RowPowerSums":
        "tests/numeric/test_power_sums_reference.py::test_row_and_tensor_power_sums_at_every_chunk_position",
    "verify.numeric.power_sums.TensorPowerSums":
        "tests/numeric/test_power_sums_reference.py::test_row_and_tensor_power_sums_at_every_chunk_position",
    "verify.numeric.power_sums.choose_route":
        "tests/numeric/test_power_sums_reference.py::test_route_choice_is_the_cheapest_route",
    "verify.numeric.power_sums.contract":
        "tests/numeric/test_power_sums_reference.py::test_monomials_and_contract_against_full_tensor",
    "verify.numeric.power_sums.monomial_count":
        "tests/numeric/test_power_sums_reference.py::test_monomial_tables_against_enumeration",
    "verify.numeric.power_sums.monomial_exponents":
        "tests/numeric/test_power_sums_reference.py::test_monomial_tables_against_enumeration",
    "verify.numeric.power_sums.monomials":
        "tests/numeric/test_power_sums_reference.py::test_monomials_and_contract_against_full_tensor",
    "verify.numeric.power_sums.multinomial_weights":
        "tests/numeric/test_power_sums_reference.py::test_monomial_tables_against_enumeration",
    "verify.numeric.power_sums.power_sum_tensor":
        "tests/numeric/test_power_sums_reference.py::test_power_sum_tensor_against_loop",
    "verify.numeric.power_sums.route_costs":
        "tests/numeric/test_power_sums_reference.py::test_route_choice_is_the_cheapest_route",
    "verify.numeric.power_sums.row_power_sums":
        "tests/numeric/test_power_sums_reference.py::test_row_power_sums_default_chunk_crossed_by_n",
    "verify.numeric.power_sums.tensor_flops":
        "tests/numeric/test_power_sums_reference.py::test_route_choice_is_the_cheapest_route",
    "verify.numeric.superposition_loss.exact_loss":
        "tests/numeric/test_superposition_loss_reference.py::test_exact_loss_across_block_boundaries",
    "verify.numeric.superposition_loss.exact_loss_from_A":
        "tests/numeric/test_superposition_loss_reference.py::test_exact_loss_small_exact_against_reference",
    "verify.numeric.superposition_loss.exact_loss_grad":
        "tests/numeric/test_superposition_loss_reference.py::test_exact_loss_grad_is_the_derivative_of_the_reference",
    "verify.numeric.superposition_loss.power_sums":
        "tests/numeric/test_superposition_loss_reference.py::test_power_sums_against_numpy",
    "verify.numeric.ufm.central_path_loss":
        "tests/numeric/test_ufm_reference.py::test_optimal_W_loss_and_gradient_against_normal_equations",
    "verify.numeric.ufm.central_path_loss_direct":
        "tests/numeric/test_ufm_reference.py::test_optimal_W_loss_and_gradient_against_normal_equations",
    "verify.numeric.ufm.class_means":
        "tests/numeric/test_ufm_reference.py::test_means_covariances_and_nc1_against_loops",
    "verify.numeric.ufm.collapse_rho":
        "tests/numeric/test_ufm_reference.py::test_collapse_rho_against_mpmath",
    "verify.numeric.ufm.collapsed_minimiser":
        "tests/numeric/test_ufm_reference.py::test_collapsed_minimiser_is_stationary_and_beats_random_points",
    "verify.numeric.ufm.covariances":
        "tests/numeric/test_ufm_reference.py::test_means_covariances_and_nc1_against_loops",
    "verify.numeric.ufm.grad_central_path_loss":
        "tests/numeric/test_ufm_reference.py::test_optimal_W_loss_and_gradient_against_normal_equations",
    "verify.numeric.ufm.nc1_tilde":
        "tests/numeric/test_ufm_reference.py::test_means_covariances_and_nc1_against_loops",
    "verify.numeric.ufm.optimal_W":
        "tests/numeric/test_ufm_reference.py::test_optimal_W_loss_and_gradient_against_normal_equations",
    "verify.numeric.ufm.perturbed_objective":
        "tests/numeric/test_ufm_reference.py::test_perturbed_objective_and_stationarity_residual",
    "verify.numeric.ufm.stationarity_residual":
        "tests/numeric/test_ufm_reference.py::test_perturbed_objective_and_stationarity_residual",
    "verify.numeric.ufm.ufm_objective":
        "tests/numeric/test_ufm_reference.py::test_optimal_W_loss_and_gradient_against_normal_equations",
    "verify.numeric.frames.description.Frame":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.constructions.build_frame":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.constructions.build_frame_reference":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.cert_wht.Certificate":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.cert_wht.CertificateRecord":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.cert_wht.certify":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.cert_wht.character_sums":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.cert_wht.gram_coherence":
        "tests/numeric/frames/test_constructions_reference.py::test_build_frame_and_its_certificate_against_the_entrywise_reference",
    "verify.numeric.frames.constructions.build_general_frame":
        "tests/numeric/frames/test_constructions_reference.py::test_general_d_frame_and_certificate_against_the_reference",
    "verify.numeric.frames.constructions.general_parameters":
        "tests/numeric/frames/test_constructions_reference.py::test_general_d_frame_and_certificate_against_the_reference",
    "verify.numeric.frames.cert_wht.certify_general":
        "tests/numeric/frames/test_constructions_reference.py::test_general_d_frame_and_certificate_against_the_reference",
    "verify.numeric.frames.cert_rank.QuadraticCertificate":
        "tests/numeric/frames/test_constructions_reference.py::test_quadratic_certificate_against_enumerated_radicals_and_sums",
    "verify.numeric.frames.cert_rank.lemma_radical_dims":
        "tests/numeric/frames/test_constructions_reference.py::test_quadratic_certificate_against_enumerated_radicals_and_sums",
    "verify.numeric.frames.cert_rank.quadratic_certificate":
        "tests/numeric/frames/test_constructions_reference.py::test_quadratic_certificate_against_enumerated_radicals_and_sums",
    "verify.numeric.frames.cert_rank.radical_dim_counts":
        "tests/numeric/frames/test_constructions_reference.py::test_quadratic_certificate_against_enumerated_radicals_and_sums",
    "verify.numeric.frames.cert_rank.sums_from_radicals":
        "tests/numeric/frames/test_constructions_reference.py::test_sums_from_radicals_against_explicit_forms",
    "verify.numeric.frames.cert_rank.gf2_rank":
        "tests/numeric/frames/test_constructions_reference.py::test_gf2_rank_against_galois",
    "verify.numeric.frames.cert_rank.alternating_rows":
        "tests/numeric/frames/test_constructions_reference.py::test_evaluation_points_and_alternating_rows_against_the_bilinear_form",
    "verify.numeric.frames.cert_rank.evaluation_points":
        "tests/numeric/frames/test_constructions_reference.py::test_evaluation_points_and_alternating_rows_against_the_bilinear_form",
    "verify.numeric.frames.operator.ImplicitFrame":
        "tests/numeric/frames/test_constructions_reference.py::test_implicit_frame_products_against_the_dense_reference",
    "verify.numeric.frames.operator.frame_matvec_torch":
        "tests/numeric/frames/test_constructions_reference.py::test_implicit_frame_products_against_the_dense_reference",
    "verify.numeric.frames.operator.fwht_kron":
        "tests/numeric/frames/test_constructions_reference.py::test_implicit_frame_products_against_the_dense_reference",
    "verify.numeric.frames.fileformat.LoadedFrame":
        "tests/numeric/frames/test_constructions_reference.py::test_frame_files_round_trip_against_the_reference",
    "verify.numeric.frames.fileformat.is_implicit_file":
        "tests/numeric/frames/test_constructions_reference.py::test_frame_files_round_trip_against_the_reference",
    "verify.numeric.frames.fileformat.load_frame":
        "tests/numeric/frames/test_constructions_reference.py::test_frame_files_round_trip_against_the_reference",
    "verify.numeric.frames.fileformat.load_implicit":
        "tests/numeric/frames/test_constructions_reference.py::test_frame_files_round_trip_against_the_reference",
    "verify.numeric.frames.fileformat.save_frame":
        "tests/numeric/frames/test_constructions_reference.py::test_frame_files_round_trip_against_the_reference",
    "verify.numeric.frames.fileformat.save_implicit":
        "tests/numeric/frames/test_constructions_reference.py::test_frame_files_round_trip_against_the_reference",
    "verify.numeric.frames.constructions.code_parameters":
        "tests/numeric/frames/test_codes_reference.py::test_code_frames_and_certificates_against_the_entrywise_reference",
    "verify.numeric.frames.constructions.build_code_frame":
        "tests/numeric/frames/test_codes_reference.py::test_code_frames_and_certificates_against_the_entrywise_reference",
    "verify.numeric.frames.constructions.code_sign_bits":
        "tests/numeric/frames/test_codes_reference.py::test_code_frames_and_certificates_against_the_entrywise_reference",
    "verify.numeric.frames.cert_codes.CodeCertificate":
        "tests/numeric/frames/test_codes_reference.py::test_code_frames_and_certificates_against_the_entrywise_reference",
    "verify.numeric.frames.cert_codes.code_certificate":
        "tests/numeric/frames/test_codes_reference.py::test_code_frames_and_certificates_against_the_entrywise_reference",
    "verify.numeric.frames.catalogue.code_scan_size":
        "tests/numeric/frames/test_codes_reference.py::test_code_scan_size_is_the_enumerated_orbit_count",
    "verify.numeric.frames.operator.ImplicitCodeFrame":
        "tests/numeric/frames/test_codes_reference.py::test_implicit_code_frame_against_the_dense_reference",
    "verify.numeric.frames.catalogue.frame_table":
        "tests/numeric/frames/test_codes_reference.py::test_frame_table_rows_against_brute_force_coherences",
    "verify.numeric.frames.catalogue.TableRow":
        "tests/numeric/frames/test_codes_reference.py::test_frame_table_rows_against_brute_force_coherences",
    "verify.numeric.frames.catalogue.best_frame":
        "tests/numeric/frames/test_codes_reference.py::test_best_frame_is_the_least_brute_force_coherence",
    "verify.numeric.frames.catalogue.BestFrame":
        "tests/numeric/frames/test_codes_reference.py::test_best_frame_is_the_least_brute_force_coherence",
    "verify.numeric.frames.catalogue.coherence_one_reason":
        "tests/numeric/frames/test_codes_reference.py::test_coherence_one_reason_exactly_when_columns_repeat_a_line",
    "verify.numeric.frames.catalogue.certify_frame":
        "tests/numeric/frames/test_codes_reference.py::test_coherence_one_reason_exactly_when_columns_repeat_a_line",
    "verify.numeric.frames.theorem42.code_block_stats":
        "tests/numeric/frames/test_codes_reference.py::test_code_block_stats_against_the_gram_of_the_sub_frame",
    "verify.numeric.frames.theorem42.code_subframe_sizes":
        "tests/numeric/frames/test_codes_reference.py::test_code_block_stats_against_the_gram_of_the_sub_frame",
    "verify.numeric.frames.theorem42.best_point":
        "tests/numeric/frames/test_codes_reference.py::test_code_block_stats_against_the_gram_of_the_sub_frame",
    "verify.numeric.frames.delsarte_lp.gegenbauer_x":
        "tests/numeric/frames/test_delsarte_reference.py::test_gegenbauer_x_against_jacobi",
    "verify.numeric.frames.delsarte_lp.lp_value":
        "tests/numeric/frames/test_delsarte_reference.py::test_lp_value_degree_one_is_welch_and_higher_degrees_only_improve",
    "verify.numeric.frames.delsarte_lp.certify_lp_polynomial":
        "tests/numeric/frames/test_delsarte_reference.py::test_certify_lp_polynomial_against_root_isolation",
    "verify.numeric.frames.delsarte_lp.lp_bound":
        "tests/numeric/frames/test_delsarte_reference.py::test_lp_bound_is_certified_and_below_attained_coherences",
    "verify.numeric.frames.delsarte_lp.LPBound":
        "tests/numeric/frames/test_delsarte_reference.py::test_lp_bound_is_certified_and_below_attained_coherences",
    "verify.numeric.frames.bounds.best_lower_bound":
        "tests/numeric/frames/test_delsarte_reference.py::test_lp_bound_and_best_lower_bound_below_random_frames",
    "verify.numeric.frames.bounds.LowerBound":
        "tests/numeric/frames/test_delsarte_reference.py::test_lp_bound_and_best_lower_bound_below_random_frames",
    "verify.numeric.lower_bound.FrameBlockStats":
        "tests/numeric/test_lower_bound_reference.py::test_frame_block_stats_and_eq19_against_the_gram_block",
    "verify.numeric.lower_bound.frame_block_stats":
        "tests/numeric/test_lower_bound_reference.py::test_frame_block_stats_and_eq19_against_the_gram_block",
    "verify.numeric.lower_bound.row_terms":
        "tests/numeric/test_lower_bound_reference.py::test_frame_block_stats_and_eq19_against_the_gram_block",
    "verify.numeric.lower_bound.numerator_denominator":
        "tests/numeric/test_lower_bound_reference.py::test_frame_block_stats_and_eq19_against_the_gram_block",
    "verify.numeric.lower_bound.lower_bound_point":
        "tests/numeric/test_lower_bound_reference.py::test_frame_block_stats_and_eq19_against_the_gram_block",
    "verify.numeric.lower_bound.F_attained":
        "tests/numeric/test_lower_bound_reference.py::test_F_attained_against_the_full_gram",
    "verify.numeric.perturbation.objective":
        "tests/numeric/test_perturbation_reference.py::test_objective_gradients_and_hessian_blocks_against_autograd",
    "verify.numeric.perturbation.gradients":
        "tests/numeric/test_perturbation_reference.py::test_objective_gradients_and_hessian_blocks_against_autograd",
    "verify.numeric.perturbation.hessian_blocks":
        "tests/numeric/test_perturbation_reference.py::test_objective_gradients_and_hessian_blocks_against_autograd",
    "verify.numeric.perturbation.E_matrix":
        "tests/numeric/test_perturbation_reference.py::test_objective_gradients_and_hessian_blocks_against_autograd",
    "verify.numeric.perturbation.check_problem":
        "tests/numeric/test_perturbation_reference.py::test_objective_gradients_and_hessian_blocks_against_autograd",
    "verify.numeric.perturbation.F_exact":
        "tests/numeric/test_perturbation_reference.py::test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem",
    "verify.numeric.perturbation.dW_map":
        "tests/numeric/test_perturbation_reference.py::test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem",
    "verify.numeric.perturbation.Z_star":
        "tests/numeric/test_perturbation_reference.py::test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem",
    "verify.numeric.perturbation.F_first_order":
        "tests/numeric/test_perturbation_reference.py::test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem",
    "verify.numeric.perturbation.F1_operator":
        "tests/numeric/test_perturbation_reference.py::test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem",
    "verify.numeric.perturbation.F_exact_operator":
        "tests/numeric/test_perturbation_reference.py::test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem",
    "verify.numeric.perturbation.block_summary":
        "tests/numeric/test_perturbation_reference.py::test_F_exact_dW_map_Z_star_and_F1_against_the_implicit_function_theorem",
    "verify.numeric.perturbation.collapsed_block_spectrum":
        "tests/numeric/test_perturbation_reference.py::test_collapsed_spectra_and_closed_form_against_dense_eigenvalues",
    "verify.numeric.perturbation.collapsed_offdiag_singular_values":
        "tests/numeric/test_perturbation_reference.py::test_collapsed_spectra_and_closed_form_against_dense_eigenvalues",
    "verify.numeric.perturbation.collapsed_full_spectrum":
        "tests/numeric/test_perturbation_reference.py::test_collapsed_spectra_and_closed_form_against_dense_eigenvalues",
    "verify.numeric.perturbation.collapsed_point":
        "tests/numeric/test_perturbation_reference.py::test_collapsed_spectra_and_closed_form_against_dense_eigenvalues",
    "verify.numeric.perturbation.closed_form_Fkk_spectrum":
        "tests/numeric/test_perturbation_reference.py::test_collapsed_spectra_and_closed_form_against_dense_eigenvalues",
    "verify.numeric.perturbation.loss_hessian":
        "tests/numeric/test_perturbation_reference.py::test_loss_hessian_derivative_of_gradient_and_lemma_c4_against_autograd",
    "verify.numeric.perturbation.hessian_extremes_ratio":
        "tests/numeric/test_perturbation_reference.py::test_loss_hessian_derivative_of_gradient_and_lemma_c4_against_autograd",
    "verify.numeric.perturbation.thmC2_sharp_constants":
        "tests/numeric/test_perturbation_reference.py::test_loss_hessian_derivative_of_gradient_and_lemma_c4_against_autograd",
    "verify.numeric.perturbation.grad_L_derivative_paper":
        "tests/numeric/test_perturbation_reference.py::test_loss_hessian_derivative_of_gradient_and_lemma_c4_against_autograd",
    "verify.numeric.perturbation.lemma_c4_norms":
        "tests/numeric/test_perturbation_reference.py::test_loss_hessian_derivative_of_gradient_and_lemma_c4_against_autograd",
    "verify.numeric.central_path.flow_rhs":
        "tests/numeric/test_central_path_reference.py::test_flow_rhs_and_trace_derivatives_against_autograd",
    "verify.numeric.central_path.trace_derivatives":
        "tests/numeric/test_central_path_reference.py::test_flow_rhs_and_trace_derivatives_against_autograd",
    "verify.numeric.central_path.solve_flow":
        "tests/numeric/test_central_path_reference.py::test_solve_flow_and_traces_against_radau_on_the_autograd_field",
    "verify.numeric.central_path.flow_traces":
        "tests/numeric/test_central_path_reference.py::test_solve_flow_and_traces_against_radau_on_the_autograd_field",
    "verify.numeric.central_path.solve_flow_mp":
        "tests/numeric/test_central_path_reference.py::test_solve_flow_mp_against_radau",
    "verify.numeric.ufm.as_exact":
        "tests/numeric/test_central_path_reference.py::test_as_exact_and_as_mp_are_the_exact_values",
    "verify.numeric.ufm.as_mp":
        "tests/numeric/test_central_path_reference.py::test_as_exact_and_as_mp_are_the_exact_values",
    "verify.numeric.ufm.solve_ufm":
        "tests/numeric/test_central_path_reference.py::test_solve_ufm_reaches_the_collapsed_global_minimum",
    "verify.numeric.ufm.solve_perturbed":
        "tests/numeric/test_central_path_reference.py::test_solve_perturbed_against_newton_on_the_autograd_hessian",
    "verify.numeric.superposition_loss.quadrature_moment":
        "tests/numeric/test_superposition_loss_estimators_reference.py::test_quadrature_moment_against_exact_moment_expansion",
    "verify.numeric.superposition_loss.monte_carlo_loss":
        "tests/numeric/test_superposition_loss_estimators_reference.py::test_monte_carlo_loss_within_its_standard_error_of_the_exact_loss",
    "verify.numeric.superposition_loss.maximise_loss":
        "tests/numeric/test_superposition_loss_estimators_reference.py::test_maximise_loss_attains_the_linear_optimum_and_no_more",
    "verify.numeric.superposition_loss.MaximiseResult":
        "tests/numeric/test_superposition_loss_estimators_reference.py::test_maximise_loss_attains_the_linear_optimum_and_no_more",
    "verify.numeric.superposition_loss.first_order_objective":
        "tests/numeric/test_superposition_loss_estimators_reference.py::test_first_order_objective_and_gradient_against_autograd",
    "verify.numeric.superposition_loss.single_blas_thread":
        "tests/numeric/test_superposition_loss_estimators_reference.py::test_single_blas_thread_limits_every_blas_library_to_one_thread_and_restores_them",
    "verify.numeric.upper_bounds.tensor_bound":
        "tests/numeric/test_upper_bounds_reference.py::test_tensor_bound_against_the_tensor_basis",
    "verify.numeric.upper_bounds.TensorBound":
        "tests/numeric/test_upper_bounds_reference.py::test_tensor_bound_against_the_tensor_basis",
    "verify.numeric.upper_bounds.monomial_exponents":
        "tests/numeric/test_upper_bounds_reference.py::test_monomial_exponents_enumerated",
    "verify.numeric.upper_bounds.to_fraction":
        "tests/numeric/test_upper_bounds_reference.py::test_to_fraction_is_the_exact_value",
    "verify.numeric.upper_bounds.lemA3_value":
        "tests/numeric/test_upper_bounds_reference.py::test_lemA3_value_objective_maximiser_and_eq11_by_construction",
    "verify.numeric.upper_bounds.lemA3_objective":
        "tests/numeric/test_upper_bounds_reference.py::test_lemA3_value_objective_maximiser_and_eq11_by_construction",
    "verify.numeric.upper_bounds.lemA3_maximise":
        "tests/numeric/test_upper_bounds_reference.py::test_lemA3_value_objective_maximiser_and_eq11_by_construction",
    "verify.numeric.upper_bounds.eq11_terms":
        "tests/numeric/test_upper_bounds_reference.py::test_lemA3_value_objective_maximiser_and_eq11_by_construction",
    "verify.symbolic.frames.frame_entry":
        "tests/symbolic/test_frames_reference.py::test_frame_and_gram_entry_formulas_against_the_field",
    "verify.symbolic.frames.gram_entry":
        "tests/symbolic/test_frames_reference.py::test_frame_and_gram_entry_formulas_against_the_field",
    "verify.symbolic.lower_bound.homogeneity_defect":
        "tests/symbolic/test_lower_bound_reference.py::test_homogeneity_of_the_row_terms_at_random_rationals",
    "verify.symbolic.lower_bound.optimised_t":
        "tests/symbolic/test_lower_bound_reference.py::test_optimised_t_is_the_maximum_of_g",
    "verify.symbolic.upper_bounds.lemA3_symbols":
        "tests/symbolic/test_upper_bounds_reference.py::test_lemA3_objective_is_the_expectation_over_a_finite_law",
    "verify.symbolic.upper_bounds.lemA3_objective":
        "tests/symbolic/test_upper_bounds_reference.py::test_lemA3_objective_is_the_expectation_over_a_finite_law",
    "verify.symbolic.upper_bounds.lemA3_gradient_residual":
        "tests/symbolic/test_upper_bounds_reference.py::test_lemA3_objective_is_the_expectation_over_a_finite_law",
    "verify.symbolic.upper_bounds.lemA3_gap":
        "tests/symbolic/test_upper_bounds_reference.py::test_lemA3_gap_zero_exactly_in_the_proofs_case",
    "verify.symbolic.upper_bounds.second_moment_linear_form":
        "tests/symbolic/test_upper_bounds_reference.py::test_second_moment_linear_form_against_a_finite_centred_law",
    "verify.symbolic.upper_bounds.thm31_constant":
        "tests/symbolic/test_upper_bounds_reference.py::test_second_moment_linear_form_against_a_finite_centred_law",
    "verify.symbolic.superposition_loss.row_polynomial":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_polynomial_against_a_concrete_row",
    "verify.symbolic.superposition_loss.row_cross_and_square":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_polynomial_against_a_concrete_row",
    "verify.symbolic.superposition_loss.row_symbols":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_polynomial_against_a_concrete_row",
    "verify.symbolic.superposition_loss.first_order_term":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_polynomial_against_a_concrete_row",
    "verify.symbolic.superposition_loss.mu":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_polynomial_against_a_concrete_row",
    "verify.symbolic.superposition_loss.S":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_polynomial_against_a_concrete_row",
    "verify.symbolic.superposition_loss.T":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_polynomial_against_a_concrete_row",
    "verify.symbolic.superposition_loss.row_gradient":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_row_gradient_against_the_chain_rule_of_a_concrete_row",
    "verify.symbolic.superposition_loss.unsuperposed_supremum":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_unsuperposed_supremum_and_linear_case_against_the_diagonal_row",
    "verify.symbolic.superposition_loss.linear_case":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_unsuperposed_supremum_and_linear_case_against_the_diagonal_row",
    "verify.symbolic.superposition_loss.tensor_identity":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_tensor_and_scaling_identities",
    "verify.symbolic.superposition_loss.scaling_identity":
        "tests/symbolic/test_superposition_loss_rows_reference.py::test_tensor_and_scaling_identities",
    "verify.symbolic.central_path.Namespace":
        "tests/symbolic/test_central_path_reference.py::test_instance_wstar_loss_chain_and_decomposition",
    "verify.symbolic.central_path.build":
        "tests/symbolic/test_central_path_reference.py::test_instance_wstar_loss_chain_and_decomposition",
    "verify.symbolic.central_path.instance":
        "tests/symbolic/test_central_path_reference.py::test_instance_wstar_loss_chain_and_decomposition",
    "verify.symbolic.central_path.evaluate":
        "tests/symbolic/test_central_path_reference.py::test_instance_wstar_loss_chain_and_decomposition",
    "verify.symbolic.central_path.wstar_forms":
        "tests/symbolic/test_central_path_reference.py::test_instance_wstar_loss_chain_and_decomposition",
    "verify.symbolic.central_path.loss_chain":
        "tests/symbolic/test_central_path_reference.py::test_instance_wstar_loss_chain_and_decomposition",
    "verify.symbolic.central_path.decomposition":
        "tests/symbolic/test_central_path_reference.py::test_instance_wstar_loss_chain_and_decomposition",
    "verify.symbolic.central_path.gradient":
        "tests/symbolic/test_central_path_reference.py::test_gradient_lemma_a1_and_trace_derivatives_along_the_flow",
    "verify.symbolic.central_path.lemma_a1":
        "tests/symbolic/test_central_path_reference.py::test_gradient_lemma_a1_and_trace_derivatives_along_the_flow",
    "verify.symbolic.central_path.trace_derivative_chains":
        "tests/symbolic/test_central_path_reference.py::test_gradient_lemma_a1_and_trace_derivatives_along_the_flow",
    "verify.symbolic.central_path.reduced_ufm":
        "tests/symbolic/test_central_path_reference.py::test_reduced_ufm_minimiser_against_its_objective",
    "verify.symbolic.central_path.etf_identity":
        "tests/symbolic/test_central_path_reference.py::test_etf_identity_by_numpy",
    "verify.symbolic.perturbation.exact_F1":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_exact_F1_and_loss_hessian_against_autograd",
    "verify.symbolic.perturbation.exact_loss_hessian":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_exact_F1_and_loss_hessian_against_autograd",
    "verify.symbolic.perturbation.collapsed_F":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_collapsed_spectra_against_dense_eigenvalues",
    "verify.symbolic.perturbation.Fkk_spectrum":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_collapsed_spectra_against_dense_eigenvalues",
    "verify.symbolic.perturbation.Fkk_tilde_singular_values":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_collapsed_spectra_against_dense_eigenvalues",
    "verify.symbolic.perturbation.full_F_spectrum":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_collapsed_spectra_against_dense_eigenvalues",
    "verify.symbolic.perturbation.paper_Fkk_spectrum":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_collapsed_spectra_against_dense_eigenvalues",
    "verify.symbolic.perturbation.spectra_equal":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_spectra_equal_and_the_pq_substitutions",
    "verify.symbolic.perturbation.to_pq":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_spectra_equal_and_the_pq_substitutions",
    "verify.symbolic.perturbation.to_lams":
        "tests/symbolic/test_perturbation_spectra_reference.py::test_spectra_equal_and_the_pq_substitutions",
    "verify.numeric.upper_bounds.footnote4_factor":
        "tests/numeric/test_upper_bounds_reference.py::test_footnotes_3_and_4_against_index_sums",
    "verify.numeric.upper_bounds.footnote3_sides":
        "tests/numeric/test_upper_bounds_reference.py::test_footnotes_3_and_4_against_index_sums",
    "verify.numeric.upper_bounds.scaling_coefficients":
        "tests/numeric/test_upper_bounds_reference.py::test_scaling_coefficients_and_optimal_scale_against_exact_moments",
    "verify.numeric.upper_bounds.optimally_scaled":
        "tests/numeric/test_upper_bounds_reference.py::test_scaling_coefficients_and_optimal_scale_against_exact_moments",
    "verify.numeric.upper_bounds.structured_candidates":
        "tests/numeric/test_upper_bounds_reference.py::test_structured_candidates_are_what_they_are_named",
    "verify.numeric.upper_bounds.logcosh_gaussian":
        "tests/numeric/test_upper_bounds_reference.py::test_logcosh_gaussian_moments_against_scipy_quadrature",
    "verify.numeric.upper_bounds.marginal_curvature":
        "tests/numeric/test_upper_bounds_reference.py::test_marginal_curvature_of_gaussians_is_the_schur_complement",
    "verify.numeric.frames.constructions.random_frame":
        "tests/numeric/frames/test_constructions_reference.py::test_random_frames_against_their_laws",
    "verify.symbolic.upper_bounds.thm31_chain":
        "tests/symbolic/test_upper_bounds_reference.py::test_thm31_chain_and_thm32_steps_against_gaussian_integrals",
    "verify.symbolic.upper_bounds.thm32_steps":
        "tests/symbolic/test_upper_bounds_reference.py::test_thm31_chain_and_thm32_steps_against_gaussian_integrals",
    "verify.symbolic.upper_bounds.thm32_constant":
        "tests/symbolic/test_upper_bounds_reference.py::test_thm31_chain_and_thm32_steps_against_gaussian_integrals",
    "verify.symbolic.perturbation.reduced_objective":
        "tests/symbolic/test_perturbation_collapsed_reference.py::test_reduced_objective_sigmas_and_radial_loss_against_autograd",
    "verify.symbolic.perturbation.collapsed_sigmas":
        "tests/symbolic/test_perturbation_collapsed_reference.py::test_reduced_objective_sigmas_and_radial_loss_against_autograd",
    "verify.symbolic.perturbation.radial_loss_curvature":
        "tests/symbolic/test_perturbation_collapsed_reference.py::test_reduced_objective_sigmas_and_radial_loss_against_autograd",
    "verify.symbolic.perturbation.thmC2_sharp":
        "tests/symbolic/test_perturbation_collapsed_reference.py::test_thmC2_sharp_extremes_against_a_grid_of_the_radial_curvature",
    "verify.numeric.upper_bounds.centred_slc_1d":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_centred_slc_1d_against_closed_forms_and_scipy",
    "verify.numeric.upper_bounds.conditional_energy_1d":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_conditional_energy_1d_against_scipy_and_its_two_sides",
    "verify.numeric.upper_bounds.eq12_projection_matrix":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_eq12_projection_matrix_against_the_product_basis",
    "verify.numeric.upper_bounds.gaussian_conditional_chain":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_gaussian_conditional_chain_against_schur_complements",
    "verify.numeric.upper_bounds.gaussian_pattern_energy":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_gaussian_pattern_energy_against_exact_least_squares",
    "verify.numeric.upper_bounds.lemA1_sides":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_lemA1_sides_on_gaussian_families",
    "verify.numeric.upper_bounds.nu_loss_parts":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_nu_loss_parts_against_polynomial_expectations",
    "verify.numeric.upper_bounds.nu_sup_loss":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_nu_sup_loss_against_a_grid_of_directions",
    "verify.numeric.upper_bounds.sparsity_patterns":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_sparsity_patterns_against_enumeration",
    "verify.numeric.upper_bounds.strong_log_concavity_K":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_strong_log_concavity_K_by_the_second_derivative_of_the_potential",
    "verify.numeric.upper_bounds.thm32_chain":
        "tests/numeric/test_upper_bounds_conditional_reference.py::test_thm32_chain_closed_forms",
    "verify.symbolic.perturbation.Z_blocks_paper":
        "tests/symbolic/test_perturbation_statements_reference.py::test_Z_blocks_paper_is_G_C_inverse_G_at_a_rational_collapsed_point",
    "verify.symbolic.perturbation.derivative_residuals":
        "tests/symbolic/test_perturbation_statements_reference.py::test_derivative_residuals_zero_and_app_c_along_random_lines",
    "verify.symbolic.perturbation.eigen_sign_analysis":
        "tests/symbolic/test_perturbation_statements_reference.py::test_eigen_sign_analysis_against_the_sign_of_each_term",
    "verify.symbolic.perturbation.paper_thm52":
        "tests/symbolic/test_perturbation_statements_reference.py::test_paper_thm52_against_numeric_singular_values",
    "verify.numeric.power_sums.collapsed_flops":
        "tests/numeric/test_power_sums_flops_reference.py::test_collapsed_flops_against_the_kernels_layout",
    "verify.numeric.frames.theorem42.compare_frames":
        "tests/numeric/frames/test_theorem42_reference.py::test_compare_frames_against_every_block",
    "verify.numeric.perturbation_figures.reproduce_fig1":
        "tests/numeric/test_perturbation_figures_reference.py::test_reproduce_fig1_against_the_closed_form_and_its_own_curves",
    "verify.numeric.perturbation_figures.reproduce_full_F":
        "tests/numeric/test_perturbation_figures_reference.py::test_reproduce_full_F_against_dense_spectra_and_thm52",
    "verify.numeric.perturbation_figures.stretch_comparison":
        "tests/numeric/test_perturbation_figures_reference.py::test_stretch_comparison_against_sorting_by_hand",
}

#: public functions with no differential test yet: empty, and a new public function must come with its test in
#: REFERENCES (the check below refuses any other)
PENDING: set = set()


def public_functions() -> set:
    names = [verify.certified.__name__]
    for pkg in (verify.symbolic, verify.numeric):
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
    found = set()
    for name in sorted(set(names)):
        mod = importlib.import_module(name)
        public = getattr(mod, "__all__", None)
        if public is None:
            public = [n for n, o in vars(mod).items() if not n.startswith("_") and getattr(o, "__module__", None) == name]
        for n in public:
            obj = getattr(mod, n)
            if isinstance(obj, sympy.Basic) or (inspect.isclass(obj) and issubclass(obj, sympy.Basic)):
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj) or hasattr(obj, "__wrapped__")):
                continue  # constants, tables, numba dispatchers of the kernels' helpers
            key = f"{obj.__module__}.{obj.__qualname__}"
            if "<locals>" not in key:
                found.add(key)
    return found


def test_every_public_function_has_a_differential_test():
    public = public_functions()
    assert not PENDING, f"every public function has its reference test; PENDING must stay empty: {sorted(PENDING)}"
    both = set(REFERENCES) & PENDING
    assert not both, f"in REFERENCES and PENDING at once (remove from PENDING): {sorted(both)}"
    unlisted = public - set(REFERENCES) - PENDING
    assert not unlisted, f"public functions with no differential test (add one to REFERENCES): {sorted(unlisted)}"
    stale = (set(REFERENCES) | PENDING) - public
    assert not stale, f"entries for names that are no longer public functions: {sorted(stale)}"


def test_every_reference_names_an_existing_test():
    defined: dict = {}
    for target in REFERENCES.values():
        path, _, test = target.partition("::")
        if path not in defined:
            tree = ast.parse((ROOT / path).read_text())
            defined[path] = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert test.startswith("test_") and test in defined[path], target
