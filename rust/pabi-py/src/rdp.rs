//! Bindings for `pabi_core::rdp`: sampled Gaussian RDP, per-instance DP-SGD composition,
//! conversions. All numeric work runs with the GIL released.

use crate::{to_py, Out};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pabi_core::rdp as core;
use pyo3::prelude::*;

type Arr<'py> = Bound<'py, numpy::PyArray1<f64>>;

#[pyfunction]
fn sampled_gaussian_rdp<'py>(
    py: Python<'py>,
    alpha: PyReadonlyArray1<'py, f64>,
    q: PyReadonlyArray1<'py, f64>,
    sensitivity: PyReadonlyArray1<'py, f64>,
    sigma: PyReadonlyArray1<'py, f64>,
) -> Out<'py> {
    let (a, qq, s, sg) = (
        alpha.as_slice()?,
        q.as_slice()?,
        sensitivity.as_slice()?,
        sigma.as_slice()?,
    );
    let res = py.detach(|| {
        let mut out = vec![0.0; a.len()];
        core::sampled_gaussian_rdp_batch(a, qq, s, sg, &mut out).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (alpha, q, sigma, sensitivities, steps, samples, p, as_published, confidence=None, max_sensitivity=None))]
#[allow(clippy::too_many_arguments)]
fn dpsgd_per_instance_terms<'py>(
    py: Python<'py>,
    alpha: f64,
    q: f64,
    sigma: f64,
    sensitivities: PyReadonlyArray1<'py, f64>,
    steps: usize,
    samples: usize,
    p: f64,
    as_published: bool,
    confidence: Option<f64>,
    max_sensitivity: Option<f64>,
) -> Out<'py> {
    let s = sensitivities.as_slice()?;
    let opts = core::CompositionOptions {
        map: if as_published {
            core::OrderMap::AsPublished
        } else {
            core::OrderMap::Corrected
        },
        ucb: confidence.map(|c| (c, max_sensitivity.unwrap_or(f64::NAN))),
    };
    let res =
        py.detach(|| core::dpsgd_per_instance_terms(alpha, q, sigma, s, steps, samples, p, opts));
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (alpha, p, divergences, steps, samples, as_published, weights=None))]
#[allow(clippy::too_many_arguments)]
fn holder_composition_terms<'py>(
    py: Python<'py>,
    alpha: f64,
    p: f64,
    divergences: PyReadonlyArray1<'py, f64>,
    steps: usize,
    samples: usize,
    as_published: bool,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> Out<'py> {
    let d = divergences.as_slice()?;
    let w = match &weights {
        Some(w) => Some(w.as_slice()?),
        None => None,
    };
    let map = if as_published {
        core::OrderMap::AsPublished
    } else {
        core::OrderMap::Corrected
    };
    let res = py.detach(|| core::holder_composition_terms(alpha, p, d, w, steps, samples, map));
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

#[pyfunction]
fn sum_terms_up(terms: PyReadonlyArray1<'_, f64>) -> PyResult<f64> {
    Ok(core::sum_terms_up(terms.as_slice()?))
}

#[pyfunction]
fn holder_orders<'py>(
    py: Python<'py>,
    alpha: f64,
    p: f64,
    n: u64,
    as_published: bool,
) -> PyResult<(Arr<'py>, Arr<'py>)> {
    let map = if as_published {
        core::OrderMap::AsPublished
    } else {
        core::OrderMap::Corrected
    };
    let (b, k): (Vec<f64>, Vec<f64>) = (0..n).map(|i| core::holder_order(alpha, p, i, map)).unzip();
    Ok((b.into_pyarray(py), k.into_pyarray(py)))
}

fn rule(tight: bool) -> core::Conversion {
    if tight {
        core::Conversion::Tight
    } else {
        core::Conversion::Classical
    }
}

#[pyfunction]
fn rdp_to_dp_epsilon(
    py: Python<'_>,
    orders: PyReadonlyArray1<'_, f64>,
    rdp: PyReadonlyArray1<'_, f64>,
    delta: f64,
    tight: bool,
) -> PyResult<(f64, f64)> {
    core::rdp_to_dp_epsilon(orders.as_slice()?, rdp.as_slice()?, delta, rule(tight))
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn rdp_to_dp_delta(
    py: Python<'_>,
    orders: PyReadonlyArray1<'_, f64>,
    rdp: PyReadonlyArray1<'_, f64>,
    eps: f64,
    tight: bool,
) -> PyResult<(f64, f64)> {
    core::rdp_to_dp_delta(orders.as_slice()?, rdp.as_slice()?, eps, rule(tight))
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn rdp_compose<'py>(
    py: Python<'py>,
    curves: PyReadonlyArray1<'py, f64>,
    k: usize,
    m: usize,
) -> Out<'py> {
    let c = curves.as_slice()?;
    let mut out = vec![0.0; m];
    core::rdp_compose(c, k, m, &mut out).map_err(|e| to_py(py, e))?;
    Ok(out.into_pyarray(py))
}

#[pyfunction]
fn profile_to_rdp(
    py: Python<'_>,
    alpha: f64,
    eps_grid: PyReadonlyArray1<'_, f64>,
    delta_grid: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let (e, d) = (eps_grid.as_slice()?, delta_grid.as_slice()?);
    py.detach(|| core::profile_to_rdp(alpha, e, d))
        .map_err(|err| to_py(py, err))
}

// ------------------------------------------------------------------ scalar helpers (rdp::extra)

use pabi_core::rdp::extra as ex;

fn lip(as_published: bool) -> ex::LipschitzModel {
    if as_published {
        ex::LipschitzModel::AsPublished
    } else {
        ex::LipschitzModel::Triangle
    }
}

macro_rules! scalar_fn {
    ($name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty) => {
        #[pyfunction]
        #[allow(clippy::too_many_arguments)]
        fn $name(py: Python<'_>, $($arg: $ty),*) -> PyResult<$ret> {
            ex::$name($($arg),*).map_err(|e| to_py(py, e))
        }
    };
}

scalar_fn!(gaussian_dp_constant(delta: f64, sigma: f64) -> f64);
scalar_fn!(gaussian_mechanism_epsilon(delta: f64, sigma: f64, sens: f64) -> (f64, bool));
scalar_fn!(amplify_by_sampling(eps: f64, delta: f64, q: f64) -> (f64, f64));
scalar_fn!(weak_triangle_bound(alpha: f64, p: f64, d_pa: f64, d_gpa: f64) -> f64);
scalar_fn!(unlearning_keep(alpha: f64, beta: f64, d_2a_prev: f64, d_2a1_step: f64, as_published: bool) -> bool);
scalar_fn!(theta_l_kappa(kappa: f64, s: f64) -> f64);
scalar_fn!(cyclic_theta_sum(kappa: f64, t: u64, ell: u64) -> f64);
scalar_fn!(last_iterate_rdp_general(alpha: f64, lam: f64, clip: f64, sigma: f64, t: u64) -> f64);
scalar_fn!(last_iterate_rdp_bounded(alpha: f64, kappa: f64, d_h: f64, lam: f64, clip: f64, b: u64, sigma: f64) -> f64);
scalar_fn!(last_iterate_rdp_cyclic(alpha: f64, kappa: f64, lam: f64, clip: f64, b: u64, sigma: f64, t: u64, ell: u64, t_star: Option<u64>, as_published: bool) -> f64);
scalar_fn!(shifted_cycle_bound(alpha: f64, sigma: f64, kappa: f64, tau: f64, sbar: f64, t: u64, ell: u64) -> f64);
scalar_fn!(cyclic_calibration(alpha: f64, eps: f64, rho: f64, big_m: f64, clip: f64, b: u64, epochs: u64, as_published: bool) -> (f64, f64, f64));
scalar_fn!(gd_contraction_rho(eta: f64, mu: f64, smooth: f64) -> (f64, f64));
scalar_fn!(sensitivity_multi_epoch(eta: f64, mu: f64, smooth: f64, grad_bound: f64, batch: f64, m: u64, j: u64, epochs: Option<u64>) -> f64);
scalar_fn!(gaussian_mech_rdp(alpha: f64, sens: f64, sigma: f64) -> f64);

scalar_fn!(holder_min_p(n: u64, alpha: f64, cap_factor: f64) -> f64);

#[pyfunction]
fn hoeffding_sample_size_ln(
    py: Python<'_>,
    alpha: f64,
    eps: f64,
    eps_prime: f64,
    c: f64,
    j: f64,
    variant: &str,
) -> PyResult<f64> {
    let v = match variant {
        "corrected" => ex::SampleSizeVariant::Corrected,
        "proof_consistent" => ex::SampleSizeVariant::ProofConsistent,
        "as_published" => ex::SampleSizeVariant::AsPublished,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "variant must be 'corrected', 'proof_consistent' or 'as_published', got {other:?}"
            )))
        }
    };
    ex::hoeffding_sample_size_ln(alpha, eps, eps_prime, c, j, v).map_err(|e| to_py(py, e))
}

scalar_fn!(theta_min_steps(kappa: f64, xi: f64) -> f64);
scalar_fn!(last_iterate_rdp_small_step(alpha: f64, kappa: f64, clip: f64, b: u64, sigma: f64, ell: u64) -> f64);

#[pyfunction]
fn mixture_rdp_bound(
    py: Python<'_>,
    alpha: f64,
    weights: PyReadonlyArray1<'_, f64>,
    eps: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    ex::mixture_rdp_bound(alpha, weights.as_slice()?, eps.as_slice()?).map_err(|e| to_py(py, e))
}

#[pyfunction]
fn l_lambda_kappa(
    py: Python<'_>,
    lam: f64,
    m: f64,
    big_m: f64,
    as_published: bool,
) -> PyResult<f64> {
    ex::l_lambda_kappa(lam, m, big_m, lip(as_published)).map_err(|e| to_py(py, e))
}

#[pyfunction]
fn optimal_residuals<'py>(py: Python<'py>, kappa: f64, t: u64, tau: f64, s: f64) -> Out<'py> {
    let v = ex::optimal_residuals(kappa, t, tau, s).map_err(|e| to_py(py, e))?;
    Ok(v.into_pyarray(py))
}

#[pyfunction]
fn lp_per_instance_eps_delta(
    py: Python<'_>,
    q: f64,
    p: f64,
    delta: f64,
    delta_prime: f64,
    sigma: f64,
    sens: PyReadonlyArray1<'_, f64>,
) -> PyResult<(f64, f64, bool)> {
    ex::lp_per_instance_eps_delta(q, p, delta, delta_prime, sigma, sens.as_slice()?)
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn averaged_rdp(
    py: Python<'_>,
    alpha: f64,
    sigma: f64,
    sens: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    ex::averaged_rdp(alpha, sigma, sens.as_slice()?).map_err(|e| to_py(py, e))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn general_update_rdp(
    py: Python<'_>,
    alpha: u64,
    sigma: f64,
    outer: PyReadonlyArray1<'_, f64>,
    inner: PyReadonlyArray1<'_, f64>,
    b: usize,
    j: usize,
    d: usize,
) -> PyResult<f64> {
    let (o, i) = (outer.as_slice()?, inner.as_slice()?);
    py.detach(|| ex::general_update_rdp(alpha, sigma, o, i, b, j, d))
        .map_err(|e| to_py(py, e))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sampled_gaussian_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_per_instance_terms, m)?)?;
    m.add_function(wrap_pyfunction!(sum_terms_up, m)?)?;
    m.add_function(wrap_pyfunction!(holder_composition_terms, m)?)?;
    m.add_function(wrap_pyfunction!(holder_orders, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_to_dp_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_to_dp_delta, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_compose, m)?)?;
    m.add_function(wrap_pyfunction!(profile_to_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(gaussian_dp_constant, m)?)?;
    m.add_function(wrap_pyfunction!(gaussian_mechanism_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(amplify_by_sampling, m)?)?;
    m.add_function(wrap_pyfunction!(weak_triangle_bound, m)?)?;
    m.add_function(wrap_pyfunction!(unlearning_keep, m)?)?;
    m.add_function(wrap_pyfunction!(theta_l_kappa, m)?)?;
    m.add_function(wrap_pyfunction!(cyclic_theta_sum, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_general, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_bounded, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_cyclic, m)?)?;
    m.add_function(wrap_pyfunction!(shifted_cycle_bound, m)?)?;
    m.add_function(wrap_pyfunction!(cyclic_calibration, m)?)?;
    m.add_function(wrap_pyfunction!(gd_contraction_rho, m)?)?;
    m.add_function(wrap_pyfunction!(sensitivity_multi_epoch, m)?)?;
    m.add_function(wrap_pyfunction!(gaussian_mech_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(l_lambda_kappa, m)?)?;
    m.add_function(wrap_pyfunction!(optimal_residuals, m)?)?;
    m.add_function(wrap_pyfunction!(lp_per_instance_eps_delta, m)?)?;
    m.add_function(wrap_pyfunction!(averaged_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(general_update_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(holder_min_p, m)?)?;
    m.add_function(wrap_pyfunction!(hoeffding_sample_size_ln, m)?)?;
    m.add_function(wrap_pyfunction!(theta_min_steps, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_small_step, m)?)?;
    m.add_function(wrap_pyfunction!(mixture_rdp_bound, m)?)?;
    Ok(())
}
