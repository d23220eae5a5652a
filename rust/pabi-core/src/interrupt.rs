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
//! For tests, [`stats_reset`] turns on counts of the polls ([`stats`]: polls that let a chunk of
//! work start, polls that saw a request, chunks begun after the request), so that promptness is
//! checked in units of work instead of seconds; off (the default) a poll costs one more relaxed
//! load.
//!
//! The flag is process-wide, so a request also stops computations running on other threads at
//! the same moment; the Python binding re-runs those (the computations are pure), see
//! `pabi-py/src/lib.rs`.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crate::error::{PabiError, Result};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static REQUESTS: AtomicUsize = AtomicUsize::new(0);

// Poll statistics ([`stats`]; off unless [`stats_reset`] turned them on: then one relaxed
// increment per poll, otherwise one relaxed load).
static COUNTING: AtomicBool = AtomicBool::new(false);
/// Polls that let work proceed (the flag clear) and polls that saw the request.
static GO: AtomicU64 = AtomicU64::new(0);
static STOP: AtomicU64 = AtomicU64::new(0);
/// `GO` when the first request after the last reset came (`u64::MAX`: none yet).
static GO_AT_REQUEST: AtomicU64 = AtomicU64::new(u64::MAX);

/// Ask every running computation to stop at its next check. Async-signal-safe (lock-free
/// atomics only), so it may be called from a signal handler.
#[inline]
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
    REQUESTS.fetch_add(1, Ordering::SeqCst);
    if COUNTING.load(Ordering::SeqCst) {
        let go = GO.load(Ordering::SeqCst);
        let _ = GO_AT_REQUEST.compare_exchange(u64::MAX, go, Ordering::SeqCst, Ordering::SeqCst);
    }
}

/// Poll counts since the last [`stats_reset`], a test hook (the Python binding's private
/// `_core._interrupt_stats`) that measures interruption in units of work rather than time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Polls after which a chunk of work ran (the flag was clear).
    pub go: u64,
    /// Polls that saw a stop request (the computation stopped or skipped its chunk there).
    pub stop: u64,
    /// Of `go`, those counted after the first request (`None`: no request). A chunk starts only
    /// after a poll, so this bounds the chunks begun after the request: at most one per thread
    /// (a poll that read the flag just before it was set).
    pub go_after_request: Option<u64>,
}

/// Turn the poll statistics on and zero them.
pub fn stats_reset() {
    COUNTING.store(true, Ordering::SeqCst);
    GO.store(0, Ordering::SeqCst);
    STOP.store(0, Ordering::SeqCst);
    GO_AT_REQUEST.store(u64::MAX, Ordering::SeqCst);
}

/// The poll statistics (zeros unless [`stats_reset`] was called).
pub fn stats() -> Stats {
    let go = GO.load(Ordering::SeqCst);
    let at = GO_AT_REQUEST.load(Ordering::SeqCst);
    Stats {
        go,
        stop: STOP.load(Ordering::SeqCst),
        go_after_request: (at != u64::MAX).then(|| go.saturating_sub(at)),
    }
}

#[cold]
fn count(stop: bool) {
    if stop {
        STOP.fetch_add(1, Ordering::Relaxed);
    } else {
        GO.fetch_add(1, Ordering::Relaxed);
    }
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

/// Whether a stop has been requested: the poll of the computations' loops, between chunks of
/// work (counted in [`stats`] when they are on).
#[inline(always)]
pub fn requested() -> bool {
    let r = REQUESTED.load(Ordering::Relaxed);
    if COUNTING.load(Ordering::Relaxed) {
        count(r);
    }
    r
}

/// Whether a stop request is pending, for the requester's own bookkeeping (not a poll of a
/// computation: never counted).
#[inline]
pub fn pending() -> bool {
    REQUESTED.load(Ordering::SeqCst)
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
