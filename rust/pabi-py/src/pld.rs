//! Bindings for `pabi_core::pld`: exact (ε,δ) composition, f_{ε,δ}, PLD objects and their FFT
//! composition, the DP-SGD accountant; `pabi_core::gdp` (GDP inversions, dominating μ). No
//! mathematics here.

use crate::args::{
    add_functions, detach, elementwise, fill, fill3, map, map_long, opt_slice, slices,
    values_and_errors, Arr, Many, ManyPairs, Np, Triple,
};
use crate::options;
use crate::{to_py, Out};
use numpy::IntoPyArray;
use pabi_core::composition::sampled::{self, ProfileValues};
use pabi_core::driver::broadcast_len;
use pabi_core::gdp;
use pabi_core::pld;
use pyo3::prelude::*;

elementwise!(
    map_long,
    fn approx_dp_composition_delta([eps0, delta0, k, eps])
    |[a, b, c, d]| pld::approx_dp_composition_delta(a, b, c, d)
);

elementwise!(
    map_long,
    fn approx_dp_composition_epsilon([eps0, delta0, k, delta])
    |[a, b, c, d]| pld::approx_dp_composition_epsilon(a, b, c, d)
);

#[pyfunction]
fn single_point_composed_epsilon(
    py: Python<'_>,
    eps0: Arr<'_>,
    delta0: Arr<'_>,
    epochs: f64,
    delta: f64,
) -> PyResult<f64> {
    let [a, b] = slices![eps0, delta0];
    detach(py, || {
        pld::single_point_composed_epsilon(a, b, epochs, delta)
    })
}

#[pyfunction]
fn gdp_epsilon<'py>(py: Python<'py>, delta: Arr<'py>, mu: Arr<'py>) -> Out<'py> {
    let [d, m] = slices![delta, mu];
    fill(py, broadcast_len([d.len(), m.len()]), |out| {
        gdp::gdp_epsilon_array(d, m, out)
    })
}

#[pyfunction]
fn gdp_mu<'py>(py: Python<'py>, eps: Arr<'py>, delta: Arr<'py>) -> Out<'py> {
    let [e, d] = slices![eps, delta];
    fill(py, broadcast_len([e.len(), d.len()]), |out| {
        gdp::gdp_mu_array(e, d, out)
    })
}

#[pyfunction]
fn gdp_compose(py: Python<'_>, mus: Arr<'_>) -> PyResult<f64> {
    let [m] = slices![mus];
    detach(py, || gdp::gdp_compose(m))
}

/// The profile values given as exactly one of `delta` (δ_i) or `log_delta` (ln δ_i).
fn profile_values<'a>(
    delta: &'a Option<Arr<'_>>,
    log_delta: &'a Option<Arr<'_>>,
) -> PyResult<ProfileValues<'a>> {
    match (opt_slice(delta)?, opt_slice(log_delta)?) {
        (Some(d), None) => Ok(ProfileValues::Delta(d)),
        (None, Some(l)) => Ok(ProfileValues::LogDelta(l)),
        _ => Err(pyo3::exceptions::PyValueError::new_err(
            "give exactly one of delta and log_delta",
        )),
    }
}

#[pyfunction]
#[pyo3(signature = (eps, delta=None, log_delta=None))]
fn gdp_mu_dominating(
    py: Python<'_>,
    eps: Arr<'_>,
    delta: Option<Arr<'_>>,
    log_delta: Option<Arr<'_>>,
) -> PyResult<f64> {
    let e = eps.as_slice()?;
    let v = profile_values(&delta, &log_delta)?;
    detach(py, || sampled::gdp_mu_dominating(e, v))
}

#[pyfunction]
#[pyo3(signature = (eps, delta=None, log_delta=None))]
fn gdp_dominating_pair(
    py: Python<'_>,
    eps: Arr<'_>,
    delta: Option<Arr<'_>>,
    log_delta: Option<Arr<'_>>,
) -> PyResult<(f64, f64)> {
    let e = eps.as_slice()?;
    let v = profile_values(&delta, &log_delta)?;
    detach(py, || sampled::gdp_dominating_pair(e, v))
}

#[pyfunction]
fn gdp_composed_epsilon(
    py: Python<'_>,
    delta: f64,
    mu: f64,
    delta_tail: f64,
    epochs: f64,
) -> PyResult<f64> {
    crate::guarded(py, false, || {
        gdp::gdp_composed_epsilon(delta, mu, delta_tail, epochs)
    })
}

elementwise!(
    map,
    fn tradeoff_eps_delta([alpha, eps, delta])
    |[a, b, c]| pld::tradeoff_eps_delta(a, b, c)
);

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
        sample_rate: f64,
        noise_multiplier: f64,
        direction: &str,
        grid_step: f64,
    ) -> PyResult<Self> {
        let d = options::neighbour(direction).map_err(|e| to_py(py, e))?;
        let inner = detach(py, || {
            pld::Pld::subsampled_gaussian(sample_rate, noise_multiplier, d, grid_step)
        })?;
        Ok(PyPld { inner })
    }

    /// The replace-one pair (1−q)N(0,σ²) + qN(1,σ²) vs (1−q)N(0,σ²) + qN(−1,σ²).
    #[staticmethod]
    fn replace_one_gaussian(
        py: Python<'_>,
        sample_rate: f64,
        noise_multiplier: f64,
        grid_step: f64,
    ) -> PyResult<Self> {
        let inner = detach(py, || {
            pld::Pld::replace_one_gaussian(sample_rate, noise_multiplier, grid_step)
        })?;
        Ok(PyPld { inner })
    }

    #[staticmethod]
    fn eps_delta(py: Python<'_>, eps0: f64, delta0: f64, grid_step: f64) -> PyResult<Self> {
        let inner = crate::guarded(py, false, || pld::Pld::eps_delta(eps0, delta0, grid_step))?;
        Ok(PyPld { inner })
    }

    #[staticmethod]
    fn from_profile(py: Python<'_>, grid_step: f64, profile: Arr<'_>) -> PyResult<Self> {
        let d = profile.as_slice()?;
        let inner = detach(py, || pld::Pld::from_profile(grid_step, d))?;
        Ok(PyPld { inner })
    }

    #[getter]
    fn grid_step(&self) -> f64 {
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
    fn pmf<'py>(&self, py: Python<'py>) -> Np<'py> {
        self.inner.pmf.clone().into_pyarray(py)
    }
    /// the loss grid of `pmf` (`Pld::losses`)
    #[getter]
    fn losses<'py>(&self, py: Python<'py>) -> Np<'py> {
        self.inner.losses().into_pyarray(py)
    }
}

/// A composed PLD with its error budget; queries return (lower, estimate, upper).
#[pyclass(name = "_Composition", module = "pabi._core", frozen)]
struct PyComposition {
    inner: pld::Composition,
}

#[pymethods]
impl PyComposition {
    fn delta<'py>(&self, py: Python<'py>, eps: Arr<'py>) -> Triple<'py> {
        let e = eps.as_slice()?;
        pld::Composition::check_eps(e).map_err(|err| to_py(py, err))?;
        fill3(py, e.len(), |a, b, c| self.inner.delta_each(e, a, b, c))
    }

    fn epsilon<'py>(&self, py: Python<'py>, delta: Arr<'py>) -> Triple<'py> {
        let d = delta.as_slice()?;
        pld::Composition::check_delta(d).map_err(|err| to_py(py, err))?;
        fill3(py, d.len(), |a, b, c| self.inner.epsilon_each(d, a, b, c))
    }

    /// the error-budget terms under the names of `pabi.ErrorBudget`'s fields
    fn budget(&self) -> Vec<(&'static str, f64)> {
        self.inner.budget().to_vec()
    }
}

#[pyfunction]
#[pyo3(signature = (parts, tail_mass = pld::DEFAULT_TAIL))]
fn pld_compose(
    py: Python<'_>,
    parts: Vec<(Bound<'_, PyPld>, u64)>,
    tail_mass: f64,
) -> PyResult<PyComposition> {
    let refs: Vec<(&pld::Pld, u64)> = parts.iter().map(|(p, t)| (&p.get().inner, *t)).collect();
    let inner = detach(py, || pld::compose(&refs, tail_mass))?;
    Ok(PyComposition { inner })
}

/// The accounting named by the options (an option error before any work).
fn acc(py: Python<'_>, neighboring: &str, sampling: &str) -> PyResult<pld::Accounting> {
    options::accounting(neighboring, sampling).map_err(|e| to_py(py, e))
}

#[pyfunction]
#[pyo3(signature = (q, sigma, steps, delta, h, neighboring = "add_remove", sampling = "poisson"))]
#[allow(clippy::too_many_arguments)]
fn dpsgd_epsilon(
    py: Python<'_>,
    q: f64,
    sigma: f64,
    steps: f64,
    delta: f64,
    h: f64,
    neighboring: &str,
    sampling: &str,
) -> PyResult<(f64, f64, f64)> {
    let a = acc(py, neighboring, sampling)?;
    detach(py, || pld::dpsgd_epsilon_with(q, sigma, steps, delta, h, a))
}

#[pyfunction]
#[pyo3(signature = (q, sigma, steps, eps, h, neighboring = "add_remove", sampling = "poisson"))]
#[allow(clippy::too_many_arguments)]
fn dpsgd_delta(
    py: Python<'_>,
    q: f64,
    sigma: f64,
    steps: f64,
    eps: f64,
    h: f64,
    neighboring: &str,
    sampling: &str,
) -> PyResult<(f64, f64, f64)> {
    let a = acc(py, neighboring, sampling)?;
    detach(py, || pld::dpsgd_delta_with(q, sigma, steps, eps, h, a))
}

/// The certified upper δ(ε) of DP-SGD at every ε of `eps` (one composition for all).
#[pyfunction]
#[pyo3(signature = (q, sigma, steps, eps, h, neighboring = "add_remove", sampling = "poisson"))]
#[allow(clippy::too_many_arguments)]
fn dpsgd_delta_upper_all<'py>(
    py: Python<'py>,
    q: f64,
    sigma: f64,
    steps: f64,
    eps: Arr<'py>,
    h: f64,
    neighboring: &str,
    sampling: &str,
) -> Out<'py> {
    let a = acc(py, neighboring, sampling)?;
    let e = eps.as_slice()?;
    let mut out = crate::zeros(e.len())?;
    crate::guarded(py, true, || {
        pld::dpsgd_delta_upper_all_with(q, sigma, steps, e, h, &mut out, a)
    })?;
    Ok(out.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (eps, delta, q, steps, h, rtol, neighboring = "add_remove", sampling = "poisson"))]
#[allow(clippy::too_many_arguments)]
fn dpsgd_calibrate_sigma(
    py: Python<'_>,
    eps: f64,
    delta: f64,
    q: f64,
    steps: f64,
    h: f64,
    rtol: f64,
    neighboring: &str,
    sampling: &str,
) -> PyResult<f64> {
    let a = acc(py, neighboring, sampling)?;
    detach(py, || {
        pld::dpsgd_calibrate_sigma_with(eps, delta, q, steps, h, rtol, a)
    })
}

/// [`pabi_core::composition::dpsgd::dpsgd_calibrate_sigma_many_with`]: the calibrated σ of
/// every target (eps[i], delta[i]), in parallel with the GIL released: the values and the
/// failed targets' errors ([`Many`]: each the scalar calibration's exception).
#[pyfunction]
#[pyo3(signature = (eps, delta, q, steps, h, rtol, neighboring = "add_remove", sampling = "poisson"))]
#[allow(clippy::too_many_arguments)]
fn dpsgd_calibrate_sigma_many<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    delta: Arr<'py>,
    q: f64,
    steps: f64,
    h: f64,
    rtol: f64,
    neighboring: &str,
    sampling: &str,
) -> Many<'py> {
    let a = acc(py, neighboring, sampling)?;
    let [e, d] = slices![eps, delta];
    let res = detach(py, || {
        pabi_core::composition::dpsgd::dpsgd_calibrate_sigma_many_with(e, d, q, steps, h, rtol, a)
    })?;
    values_and_errors(py, res)
}

/// [`pld::profiles_composed_epsilon`] (each profile's PLD composed, its certified upper ε at
/// its δ and the composed +∞ mass that ε counts; the profiles in parallel, the GIL released):
/// the ε values, the masses (NaN where the profile failed) and the errors of the profiles whose
/// steps fail ([`ManyPairs`]: each the one-by-one route's exception).
#[pyfunction]
fn pld_profiles_composed_epsilon<'py>(
    py: Python<'py>,
    grid_step: f64,
    values: Arr<'py>,
    offsets: Vec<usize>,
    count: u64,
    tail_mass: f64,
    delta: Arr<'py>,
) -> ManyPairs<'py> {
    let [v, d] = slices![values, delta];
    let res = detach(py, || {
        pld::profiles_composed_epsilon(grid_step, v, &offsets, count, tail_mass, d)
    })?;
    let inf: Vec<f64> = res
        .iter()
        .map(|r| r.as_ref().map_or(f64::NAN, |&(_, m)| m))
        .collect();
    let (eps, errors) =
        values_and_errors(py, res.into_iter().map(|r| r.map(|(e, _)| e)).collect())?;
    Ok((eps, inf.into_pyarray(py), errors))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            approx_dp_composition_delta,
            tradeoff_eps_delta,
            approx_dp_composition_epsilon,
            single_point_composed_epsilon,
            gdp_epsilon,
            gdp_mu,
            gdp_compose,
            gdp_mu_dominating,
            gdp_dominating_pair,
            gdp_composed_epsilon,
            pld_compose,
            dpsgd_epsilon,
            dpsgd_delta,
            dpsgd_delta_upper_all,
            dpsgd_calibrate_sigma,
            dpsgd_calibrate_sigma_many,
            pld_profiles_composed_epsilon
        ]
    );
    m.add_class::<PyPld>()?;
    m.add_class::<PyComposition>()?;
    Ok(())
}
