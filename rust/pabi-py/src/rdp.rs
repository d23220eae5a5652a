//! Bindings for `pabi_core::rdp`: sampled Gaussian RDP, per-instance DP-SGD composition,
//! conversions. All numeric work runs with the GIL released.

use crate::{to_py, Out};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pabi_core::rdp as core;
use pyo3::prelude::*;

type Arr<'py> = Bound<'py, numpy::PyArray1<f64>>;

#[pyfunction]
#[pyo3(signature = (alpha, q, sensitivity, sigma, exact=false))]
fn sampled_gaussian_rdp<'py>(
    py: Python<'py>,
    alpha: PyReadonlyArray1<'py, f64>,
    q: PyReadonlyArray1<'py, f64>,
    sensitivity: PyReadonlyArray1<'py, f64>,
    sigma: PyReadonlyArray1<'py, f64>,
    exact: bool,
) -> Out<'py> {
    let mode = if exact {
        core::Fractional::Exact
    } else {
        core::Fractional::Ceil
    };
    let (a, qq, s, sg) = (
        alpha.as_slice()?,
        q.as_slice()?,
        sensitivity.as_slice()?,
        sigma.as_slice()?,
    );
    let res = py.detach(|| {
        let mut out = vec![0.0; a.len()];
        core::sampled_gaussian_rdp_batch(a, qq, s, sg, mode, &mut out).map(|_| out)
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

fn int(name: &'static str, v: f64) -> CoreResult<u64> {
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
fn opt_int(name: &'static str, v: f64) -> CoreResult<Option<u64>> {
    if v.is_nan() {
        Ok(None)
    } else {
        int(name, v).map(Some)
    }
}

fn bmap<const N: usize, const K: usize>(
    py: Python<'_>,
    args: Slices<'_, N>,
    f: impl Fn([f64; N]) -> CoreResult<[f64; K]> + Sync + Send,
) -> PyResult<Vec<f64>> {
    py.detach(|| pabi_core::rdp::elementwise::map_elements(args, f))
        .map_err(|e| to_py(py, e))
}

macro_rules! elementwise {
    ($name:ident, [$($arg:ident),*], |$x:ident| $body:expr) => {
        #[pyfunction]
        #[allow(clippy::too_many_arguments)]
        fn $name<'py>(py: Python<'py>, $($arg: PyReadonlyArray1<'py, f64>),*) -> Out<'py> {
            let v = bmap(py, [$($arg.as_slice()?),*], |$x| $body)?;
            Ok(v.into_pyarray(py))
        }
    };
    ($name:ident, [$($arg:ident),*], $flag:ident, |$x:ident| $body:expr) => {
        #[pyfunction]
        #[allow(clippy::too_many_arguments)]
        fn $name<'py>(py: Python<'py>, $($arg: PyReadonlyArray1<'py, f64>,)* $flag: bool) -> Out<'py> {
            let v = bmap(py, [$($arg.as_slice()?),*], |$x| $body)?;
            Ok(v.into_pyarray(py))
        }
    };
}

fn lip(as_published: bool) -> ex::LipschitzModel {
    if as_published {
        ex::LipschitzModel::AsPublished
    } else {
        ex::LipschitzModel::Triangle
    }
}

fn b2f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

elementwise!(gaussian_dp_constant, [delta, sigma], |x| Ok([
    ex::gaussian_dp_constant(x[0], x[1])?
]));
elementwise!(gaussian_mechanism_epsilon, [delta, sigma, sens], |x| {
    let (e, ok) = ex::gaussian_mechanism_epsilon(x[0], x[1], x[2])?;
    Ok([e, b2f(ok)])
});
elementwise!(amplify_by_sampling, [eps, delta, q], |x| {
    let (e, d) = ex::amplify_by_sampling(x[0], x[1], x[2])?;
    Ok([e, d])
});
elementwise!(weak_triangle_bound, [alpha, p, d_pa, d_gpa], |x| Ok([
    ex::weak_triangle_bound(x[0], x[1], x[2], x[3])?
]));
elementwise!(
    unlearning_keep,
    [alpha, beta, d_2a_prev, d_2a1_step],
    as_published,
    |x| Ok([b2f(ex::unlearning_keep(
        x[0],
        x[1],
        x[2],
        x[3],
        as_published
    )?)])
);
elementwise!(kappa_from_l, [l], |x| Ok([ex::kappa_from_l(x[0])?]));
elementwise!(theta_l_kappa, [kappa, s], |x| Ok([ex::theta_l_kappa(
    x[0], x[1]
)?]));
elementwise!(cyclic_theta_sum, [kappa, t, ell], |x| Ok([
    ex::cyclic_theta_sum(x[0], int("T", x[1])?, int("ell", x[2])?)?
]));
elementwise!(l_lambda_kappa, [lam, m, big_m], as_published, |x| Ok([
    ex::l_lambda_kappa(x[0], x[1], x[2], lip(as_published))?
]));
elementwise!(
    last_iterate_rdp_general,
    [alpha, lam, clip, sigma, t],
    |x| Ok([ex::last_iterate_rdp_general(
        x[0],
        x[1],
        x[2],
        x[3],
        int("T", x[4])?
    )?])
);
elementwise!(
    last_iterate_rdp_general_exact,
    [alpha, lam, clip, sigma, t, b, ell, t_star],
    |x| Ok([ex::last_iterate_rdp_general_exact(
        x[0],
        x[1],
        x[2],
        x[3],
        int("T", x[4])?,
        int("b", x[5])?,
        int("ell", x[6])?,
        opt_int("t_star", x[7])?,
    )?])
);
elementwise!(
    shifted_drift_bound,
    [alpha, sigma, zeta, sbar, t, ell],
    |x| Ok([ex::shifted_drift_bound(
        x[0],
        x[1],
        x[2],
        x[3],
        int("T", x[4])?,
        int("ell", x[5])?
    )?])
);
elementwise!(
    shifted_drift_bound_published,
    [alpha, sigma, zeta, t],
    |x| Ok([ex::shifted_drift_bound_published(
        x[0],
        x[1],
        x[2],
        int("T", x[3])?
    )?])
);
elementwise!(
    last_iterate_rdp_bounded,
    [alpha, lam, m, big_m, d_h, clip, b, sigma],
    as_published,
    |x| {
        let k = ex::smooth_step_kappa(x[1], x[2], x[3], lip(as_published))?;
        Ok([ex::last_iterate_rdp_bounded(
            x[0],
            k,
            x[4],
            x[1],
            x[5],
            int("b", x[6])?,
            x[7],
        )?])
    }
);
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn last_iterate_rdp_cyclic<'py>(
    py: Python<'py>,
    alpha: PyReadonlyArray1<'py, f64>,
    lam: PyReadonlyArray1<'py, f64>,
    m: PyReadonlyArray1<'py, f64>,
    big_m: PyReadonlyArray1<'py, f64>,
    clip: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
    sigma: PyReadonlyArray1<'py, f64>,
    t: PyReadonlyArray1<'py, f64>,
    ell: PyReadonlyArray1<'py, f64>,
    t_star: PyReadonlyArray1<'py, f64>,
    as_published: bool,
    model_as_published: bool,
) -> Out<'py> {
    let args = [
        alpha.as_slice()?,
        lam.as_slice()?,
        m.as_slice()?,
        big_m.as_slice()?,
        clip.as_slice()?,
        b.as_slice()?,
        sigma.as_slice()?,
        t.as_slice()?,
        ell.as_slice()?,
        t_star.as_slice()?,
    ];
    let v = bmap(py, args, |x| {
        let k = ex::smooth_step_kappa(x[1], x[2], x[3], lip(model_as_published))?;
        Ok([ex::last_iterate_rdp_cyclic(
            x[0],
            k,
            x[1],
            x[4],
            int("b", x[5])?,
            x[6],
            int("T", x[7])?,
            int("ell", x[8])?,
            opt_int("t_star", x[9])?,
            as_published,
        )?])
    })?;
    Ok(v.into_pyarray(py))
}
elementwise!(
    shifted_cycle_bound,
    [alpha, sigma, kappa, tau, sbar, t, ell],
    |x| Ok([ex::shifted_cycle_bound(
        x[0],
        x[1],
        x[2],
        x[3],
        x[4],
        int("T", x[5])?,
        int("ell", x[6])?
    )?])
);
elementwise!(
    cyclic_calibration,
    [alpha, eps, rho, big_m, clip, b, epochs],
    as_published,
    |x| {
        let (l, e, s) = ex::cyclic_calibration(
            x[0],
            x[1],
            x[2],
            x[3],
            x[4],
            int("b", x[5])?,
            int("epochs", x[6])?,
            as_published,
        )?;
        Ok([l, e, s])
    }
);
elementwise!(gd_contraction_rho, [eta, mu, smooth], |x| {
    let (r, g) = ex::gd_contraction_rho(x[0], x[1], x[2])?;
    Ok([r, g])
});
elementwise!(
    sensitivity_multi_epoch,
    [eta, mu, smooth, grad_bound, batch, m, j, epochs],
    |x| Ok([ex::sensitivity_multi_epoch(
        x[0],
        x[1],
        x[2],
        x[3],
        x[4],
        int("m", x[5])?,
        int("j", x[6])?,
        opt_int("epochs", x[7])?,
    )?])
);
elementwise!(gaussian_mech_rdp, [alpha, sens, sigma], |x| Ok([
    ex::gaussian_mech_rdp(x[0], x[1], x[2])?
]));
elementwise!(holder_min_p, [n, alpha, cap_factor], |x| Ok([
    ex::holder_min_p(int("n", x[0])?, x[1], x[2])?
]));

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

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn hoeffding_sample_size_ln<'py>(
    py: Python<'py>,
    alpha: PyReadonlyArray1<'py, f64>,
    eps: PyReadonlyArray1<'py, f64>,
    eps_prime: PyReadonlyArray1<'py, f64>,
    c: PyReadonlyArray1<'py, f64>,
    j: PyReadonlyArray1<'py, f64>,
    variant: &str,
) -> Out<'py> {
    let v = sample_variant(variant)?;
    let args = [
        alpha.as_slice()?,
        eps.as_slice()?,
        eps_prime.as_slice()?,
        c.as_slice()?,
        j.as_slice()?,
    ];
    let out = bmap(py, args, |x| {
        Ok([ex::hoeffding_sample_size_ln(
            x[0], x[1], x[2], x[3], x[4], v,
        )?])
    })?;
    Ok(out.into_pyarray(py))
}

elementwise!(theta_min_steps, [kappa, xi], |x| Ok([ex::theta_min_steps(
    x[0], x[1]
)?]));
elementwise!(
    last_iterate_rdp_small_step,
    [alpha, lam, m, big_m, clip, b, sigma, ell],
    as_published,
    |x| {
        let k = ex::smooth_step_kappa(x[1], x[2], x[3], lip(as_published))?;
        Ok([ex::last_iterate_rdp_small_step(
            x[0],
            k,
            x[4],
            int("b", x[5])?,
            x[6],
            int("ell", x[7])?,
        )?])
    }
);

/// Row-wise helpers over a sample axis: element i uses row `rows[i]` of the (R, m) sample
/// matrix `samples` (flat), so the per-element parameters broadcast against the leading
/// dimensions without copying the samples.
fn row(samples: &[f64], m: usize, r: f64) -> CoreResult<&[f64]> {
    let k = r as usize;
    samples.get(k * m..(k + 1) * m).ok_or_else(|| {
        PabiError::unreachable(format!(
            "sample row {k} out of range ({} values, m = {m})",
            samples.len()
        ))
    })
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn lp_per_instance_eps_delta<'py>(
    py: Python<'py>,
    q: PyReadonlyArray1<'py, f64>,
    p: PyReadonlyArray1<'py, f64>,
    delta: PyReadonlyArray1<'py, f64>,
    delta_prime: PyReadonlyArray1<'py, f64>,
    sigma: PyReadonlyArray1<'py, f64>,
    rows: PyReadonlyArray1<'py, f64>,
    sens: PyReadonlyArray1<'py, f64>,
    m: usize,
) -> Out<'py> {
    let s = sens.as_slice()?;
    let args = [
        q.as_slice()?,
        p.as_slice()?,
        delta.as_slice()?,
        delta_prime.as_slice()?,
        sigma.as_slice()?,
        rows.as_slice()?,
    ];
    let out = bmap(py, args, |x| {
        let (e, d, ok) =
            ex::lp_per_instance_eps_delta(x[0], x[1], x[2], x[3], x[4], row(s, m, x[5])?)?;
        Ok([e, d, b2f(ok)])
    })?;
    Ok(out.into_pyarray(py))
}

#[pyfunction]
fn averaged_rdp<'py>(
    py: Python<'py>,
    alpha: PyReadonlyArray1<'py, f64>,
    sigma: PyReadonlyArray1<'py, f64>,
    rows: PyReadonlyArray1<'py, f64>,
    sens: PyReadonlyArray1<'py, f64>,
    m: usize,
) -> Out<'py> {
    let s = sens.as_slice()?;
    let args = [alpha.as_slice()?, sigma.as_slice()?, rows.as_slice()?];
    let out = bmap(py, args, |x| {
        Ok([ex::averaged_rdp(x[0], x[1], row(s, m, x[2])?)?])
    })?;
    Ok(out.into_pyarray(py))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn mixture_rdp_bound<'py>(
    py: Python<'py>,
    alpha: PyReadonlyArray1<'py, f64>,
    wrows: PyReadonlyArray1<'py, f64>,
    erows: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    eps: PyReadonlyArray1<'py, f64>,
    m: usize,
) -> Out<'py> {
    let (w, e) = (weights.as_slice()?, eps.as_slice()?);
    let args = [alpha.as_slice()?, wrows.as_slice()?, erows.as_slice()?];
    let out = bmap(py, args, |x| {
        Ok([ex::mixture_rdp_bound(
            x[0],
            row(w, m, x[1])?,
            row(e, m, x[2])?,
        )?])
    })?;
    Ok(out.into_pyarray(py))
}

#[pyfunction]
fn optimal_residuals<'py>(py: Python<'py>, kappa: f64, t: u64, tau: f64, s: f64) -> Out<'py> {
    let v = ex::optimal_residuals(kappa, t, tau, s).map_err(|e| to_py(py, e))?;
    Ok(v.into_pyarray(py))
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
    m.add_function(wrap_pyfunction!(kappa_from_l, m)?)?;
    m.add_function(wrap_pyfunction!(theta_l_kappa, m)?)?;
    m.add_function(wrap_pyfunction!(cyclic_theta_sum, m)?)?;
    m.add_function(wrap_pyfunction!(l_lambda_kappa, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_general, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_general_exact, m)?)?;
    m.add_function(wrap_pyfunction!(shifted_drift_bound, m)?)?;
    m.add_function(wrap_pyfunction!(shifted_drift_bound_published, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_bounded, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_cyclic, m)?)?;
    m.add_function(wrap_pyfunction!(shifted_cycle_bound, m)?)?;
    m.add_function(wrap_pyfunction!(cyclic_calibration, m)?)?;
    m.add_function(wrap_pyfunction!(gd_contraction_rho, m)?)?;
    m.add_function(wrap_pyfunction!(sensitivity_multi_epoch, m)?)?;
    m.add_function(wrap_pyfunction!(gaussian_mech_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(holder_min_p, m)?)?;
    m.add_function(wrap_pyfunction!(hoeffding_sample_size_ln, m)?)?;
    m.add_function(wrap_pyfunction!(theta_min_steps, m)?)?;
    m.add_function(wrap_pyfunction!(last_iterate_rdp_small_step, m)?)?;
    m.add_function(wrap_pyfunction!(lp_per_instance_eps_delta, m)?)?;
    m.add_function(wrap_pyfunction!(averaged_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(mixture_rdp_bound, m)?)?;
    m.add_function(wrap_pyfunction!(optimal_residuals, m)?)?;
    m.add_function(wrap_pyfunction!(general_update_rdp, m)?)?;
    Ok(())
}
