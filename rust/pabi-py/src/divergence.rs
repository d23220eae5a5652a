//! Bindings for `pabi_core::divergence`: E_γ(P‖Q) of given discrete distributions and the
//! contraction coefficient η_γ(K) of a given finite kernel.

use crate::args::{add_functions, array, detach, Arr};
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
    array(py, || {
        let mut out = vec![0.0; e.len()];
        core::hockey_stick(p, q, e, &mut out)?;
        Ok(out)
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, [hockey_stick_divergence, contraction_coefficient]);
    Ok(())
}
