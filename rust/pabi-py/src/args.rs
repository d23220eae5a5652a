//! Plumbing shared by the binding files (`pnsgd`, `schedules`, `rdp`, `pld`): borrowing numpy
//! arrays, running a core function with the GIL released, returning its values as new numpy
//! arrays and mapping core errors to Python exceptions. No mathematics here.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pabi_core::schedules::map_args;
use pyo3::exceptions::PyBaseException;
use pyo3::prelude::*;
use pyo3::types::PyFloat;

use crate::{guarded, to_py, zeros, Out, LONG_LEN};

/// A numeric argument: a contiguous 1-D float64 array (length 1 for a broadcast scalar, or the
/// output length), or a Python `float` (exactly that type, not a subclass such as
/// `numpy.float64`), read as a length-1 array. The float form is the scalar call's: it crosses
/// without a numpy array on either side of the boundary (no allocation, no borrow tracking),
/// ~0.5 µs per argument less (see `_bridge._python_scalars`). Anything else is the array
/// conversion's `TypeError`, as before.
pub(crate) enum Arr<'py> {
    Array(PyReadonlyArray1<'py, f64>),
    Scalar(f64),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Arr<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(f) = obj.cast_exact::<PyFloat>() {
            return Ok(Arr::Scalar(f.value()));
        }
        Ok(Arr::Array(obj.extract().map_err(Into::<PyErr>::into)?))
    }
}

impl Arr<'_> {
    /// The values (one for a float).
    pub(crate) fn as_slice(&self) -> PyResult<&[f64]> {
        match self {
            Arr::Array(a) => Ok(a.as_slice()?),
            Arr::Scalar(x) => Ok(std::slice::from_ref(x)),
        }
    }
}

/// A new float64 numpy array (an output).
pub(crate) type Np<'py> = Bound<'py, PyArray1<f64>>;

/// Many tasks' results as Python receives them (the many-target bindings): their values, NaN
/// where a task failed, and the failed tasks' `(index, exception)` pairs in index order, each
/// error mapped once by [`to_py`] (the exception and message the one-task call raises), so the
/// caller raises or judges a failed task without running it again.
pub(crate) type Many<'py> = PyResult<(Np<'py>, Vec<(usize, Py<PyBaseException>)>)>;

/// [`Many`] with a second value per task (NaN where the task failed).
pub(crate) type ManyPairs<'py> = PyResult<(Np<'py>, Np<'py>, Vec<(usize, Py<PyBaseException>)>)>;

/// [`Many`] from the tasks' results.
pub(crate) fn values_and_errors<'py>(
    py: Python<'py>,
    res: Vec<pabi_core::Result<f64>>,
) -> Many<'py> {
    let mut errors = Vec::new();
    let values: Vec<f64> = res
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.unwrap_or_else(|e| {
                errors.push((i, to_py(py, e).into_value(py)));
                f64::NAN
            })
        })
        .collect();
    Ok((values.into_pyarray(py), errors))
}

/// Three new float64 arrays (e.g. lower bound, estimate, upper bound).
pub(crate) type Triple<'py> = PyResult<(Np<'py>, Np<'py>, Np<'py>)>;

/// `[a.as_slice()?, b.as_slice()?, ...]`: borrow several arrays at once (inside a function
/// returning `PyResult`).
macro_rules! slices {
    ($($a:expr),+ $(,)?) => {
        [$($a.as_slice()?),+]
    };
}
pub(crate) use slices;

/// Borrow an optional array (Python `None` stays `None`).
pub(crate) fn opt_slice<'a>(a: &'a Option<Arr<'_>>) -> PyResult<Option<&'a [f64]>> {
    Ok(match a {
        Some(x) => Some(x.as_slice()?),
        None => None,
    })
}

/// Run `f` with the GIL released ([`guarded`]: a panic becomes `InternalError`, Ctrl-C
/// interrupts it); a core error becomes the matching Python exception. For the calls whose
/// cost does not follow from an output length (the composition, accounting and search
/// functions): always interruptible.
pub(crate) fn detach<T: Send>(
    py: Python<'_>,
    f: impl FnMut() -> pabi_core::Result<T> + Send,
) -> PyResult<T> {
    guarded(py, true, f)
}

/// A new numpy array from the vector `f` computes with the GIL released (interruptible).
pub(crate) fn array<'py>(
    py: Python<'py>,
    f: impl FnMut() -> pabi_core::Result<Vec<f64>> + Send,
) -> Out<'py> {
    Ok(detach(py, f)?.into_pyarray(py))
}

/// A new numpy array of `len` values written by `f` with the GIL released (interruptible from
/// [`LONG_LEN`] values). The output is allocated first (`MemoryError` if it cannot be).
pub(crate) fn fill<'py>(
    py: Python<'py>,
    len: usize,
    mut f: impl FnMut(&mut [f64]) -> pabi_core::Result<()> + Send,
) -> Out<'py> {
    let mut out = zeros(len)?;
    guarded(py, len >= LONG_LEN, || f(&mut out))?;
    Ok(out.into_pyarray(py))
}

/// Three new numpy arrays of `len` values written by `f` with the GIL released.
pub(crate) fn fill3<'py>(
    py: Python<'py>,
    len: usize,
    mut f: impl FnMut(&mut [f64], &mut [f64], &mut [f64]) -> pabi_core::Result<()> + Send,
) -> Triple<'py> {
    let (mut a, mut b, mut c) = (zeros(len)?, zeros(len)?, zeros(len)?);
    guarded(py, len >= LONG_LEN, || f(&mut a, &mut b, &mut c))?;
    Ok((a.into_pyarray(py), b.into_pyarray(py), c.into_pyarray(py)))
}

/// Check the broadcast length `len` of a binding against its array arguments (each has
/// length 1 or `len`, and `len` is 0 or 1 unless some argument has that length), before any
/// allocation: a `len` that no argument supports would allocate an arbitrary amount.
pub(crate) fn check_broadcast(len: usize, args: &[(&'static str, Option<&[f64]>)]) -> PyResult<()> {
    let mut seen = len <= 1;
    for &(name, a) in args {
        if let Some(a) = a {
            if a.len() != 1 && a.len() != len {
                let expected = if len == 1 {
                    "1".to_string()
                } else {
                    format!("1 or {len}")
                };
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "{name} has length {}, expected {expected}",
                    a.len()
                )));
            }
            seen |= a.len() == len;
        }
    }
    if seen {
        Ok(())
    } else {
        Err(pyo3::exceptions::PyValueError::new_err(format!(
            "len = {len} matches no argument length (every argument has length 1)"
        )))
    }
}

/// Element-wise over equally long arrays (or of length 1: broadcast in place, see
/// `pabi_core::driver::at`): `out[i] = f([args[0][i], args[1][i], ...])` with the GIL released ([`map_args`]: rayon for large arrays, an error located at the first bad index).
pub(crate) fn map<'py, const K: usize>(
    py: Python<'py>,
    args: [&[f64]; K],
    f: impl Fn([f64; K]) -> pabi_core::Result<f64> + Sync + Send,
) -> Out<'py> {
    let len = pabi_core::driver::broadcast_len(args.iter().map(|a| a.len()));
    fill(py, len, |out| map_args(args, out, &f))
}

/// [`map`] for kernels whose single element can take long (a KOV sum over √k terms, a 2^18-term
/// online sum): the SIGINT handler is installed whatever the length, so Ctrl-C reaches the
/// core's interrupt checks inside the element (~1.3 µs per call).
pub(crate) fn map_long<'py, const K: usize>(
    py: Python<'py>,
    args: [&[f64]; K],
    f: impl Fn([f64; K]) -> pabi_core::Result<f64> + Sync + Send,
) -> Out<'py> {
    let len = pabi_core::driver::broadcast_len(args.iter().map(|a| a.len()));
    let mut out = zeros(len)?;
    guarded(py, true, || map_args(args, &mut out, &f))?;
    Ok(out.into_pyarray(py))
}

/// An element-wise binding over equally long arrays:
///
/// ```text
/// elementwise!(MAP, fn NAME(LEAD: TY, ..., [ARRAY, ...], EXTRA: TY, ...)
///              let V = INIT; ...
///              |X| BODY);
/// ```
///
/// defines `#[pyfunction] NAME(py, LEAD..., ARRAY..., EXTRA...)` (in that order, as Python sees
/// it): the `let` preludes run first (GIL held; they may use `?` on a `PyErr`), then
/// `MAP(py, [ARRAY slices], |X| BODY)` evaluates BODY per element with the GIL released
/// ([`map`]: one output; `rdp::bmap`: K outputs).
macro_rules! elementwise {
    ($(#[doc = $doc:literal])*
     $map:ident,
     fn $name:ident(
         $($lead:ident: $lty:ty,)* [$($arg:ident),* $(,)?] $(, $extra:ident: $ty:ty)* $(,)?
     )
     $(let $v:ident = $init:expr;)*
     |$x:pat_param| $body:expr) => {
        $(#[doc = $doc])*
        #[pyfunction]
        #[allow(clippy::too_many_arguments)]
        fn $name<'py>(
            py: Python<'py>,
            $($lead: $lty,)*
            $($arg: $crate::args::Arr<'py>,)*
            $($extra: $ty,)*
        ) -> $crate::Out<'py> {
            $(let $v = $init;)*
            $map(py, $crate::args::slices![$($arg),*], |$x| $body)
        }
    };
}
pub(crate) use elementwise;

/// `m.add_function(wrap_pyfunction!(f, m)?)?` for every listed binding.
macro_rules! add_functions {
    ($m:expr, [$($f:ident),* $(,)?]) => {{
        $($m.add_function(wrap_pyfunction!($f, $m)?)?;)*
    }};
}
pub(crate) use add_functions;
