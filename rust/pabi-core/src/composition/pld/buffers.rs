//! Recycled working memory of the FFT composition ([`compose`](super::compose)): the signal,
//! spectrum, bound and scratch buffers of a composition and the window's masses and suffix sums
//! of a [`Composition`](super::Composition) (given back when it is dropped) are taken from a
//! small pool instead of being allocated afresh. A fresh multi-megabyte allocation is mapped
//! page by page on its first write; at T = 1e5 DP-SGD steps (about 30 MB per direction) those
//! page faults cost about as much as the inverse FFT. Every buffer taken is filled (zeros) to
//! its length before use, so no value depends on the pool.

use realfft::num_complex::Complex;
use std::sync::Mutex;

/// Bytes the pool may keep between calls (the oldest buffers are dropped first); a buffer
/// larger than a quarter of it is never kept.
const POOL_BYTES: usize = 64 << 20;

struct Pool {
    reals: Vec<Vec<f64>>,
    complexes: Vec<Vec<Complex<f64>>>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    reals: Vec::new(),
    complexes: Vec::new(),
});

fn bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}

/// The smallest pooled buffer that holds `len` elements, if any.
fn pick<T>(list: &mut Vec<Vec<T>>, len: usize) -> Option<Vec<T>> {
    let i = list
        .iter()
        .enumerate()
        .filter(|(_, v)| v.capacity() >= len)
        .min_by_key(|(_, v)| v.capacity())
        .map(|(i, _)| i)?;
    Some(list.swap_remove(i))
}

fn lock() -> std::sync::MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A buffer of `len` zeros (recycled when the pool has one large enough).
pub(super) fn reals(len: usize) -> Vec<f64> {
    let mut v = pick(&mut lock().reals, len).unwrap_or_default();
    v.clear();
    v.resize(len, 0.0);
    v
}

/// A buffer of `len` elements with unspecified contents (zeros or values of an earlier use):
/// for a caller that writes every element before reading it.
pub(super) fn reals_any(len: usize) -> Vec<f64> {
    let mut v = pick(&mut lock().reals, len).unwrap_or_default();
    v.resize(len, 0.0);
    v
}

/// [`reals_any`] for complex buffers (an FFT's output, a scratch).
pub(super) fn complexes_any(len: usize) -> Vec<Complex<f64>> {
    let mut v = pick(&mut lock().complexes, len).unwrap_or_default();
    v.resize(len, Complex::new(0.0, 0.0));
    v
}

/// Drop the oldest buffers until the pool holds at most [`POOL_BYTES`].
fn trim(p: &mut Pool) {
    let mut total: usize =
        p.reals.iter().map(bytes).sum::<usize>() + p.complexes.iter().map(bytes).sum::<usize>();
    while total > POOL_BYTES {
        // the older of the two lists' first entries is unknown: drop the larger list's first
        let v = if bytes_of(&p.reals) >= bytes_of(&p.complexes) {
            bytes(&p.reals.remove(0))
        } else {
            bytes(&p.complexes.remove(0))
        };
        total -= v;
    }
}

fn bytes_of<T>(list: &[Vec<T>]) -> usize {
    list.iter().map(bytes).sum()
}

/// Give a buffer back (kept if it is at most a quarter of the pool's budget).
pub(super) fn give_reals(v: Vec<f64>) {
    if bytes(&v) == 0 || bytes(&v) > POOL_BYTES / 4 {
        return;
    }
    let mut p = lock();
    p.reals.push(v);
    trim(&mut p);
}

/// Give a complex buffer back (kept if it is at most a quarter of the pool's budget).
pub(super) fn give_complexes(v: Vec<Complex<f64>>) {
    if bytes(&v) == 0 || bytes(&v) > POOL_BYTES / 4 {
        return;
    }
    let mut p = lock();
    p.complexes.push(v);
    trim(&mut p);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_buffers_are_zero_and_budget_holds() {
        let mut v = reals(1000);
        v.iter_mut().for_each(|x| *x = 7.0);
        give_reals(v);
        let w = reals(500);
        assert!(w.len() == 500 && w.iter().all(|&x| x == 0.0));
        let mut w = reals_any(800);
        assert_eq!(w.len(), 800);
        w[799] = 1.0;
        give_reals(w);
        let mut c = complexes_any(300);
        c[3] = Complex::new(1.0, 2.0);
        give_complexes(c);
        assert_eq!(complexes_any(200).len(), 200);
        for _ in 0..40 {
            give_reals(vec![1.0; 1 << 20]); // 8 MiB each: at most 8 kept
        }
        let p = lock();
        assert!(bytes_of(&p.reals) + bytes_of(&p.complexes) <= POOL_BYTES);
    }
}
