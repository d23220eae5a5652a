//! Bindings for `pabi_core::pld`: exact (ε,δ) composition, f_{ε,δ}, PLD objects and their FFT
//! composition, the DP-SGD accountant; `pabi_core::gdp` (GDP inversions, dominating μ). No
//! mathematics here.

use crate::{to_py, Out};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pabi_core::gdp;
use pabi_core::pld::{self, Neighbour};
use pabi_core::PabiError;
use pyo3::prelude::*;

type Triple<'py> = PyResult<(
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
)>;

#[pyfunction]
fn approx_dp_composition_delta<'py>(
    py: Python<'py>,
    eps0: PyReadonlyArray1<'py, f64>,
    delta0: PyReadonlyArray1<'py, f64>,
    k: PyReadonlyArray1<'py, f64>,
    eps: PyReadonlyArray1<'py, f64>,
) -> Out<'py> {
    let (a, b, c, d) = (
        eps0.as_slice()?,
        delta0.as_slice()?,
        k.as_slice()?,
        eps.as_slice()?,
    );
    let res = py.detach(|| -> pabi_core::Result<Vec<f64>> {
        let mut out = vec![0.0; a.len()];
        for i in 0..a.len() {
            out[i] =
                pld::approx_dp_composition_delta(a[i], b[i], c[i], d[i]).map_err(|e| e.at(i))?;
        }
        Ok(out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

#[pyfunction]
fn approx_dp_composition_epsilon<'py>(
    py: Python<'py>,
    eps0: PyReadonlyArray1<'py, f64>,
    delta0: PyReadonlyArray1<'py, f64>,
    k: PyReadonlyArray1<'py, f64>,
    delta: PyReadonlyArray1<'py, f64>,
) -> Out<'py> {
    let (a, b, c, d) = (
        eps0.as_slice()?,
        delta0.as_slice()?,
        k.as_slice()?,
        delta.as_slice()?,
    );
    let res = py.detach(|| -> pabi_core::Result<Vec<f64>> {
        let mut out = vec![0.0; a.len()];
        for i in 0..a.len() {
            out[i] =
                pld::approx_dp_composition_epsilon(a[i], b[i], c[i], d[i]).map_err(|e| e.at(i))?;
        }
        Ok(out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

#[pyfunction]
fn single_point_composed_epsilon(
    py: Python<'_>,
    eps0: PyReadonlyArray1<'_, f64>,
    delta0: PyReadonlyArray1<'_, f64>,
    epochs: f64,
    delta: f64,
) -> PyResult<f64> {
    let (a, b) = (eps0.as_slice()?, delta0.as_slice()?);
    py.detach(|| pld::single_point_composed_epsilon(a, b, epochs, delta))
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn gdp_epsilon<'py>(
    py: Python<'py>,
    delta: PyReadonlyArray1<'py, f64>,
    mu: PyReadonlyArray1<'py, f64>,
) -> Out<'py> {
    let (d, m) = (delta.as_slice()?, mu.as_slice()?);
    let res = py.detach(|| {
        let mut out = vec![0.0; d.len()];
        gdp::gdp_epsilon_array(d, m, &mut out).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

#[pyfunction]
fn gdp_mu<'py>(
    py: Python<'py>,
    eps: PyReadonlyArray1<'py, f64>,
    delta: PyReadonlyArray1<'py, f64>,
) -> Out<'py> {
    let (e, d) = (eps.as_slice()?, delta.as_slice()?);
    let res = py.detach(|| {
        let mut out = vec![0.0; e.len()];
        gdp::gdp_mu_array(e, d, &mut out).map(|_| out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

#[pyfunction]
fn gdp_mu_dominating(
    py: Python<'_>,
    eps: PyReadonlyArray1<'_, f64>,
    log_delta: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let (e, l) = (eps.as_slice()?, log_delta.as_slice()?);
    py.detach(|| gdp::gdp_mu_dominating(e, l))
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn gdp_dominating_pair(
    py: Python<'_>,
    eps: PyReadonlyArray1<'_, f64>,
    log_delta: PyReadonlyArray1<'_, f64>,
) -> PyResult<(f64, f64)> {
    let (e, l) = (eps.as_slice()?, log_delta.as_slice()?);
    py.detach(|| gdp::gdp_dominating_pair(e, l))
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn gdp_composed_epsilon(
    py: Python<'_>,
    delta: f64,
    mu: f64,
    delta_tail: f64,
    epochs: f64,
) -> PyResult<f64> {
    gdp::gdp_composed_epsilon(delta, mu, delta_tail, epochs).map_err(|e| to_py(py, e))
}

#[pyfunction]
fn tradeoff_eps_delta<'py>(
    py: Python<'py>,
    alpha: PyReadonlyArray1<'py, f64>,
    eps: PyReadonlyArray1<'py, f64>,
    delta: PyReadonlyArray1<'py, f64>,
) -> Out<'py> {
    let (a, b, c) = (alpha.as_slice()?, eps.as_slice()?, delta.as_slice()?);
    let res = py.detach(|| -> pabi_core::Result<Vec<f64>> {
        let mut out = vec![0.0; a.len()];
        for i in 0..a.len() {
            out[i] = pld::tradeoff_eps_delta(a[i], b[i], c[i]).map_err(|e| e.at(i))?;
        }
        Ok(out)
    });
    Ok(res.map_err(|e| to_py(py, e))?.into_pyarray(py))
}

fn neighbour(s: &str) -> PyResult<Neighbour> {
    match s {
        "remove" => Ok(Neighbour::Remove),
        "add" => Ok(Neighbour::Add),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "neighbour must be 'remove' or 'add', got {s:?}"
        ))),
    }
}

/// A discretised privacy-loss distribution (pessimistic connect-the-dots grid).
#[pyclass(name = "_Pld", module = "pabi._core", frozen)]
struct PyPld {
    inner: pld::Pld,
}

#[pymethods]
impl PyPld {
    #[staticmethod]
    fn subsampled_gaussian(
        py: Python<'_>,
        q: f64,
        sigma: f64,
        neighbour_: &str,
        h: f64,
    ) -> PyResult<Self> {
        let d = neighbour(neighbour_)?;
        let inner = py
            .detach(|| pld::Pld::subsampled_gaussian(q, sigma, d, h))
            .map_err(|e| to_py(py, e))?;
        Ok(PyPld { inner })
    }

    #[staticmethod]
    fn eps_delta(py: Python<'_>, eps0: f64, delta0: f64, h: f64) -> PyResult<Self> {
        let inner = pld::Pld::eps_delta(eps0, delta0, h).map_err(|e| to_py(py, e))?;
        Ok(PyPld { inner })
    }

    #[staticmethod]
    fn from_profile(py: Python<'_>, h: f64, delta: PyReadonlyArray1<'_, f64>) -> PyResult<Self> {
        let d = delta.as_slice()?;
        let inner = py
            .detach(|| pld::Pld::from_profile(h, d))
            .map_err(|e| to_py(py, e))?;
        Ok(PyPld { inner })
    }

    #[getter]
    fn h(&self) -> f64 {
        self.inner.h
    }
    #[getter]
    fn lo(&self) -> i64 {
        self.inner.lo
    }
    #[getter]
    fn inf(&self) -> f64 {
        self.inner.inf
    }
    #[getter]
    fn bad(&self) -> f64 {
        self.inner.bad
    }
    #[getter]
    fn pmf<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.pmf.clone().into_pyarray(py)
    }
}

/// A composed PLD with its error budget; queries return (lower, estimate, upper).
#[pyclass(name = "_Composition", module = "pabi._core", frozen)]
struct PyComposition {
    inner: pld::Composition,
}

#[pymethods]
impl PyComposition {
    fn delta<'py>(&self, py: Python<'py>, eps: PyReadonlyArray1<'py, f64>) -> Triple<'py> {
        let e = eps.as_slice()?;
        if let Some(i) = e.iter().position(|&x| x.is_nan() || x < 0.0) {
            return Err(to_py(py, PabiError::domain("eps", ">= 0", e[i]).at(i)));
        }
        let (a, b, c) = py.detach(|| {
            let mut a = vec![0.0; e.len()];
            let mut b = a.clone();
            let mut c = a.clone();
            for i in 0..e.len() {
                (a[i], b[i], c[i]) = self.inner.delta(e[i]);
            }
            (a, b, c)
        });
        Ok((a.into_pyarray(py), b.into_pyarray(py), c.into_pyarray(py)))
    }

    fn epsilon<'py>(&self, py: Python<'py>, delta: PyReadonlyArray1<'py, f64>) -> Triple<'py> {
        let d = delta.as_slice()?;
        if let Some(i) = d.iter().position(|&x| !(x > 0.0 && x < 1.0)) {
            return Err(to_py(
                py,
                PabiError::domain("delta", "in (0, 1)", d[i]).at(i),
            ));
        }
        let (a, b, c) = py.detach(|| {
            let mut a = vec![0.0; d.len()];
            let mut b = a.clone();
            let mut c = a.clone();
            for i in 0..d.len() {
                (a[i], b[i], c[i]) = self.inner.epsilon(d[i]);
            }
            (a, b, c)
        });
        Ok((a.into_pyarray(py), b.into_pyarray(py), c.into_pyarray(py)))
    }

    /// dict of the error-budget terms
    fn budget(&self) -> Vec<(&'static str, f64)> {
        let c = &self.inner;
        vec![
            ("h", c.h),
            ("window_points", c.pmf.len() as f64),
            ("inf", c.inf),
            ("bad", c.bad),
            ("tail_hi", c.tail_hi),
            ("tail_lo", c.tail_lo),
            ("fft_err", c.fft_err),
            ("steps", c.steps),
        ]
    }
}

#[pyfunction]
#[pyo3(signature = (parts, tail = pld::DEFAULT_TAIL))]
fn pld_compose(
    py: Python<'_>,
    parts: Vec<(Bound<'_, PyPld>, u64)>,
    tail: f64,
) -> PyResult<PyComposition> {
    let refs: Vec<(&pld::Pld, u64)> = parts.iter().map(|(p, t)| (&p.get().inner, *t)).collect();
    let inner = py
        .detach(|| pld::compose(&refs, tail))
        .map_err(|e| to_py(py, e))?;
    Ok(PyComposition { inner })
}

#[pyfunction]
fn dpsgd_epsilon(
    py: Python<'_>,
    q: f64,
    sigma: f64,
    steps: f64,
    delta: f64,
    h: f64,
) -> PyResult<(f64, f64, f64)> {
    py.detach(|| pld::dpsgd_epsilon(q, sigma, steps, delta, h))
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn dpsgd_delta(
    py: Python<'_>,
    q: f64,
    sigma: f64,
    steps: f64,
    eps: f64,
    h: f64,
) -> PyResult<(f64, f64, f64)> {
    py.detach(|| pld::dpsgd_delta(q, sigma, steps, eps, h))
        .map_err(|e| to_py(py, e))
}

#[pyfunction]
fn dpsgd_calibrate_sigma(
    py: Python<'_>,
    eps: f64,
    delta: f64,
    q: f64,
    steps: f64,
    h: f64,
    rtol: f64,
) -> PyResult<f64> {
    py.detach(|| pld::dpsgd_calibrate_sigma(eps, delta, q, steps, h, rtol))
        .map_err(|e| to_py(py, e))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(approx_dp_composition_delta, m)?)?;
    m.add_function(wrap_pyfunction!(tradeoff_eps_delta, m)?)?;
    m.add_function(wrap_pyfunction!(approx_dp_composition_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(single_point_composed_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(gdp_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(gdp_mu, m)?)?;
    m.add_function(wrap_pyfunction!(gdp_mu_dominating, m)?)?;
    m.add_function(wrap_pyfunction!(gdp_dominating_pair, m)?)?;
    m.add_function(wrap_pyfunction!(gdp_composed_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(pld_compose, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_epsilon, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_delta, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_calibrate_sigma, m)?)?;
    m.add_class::<PyPld>()?;
    m.add_class::<PyComposition>()?;
    Ok(())
}
