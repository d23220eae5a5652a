//! Thin PyO3 layer over pabi-core: argument parsing, numpy borrows, releasing the GIL, error
//! mapping. No mathematics here: every function forwards to `pabi_core::batch`.
//!
//! The functions take contiguous 1-D float64 arrays or Python floats (read as length-1 arrays,
//! `args::Arr`: the wrappers' scalar calls make no numpy array) — the Python wrappers in
//! `pabi/_api.py` do the broadcasting, dtype checks and scalar handling — and return a new 1-D
//! float64 array.
//! The elementwise functions write into an array allocated by numpy (`zeros_array`): numpy
//! advises transparent huge pages for large arrays, so the first writes take 2 MiB page faults
//! instead of 4 KiB ones (for 1e7 points ~600 faults instead of ~20,000, ~3 ns/point of system
//! time). Outputs that `calloc` would zero with one serial `memset` (a reused heap block, up to
//! 32 MiB) are zeroed on the pool instead ([`pabi_core::driver::zero_on_pool`]).
//!
//! Runtime safety. Every binding runs its core call through [`guarded`] (directly or through
//! the helpers of `args.rs`):
//! - a Rust panic (a bug) never reaches Python as pyo3's `PanicException` (a `BaseException`
//!   that `except Exception` does not catch): it is caught and raised as [`InternalError`], a
//!   `RuntimeError` asking to report it;
//! - a call that can be long (large arrays, the non-elementwise heavy functions) made on the
//!   main thread is interruptible: while it runs, a SIGINT handler sets the core's stop flag
//!   ([`pabi_core::interrupt`], checked between chunks of every long loop) and chains to the
//!   handler installed before (Python's, so Python also records the signal); the core returns
//!   `Interrupted` within one chunk and the binding raises the `KeyboardInterrupt` (running the
//!   Python-level handler through `check_signals`). Calls on other threads that a Ctrl-C of the
//!   main thread cut short are run again once the main thread's call has returned (the flag is
//!   process-wide; the computations are pure).

use numpy::{PyArray1, PyArrayMethods};
use pabi_core::{batch, interrupt, PabiError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

mod args;
mod conversion;
mod divergence;
mod epochs;
mod options;
mod pld;
mod pnsgd;
mod rdp;
mod schedules;
mod search;

pyo3::create_exception!(
    pabi._core,
    DomainError,
    PyValueError,
    "An argument is outside its allowed range. Attributes: param, allowed, value, index (flat index of the first bad element, or None)."
);

pyo3::create_exception!(
    pabi._core,
    InternalError,
    PyRuntimeError,
    "A bug in pabi (a Rust panic caught at the binding): please report it, with the call that raised it."
);

/// Outputs of at least this many elements make a call "long": it is run interruptibly
/// (Ctrl-C), at the price of installing and restoring a SIGINT handler (three `sigaction`
/// calls, ~1 µs) around it. Smaller calls take at most a few milliseconds.
pub(crate) const LONG_LEN: usize = 1 << 12;

/// Run the core call `f` with the GIL released and return its value; the one gateway from the
/// bindings to the core.
///
/// - A panic inside `f` (on this thread or a pool worker) becomes [`InternalError`].
/// - With `long`, on the main thread, Ctrl-C stops `f` within one chunk of work and raises
///   `KeyboardInterrupt` (or whatever the Python SIGINT handler raises; should that handler
///   return normally, `f` is run again from the start, as if the signal had come before).
/// - A result computed while a stop was requested is discarded (loops that cannot return an
///   error may have been cut short): on the main thread the signal is delivered as above, on
///   other threads `f` is run again once the request is withdrawn.
pub(crate) fn guarded<T: Send>(
    py: Python<'_>,
    long: bool,
    mut f: impl FnMut() -> pabi_core::Result<T> + Send,
) -> PyResult<T> {
    loop {
        let before = interrupt::requests();
        let handler = if long {
            sigint::Handler::install()
        } else {
            None
        };
        let caught = py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(&mut f)));
        let stopped =
            interrupt::requests() != before || matches!(caught, Ok(Err(PabiError::Interrupted)));
        let ours = handler.is_some();
        drop(handler); // restores the previous handler and withdraws the request
        let res = caught.map_err(internal_error)?;
        if !stopped {
            return res.map_err(|e| to_py(py, e));
        }
        if ours {
            // raises KeyboardInterrupt (the signal was passed on to Python's handler)
            py.check_signals()?;
        } else {
            py.detach(sigint::wait_withdrawn);
        }
    }
}

/// [`InternalError`] from a panic payload.
fn internal_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    };
    InternalError::new_err(format!(
        "internal error in pabi (a bug, please report it with the call that raised it): {what}"
    ))
}

/// A zeroed vector of `len` values ([`pabi_core::driver::zeroed_output`]: long ones zeroed
/// on the pool), or `MemoryError` when it cannot be allocated (instead of the process abort of
/// `vec![0.0; len]`).
pub(crate) fn zeros(len: usize) -> PyResult<Vec<f64>> {
    pabi_core::driver::zeroed_output(len)
        .ok_or_else(|| PyMemoryError::new_err(format!("cannot allocate an output of {len} values")))
}

/// A new numpy array of `n` zeros for an elementwise kernel to write: from numpy's `calloc`, or
/// uninitialised and zeroed on the pool where `calloc` would zero it serially
/// ([`pabi_core::driver::zero_on_pool`]).
fn zeros_array(py: Python<'_>, n: usize) -> Bound<'_, PyArray1<f64>> {
    if !pabi_core::driver::zero_on_pool(n) {
        return PyArray1::<f64>::zeros(py, n, false);
    }
    // SAFETY: a fresh contiguous array of `n` f64 values whose data pointer nothing else holds
    // (the array is not shared with Python before it is returned); every element is written
    // (zeros) through `MaybeUninit` before any reference to the elements is formed, as
    // `PyArray::new` requires
    let (a, data) = unsafe {
        let a = PyArray1::<f64>::new(py, n, false);
        let data = std::slice::from_raw_parts_mut(a.data().cast::<std::mem::MaybeUninit<f64>>(), n);
        (a, data)
    };
    // (with the GIL released: up to 32 MiB of writes)
    py.detach(|| pabi_core::driver::zero_fill(data));
    a
}

/// The SIGINT handler installed around long calls (unix).
#[cfg(unix)]
mod sigint {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use pabi_core::interrupt;

    /// The handler that was installed before ours (a function address) and its flags.
    static OLD_ACTION: AtomicUsize = AtomicUsize::new(libc::SIG_DFL);
    static OLD_FLAGS: AtomicUsize = AtomicUsize::new(0);
    /// Whether our handler is installed (one installation at a time: the main thread's call).
    static ACTIVE: AtomicBool = AtomicBool::new(false);

    /// Set the core's stop flag, then run the previous handler (Python's C handler, which
    /// records the signal for the interpreter). Async-signal-safe: atomics and a call.
    extern "C" fn on_sigint(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        interrupt::request();
        let h = OLD_ACTION.load(Ordering::SeqCst);
        if h == libc::SIG_DFL || h == libc::SIG_IGN {
            return;
        }
        // SAFETY: `h` is the address of the handler the previous `sigaction` reported, called
        // with the signature its flags declare.
        unsafe {
            if OLD_FLAGS.load(Ordering::SeqCst) & (libc::SA_SIGINFO as usize) != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(h);
                f(sig, info, ctx)
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                f(sig)
            }
        }
    }

    /// Whether the calling thread is the process's main thread (where Python runs its signal
    /// handlers); cached per thread.
    fn is_main_thread() -> bool {
        thread_local! {
            static MAIN: bool = main_thread_now();
        }
        MAIN.with(|m| *m)
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn main_thread_now() -> bool {
        // SAFETY: plain system calls without arguments.
        unsafe { libc::syscall(libc::SYS_gettid) as libc::pid_t == libc::getpid() }
    }

    #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
    fn main_thread_now() -> bool {
        // SAFETY: a query without arguments.
        unsafe { libc::pthread_main_np() == 1 }
    }

    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd"
    )))]
    fn main_thread_now() -> bool {
        false
    }

    /// Our handler, installed for the lifetime of the value; dropping it restores the previous
    /// handler and withdraws any stop request.
    pub(crate) struct Handler {
        old: libc::sigaction,
    }

    impl Handler {
        /// Install the handler if this is the main thread and SIGINT has a handler function
        /// (not the default action, which kills the process anyway, nor "ignore").
        pub(crate) fn install() -> Option<Handler> {
            if !is_main_thread()
                || ACTIVE
                    .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
            {
                return None;
            }
            // One `sigaction` call swaps our handler in and returns the previous one, which
            // the handler chains to: it is read from the cache filled at import (Python's C
            // handler, the same function whatever Python-level handler is set), so that no
            // extra call is needed to read it first (each costs ~0.3-0.8 µs).
            // SAFETY: sigaction with valid pointers to initialised (zeroed) structs.
            unsafe {
                interrupt::clear();
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_sigint as *const () as usize;
                let flags = OLD_FLAGS.load(Ordering::SeqCst) as libc::c_int;
                new.sa_flags = (flags | libc::SA_SIGINFO) & !libc::SA_RESETHAND;
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGINT, &new, &mut old) != 0 {
                    ACTIVE.store(false, Ordering::SeqCst);
                    return None;
                }
                if old.sa_sigaction == libc::SIG_DFL || old.sa_sigaction == libc::SIG_IGN {
                    // default action (kills the process anyway) or ignored: leave it alone
                    libc::sigaction(libc::SIGINT, &old, std::ptr::null_mut());
                    ACTIVE.store(false, Ordering::SeqCst);
                    return None;
                }
                if old.sa_sigaction != OLD_ACTION.load(Ordering::SeqCst)
                    || old.sa_flags as usize != OLD_FLAGS.load(Ordering::SeqCst)
                {
                    // another handler function than at import (set from C): chain to it from
                    // now on
                    OLD_ACTION.store(old.sa_sigaction, Ordering::SeqCst);
                    OLD_FLAGS.store(old.sa_flags as usize, Ordering::SeqCst);
                }
                Some(Handler { old })
            }
        }
    }

    /// Fill the cache of the handler to chain to with the current SIGINT action (at import).
    pub(crate) fn remember_current() {
        // SAFETY: a query of the current action into a zeroed struct.
        unsafe {
            let mut cur: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut cur) == 0 {
                OLD_ACTION.store(cur.sa_sigaction, Ordering::SeqCst);
                OLD_FLAGS.store(cur.sa_flags as usize, Ordering::SeqCst);
            }
        }
    }

    impl Drop for Handler {
        fn drop(&mut self) {
            // SAFETY: restores the action read in `install`.
            unsafe {
                libc::sigaction(libc::SIGINT, &self.old, std::ptr::null_mut());
            }
            interrupt::clear();
            ACTIVE.store(false, Ordering::SeqCst);
        }
    }

    /// Wait (GIL released) until the main thread's interrupted call has withdrawn its stop
    /// request.
    pub(crate) fn wait_withdrawn() {
        while interrupt::pending() && ACTIVE.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// No signal handling off unix: calls are not interruptible there.
#[cfg(not(unix))]
mod sigint {
    pub(crate) struct Handler;
    impl Handler {
        pub(crate) fn install() -> Option<Handler> {
            None
        }
    }
    pub(crate) fn remember_current() {}
    pub(crate) fn wait_withdrawn() {
        while pabi_core::interrupt::pending() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// Map a core error onto the Python exception hierarchy (one-to-one), the one place where
/// that happens: a bad number ([`PabiError::Domain`]) or option ([`PabiError::Option`]) is a
/// `DomainError` carrying `param`, `allowed`, `value` and `index` (the flat index of the first
/// bad element; `None` for a scalar or an option); mismatched lengths and an unreachable target
/// are `ValueError`; a broken invariant is [`InternalError`]; a stop is `KeyboardInterrupt`.
pub(crate) fn to_py(py: Python<'_>, err: PabiError) -> PyErr {
    let msg = err.to_string();
    match err {
        PabiError::Domain {
            param,
            allowed,
            value,
            index,
        } => domain_error(py, msg, param, &allowed, value, index),
        PabiError::Option {
            param,
            allowed,
            value,
        } => domain_error(py, msg, param, &allowed, value, None),
        PabiError::Shape { .. } | PabiError::Unreachable { .. } => PyValueError::new_err(msg),
        PabiError::Internal(_) => InternalError::new_err(msg),
        PabiError::Interrupted => PyKeyboardInterrupt::new_err(msg),
    }
}

/// A [`DomainError`] with its attributes.
fn domain_error<'py, V: IntoPyObject<'py>>(
    py: Python<'py>,
    msg: String,
    param: &str,
    allowed: &str,
    value: V,
    index: Option<usize>,
) -> PyErr {
    let e = DomainError::new_err(msg);
    let v = e.value(py);
    // Attribute setting on a fresh exception instance cannot fail in practice; ignore errors
    // rather than masking the domain error.
    let _ = v.setattr("param", param);
    let _ = v.setattr("allowed", allowed);
    let _ = v.setattr("value", value);
    let _ = v.setattr("index", index);
    e
}

pub(crate) type Out<'py> = PyResult<Bound<'py, PyArray1<f64>>>;

macro_rules! unary {
    ($name:ident) => {
        #[pyfunction]
        fn $name<'py>(py: Python<'py>, x: args::Arr<'py>) -> Out<'py> {
            let xs = x.as_slice()?;
            let out = zeros_array(py, xs.len());
            {
                let mut w = out.readwrite();
                let os = w.as_slice_mut()?;
                guarded(py, xs.len() >= LONG_LEN, || batch::$name(xs, os))?;
            }
            Ok(out)
        }
    };
}

macro_rules! binary {
    ($name:ident) => {
        #[pyfunction]
        fn $name<'py>(py: Python<'py>, x: args::Arr<'py>, y: args::Arr<'py>) -> Out<'py> {
            let (xs, ys) = (x.as_slice()?, y.as_slice()?);
            // a length-1 argument is broadcast in place (checked by the core: 1 or n)
            let n = pabi_core::driver::broadcast_len([xs.len(), ys.len()]);
            let out = zeros_array(py, n);
            {
                let mut w = out.readwrite();
                let os = w.as_slice_mut()?;
                guarded(py, n >= LONG_LEN, || batch::$name(xs, ys, os))?;
            }
            Ok(out)
        }
    };
}

unary!(gaussian_tail);
unary!(log_gaussian_tail);
unary!(lambertw);
unary!(wright_omega);
binary!(theta);
binary!(log_theta);
binary!(theta_complement);
binary!(log_theta_complement);
binary!(laplace_theta);
binary!(laplace_theta_complement);

/// Set the number of worker threads used for large arrays, 1..=1024 (1 disables parallelism).
/// Any integer (numpy integers too) up to 2^127 in magnitude is checked against the range.
#[pyfunction]
fn set_num_threads(py: Python<'_>, threads: i128) -> PyResult<()> {
    match usize::try_from(threads) {
        Ok(k) if k >= 1 => guarded(py, false, || batch::set_num_threads(k)),
        _ => Err(to_py(
            py,
            PabiError::domain("threads", "an integer >= 1 and <= 1024", threads as f64),
        )),
    }
}

/// Number of worker threads used for large arrays.
#[pyfunction]
fn get_num_threads(py: Python<'_>) -> PyResult<usize> {
    guarded(py, false, || Ok(batch::num_threads()))
}

/// The SIMD instruction set the dispatched kernels use on this CPU.
#[pyfunction]
fn simd_level(py: Python<'_>) -> PyResult<&'static str> {
    guarded(py, false, || Ok(batch::simd_level()))
}

/// Test hook of the panic safety net: panics (a deliberate bug) on the calling thread
/// (`"caller"`) or inside a worker of the pool (`"pool"`); [`guarded`] turns either into
/// `InternalError`. Not part of the API.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, place: &str) -> PyResult<()> {
    let pool = place == "pool";
    guarded(py, false, || {
        if pool {
            use rayon::prelude::*;
            if let Some(p) = batch::pool() {
                p.install(|| {
                    (0..64)
                        .into_par_iter()
                        .for_each(|i| assert!(i != 13, "test panic in the pool"))
                });
            }
        }
        panic!("test panic on the calling thread")
    })
}

/// Test hook of Ctrl-C (`tests/test_runtime_safety.py`): the core's poll counts
/// ([`interrupt::stats`]) as `(go, stop, go_after_request)` (`go_after_request` −1: no request
/// yet), read before `reset` turns them on and zeroes them. Not part of the API.
#[pyfunction]
#[pyo3(signature = (reset=false))]
fn _interrupt_stats(py: Python<'_>, reset: bool) -> PyResult<(u64, u64, i64)> {
    guarded(py, false, || {
        let s = interrupt::stats();
        if reset {
            interrupt::stats_reset();
        }
        let after = s
            .go_after_request
            .map_or(-1, |v| v.min(i64::MAX as u64) as i64);
        Ok((s.go, s.stop, after))
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DomainError", m.py().get_type::<DomainError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    sigint::remember_current();
    m.add_function(wrap_pyfunction!(gaussian_tail, m)?)?;
    m.add_function(wrap_pyfunction!(log_gaussian_tail, m)?)?;
    m.add_function(wrap_pyfunction!(lambertw, m)?)?;
    m.add_function(wrap_pyfunction!(wright_omega, m)?)?;
    m.add_function(wrap_pyfunction!(theta, m)?)?;
    m.add_function(wrap_pyfunction!(log_theta, m)?)?;
    m.add_function(wrap_pyfunction!(theta_complement, m)?)?;
    m.add_function(wrap_pyfunction!(log_theta_complement, m)?)?;
    m.add_function(wrap_pyfunction!(laplace_theta, m)?)?;
    m.add_function(wrap_pyfunction!(laplace_theta_complement, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_interrupt_stats, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    pnsgd::register(m)?;
    schedules::register(m)?;
    search::register(m)?;
    rdp::register(m)?;
    pld::register(m)?;
    epochs::register(m)?;
    conversion::register(m)?;
    divergence::register(m)?;
    Ok(())
}
