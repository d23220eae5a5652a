//! Bindings for `pabi_core::rdp` (placeholder: implemented on its own branch).

use pyo3::prelude::*;

pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
