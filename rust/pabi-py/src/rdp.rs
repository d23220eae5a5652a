//! Bindings for `pabi_core::rdp`: sampled Gaussian RDP, per-instance DP-SGD composition,
//! conversions. All numeric work runs with the GIL released.

use crate::{to_py, Out};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pabi_core::rdp as core;
use pyo3::prelude::*;

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
) -> PyResult<(
    Bound<'py, numpy::PyArray1<f64>>,
    Bound<'py, numpy::PyArray1<f64>>,
)> {
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sampled_gaussian_rdp, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_per_instance_terms, m)?)?;
    m.add_function(wrap_pyfunction!(sum_terms_up, m)?)?;
    m.add_function(wrap_pyfunction!(holder_orders, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_to_dp_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_to_dp_delta, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_compose, m)?)?;
    m.add_function(wrap_pyfunction!(profile_to_rdp, m)?)?;
    Ok(())
}
