//! Recycled working memory of the FFT composition ([`compose`](super::compose)): the signal,
//! spectrum, bound and scratch buffers of a composition and the window's masses and suffix sums
//! of a [`Composition`](super::Composition) (given back when it is dropped) are taken from a
//! small pool instead of being allocated afresh. A fresh multi-megabyte allocation is mapped
//! page by page on its first write; at T = 1e5 DP-SGD steps (about 30 MB per direction) those
//! page faults cost about as much as the inverse FFT. Every buffer taken is filled (zeros) to
//! its length before use, so no value depends on the pool.
//!
//! The pool is one least-recently-used list ([`Lru`]) of real and complex buffers; the
//! functions are generic over the element type ([`Elem`]).

use super::cache::Lru;
use crate::driver::PerProcess;
use realfft::num_complex::Complex;

/// Bytes the pool may keep between calls (the oldest buffers are dropped first); a buffer
/// larger than a quarter of it (64 MiB: a real signal of 8.4e6 points) is never kept. What it
/// holds is at most what the largest recent composition had allocated at once. At T = 1e6
/// DP-SGD steps (2.2e6-point transforms, 17.6 MB per buffer) the former 64 MiB budget (16 MiB
/// per buffer) kept none of them: each call faulted its buffers in afresh, and with the plans
/// recomputed (fft.rs) a warm call took 1.8–2× as long (2026-11-28; the process holds 165 MB
/// after such a call instead of 117 MB, its peak 166 MB instead of 150 MB).
const POOL_BYTES: usize = 256 << 20;

/// A pooled buffer of either element type.
pub(super) enum Buf {
    Real(Vec<f64>),
    Complex(Vec<Complex<f64>>),
}

/// An element type of pooled buffers: its zero and its variant of [`Buf`].
pub(super) trait Elem: Copy + Sized + Send + Sync {
    const ZERO: Self;
    fn wrap(v: Vec<Self>) -> Buf;
    fn unwrap(b: Buf) -> Option<Vec<Self>>;
    /// The capacity of `b` if it holds this element type.
    fn capacity(b: &Buf) -> Option<usize>;
}

impl Elem for f64 {
    const ZERO: Self = 0.0;
    fn wrap(v: Vec<Self>) -> Buf {
        Buf::Real(v)
    }
    fn unwrap(b: Buf) -> Option<Vec<Self>> {
        match b {
            Buf::Real(v) => Some(v),
            Buf::Complex(_) => None,
        }
    }
    fn capacity(b: &Buf) -> Option<usize> {
        match b {
            Buf::Real(v) => Some(v.capacity()),
            Buf::Complex(_) => None,
        }
    }
}

impl Elem for Complex<f64> {
    const ZERO: Self = Complex::new(0.0, 0.0);
    fn wrap(v: Vec<Self>) -> Buf {
        Buf::Complex(v)
    }
    fn unwrap(b: Buf) -> Option<Vec<Self>> {
        match b {
            Buf::Complex(v) => Some(v),
            Buf::Real(_) => None,
        }
    }
    fn capacity(b: &Buf) -> Option<usize> {
        match b {
            Buf::Complex(v) => Some(v.capacity()),
            Buf::Real(_) => None,
        }
    }
}

fn bytes(b: &Buf) -> usize {
    match b {
        Buf::Real(v) => v.capacity() * std::mem::size_of::<f64>(),
        Buf::Complex(v) => v.capacity() * std::mem::size_of::<Complex<f64>>(),
    }
}

/// Per process (a child forked while another thread held the lock starts empty).
static POOL: PerProcess<Lru<Buf>> = PerProcess::new(|| Lru::new(POOL_BYTES, bytes));

fn lock() -> std::sync::MutexGuard<'static, Lru<Buf>> {
    POOL.lock()
}

/// The smallest pooled buffer of element type `T` that holds `len` elements (empty if none).
fn pick<T: Elem>(len: usize) -> Vec<T> {
    lock()
        .take(|bs| {
            bs.iter()
                .enumerate()
                .filter_map(|(i, b)| T::capacity(b).filter(|&c| c >= len).map(|c| (i, c)))
                .min_by_key(|&(_, c)| c)
                .map(|(i, _)| i)
        })
        .and_then(T::unwrap)
        .unwrap_or_default()
}

/// A buffer of `len` zeros (recycled when the pool has one large enough).
pub(super) fn zeros<T: Elem>(len: usize) -> Vec<T> {
    let mut v = pick::<T>(len);
    v.clear();
    // (extended on the pool: `Vec::resize` wrote it with one serial `memset`, ~0.9 ms of a 9 ms
    // composition of 714,420 points on 16 threads, 2026-11-28)
    crate::driver::fill_to(&mut v, len, T::ZERO);
    v
}

/// A buffer of `len` elements with unspecified contents (zeros or values of an earlier use):
/// for a caller that writes every element before reading it.
pub(super) fn any<T: Elem>(len: usize) -> Vec<T> {
    let mut v = pick::<T>(len);
    crate::driver::fill_to(&mut v, len, T::ZERO);
    v
}

/// Give a buffer back (kept if it is at most a quarter of the pool's budget).
pub(super) fn give<T: Elem>(v: Vec<T>) {
    let b = T::wrap(v);
    let mut p = lock();
    if p.keeps(bytes(&b)) {
        p.push(b);
    } // (else `b` is freed after the lock is released)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_buffers_are_zero_and_budget_holds() {
        let mut v = zeros::<f64>(1000);
        v.iter_mut().for_each(|x| *x = 7.0);
        give(v);
        let w = zeros::<f64>(500);
        assert!(w.len() == 500 && w.iter().all(|&x| x == 0.0));
        let mut w = any::<f64>(800);
        assert_eq!(w.len(), 800);
        w[799] = 1.0;
        give(w);
        let mut c = any::<Complex<f64>>(300);
        c[3] = Complex::new(1.0, 2.0);
        give(c);
        assert_eq!(any::<Complex<f64>>(200).len(), 200);
        let z = zeros::<Complex<f64>>(250);
        assert!(z.iter().all(|&x| x == Complex::new(0.0, 0.0)));
        let eighth = POOL_BYTES / 8 / std::mem::size_of::<f64>();
        for _ in 0..12 {
            give(vec![1.0f64; eighth]); // an eighth of the budget each: at most 8 kept
        }
        give(vec![1.0f64; 2 * eighth + 1]); // just over a quarter: never kept
        let p = lock();
        assert!(p.bytes() <= POOL_BYTES);
        assert!(p.items().iter().all(|b| bytes(b) <= POOL_BYTES / 4));
    }
}
