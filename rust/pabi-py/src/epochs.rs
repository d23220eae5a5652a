//! Binding for `pabi_core::rdp::rdp_scale`: the composition of one RDP curve over k runs.

use crate::args::{add_functions, fill, Arr};
use crate::Out;
use pabi_core::rdp as core;
use pyo3::prelude::*;

/// k·curve rounded up (k an integer in [1, 2^53]).
#[pyfunction]
fn rdp_scale<'py>(py: Python<'py>, curve: Arr<'py>, k: f64) -> Out<'py> {
    let curve = curve.as_slice()?;
    fill(py, curve.len(), |out| core::rdp_scale(curve, k, out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, [rdp_scale]);
    Ok(())
}
