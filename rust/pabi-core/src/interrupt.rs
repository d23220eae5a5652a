//! Cooperative cancellation of long computations (Ctrl-C).
//!
//! One process-wide flag. Whoever wants a running computation to stop (the Python binding's
//! SIGINT handler) calls [`request`]; every long loop of the core calls [`check`] between
//! chunks of work (a relaxed atomic load, ~1 ns) and returns [`PabiError::Interrupted`] once the
//! flag is set, so a call stops within one chunk (well under a millisecond of work) instead of
//! running to completion. The flag is never set by the core itself: code that never calls
//! [`request`] (Rust users, the unit tests) is unaffected. The requester clears the flag with
//! [`clear`] once the interrupted call has returned.
//!
//! The flag is process-wide, so a request also stops computations running on other threads at
//! the same moment; the Python binding re-runs those (the computations are pure), see
//! `pabi-py/src/lib.rs`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{PabiError, Result};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static REQUESTS: AtomicUsize = AtomicUsize::new(0);

/// Ask every running computation to stop at its next check. Async-signal-safe (lock-free
/// atomics only), so it may be called from a signal handler.
#[inline]
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
    REQUESTS.fetch_add(1, Ordering::SeqCst);
}

/// How many times [`request`] has been called (wrapping): a caller that reads it before and
/// after a computation knows whether a stop was requested meanwhile, even if the request was
/// withdrawn again before the computation returned. A computation that was running when a stop
/// was requested may have cut loops short; its result must be discarded (it returns
/// [`PabiError::Interrupted`] in most places, but not every loop can return an error).
#[inline]
pub fn requests() -> usize {
    REQUESTS.load(Ordering::SeqCst)
}

/// Withdraw the request (after the interrupted computation has returned).
#[inline]
pub fn clear() {
    REQUESTED.store(false, Ordering::SeqCst);
}

/// Whether a stop has been requested.
#[inline(always)]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// `Err(PabiError::Interrupted)` once a stop has been requested: call it between chunks of
/// every long loop, `interrupt::check()?`.
#[inline(always)]
pub fn check() -> Result<()> {
    if requested() {
        Err(PabiError::Interrupted)
    } else {
        Ok(())
    }
}

// Tested in `tests/interrupt.rs` (its own process: setting the flag here would stop the unit
// tests running in parallel threads).
