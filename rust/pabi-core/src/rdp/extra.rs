//! The scalar Rényi/approximate-DP bounds around DP-SGD, under the path the Python binding
//! uses (`pabi_core::rdp::extra::*`). Each lives in the file of its concept:
//! `gaussian_mechanism.rs`, `per_instance.rs` (L_p per-instance), `general_update.rs`,
//! `unlearning.rs`, `holder.rs` (choosing p, sample size), `last_iterate.rs`, `erm.rs`.

pub use super::erm::{
    averaged_rdp, gd_contraction_rho, mixture_rdp_bound, sensitivity_multi_epoch,
};
pub use super::gaussian_mechanism::{
    amplify_by_sampling, gaussian_dp_constant, gaussian_mech_rdp, gaussian_mechanism_epsilon,
};
pub use super::general_update::general_update_rdp;
pub use super::holder::{hoeffding_sample_size, holder_min_exponent, SampleSizeVariant};
pub use super::last_iterate::{
    cyclic_calibration, cyclic_theta_sum, kappa_from_l, l_lambda_kappa, last_iterate_rdp_bounded,
    last_iterate_rdp_bounded_smooth, last_iterate_rdp_cyclic, last_iterate_rdp_cyclic_smooth,
    last_iterate_rdp_general, last_iterate_rdp_general_exact, last_iterate_rdp_small_step,
    last_iterate_rdp_small_step_smooth, lip_u_from_kappa, lip_u_from_l, optimal_residuals,
    shifted_cycle_bound, shifted_drift_bound, shifted_drift_bound_published, smooth_step_kappa,
    theta_l_kappa, theta_l_u, theta_min_steps, theta_min_steps_l, LipschitzModel,
};
pub use super::per_instance::lp_per_instance_eps_delta;
pub use super::unlearning::{unlearning_keep, weak_triangle_bound};
