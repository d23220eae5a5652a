//! Bindings for `pabi_core::divergence`: E_γ(P‖Q) of given discrete distributions and the
//! contraction coefficient η_γ(K) of a given finite kernel; E_γ of two Gaussian mixtures.

use crate::args::{add_functions, array, detach, Arr, Np};
use crate::Out;
use pabi_core::divergence as core;
use pyo3::prelude::*;

/// E_{e^ε}(P‖Q) at each ε (upward rounded); `p_mass`, `q_mass` equally long mass vectors.
#[pyfunction]
fn hockey_stick_divergence<'py>(
    py: Python<'py>,
    p_mass: Arr<'py>,
    q_mass: Arr<'py>,
    eps: Arr<'py>,
) -> Out<'py> {
    let (p, q, e) = (p_mass.as_slice()?, q_mass.as_slice()?, eps.as_slice()?);
    let mut out = crate::zeros(e.len())?;
    array(py, || {
        core::hockey_stick(p, q, e, &mut out)?;
        Ok(std::mem::take(&mut out))
    })
}

/// η_{e^ε}(K) of a `rows` × `cols` row-major kernel (upward rounded).
#[pyfunction]
fn contraction_coefficient(
    py: Python<'_>,
    kernel: Arr<'_>,
    rows: usize,
    cols: usize,
    eps: f64,
) -> PyResult<f64> {
    let k = kernel.as_slice()?;
    detach(py, || core::contraction_coefficient(k, rows, cols, eps))
}

/// E_{e^ε}(P‖Q) of two 1-D Gaussian mixtures at each ε: (upper, lower) ends of the certified
/// bracket.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn mixture_hockey_stick_divergence<'py>(
    py: Python<'py>,
    p_weights: Arr<'py>,
    p_means: Arr<'py>,
    p_stds: Arr<'py>,
    q_weights: Arr<'py>,
    q_means: Arr<'py>,
    q_stds: Arr<'py>,
    eps: Arr<'py>,
) -> PyResult<(Np<'py>, Np<'py>)> {
    let p = core::Mixture {
        weights: p_weights.as_slice()?,
        means: p_means.as_slice()?,
        stds: p_stds.as_slice()?,
    };
    let q = core::Mixture {
        weights: q_weights.as_slice()?,
        means: q_means.as_slice()?,
        stds: q_stds.as_slice()?,
    };
    let e = eps.as_slice()?;
    let (mut up, mut lo) = (crate::zeros(e.len())?, crate::zeros(e.len())?);
    let (up, lo) = detach(py, || {
        core::mixture_hockey_stick(p, q, e, &mut up, Some(&mut lo))?;
        Ok((std::mem::take(&mut up), std::mem::take(&mut lo)))
    })?;
    use numpy::IntoPyArray;
    Ok((up.into_pyarray(py), lo.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            hockey_stick_divergence,
            contraction_coefficient,
            mixture_hockey_stick_divergence
        ]
    );
    Ok(())
}
