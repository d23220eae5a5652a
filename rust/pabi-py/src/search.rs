//! The core's exact search over the bit patterns of doubles (`pabi_core::num::bisect::first_ok`)
//! for a predicate written in Python: the setups' calibrations (`pabi/setups.py`) find their
//! smallest certified noise with it. No mathematics here.

use std::cell::Cell;

use pyo3::prelude::*;

use crate::guarded;

/// The smallest double x ≥ 0 near `x0` with `ok(x)` true, for `ok` false below a threshold and
/// true from it on (0 if ok(0), +inf if no finite double is ok); ≤ ~2·64 calls of `ok`. The
/// first exception `ok` raises ends the search and is raised again. Runs through [`guarded`]
/// (a panic becomes `InternalError`); each call of `ok` takes the GIL back.
#[pyfunction]
fn first_ok(py: Python<'_>, ok: Py<PyAny>, x0: f64) -> PyResult<f64> {
    let (x, err) = guarded(py, false, || {
        let err: Cell<Option<PyErr>> = Cell::new(None);
        let pred = |x: f64| -> bool {
            let failed = err.take();
            if failed.is_some() {
                err.set(failed);
                return true; // an error ends the search: every later query is "met"
            }
            Python::attach(
                |py| match ok.bind(py).call1((x,)).and_then(|r| r.is_truthy()) {
                    Ok(b) => b,
                    Err(e) => {
                        err.set(Some(e));
                        true
                    }
                },
            )
        };
        let x = pabi_core::num::bisect::first_ok(&pred, x0);
        Ok((x, err.take()))
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(x),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(first_ok, m)?)
}
