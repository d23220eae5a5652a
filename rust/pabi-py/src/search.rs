//! The core's exact search over the bit patterns of doubles (`pabi_core::num::bisect::first_ok`)
//! for a predicate written in Python: the setups' calibrations (`pabi/setups.py`) find their
//! smallest certified noise with it. No mathematics here.

use std::cell::Cell;

use pyo3::prelude::*;

/// The smallest double x ≥ 0 near `x0` with `ok(x)` true, for `ok` false below a threshold and
/// true from it on (0 if ok(0), +inf if no finite double is ok); ≤ ~2·64 calls of `ok`. The
/// first exception `ok` raises ends the search and is raised again.
#[pyfunction]
fn first_ok(ok: &Bound<'_, PyAny>, x0: f64) -> PyResult<f64> {
    let err: Cell<Option<PyErr>> = Cell::new(None);
    let pred = |x: f64| -> bool {
        let failed = err.take();
        if failed.is_some() {
            err.set(failed);
            return true; // an error ends the search: every later query is "met"
        }
        match ok.call1((x,)).and_then(|r| r.is_truthy()) {
            Ok(b) => b,
            Err(e) => {
                err.set(Some(e));
                true
            }
        }
    };
    let x = pabi_core::num::bisect::first_ok(&pred, x0);
    match err.take() {
        Some(e) => Err(e),
        None => Ok(x),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(first_ok, m)?)
}
