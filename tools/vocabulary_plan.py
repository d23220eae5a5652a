"""The rename plan of issue 15 ("One vocabulary"): from today's public names to the glossary's.

Data only, and a permanent record: tests/test_glossary.py checks that every public parameter
whose name is not in ``pabi._glossary.TERMS`` appears in :data:`PARAMS` with its glossary name,
and that every entry is either pending (the old name exists) or done (the new one does);
tools/probe_snapshot.py translates its frozen probe set (recorded in the old vocabulary) through
this record, so that a comparison across the rename shows whether any bit moved. A rename
therefore leaves its entry here. tools/rename_api.py rewrites the call sites.

Decisions (the reasons, so that the next family follows them):

* ``noise_scale`` is the noise itself (Gaussian standard deviation or Laplace scale b, in the
  units of the iterate or update), ``noise_multiplier`` DP-SGD's std/clip. ``sigma`` goes: it
  meant both, and the Laplace scale.
* ``max_grad_norm`` (Opacus) replaces ``lipschitz``/``clip``/``grad_bound``: each bounds one
  example's gradient norm, by clipping or by assumption.
* ``steps`` replaces ``n``/``T``/``s`` (counts of iterations); ``count`` the number of composed
  mechanisms (dp-accounting's word); ``batches_per_epoch`` replaces ``ell``/``m`` (cycle length).
* ``order``/``orders`` is the Rényi order (dp-accounting, Opacus); PNSGD's position of the
  differing record becomes ``ordering`` (default ``"shuffled"``, which needs no ``index``).
* ``lr`` replaces ``eta``/``lam``; ``strong_convexity``/``weak_convexity``/``smoothness`` replace
  ``mu``/``m``/``rho``/``M`` (``mu`` stays only for Gaussian DP).
* ``rdp`` is an RDP value; ``eps`` only ever the ε of an (ε, δ) guarantee (so RDP levels called
  ``eps`` move to ``rdp``), ``type1_error`` the argument of a trade-off function.
* One log pattern: a ``log=True`` keyword returns the natural log of the result (``log_theta``,
  ``pnsgd_log_delta``, ``hoeffding_sample_size_ln`` go); ``log_delta`` is an input given as ln δ.
* One ``variant=`` vocabulary: ``"corrected"`` (default) / ``"as_published"``.
"""

from __future__ import annotations

# Function renames (old -> new). "theta(log=True)"-style targets: the old function goes and the
# new keyword takes its place.
FUNCTIONS: dict[str, str] = {
    "log_theta": "theta(log=True)",
    "log_theta_complement": "theta_complement(log=True)",
    "log_gaussian_tail": "gaussian_tail(log=True)",
    "pnsgd_log_delta": "pnsgd_delta(log=True)",
    "pnsgd_rdp_log_delta": "pnsgd_rdp_delta(log=True)",
    "hoeffding_sample_size_ln": "hoeffding_sample_size(log=True)",
    "pnsgd_calibrate_sigma": "pnsgd_calibrate_noise_scale",
    "dpsgd_calibrate_sigma": "dpsgd_calibrate_noise_multiplier",
    "gauss_schedule_delta": "gaussian_schedule_delta",
    "gauss_schedule_delta_star": "gaussian_schedule_delta_limit",
    "laplace_schedule_delta_star": "laplace_schedule_delta_limit",
    "gauss_schedule_sigma": "gaussian_schedule_noise_scale",
    "laplace_schedule_scale": "laplace_schedule_noise_scale",
    "online_gauss_delta": "online_gaussian_delta",
    "online_gauss_delta_limit": "online_gaussian_delta_limit",
    "online_gauss_delta_limit_bound": "online_gaussian_delta_limit_upper",
    "online_gauss_delta_star_upper": "online_gaussian_delta_limit_closed_upper",
    "online_gauss_delta_star_lower": "online_gaussian_delta_limit_lower",
    "online_gauss_sigma": "online_gaussian_noise_scale",
    "online_laplace_delta_limit_bound": "online_laplace_delta_limit_upper",
    "online_laplace_delta_star_upper": "online_laplace_delta_limit_closed_upper",
    "online_laplace_delta_star_lower": "online_laplace_delta_limit_lower",
    "online_laplace_scale": "online_laplace_noise_scale",
    "schedule_c1_for_target": "schedule_calibrate_c1",
    "gaussian_mech_rdp": "gaussian_mechanism_rdp",
    "l_lambda_kappa": "clipped_step_kappa",
    "theta_l": "shift_weight",
    "cyclic_theta_sum": "cyclic_shift_weight_sum",
    "theta_min_steps": "shift_weight_min_steps",
    "optimal_residuals": "optimal_shifts",
    "gd_contraction_rho": "gd_contraction",
    "holder_min_p": "holder_min_exponent",
    "cyclic_calibration": "cyclic_calibrate",
}

# Option values (function, parameter, old value -> new value), and defaults that change.
VALUES: dict[tuple[str, str], dict[str, str]] = {
    ("pnsgd_delta", "variant"): {"refined": "corrected"},
    ("pnsgd_epsilon", "variant"): {"refined": "corrected"},
    ("pnsgd_calibrate_sigma", "variant"): {"refined": "corrected"},
    ("pnsgd_log_delta", "variant"): {"refined": "corrected"},
    ("shifted_drift_bound", "variant"): {"exact": "corrected"},
}
DEFAULTS: dict[tuple[str, str], str] = {
    ("pnsgd_delta", "order"): "shuffled",
    ("pnsgd_epsilon", "order"): "shuffled",
    ("pnsgd_calibrate_sigma", "order"): "shuffled",
    ("pnsgd_log_delta", "order"): "shuffled",
}
# The defaults they replace (a call recorded without the argument ran with these).
DEFAULTS_BEFORE: dict[tuple[str, str], str] = {
    ("pnsgd_delta", "order"): "fixed",
    ("pnsgd_epsilon", "order"): "fixed",
    ("pnsgd_calibrate_sigma", "order"): "fixed",
    ("pnsgd_log_delta", "order"): "fixed",
}

# Command-line flags renamed with the functions they call: sub-command -> {old flag -> new flag}
# (the option values follow VALUES: ``--variant refined`` is ``--variant corrected``).
CLI_FLAGS: dict[str, dict[str, str]] = {
    "dpsgd": {"--q": "--sample-rate", "--sigma": "--noise-multiplier", "--h": "--grid-step",
              "--calibrate-sigma": "--calibrate-noise-multiplier"},
    "pnsgd": {"--sigma": "--noise-scale", "--lipschitz": "--max-grad-norm", "--n": "--steps",
              "--order": "--ordering", "--calibrate-sigma": "--calibrate-noise-scale"},
    "per-instance": {"--q": "--sample-rate", "--sigma": "--noise-scale", "--alpha": "--order",
                     "--p": "--holder-exponent", "--confidence": "--failure-prob", "--clip": "--max-grad-norm"},
    "last-iterate": {"--alpha": "--order", "--clip": "--max-grad-norm", "--sigma": "--noise-scale",
                     "--steps-per-epoch": "--batches-per-epoch", "--order": "--ordering", "--t-star": "--index",
                     "--model": "--contraction"},
}

# Methods of the PNSGD accountant renamed away from Opacus's IAccountant names (issue 15: an
# interface that says what it is): old method -> new method (None: removed; the probe tool
# rebuilds get_privacy_spent's (epsilon, epochs) from the new methods).
ACCOUNTANT_METHODS: dict[str, str | None] = {
    "step": "record_steps", "epoch_done": "record_epochs", "get_epsilon": "epsilon", "get_delta": "delta",
    "get_privacy_spent": None, "mechanism": None,
}

# Parameter renames: public callable -> {old parameter -> glossary name}.
PARAMS: dict[str, dict[str, str]] = {
    'PNSGDAccountant.__init__': {'h': 'grid_step', 'lipschitz': 'max_grad_norm', 'n': 'steps', 'order': 'ordering', 'sigma': 'noise_scale'},
    'PNSGDAccountant.get_epsilon': {'method': 'conversion'},
    'PrivacyLossDistribution.compose': {'tail': 'tail_mass', 'times': 'count'},
    'PrivacyLossDistribution.from_eps_delta': {'h': 'grid_step'},
    'PrivacyLossDistribution.from_profile': {'delta': 'profile', 'h': 'grid_step', 'tail': 'tail_mass'},
    'PrivacyLossDistribution.gaussian': {'h': 'grid_step', 'sigma': 'noise_scale'},
    'PrivacyLossDistribution.laplace': {'h': 'grid_step', 'scale': 'noise_scale'},
    'PrivacyLossDistribution.subsampled_gaussian': {'h': 'grid_step', 'neighbour': 'direction', 'q': 'sample_rate', 'sigma': 'noise_multiplier'},
    'amplify_by_sampling': {'q': 'sample_rate'},
    'approx_dp_composition_delta': {'k': 'count'},
    'approx_dp_composition_epsilon': {'k': 'count'},
    'averaged_rdp': {'alpha': 'order', 'sigma': 'noise_scale'},
    'compose_plds': {'tail': 'tail_mass'},
    'cyclic_calibration': {'M': 'smoothness', 'alpha': 'order', 'b': 'batch_size', 'clip': 'max_grad_norm', 'eps': 'rdp', 'rho': 'weak_convexity'},
    'cyclic_theta_sum': {'L': 'step_lipschitz', 'T': 'steps', 'ell': 'batches_per_epoch'},
    'dpsgd_calibrate_sigma': {'h': 'grid_step', 'q': 'sample_rate'},
    'dpsgd_delta': {'h': 'grid_step', 'q': 'sample_rate', 'sigma': 'noise_multiplier'},
    'dpsgd_epsilon': {'h': 'grid_step', 'q': 'sample_rate', 'sigma': 'noise_multiplier'},
    'dpsgd_per_instance_rdp': {'alpha': 'order', 'confidence': 'failure_prob', 'p': 'holder_exponent', 'q': 'sample_rate', 'sigma': 'noise_scale'},
    'gauss_schedule_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps'},
    'gauss_schedule_sigma': {'n': 'steps'},
    'gaussian_dp_constant': {'sigma': 'noise_scale'},
    'gaussian_mech_rdp': {'alpha': 'order', 'sigma': 'noise_scale'},
    'gaussian_mechanism_epsilon': {'sigma': 'noise_scale'},
    'gaussian_tail': {'t': 'x'},
    'gd_contraction_rho': {'eta': 'lr', 'mu': 'strong_convexity'},
    'gdp_compose': {'mus': 'mu'},
    'general_update_rdp': {'alpha': 'order', 'inner': 'updates_first', 'outer': 'updates_second', 'sigma': 'noise_scale'},
    'hoeffding_sample_size_ln': {'J': 'failure_prob', 'alpha': 'order', 'c': 'tolerance', 'eps': 'rdp', 'eps_prime': 'rdp_bound'},
    'holder_composition_bound': {'alpha': 'order', 'p': 'holder_exponent'},
    'holder_min_p': {'alpha': 'order', 'n': 'steps'},
    'holder_orders': {'alpha': 'order', 'n': 'steps', 'p': 'holder_exponent'},
    'l_lambda_kappa': {'M': 'smoothness', 'lam': 'lr', 'm': 'weak_convexity', 'model': 'contraction'},
    'laplace_schedule_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps'},
    'laplace_schedule_scale': {'n': 'steps'},
    'laplace_theta': {'r': 'shift'},
    'laplace_theta_complement': {'r': 'shift'},
    'last_iterate_rdp_bounded': {'M': 'smoothness', 'alpha': 'order', 'b': 'batch_size', 'clip': 'max_grad_norm', 'd_h': 'diameter', 'lam': 'lr', 'm': 'weak_convexity', 'model': 'contraction', 'sigma': 'noise_scale'},
    'last_iterate_rdp_cyclic': {'M': 'smoothness', 'T': 'steps', 'alpha': 'order', 'b': 'batch_size', 'clip': 'max_grad_norm', 'ell': 'batches_per_epoch', 'lam': 'lr', 'm': 'weak_convexity', 'model': 'contraction', 'sigma': 'noise_scale', 't_star': 'index'},
    'last_iterate_rdp_general': {'T': 'steps', 'alpha': 'order', 'b': 'batch_size', 'clip': 'max_grad_norm', 'ell': 'batches_per_epoch', 'lam': 'lr', 'sigma': 'noise_scale', 't_star': 'index'},
    'last_iterate_rdp_small_step': {'M': 'smoothness', 'alpha': 'order', 'b': 'batch_size', 'clip': 'max_grad_norm', 'ell': 'batches_per_epoch', 'lam': 'lr', 'm': 'weak_convexity', 'model': 'contraction', 'sigma': 'noise_scale'},
    'log_gaussian_tail': {'t': 'x'},
    'log_theta': {'r': 'shift'},
    'log_theta_complement': {'r': 'shift'},
    'lp_per_instance_epsilon_delta': {'p': 'lp_exponent', 'q': 'sample_rate', 'sigma': 'noise_scale'},
    'mixture_rdp_bound': {'alpha': 'order', 'eps': 'rdp'},
    'multi_epoch_epsilon': {'delta': 'profile', 'h': 'grid_step', 'log_delta': 'log_profile', 'target_delta': 'delta'},
    'online_delta': {'lipschitz': 'max_grad_norm', 'mechanism': 'noise', 'noise': 'noise_scale'},
    'online_gauss_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps'},
    'online_gauss_delta_limit': {'lipschitz': 'max_grad_norm'},
    'online_gauss_delta_limit_bound': {'lipschitz': 'max_grad_norm'},
    'online_gauss_delta_star_lower': {'lipschitz': 'max_grad_norm'},
    'online_gauss_delta_star_upper': {'lipschitz': 'max_grad_norm'},
    'online_laplace_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps'},
    'online_laplace_delta_limit': {'lipschitz': 'max_grad_norm'},
    'online_laplace_delta_limit_bound': {'lipschitz': 'max_grad_norm'},
    'online_laplace_delta_star_lower': {'lipschitz': 'max_grad_norm'},
    'online_laplace_delta_star_upper': {'lipschitz': 'max_grad_norm'},
    'optimal_residuals': {'L': 'step_lipschitz', 'T': 'steps', 's': 'map_difference', 'tau': 'initial_distance'},
    'pld_from_profile': {'delta': 'profile', 'h': 'grid_step', 'tail': 'tail_mass'},
    'pnsgd_calibrate_sigma': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'order': 'ordering'},
    'pnsgd_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'order': 'ordering', 'sigma': 'noise_scale'},
    'pnsgd_epoch_pld': {'h': 'grid_step', 'lipschitz': 'max_grad_norm', 'n': 'steps', 'order': 'ordering', 'sigma': 'noise_scale'},
    'pnsgd_epsilon': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'order': 'ordering', 'sigma': 'noise_scale'},
    'pnsgd_factors': {'lipschitz': 'max_grad_norm', 'sigma': 'noise_scale'},
    'pnsgd_log_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'order': 'ordering', 'sigma': 'noise_scale'},
    'pnsgd_rdp_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'sigma': 'noise_scale'},
    'pnsgd_rdp_epsilon': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'sigma': 'noise_scale'},
    'pnsgd_rdp_log_delta': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'sigma': 'noise_scale'},
    'pnsgd_rdp_slope': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'sigma': 'noise_scale'},
    'pnsgd_zcdp_event': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'sigma': 'noise_scale'},
    'pnsgd_zcdp_rho': {'lipschitz': 'max_grad_norm', 'n': 'steps', 'sigma': 'noise_scale'},
    'profile_to_rdp': {'alpha': 'order', 'delta_grid': 'delta', 'eps_grid': 'eps'},
    'rdp_compose': {'curves': 'rdp'},
    'rdp_to_dp_delta': {'method': 'conversion'},
    'rdp_to_dp_epsilon': {'method': 'conversion'},
    'sampled_gaussian_rdp': {'alpha': 'order', 'q': 'sample_rate'},
    'sampled_gaussian_rdp_per_instance': {'alpha': 'order', 'q': 'sample_rate', 'sigma': 'noise_scale'},
    'schedule_c1_for_target': {'delta_star': 'delta', 'mechanism': 'noise'},
    'sensitivity_multi_epoch': {'eta': 'lr', 'grad_bound': 'max_grad_norm', 'j': 'batch_index', 'm': 'batches_per_epoch', 'mu': 'strong_convexity'},
    'set_num_threads': {'n': 'threads'},
    'shifted_cycle_bound': {'L': 'step_lipschitz', 'T': 'steps', 'alpha': 'order', 'ell': 'batches_per_epoch', 'sbar': 'map_difference', 'sigma': 'noise_scale', 'tau': 'initial_distance'},
    'shifted_drift_bound': {'T': 'steps', 'alpha': 'order', 'ell': 'batches_per_epoch', 'sbar': 'map_difference', 'sigma': 'noise_scale', 'zeta': 'drift'},
    'theta': {'r': 'shift'},
    'theta_complement': {'r': 'shift'},
    'theta_l': {'L': 'step_lipschitz', 's': 'steps'},
    'theta_min_steps': {'L': 'step_lipschitz', 'xi': 'slack'},
    'tradeoff_eps_delta': {'alpha': 'type1_error'},
    'tradeoff_from_profile': {'alpha': 'type1_error'},
    'unlearning_keep': {'alpha': 'order', 'beta': 'threshold', 'd_2alpha_minus_1_step': 'divergence_step', 'd_2alpha_prev': 'divergence_previous'},
    'weak_triangle_bound': {'alpha': 'order', 'd_g_alpha': 'divergence_qr', 'd_p_alpha': 'divergence_pq', 'p': 'holder_exponent'},
}
