//! Bindings for the array calls on sampled privacy profiles and noise parameters:
//! `pabi_core::rdp::profile_to_rdp_curve` (profile → RDP curve over orders),
//! `pabi_core::composition::sampled::tradeoff_from_profile` (sup of f_{ε,δ} over the samples)
//! and `pabi_core::composition::dpsgd::iterate_noise_std` (lr·z·C/b rounded down). No
//! mathematics here.

use crate::args::{add_functions, elementwise, fill, map, slices, Arr};
use crate::Out;
use pabi_core::composition::{dpsgd, sampled};
use pabi_core::rdp as core;
use pyo3::prelude::*;

/// ε_R(α) of a sampled symmetric profile at every order (rounded up).
#[pyfunction]
fn profile_to_rdp_curve<'py>(
    py: Python<'py>,
    orders: Arr<'py>,
    eps_grid: Arr<'py>,
    delta_grid: Arr<'py>,
) -> Out<'py> {
    let [orders, eps_grid, delta_grid] = slices![orders, eps_grid, delta_grid];
    fill(py, orders.len(), |out| {
        core::profile_to_rdp_curve(orders, eps_grid, delta_grid, out)
    })
}

/// max over the samples of f_{ε_j,δ_j}(α_i) at every α_i (rounded down).
#[pyfunction]
fn tradeoff_from_profile<'py>(
    py: Python<'py>,
    alpha: Arr<'py>,
    eps: Arr<'py>,
    delta: Arr<'py>,
) -> Out<'py> {
    let [alpha, eps, delta] = slices![alpha, eps, delta];
    fill(py, alpha.len(), |out| {
        sampled::tradeoff_from_profile(alpha, eps, delta, out)
    })
}

elementwise!(
    /// lr·noise_multiplier·clip/batch_size rounded down, elementwise (arrays of one length or
    /// of length 1).
    map,
    fn noise_std_down([lr, noise_multiplier, clip, batch_size])
    |x| dpsgd::iterate_noise_std(x[0], x[1], x[2], x[3])
);

/// noise/√count rounded down.
#[pyfunction]
fn noise_over_sqrt_count(py: Python<'_>, noise: f64, count: f64) -> PyResult<f64> {
    crate::guarded(py, false, || dpsgd::noise_over_sqrt_count(noise, count))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            profile_to_rdp_curve,
            tradeoff_from_profile,
            noise_std_down,
            noise_over_sqrt_count
        ]
    );
    Ok(())
}
