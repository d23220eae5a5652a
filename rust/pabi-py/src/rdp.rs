//! Bindings for `pabi_core::rdp`: sampled Gaussian RDP, per-instance DP-SGD composition,
//! conversions. All numeric work runs with the GIL released.

use crate::args::{add_functions, array, detach, elementwise, fill, opt_slice, slices, Arr, Np};
use crate::{guarded, zeros, Out, LONG_LEN};
use numpy::IntoPyArray;
use pabi_core::driver::broadcast_len;
use pabi_core::rdp as core;
use pyo3::prelude::*;

fn order_map(as_published: bool) -> core::OrderMap {
    if as_published {
        core::OrderMap::AsPublished
    } else {
        core::OrderMap::Corrected
    }
}

#[pyfunction]
#[pyo3(signature = (order, sample_rate, sensitivity, noise_scale, exact=false))]
fn sampled_gaussian_rdp<'py>(
    py: Python<'py>,
    order: Arr<'py>,
    sample_rate: Arr<'py>,
    sensitivity: Arr<'py>,
    noise_scale: Arr<'py>,
    exact: bool,
) -> Out<'py> {
    let mode = if exact {
        core::Fractional::Exact
    } else {
        core::Fractional::Ceil
    };
    let [order, sample_rate, sensitivity, noise_scale] =
        slices![order, sample_rate, sensitivity, noise_scale];
    let len = broadcast_len([order, sample_rate, sensitivity, noise_scale].map(<[f64]>::len));
    fill(py, len, |out| {
        core::sampled_gaussian_rdp_batch(order, sample_rate, sensitivity, noise_scale, mode, out)
    })
}

#[pyfunction]
#[pyo3(signature = (order, sample_rate, noise_scale, sensitivities, steps, samples, holder_exponent, as_published, failure_prob=None, max_sensitivity=None, exact_fractional=true))]
#[allow(clippy::too_many_arguments)]
fn dpsgd_per_instance_terms<'py>(
    py: Python<'py>,
    order: f64,
    sample_rate: f64,
    noise_scale: f64,
    sensitivities: Arr<'py>,
    steps: usize,
    samples: usize,
    holder_exponent: f64,
    as_published: bool,
    failure_prob: Option<f64>,
    max_sensitivity: Option<f64>,
    exact_fractional: bool,
) -> Out<'py> {
    let sensitivities = sensitivities.as_slice()?;
    let opts = core::CompositionOptions {
        map: order_map(as_published),
        ucb: failure_prob.map(|c| (c, max_sensitivity)),
        fractional: if exact_fractional {
            core::Fractional::Exact
        } else {
            core::Fractional::Ceil
        },
    };
    array(py, || {
        core::dpsgd_per_instance_terms(
            order,
            sample_rate,
            noise_scale,
            sensitivities,
            steps,
            samples,
            holder_exponent,
            opts,
        )
    })
}

#[pyfunction]
#[pyo3(signature = (order, holder_exponent, divergences, steps, samples, as_published, weights=None))]
#[allow(clippy::too_many_arguments)]
fn holder_composition_terms<'py>(
    py: Python<'py>,
    order: f64,
    holder_exponent: f64,
    divergences: Arr<'py>,
    steps: usize,
    samples: usize,
    as_published: bool,
    weights: Option<Arr<'py>>,
) -> Out<'py> {
    let (divergences, weights) = (divergences.as_slice()?, opt_slice(&weights)?);
    let map = order_map(as_published);
    array(py, || {
        core::holder_composition_terms(
            order,
            holder_exponent,
            divergences,
            weights,
            steps,
            samples,
            map,
        )
    })
}

#[pyfunction]
fn sum_terms_up(py: Python<'_>, terms: Arr<'_>) -> PyResult<f64> {
    let terms = terms.as_slice()?;
    guarded(py, terms.len() >= LONG_LEN, || {
        Ok(core::sum_terms_up(terms))
    })
}

#[pyfunction]
fn holder_orders<'py>(
    py: Python<'py>,
    order: f64,
    holder_exponent: f64,
    steps: u64,
    as_published: bool,
) -> PyResult<(Np<'py>, Np<'py>)> {
    let map = order_map(as_published);
    let (orders, multiplicities) = detach(py, || {
        core::holder_orders(order, holder_exponent, steps, map)
    })?;
    Ok((orders.into_pyarray(py), multiplicities.into_pyarray(py)))
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
    orders: Arr<'_>,
    rdp: Arr<'_>,
    delta: f64,
    tight: bool,
) -> PyResult<(f64, f64)> {
    let [orders, rdp] = slices![orders, rdp];
    guarded(py, orders.len() >= LONG_LEN, || {
        core::rdp_to_dp_epsilon(orders, rdp, delta, rule(tight))
    })
}

#[pyfunction]
fn rdp_to_dp_delta(
    py: Python<'_>,
    orders: Arr<'_>,
    rdp: Arr<'_>,
    eps: f64,
    tight: bool,
) -> PyResult<(f64, f64)> {
    let [orders, rdp] = slices![orders, rdp];
    guarded(py, orders.len() >= LONG_LEN, || {
        core::rdp_to_dp_delta(orders, rdp, eps, rule(tight))
    })
}

/// The array conversions: one curve, every target (δ for `epsilon`, ε for `delta`), two new
/// arrays (the values, the optimal orders), allocated first, filled with the GIL released.
#[pyfunction]
fn rdp_to_dp_epsilon_many<'py>(
    py: Python<'py>,
    orders: Arr<'py>,
    rdp: Arr<'py>,
    delta: Arr<'py>,
    tight: bool,
) -> PyResult<(Np<'py>, Np<'py>)> {
    let [orders, rdp, delta] = slices![orders, rdp, delta];
    let (mut eps, mut best) = (zeros(delta.len())?, zeros(delta.len())?);
    let long = delta.len().saturating_mul(orders.len()) >= LONG_LEN;
    guarded(py, long, || {
        core::rdp_to_dp_epsilon_many(orders, rdp, delta, rule(tight), &mut eps, &mut best)
    })?;
    Ok((eps.into_pyarray(py), best.into_pyarray(py)))
}

#[pyfunction]
fn rdp_to_dp_delta_many<'py>(
    py: Python<'py>,
    orders: Arr<'py>,
    rdp: Arr<'py>,
    eps: Arr<'py>,
    tight: bool,
) -> PyResult<(Np<'py>, Np<'py>)> {
    let [orders, rdp, eps] = slices![orders, rdp, eps];
    let (mut delta, mut best) = (zeros(eps.len())?, zeros(eps.len())?);
    let long = eps.len().saturating_mul(orders.len()) >= LONG_LEN;
    guarded(py, long, || {
        core::rdp_to_dp_delta_many(orders, rdp, eps, rule(tight), &mut delta, &mut best)
    })?;
    Ok((delta.into_pyarray(py), best.into_pyarray(py)))
}

#[pyfunction]
fn rdp_compose<'py>(py: Python<'py>, rdp: Arr<'py>, k: usize, m: usize) -> Out<'py> {
    let curves = rdp.as_slice()?;
    if k.checked_mul(m) != Some(curves.len()) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "rdp has {} values, expected k·m = {k}·{m}",
            curves.len()
        )));
    }
    fill(py, m, |out| core::rdp_compose(curves, k, m, out))
}

#[pyfunction]
fn profile_to_rdp(py: Python<'_>, order: f64, eps: Arr<'_>, delta: Arr<'_>) -> PyResult<f64> {
    let [eps, delta] = slices![eps, delta];
    guarded(py, eps.len() >= LONG_LEN, || {
        core::profile_to_rdp(order, eps, delta)
    })
}

// ------------------------------------------------------------------ element-wise helpers (rdp::extra)
//
// Every helper below takes equally long 1-D float64 arrays (numpy broadcasting is done by the
// Python bridge), evaluates the scalar core function per element with the GIL released (rayon
// for large arrays) and returns K outputs as one flat array of length K·n (row-major (K, n)).
// A domain error is located at the first bad element. Integer parameters arrive as floats and
// must be exact non-negative integers (≤ 2^53).

use pabi_core::error::{PabiError, Result as CoreResult};
use pabi_core::rdp::extra as ex;

type Slices<'a, const N: usize> = [&'a [f64]; N];

/// An integer parameter sent as a float: an exact non-negative integer (<= 2^53).
fn integer(name: &'static str, v: f64) -> CoreResult<u64> {
    if v >= 0.0 && v.fract() == 0.0 && v <= 9_007_199_254_740_992.0 {
        Ok(v as u64)
    } else {
        Err(PabiError::domain(
            name,
            "a non-negative integer (<= 2^53)",
            v,
        ))
    }
}

/// Optional integer: NaN encodes None.
fn optional_integer(name: &'static str, v: f64) -> CoreResult<Option<u64>> {
    if v.is_nan() {
        Ok(None)
    } else {
        integer(name, v).map(Some)
    }
}

/// The K outputs of `f` on every element, as one flat (K, n) array.
fn map_outputs<'py, const N: usize, const K: usize>(
    py: Python<'py>,
    args: Slices<'_, N>,
    f: impl Fn([f64; N]) -> CoreResult<[f64; K]> + Sync + Send,
) -> Out<'py> {
    let n = pabi_core::driver::broadcast_len(args.iter().map(|a| a.len()));
    // chunks of 2048 elements, in parallel from 4096 (the former `rdp::elementwise` driver)
    let shape = |_, _| PabiError::Shape {
        message: "argument arrays must have equal lengths".into(),
    };
    let v = guarded(py, n >= LONG_LEN, || {
        pabi_core::driver::map_rows(args, 2 * 2048, 2048, shape, &f)
    })?;
    Ok(v.into_pyarray(py))
}

/// The Lipschitz model of the clipped step: eq. (12) as printed, or the triangle bound.
fn contraction_model(as_published: bool) -> ex::LipschitzModel {
    if as_published {
        ex::LipschitzModel::AsPublished
    } else {
        ex::LipschitzModel::Triangle
    }
}

/// A yes/no result as one of the K float outputs: 1.0 or 0.0.
fn indicator(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

elementwise!(
    map_outputs,
    fn gaussian_dp_constant([delta, noise_scale])
    |x| Ok([ex::gaussian_dp_constant(x[0], x[1])?])
);
elementwise!(
    map_outputs,
    fn gaussian_mechanism_epsilon([delta, noise_scale, sensitivity])
    |x| {
        let (eps, valid) = ex::gaussian_mechanism_epsilon(x[0], x[1], x[2])?;
        Ok([eps, indicator(valid)])
    }
);
elementwise!(
    map_outputs,
    fn amplify_by_sampling([eps, delta, sample_rate])
    |x| {
        let (eps, delta) = ex::amplify_by_sampling(x[0], x[1], x[2])?;
        Ok([eps, delta])
    }
);
elementwise!(
    map_outputs,
    fn weak_triangle_bound([order, holder_exponent, divergence_pq, divergence_qr])
    |x| Ok([ex::weak_triangle_bound(x[0], x[1], x[2], x[3])?])
);
elementwise!(
    map_outputs,
    fn unlearning_keep([order, threshold, divergence_previous, divergence_step], as_published: bool)
    |x| Ok([indicator(ex::unlearning_keep(x[0], x[1], x[2], x[3], as_published)?)])
);
elementwise!(
    map_outputs,
    fn kappa_from_lipschitz([step_lipschitz])
    |x| Ok([ex::kappa_from_l(x[0])?])
);
elementwise!(
    map_outputs,
    fn log_lipschitz_squared([step_lipschitz])
    |x| Ok([ex::lip_u_from_l(x[0])?])
);
elementwise!(
    map_outputs,
    fn log_lipschitz_squared_from_kappa([kappa])
    |x| Ok([ex::lip_u_from_kappa(x[0])?])
);
elementwise!(
    map_outputs,
    fn shift_weight([u, steps])
    |x| Ok([ex::theta_l_u(x[0], x[1])?])
);
elementwise!(
    map_outputs,
    fn cyclic_shift_weight_sum([u, steps, batches_per_epoch])
    |x| Ok([ex::cyclic_theta_sum(x[0], integer("steps", x[1])?, integer("batches_per_epoch", x[2])?)?])
);
elementwise!(
    map_outputs,
    fn clipped_step_kappa([lr, weak_convexity, smoothness], as_published: bool)
    |x| Ok([ex::l_lambda_kappa(x[0], x[1], x[2], contraction_model(as_published))?])
);
elementwise!(
    map_outputs,
    fn last_iterate_rdp_general([order, lr, max_grad_norm, noise_scale, steps])
    |x| Ok([ex::last_iterate_rdp_general(x[0], x[1], x[2], x[3], integer("steps", x[4])?)?])
);
elementwise!(
    map_outputs,
    fn last_iterate_rdp_general_exact(
        [order, lr, max_grad_norm, noise_scale, steps, batch_size, batches_per_epoch, index]
    )
    |x| Ok([ex::last_iterate_rdp_general_exact(
        x[0], x[1], x[2], x[3], integer("steps", x[4])?, integer("batch_size", x[5])?,
        integer("batches_per_epoch", x[6])?, optional_integer("index", x[7])?,
    )?])
);
elementwise!(
    map_outputs,
    fn shifted_drift_bound(
        [order, noise_scale, drift, map_difference, steps, batches_per_epoch]
    )
    |x| Ok([ex::shifted_drift_bound(
        x[0], x[1], x[2], x[3], integer("steps", x[4])?, integer("batches_per_epoch", x[5])?,
    )?])
);
elementwise!(
    map_outputs,
    fn shifted_drift_bound_published([order, noise_scale, drift, steps])
    |x| Ok([ex::shifted_drift_bound_published(x[0], x[1], x[2], integer("steps", x[3])?)?])
);
elementwise!(
    map_outputs,
    fn last_iterate_rdp_bounded(
        [order, lr, weak_convexity, smoothness, diameter, max_grad_norm, batch_size, noise_scale],
        as_published: bool,
    )
    |x| Ok([ex::last_iterate_rdp_bounded_smooth(
        x[0], x[1], x[2], x[3], x[4], x[5], integer("batch_size", x[6])?, x[7], contraction_model(as_published),
    )?])
);
elementwise!(
    map_outputs,
    fn last_iterate_rdp_cyclic(
        [order, lr, weak_convexity, smoothness, max_grad_norm, batch_size, noise_scale, steps,
         batches_per_epoch, index],
        as_published: bool,
        model_as_published: bool,
    )
    |x| Ok([ex::last_iterate_rdp_cyclic_smooth(
        x[0], x[1], x[2], x[3], x[4], integer("batch_size", x[5])?, x[6], integer("steps", x[7])?,
        integer("batches_per_epoch", x[8])?, optional_integer("index", x[9])?, as_published,
        contraction_model(model_as_published),
    )?])
);
elementwise!(
    map_outputs,
    fn shifted_cycle_bound(
        [order, noise_scale, u, initial_distance, map_difference, steps, batches_per_epoch]
    )
    |x| Ok([ex::shifted_cycle_bound(
        x[0], x[1], x[2], x[3], x[4], integer("steps", x[5])?, integer("batches_per_epoch", x[6])?,
    )?])
);
elementwise!(
    map_outputs,
    fn cyclic_calibration(
        [order, rdp, weak_convexity, smoothness, max_grad_norm, batch_size, epochs],
        as_published: bool,
    )
    |x| {
        let (lr, batches_per_epoch, noise_scale) = ex::cyclic_calibration(
            x[0], x[1], x[2], x[3], x[4], integer("batch_size", x[5])?, integer("epochs", x[6])?,
            as_published,
        )?;
        Ok([lr, batches_per_epoch, noise_scale])
    }
);
elementwise!(
    map_outputs,
    fn gd_contraction([lr, strong_convexity, smoothness])
    |x| {
        let (rho, gap) = ex::gd_contraction_rho(x[0], x[1], x[2])?;
        Ok([rho, gap])
    }
);
elementwise!(
    map_outputs,
    fn sensitivity_multi_epoch(
        [lr, strong_convexity, smoothness, max_grad_norm, batch_size, batches_per_epoch,
         batch_index, epochs]
    )
    |x| Ok([ex::sensitivity_multi_epoch(
        x[0], x[1], x[2], x[3], x[4], integer("batches_per_epoch", x[5])?, integer("batch_index", x[6])?,
        optional_integer("epochs", x[7])?,
    )?])
);
elementwise!(
    map_outputs,
    fn gaussian_mechanism_rdp([order, sensitivity, noise_scale])
    |x| Ok([ex::gaussian_mech_rdp(x[0], x[1], x[2])?])
);
elementwise!(
    map_outputs,
    fn holder_min_exponent([steps, order, cap_factor])
    |x| Ok([ex::holder_min_exponent(integer("steps", x[0])?, x[1], x[2])?])
);

fn sample_variant(variant: &str) -> PyResult<ex::SampleSizeVariant> {
    Ok(match variant {
        "corrected" => ex::SampleSizeVariant::Corrected,
        "proof_consistent" => ex::SampleSizeVariant::ProofConsistent,
        "as_published" => ex::SampleSizeVariant::AsPublished,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "variant must be 'corrected', 'proof_consistent' or 'as_published', got {other:?}"
            )))
        }
    })
}

elementwise!(
    map_outputs,
    fn hoeffding_sample_size([order, rdp, rdp_bound, tolerance, failure_prob], variant: &str, log: bool)
    let v = sample_variant(variant)?;
    |x| Ok([ex::hoeffding_sample_size(x[0], x[1], x[2], x[3], x[4], v, log)?])
);

elementwise!(
    map_outputs,
    fn shift_weight_min_steps_kappa([kappa, slack])
    |x| Ok([ex::theta_min_steps(x[0], x[1])?])
);
elementwise!(
    map_outputs,
    fn shift_weight_min_steps([step_lipschitz, slack])
    |x| Ok([ex::theta_min_steps_l(x[0], x[1])?])
);
elementwise!(
    map_outputs,
    fn last_iterate_rdp_small_step(
        [order, lr, weak_convexity, smoothness, max_grad_norm, batch_size, noise_scale,
         batches_per_epoch],
        as_published: bool,
    )
    |x| Ok([ex::last_iterate_rdp_small_step_smooth(
        x[0], x[1], x[2], x[3], x[4], integer("batch_size", x[5])?, x[6],
        integer("batches_per_epoch", x[7])?, contraction_model(as_published),
    )?])
);

/// Row-wise helpers over a sample axis: element i uses row `rows[i]` of the (R, m) sample
/// matrix `samples` (flat), so the per-element parameters broadcast against the leading
/// dimensions without copying the samples.
fn row(samples: &[f64], m: usize, r: f64) -> CoreResult<&[f64]> {
    let k = r as usize;
    let range = k.checked_mul(m).zip((k + 1).checked_mul(m));
    range
        .and_then(|(lo, hi)| samples.get(lo..hi))
        .ok_or_else(|| {
            // the Python wrapper builds the row indices: a bad one is a bug, not a bad argument
            PabiError::internal(format!(
                "sample row {k} out of range ({} values, m = {m})",
                samples.len()
            ))
        })
}

elementwise!(
    map_outputs,
    fn lp_per_instance_epsilon_delta([sample_rate, lp_exponent, delta, delta_prime, noise_scale, rows], sens: Arr<'py>, m: usize)
    let sensitivities = sens.as_slice()?;
    |x| {
        let (eps, delta, valid) = ex::lp_per_instance_eps_delta(
            x[0], x[1], x[2], x[3], x[4], row(sensitivities, m, x[5])?,
        )?;
        Ok([eps, delta, indicator(valid)])
    }
);

elementwise!(
    map_outputs,
    fn averaged_rdp([order, noise_scale, rows], sens: Arr<'py>, m: usize)
    let sensitivities = sens.as_slice()?;
    |x| Ok([ex::averaged_rdp(x[0], x[1], row(sensitivities, m, x[2])?)?])
);

elementwise!(
    map_outputs,
    fn mixture_rdp_bound([order, weight_rows, rdp_rows], weights: Arr<'py>, rdp: Arr<'py>, m: usize)
    let weights = weights.as_slice()?;
    let rdp = rdp.as_slice()?;
    |x| Ok([ex::mixture_rdp_bound(x[0], row(weights, m, x[1])?, row(rdp, m, x[2])?)?])
);

#[pyfunction]
fn optimal_residuals<'py>(
    py: Python<'py>,
    u: f64,
    steps: u64,
    initial_distance: f64,
    map_difference: f64,
) -> Out<'py> {
    let residuals = guarded(py, steps >= LONG_LEN as u64, || {
        ex::optimal_residuals(u, steps, initial_distance, map_difference)
    })?;
    Ok(residuals.into_pyarray(py))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn general_update_rdp(
    py: Python<'_>,
    order: u64,
    noise_scale: f64,
    updates_second: Arr<'_>,
    updates_first: Arr<'_>,
    batches: usize,
    tuples: usize,
    dimension: usize,
) -> PyResult<f64> {
    let [outer, inner] = slices![updates_second, updates_first];
    detach(py, || {
        ex::general_update_rdp(order, noise_scale, outer, inner, batches, tuples, dimension)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            sampled_gaussian_rdp,
            dpsgd_per_instance_terms,
            sum_terms_up,
            holder_composition_terms,
            holder_orders,
            rdp_to_dp_epsilon,
            rdp_to_dp_delta,
            rdp_to_dp_epsilon_many,
            rdp_to_dp_delta_many,
            rdp_compose,
            profile_to_rdp,
            gaussian_dp_constant,
            gaussian_mechanism_epsilon,
            amplify_by_sampling,
            weak_triangle_bound,
            unlearning_keep,
            kappa_from_lipschitz,
            log_lipschitz_squared,
            log_lipschitz_squared_from_kappa,
            shift_weight,
            cyclic_shift_weight_sum,
            clipped_step_kappa,
            last_iterate_rdp_general,
            last_iterate_rdp_general_exact,
            shifted_drift_bound,
            shifted_drift_bound_published,
            last_iterate_rdp_bounded,
            last_iterate_rdp_cyclic,
            shifted_cycle_bound,
            cyclic_calibration,
            gd_contraction,
            sensitivity_multi_epoch,
            gaussian_mechanism_rdp,
            holder_min_exponent,
            hoeffding_sample_size,
            shift_weight_min_steps_kappa,
            shift_weight_min_steps,
            last_iterate_rdp_small_step,
            lp_per_instance_epsilon_delta,
            averaged_rdp,
            mixture_rdp_bound,
            optimal_residuals,
            general_update_rdp,
        ]
    );
    Ok(())
}
