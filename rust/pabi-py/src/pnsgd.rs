//! Bindings for `pabi_core::pnsgd`. Every array argument is a contiguous 1-D float64 array of
//! length 1 (broadcast, stride 0) or `len`; the Python layer (`pabi/pnsgd.py`) does the numpy
//! broadcasting without materializing scalar arguments.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pabi_core::pnsgd::{self, Noise, Order, Params, RdpParams};
use pyo3::prelude::*;

use crate::{to_py, Out};

type Arr<'py> = PyReadonlyArray1<'py, f64>;

fn sl<'a>(a: &'a Arr<'_>) -> PyResult<&'a [f64]> {
    Ok(a.as_slice()?)
}

fn osl<'a>(a: &'a Option<Arr<'_>>) -> PyResult<Option<&'a [f64]>> {
    match a {
        Some(x) => Ok(Some(x.as_slice()?)),
        None => Ok(None),
    }
}

#[allow(clippy::too_many_arguments)]
fn params<'a>(
    py: Python<'_>,
    noise: &str,
    order: &str,
    variant: &str,
    sigma: &'a [f64],
    lipschitz: &'a [f64],
    lr: &'a [f64],
    diameter: &'a [f64],
    n: &'a [f64],
    index: Option<&'a [f64]>,
    smoothness: Option<&'a [f64]>,
    strong_convexity: &'a [f64],
) -> PyResult<Params<'a>> {
    Ok(Params {
        noise: Noise::parse(noise).map_err(|e| to_py(py, e))?,
        order: Order::parse(order, variant).map_err(|e| to_py(py, e))?,
        sigma,
        lipschitz,
        lr,
        diameter,
        n,
        index,
        smoothness,
        strong_convexity,
    })
}

/// δ (or ln δ with `log=True`) of the PNSGD bound, broadcast length `len`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (eps, sigma, lipschitz, lr, diameter, n, index, smoothness, strong_convexity, noise, order, variant, log, len))]
fn pnsgd_delta<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    sigma: Arr<'py>,
    lipschitz: Arr<'py>,
    lr: Arr<'py>,
    diameter: Arr<'py>,
    n: Arr<'py>,
    index: Option<Arr<'py>>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    noise: &str,
    order: &str,
    variant: &str,
    log: bool,
    len: usize,
) -> Out<'py> {
    let p = params(
        py,
        noise,
        order,
        variant,
        sl(&sigma)?,
        sl(&lipschitz)?,
        sl(&lr)?,
        sl(&diameter)?,
        sl(&n)?,
        osl(&index)?,
        osl(&smoothness)?,
        sl(&strong_convexity)?,
    )?;
    let e = sl(&eps)?;
    let res = py.detach(|| {
        let mut out = vec![0.0; len];
        let r = if log {
            pnsgd::log_delta(e, p, &mut out)
        } else {
            pnsgd::delta(e, p, &mut out)
        };
        r.map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

/// Smallest ε whose δ does not exceed the target.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (delta, sigma, lipschitz, lr, diameter, n, index, smoothness, strong_convexity, noise, order, variant, len))]
fn pnsgd_epsilon<'py>(
    py: Python<'py>,
    delta: Arr<'py>,
    sigma: Arr<'py>,
    lipschitz: Arr<'py>,
    lr: Arr<'py>,
    diameter: Arr<'py>,
    n: Arr<'py>,
    index: Option<Arr<'py>>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    noise: &str,
    order: &str,
    variant: &str,
    len: usize,
) -> Out<'py> {
    let p = params(
        py,
        noise,
        order,
        variant,
        sl(&sigma)?,
        sl(&lipschitz)?,
        sl(&lr)?,
        sl(&diameter)?,
        sl(&n)?,
        osl(&index)?,
        osl(&smoothness)?,
        sl(&strong_convexity)?,
    )?;
    let d = sl(&delta)?;
    let res = py.detach(|| {
        let mut out = vec![0.0; len];
        pnsgd::epsilon(d, p, &mut out).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

/// Smallest noise meeting (ε, δ).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (eps, delta, lipschitz, lr, diameter, n, index, smoothness, strong_convexity, noise, order, variant, len))]
fn pnsgd_calibrate_sigma<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    delta: Arr<'py>,
    lipschitz: Arr<'py>,
    lr: Arr<'py>,
    diameter: Arr<'py>,
    n: Arr<'py>,
    index: Option<Arr<'py>>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    noise: &str,
    order: &str,
    variant: &str,
    len: usize,
) -> Out<'py> {
    let p = params(
        py,
        noise,
        order,
        variant,
        &[1.0],
        sl(&lipschitz)?,
        sl(&lr)?,
        sl(&diameter)?,
        sl(&n)?,
        osl(&index)?,
        osl(&smoothness)?,
        sl(&strong_convexity)?,
    )?;
    let (e, d) = (sl(&eps)?, sl(&delta)?);
    let res = py.detach(|| {
        let mut out = vec![0.0; len];
        pnsgd::calibrate_sigma(e, d, p, &mut out).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

type Three<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);

/// (A, B, 1 − B).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (eps, sigma, lipschitz, lr, diameter, smoothness, strong_convexity, noise, len))]
fn pnsgd_factors<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    sigma: Arr<'py>,
    lipschitz: Arr<'py>,
    lr: Arr<'py>,
    diameter: Arr<'py>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    noise: &str,
    len: usize,
) -> PyResult<Three<'py>> {
    let p = params(
        py,
        noise,
        "shuffled",
        "refined",
        sl(&sigma)?,
        sl(&lipschitz)?,
        sl(&lr)?,
        sl(&diameter)?,
        &[1.0],
        None,
        osl(&smoothness)?,
        sl(&strong_convexity)?,
    )?;
    let e = sl(&eps)?;
    let res = py.detach(|| {
        let (mut a, mut b, mut u) = (vec![0.0; len], vec![0.0; len], vec![0.0; len]);
        pnsgd::factors(e, p, &mut a, &mut b, &mut u).map(|_| (a, b, u))
    });
    let (a, b, u) = res.map_err(|e| to_py(py, e))?;
    Ok((a.into_pyarray(py), b.into_pyarray(py), u.into_pyarray(py)))
}

#[allow(clippy::too_many_arguments)]
fn rdp_params<'a>(
    sigma: &'a [f64],
    lipschitz: &'a [f64],
    lr: &'a [f64],
    n: &'a [f64],
    index: &'a [f64],
    smoothness: Option<&'a [f64]>,
    strong_convexity: &'a [f64],
) -> RdpParams<'a> {
    RdpParams {
        sigma,
        lipschitz,
        lr,
        n,
        index,
        smoothness,
        strong_convexity,
    }
}

/// δ_B (or ln δ_B) of the RDP comparison bound.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (eps, sigma, lipschitz, lr, n, index, smoothness, strong_convexity, log, len))]
fn pnsgd_rdp_delta<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    sigma: Arr<'py>,
    lipschitz: Arr<'py>,
    lr: Arr<'py>,
    n: Arr<'py>,
    index: Arr<'py>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    log: bool,
    len: usize,
) -> Out<'py> {
    let p = rdp_params(
        sl(&sigma)?,
        sl(&lipschitz)?,
        sl(&lr)?,
        sl(&n)?,
        sl(&index)?,
        osl(&smoothness)?,
        sl(&strong_convexity)?,
    );
    let e = sl(&eps)?;
    let res = py.detach(|| {
        let mut out = vec![0.0; len];
        pnsgd::rdp_delta(e, p, &mut out, log).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

/// ε(δ) of the RDP comparison bound.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (delta, sigma, lipschitz, lr, n, index, smoothness, strong_convexity, len))]
fn pnsgd_rdp_epsilon<'py>(
    py: Python<'py>,
    delta: Arr<'py>,
    sigma: Arr<'py>,
    lipschitz: Arr<'py>,
    lr: Arr<'py>,
    n: Arr<'py>,
    index: Arr<'py>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    len: usize,
) -> Out<'py> {
    let p = rdp_params(
        sl(&sigma)?,
        sl(&lipschitz)?,
        sl(&lr)?,
        sl(&n)?,
        sl(&index)?,
        osl(&smoothness)?,
        sl(&strong_convexity)?,
    );
    let d = sl(&delta)?;
    let res = py.detach(|| {
        let mut out = vec![0.0; len];
        pnsgd::rdp_epsilon(d, p, &mut out).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

/// c_i, the RDP slope of the comparison bound.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (sigma, lipschitz, lr, n, index, smoothness, strong_convexity, len))]
fn pnsgd_rdp_slope<'py>(
    py: Python<'py>,
    sigma: Arr<'py>,
    lipschitz: Arr<'py>,
    lr: Arr<'py>,
    n: Arr<'py>,
    index: Arr<'py>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    len: usize,
) -> Out<'py> {
    let p = rdp_params(
        sl(&sigma)?,
        sl(&lipschitz)?,
        sl(&lr)?,
        sl(&n)?,
        sl(&index)?,
        osl(&smoothness)?,
        sl(&strong_convexity)?,
    );
    let res = py.detach(|| {
        let mut out = vec![0.0; len];
        pnsgd::rdp_slope_values(p, &mut out).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pnsgd_rdp_slope, m)?)?;
    m.add_function(wrap_pyfunction!(pnsgd_delta, m)?)?;
    m.add_function(wrap_pyfunction!(pnsgd_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(pnsgd_calibrate_sigma, m)?)?;
    m.add_function(wrap_pyfunction!(pnsgd_factors, m)?)?;
    m.add_function(wrap_pyfunction!(pnsgd_rdp_delta, m)?)?;
    m.add_function(wrap_pyfunction!(pnsgd_rdp_epsilon, m)?)?;
    Ok(())
}
