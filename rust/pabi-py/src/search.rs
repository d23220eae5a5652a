//! The core's exact search over the bit patterns of doubles (`pabi_core::num::bisect::first_ok`)
//! for a predicate written in Python, and its lock-step form over many guesses
//! (`first_ok_many`, one Python call per round for every running search): the setups'
//! calibrations (`pabi/setups.py`) find their smallest certified noise with them; and the
//! binding of the many-curve RDP conversion they test curves with. No mathematics here.

use std::cell::Cell;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyTuple};

use crate::args::{slices, Arr, Np};
use crate::{guarded, zeros};

/// The smallest double x ≥ 0 near `x0` with `ok(x)` true, for `ok` false below a threshold and
/// true from it on (0 if ok(0), +inf if no finite double is ok); ≤ ~2·64 + 8 calls of `ok`. `ok`
/// returns a verdict, or a pair (verdict, ratio of its function to its target) whose ratio
/// guides the probes (`pabi_core::num::bisect::first_ok_valued`: the same result, decided by
/// the verdicts; ~10-25 calls). The first exception `ok` raises ends the search and is raised
/// again. Runs through [`guarded`]
/// (a panic becomes `InternalError`); each call of `ok` takes the GIL back.
#[pyfunction]
fn first_ok(py: Python<'_>, ok: Py<PyAny>, x0: f64) -> PyResult<f64> {
    let (x, err) = guarded(py, false, || {
        let err: Cell<Option<PyErr>> = Cell::new(None);
        let pred = |x: f64| -> (bool, f64) {
            let failed = err.take();
            if failed.is_some() {
                err.set(failed);
                return (true, f64::NAN); // an error ends the search: every later query is "met"
            }
            Python::attach(
                |py| match ok.bind(py).call1((x,)).and_then(|r| verdict(&r)) {
                    Ok(v) => v,
                    Err(e) => {
                        err.set(Some(e));
                        (true, f64::NAN)
                    }
                },
            )
        };
        let x = pabi_core::num::bisect::first_ok_valued(&pred, x0);
        Ok((x, err.take()))
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(x),
    }
}

/// A scalar predicate's answer: its truth value, or a pair (truth value, ratio: a float) (NaN:
/// no ratio). Any other object, a tuple included, answers by its truth value.
fn verdict(r: &Bound<'_, PyAny>) -> PyResult<(bool, f64)> {
    if let Ok(t) = r.cast::<PyTuple>() {
        if t.len() == 2 && t.get_item(1)?.is_instance_of::<PyFloat>() {
            return Ok((t.get_item(0)?.is_truthy()?, t.get_item(1)?.extract()?));
        }
    }
    Ok((r.is_truthy()?, f64::NAN))
}

/// A round's answer: the verdicts, or a pair (verdicts, ratios) whose ratios go to `ratios` (a
/// tuple of two bools is two verdicts, as before ratios existed).
fn round_answer(r: &Bound<'_, PyAny>, oks: &mut [bool], ratios: &mut [f64]) -> PyResult<()> {
    if let Ok(t) = r.cast::<PyTuple>() {
        if t.len() == 2 && !t.get_item(0)?.is_instance_of::<PyBool>() {
            round_values(&t.get_item(0)?, oks)?;
            return round_ratios(&t.get_item(1)?, ratios);
        }
    }
    round_values(r, oks)
}

/// The ratios of one round: a contiguous float64 array of the round's length, read as one
/// slice (or any sequence of floats, element by element).
fn round_ratios(r: &Bound<'_, PyAny>, ratios: &mut [f64]) -> PyResult<()> {
    let mut copy = |v: &[f64]| {
        if v.len() != ratios.len() {
            return Err(PyValueError::new_err(format!(
                "first_ok_many: the predicate returned {} ratios for {} probes",
                v.len(),
                ratios.len()
            )));
        }
        ratios.copy_from_slice(v);
        Ok(())
    };
    if let Ok(a) = r.extract::<PyReadonlyArray1<'_, f64>>() {
        if let Ok(v) = a.as_slice() {
            return copy(v);
        }
    }
    copy(&r.extract::<Vec<f64>>()?)
}

/// The predicate's values for one round: a bool array (or a sequence of bools) of the round's
/// length.
fn round_values(r: &Bound<'_, PyAny>, oks: &mut [bool]) -> PyResult<()> {
    let len_error = |n: usize| {
        PyValueError::new_err(format!(
            "first_ok_many: the predicate returned {n} values for {} probes",
            oks.len()
        ))
    };
    if let Ok(a) = r.extract::<PyReadonlyArray1<'_, bool>>() {
        let v = a.as_slice()?;
        if v.len() != oks.len() {
            return Err(len_error(v.len()));
        }
        oks.copy_from_slice(v);
    } else {
        let v: Vec<bool> = r.extract()?;
        if v.len() != oks.len() {
            return Err(len_error(v.len()));
        }
        oks.copy_from_slice(&v);
    }
    Ok(())
}

/// `first_ok` for every guess of `x0` at once: element k is the smallest double x ≥ 0 near
/// `x0[k]` with element k's predicate true, found by exactly the probes of the scalar search
/// (the same result to the bit). Each round calls `ok_many(x, active)` once: `x` (float64) the
/// doubles to test, `active` (int64) the indices of their elements; it returns a bool array of
/// the same length, or a pair (that array, a float array of the ratios of each function to its
/// target, NaN where none) whose ratios guide each element's probes as in `first_ok` (element k
/// then probes the doubles of the scalar search whose `ok` returns the same pairs). The first
/// exception it raises ends the search and is raised again.
#[pyfunction]
fn first_ok_many<'py>(py: Python<'py>, ok_many: Py<PyAny>, x0: Arr<'py>) -> PyResult<Np<'py>> {
    let [x0] = slices![x0];
    let mut out = zeros(x0.len())?;
    out.copy_from_slice(x0); // the guesses; the results on return
    let err = guarded(py, false, || {
        let err: Cell<Option<PyErr>> = Cell::new(None);
        // an Err(()) of a round has its exception in `err`
        let _ = pabi_core::num::bisect::first_ok_many(&mut out, |active, probes, oks, ratios| {
            Python::attach(|py| {
                let idx: Vec<i64> = active.iter().map(|&k| k as i64).collect();
                ok_many
                    .bind(py)
                    .call1((PyArray1::from_slice(py, probes), idx.into_pyarray(py)))
                    .and_then(|r| round_answer(&r, oks, ratios))
            })
            .map_err(|e| err.set(Some(e)))
        });
        Ok(err.take())
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(out.into_pyarray(py)),
    }
}

/// The tight RDP-to-DP ε of many curves over the same `orders`, row j of `rdp` (flat,
/// row-major) at `delta[j]` (`pabi_core::rdp::rdp_to_dp_epsilon_rows`, GIL released).
#[pyfunction]
fn rdp_to_dp_epsilon_rows<'py>(
    py: Python<'py>,
    orders: Arr<'py>,
    rdp: Arr<'py>,
    delta: Arr<'py>,
) -> PyResult<Np<'py>> {
    let [orders, rdp, delta] = slices![orders, rdp, delta];
    let mut out = zeros(delta.len())?;
    guarded(py, rdp.len() >= crate::LONG_LEN, || {
        pabi_core::rdp::rdp_to_dp_epsilon_rows(
            orders,
            rdp,
            delta,
            pabi_core::rdp::Conversion::Tight,
            &mut out,
        )
    })?;
    Ok(out.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(first_ok, m)?)?;
    m.add_function(wrap_pyfunction!(first_ok_many, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_to_dp_epsilon_rows, m)?)
}
