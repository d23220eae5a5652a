//! The real FFT of long compositions, split so that it runs on every core.
//!
//! realfft computes a real FFT of even length N = 2M as one complex FFT of length M (of the
//! pairs z_j = x_{2j} + i·x_{2j+1}) followed by a packing pass that combines bins k and M − k;
//! the inverse runs the packing backwards, then the complex inverse FFT. The packing here is
//! realfft's, operation for operation (the same twiddles, the same expressions), taken a pair of
//! rows at a time on the pool. The complex FFT of length M = M1·M2 is computed in four steps
//! (Bailey's "four-step" FFT, i.e. one Cooley–Tukey split), in blocks on the pool:
//!
//! 1. the M2 columns j2 of the M1 × M2 input (x_{j1·M2 + j2}) are gathered into rows and
//!    transformed with rustfft's length-M1 FFT, giving Y[j2][k1];
//! 2. Y[j2][k1] is multiplied by the twiddle ω_M^{j2·k1} (ω_M = e^{−2πi/M}), a cached product
//!    of two entries of [`TwiddleTable`] (exact index reduction j2·k1 mod M), and scattered
//!    back as column j2 of the output (the column pass);
//! 3. each row k1 of the output is transformed in place with the length-M2 FFT (the row
//!    pass), giving X_{k1 + M1·k2} at position k1·M2 + k2.
//!
//! The spectrum is left in that order ([`SplitFft::bin`]) instead of being transposed back:
//! the composition's per-bin steps do not depend on where a bin sits. The inverse runs the
//! steps backwards (row pass, conjugate twiddles, column pass writing the signal in natural
//! order).
//!
//! Every row is transformed by the same plan, whichever worker takes its block, so the value
//! depends on N only, never on the thread count.
//!
//! # Round-off (the bound of `fft::fft_error_coeff`)
//! The split transform is still a product of sparse stages in which every output is a sum of
//! inputs times unit-modulus weights and every output reaches every input along exactly one
//! path: the stages of the two rustfft plans (levels(M1) + levels(M2) = levels(M) radix-2
//! equivalent levels, as for one length-M plan) and the twiddle stage of step 2, one more level.
//! That stage forms fl(w̃·y) with w̃ the product of two table entries, each within 11u of its
//! exact value, so |w̃ − w| ≤ 22u + u² + √2γ₂(1 + 11u)² ≤ 25.9u, and
//! |fl(w̃·y) − w·y| ≤ (25.9u + √2γ₂(1 + 25.9u))|y| ≤ 28.8u·|y|: within the per-level η = 32u of
//! the bound. The gathers and scatters are exact. So `fft_error_coeff` counts one level
//! more for the lengths that take this path ([`split_factor`]).

use std::sync::Arc;

use rayon::prelude::*;
use realfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use super::fft::TwiddleTable;

type C = Complex<f64>;

/// Hands every element of `blk` (rows of length `len`) to `put(column, row, value)`, in tiles
/// of [`TILE`] columns: each row's [`TILE`] values are whole cache lines, and `put` writes
/// [`TILE`] streams that advance with the row (the inverse of [`gather`]).
#[inline(always)]
fn spread(blk: &[C], len: usize, put: impl Fn(usize, usize, C)) {
    let nr = blk.len() / len;
    let mut c0 = 0;
    while c0 + TILE <= len {
        for (r, row) in blk.chunks_exact(len).enumerate() {
            for (d, &z) in row[c0..c0 + TILE].iter().enumerate() {
                put(c0 + d, r, z);
            }
        }
        c0 += TILE;
    }
    for c in c0..len {
        for r in 0..nr {
            put(c, r, blk[r * len + c]);
        }
    }
}

/// Real lengths N from which the split transform is used (below, realfft's own serial one).
/// Measured on one thread (forward + inverse, best of 15, 2-core AMD EPYC): at N = 2^17 and
/// 250,000 the split costs 40–50 % more than realfft's transform (realfft's fits the cache);
/// from N = 680,400 (DP-SGD at T = 1e5) it is within −16 % … +8 % of realfft's (714,420:
/// 8.2 vs 8.0 ms; 2^20: 10.7 vs 12.3 ms). So the split starts at 2^19, above the lengths of
/// T ≤ 3·10^4 steps (N ≤ 392,000). DP-SGD ε at T = 1e5 (two directions side by side): on
/// 2 cores +3 % on one thread and +8 % on two (both cores were already busy), on 16 cores of a
/// Xeon 15–16 → 7.5–9 ms.
pub(super) const SPLIT_MIN: usize = 1 << 19;

/// Complex elements per row block of a pass (a block stays in the cache while it is gathered,
/// transformed and twisted).
const BLOCK: usize = 1 << 14;

/// The split M = M1·M2 of the half length M = N/2 that the FFT of real length N uses, or
/// `None` where it uses realfft's serial transform (N below [`SPLIT_MIN`], or no split).
pub(super) fn split_factor(n: usize) -> Option<(usize, usize)> {
    if n < SPLIT_MIN {
        return None;
    }
    halves(n)
}

/// The largest length of the column FFTs: M1 is the largest divisor of M = N/2 in
/// [16, [`M1_MAX`]]. Short columns keep the column pass's gathers and scatters (the
/// transposes) cheap and leave the long transforms to the contiguous rows; measured on one
/// thread, the largest divisor up to 128 was faster than the largest up to 256, than the
/// smallest from 64 and than the divisor nearest √M at every length tried (N = 680,400 …
/// 2,204,496; e.g. 2^20: 128 × 4096 in 10.7 ms against 512 × 1024 in 12.2 ms).
const M1_MAX: usize = 128;

/// M = N/2 = M1·M2 with M1 the largest divisor of M in [16, [`M1_MAX`]], if N is even and
/// M has one.
fn halves(n: usize) -> Option<(usize, usize)> {
    if n % 2 != 0 {
        return None;
    }
    let m = n / 2;
    (16..=M1_MAX.min(m))
        .rev()
        .find(|d| m % d == 0)
        .map(|m1| (m1, m / m1))
}

/// realfft's packing twiddle k of length N: e^{−2πik/N} from the f64 angle (−2π/N)·k.
fn pack_twiddle(k: usize, n: usize) -> C {
    let constant = -2f64 * std::f64::consts::PI / n as f64;
    let angle = constant * k as f64;
    C::new(angle.cos(), angle.sin())
}

/// The plans of one real length N = 2·M1·M2 (see the module doc).
pub(super) struct SplitFft {
    n: usize,
    m1: usize,
    m2: usize,
    fwd1: Arc<dyn Fft<f64>>,
    fwd2: Arc<dyn Fft<f64>>,
    inv1: Arc<dyn Fft<f64>>,
    inv2: Arc<dyn Fft<f64>>,
    /// the twiddles of step 2, row j2 (length M1) at j2·M1: the products of the two-level
    /// table's entries ([`TwiddleTable::twiddles`])
    twid: Vec<C>,
    /// realfft's (halved) packing twiddle of each pair's lower bin a, at a's position
    twp: Vec<C>,
}

impl SplitFft {
    /// The plans of length `n`, where [`split_factor`] gives a split.
    pub(super) fn new(n: usize) -> Option<Self> {
        split_factor(n).and_then(|_| Self::of(n))
    }

    /// The plans of any even length with a split (the tests use short ones).
    fn of(n: usize) -> Option<Self> {
        let (m1, m2) = halves(n)?;
        let mut planner = FftPlanner::<f64>::new();
        let tw = TwiddleTable::new(m1 * m2);
        let mut twid = vec![C::new(0.0, 0.0); m1 * m2];
        on_pool(|| {
            twid.par_chunks_mut(m1).enumerate().for_each(|(j2, row)| {
                row.iter_mut()
                    .zip(tw.twiddles(0, j2))
                    .for_each(|(z, w)| *z = w)
            })
        });
        Some(SplitFft {
            n,
            m1,
            m2,
            fwd1: planner.plan_fft_forward(m1),
            fwd2: planner.plan_fft_forward(m2),
            inv1: planner.plan_fft_inverse(m1),
            inv2: planner.plan_fft_inverse(m2),
            twid,
            twp: pack_table(n, m1),
        })
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.n
    }

    /// The bin held at position p of this transform's spectra: p = k1·M2 + k2 holds bin
    /// k1 + M1·k2 (step 3's rows, not transposed back); the last position holds bin M.
    pub(super) fn bin(&self, p: usize) -> usize {
        if p >= self.m1 * self.m2 {
            p
        } else {
            p / self.m2 + self.m1 * (p % self.m2)
        }
    }

    /// Complex scratch elements [`Self::forward`] and [`Self::inverse`] need (none).
    pub(super) fn scratch_len(&self) -> usize {
        0
    }

    /// Bytes held by the plans (the twiddle tables; rustfft's short plans are small).
    pub(super) fn bytes(&self) -> usize {
        16 * (self.twid.len() + self.twp.len()) + 64 * (self.m1 + self.m2)
    }

    /// The spectrum (N/2 + 1 bins, in the order of [`Self::bin`]) of the real signal `x`
    /// (length N): realfft's `RealToComplexEven::process` with this complex FFT.
    pub(super) fn forward(&self, x: &[f64], spec: &mut [C], _scratch: &mut [C]) {
        let m = self.n / 2;
        assert!(x.len() == self.n && spec.len() == m + 1);
        let out = Scatter::new(&mut spec[..m]);
        // SAFETY: `columns` writes each index below M once (the doc of `Scatter`)
        self.columns(Src::Pairs(x), false, move |i, z| unsafe { out.put(i, z) });
        self.rows(&mut spec[..m], false);
        pack(
            spec,
            self.m1,
            &self.twp,
            pair_forward,
            center_forward,
            ends_forward,
        );
    }

    /// The real signal (length N, unnormalised) of the spectrum `spec` (N/2 + 1 bins in the
    /// order of [`Self::bin`]): realfft's `ComplexToRealEven::process` with this complex FFT;
    /// `spec` is overwritten and the imaginary parts of bins 0 and M are taken as 0.
    pub(super) fn inverse(&self, spec: &mut [C], out: &mut [f64], _scratch: &mut [C]) {
        let m = self.n / 2;
        assert!(out.len() == self.n && spec.len() == m + 1);
        pack(
            spec,
            self.m1,
            &self.twp,
            pair_inverse,
            center_inverse,
            ends_inverse,
        );
        self.rows(&mut spec[..m], true);
        let o = Scatter::new(out);
        // SAFETY: `columns` writes each index i < M once, here as the pair 2i, 2i + 1
        self.columns(Src::Cplx(&spec[..m]), true, move |i, z| unsafe {
            o.put(2 * i, z.re);
            o.put(2 * i + 1, z.im);
        });
    }

    /// The column pass: column j2 of the M1 × M2 array `src` gathered; forward: its length-M1
    /// FFT, then the twiddles ω^{j2·k1}; inverse: the conjugate twiddles, then the inverse FFT;
    /// element i of the column handed to `put(i·M2 + j2, value)`. In blocks of columns on the
    /// pool, each block putting its own columns only.
    fn columns(&self, src: Src<'_>, inv: bool, put: impl Fn(usize, C) + Sync) {
        let (m1, m2) = (self.m1, self.m2);
        let p1 = if inv { &self.inv1 } else { &self.fwd1 };
        let per = (BLOCK / m1).max(1);
        let sl = p1.get_inplace_scratch_len();
        let init = || (vec![C::new(0.0, 0.0); per * m1], vec![C::new(0.0, 0.0); sl]);
        let twist = |j0: usize, blk: &mut [C]| {
            for (r, row) in blk.chunks_exact_mut(m1).enumerate() {
                let w = &self.twid[(j0 + r) * m1..(j0 + r + 1) * m1];
                if inv {
                    row.iter_mut().zip(w).for_each(|(z, w)| *z *= w.conj());
                } else {
                    row.iter_mut().zip(w).for_each(|(z, w)| *z *= w);
                }
            }
        };
        on_pool(|| {
            (0..m2.div_ceil(per))
                .into_par_iter()
                .for_each_init(init, |(blk, scr), b| {
                    let j0 = b * per;
                    let nr = per.min(m2 - j0);
                    let blk = &mut blk[..nr * m1];
                    gather(blk, m1, src, m2, j0);
                    if inv {
                        twist(j0, blk);
                        p1.process_with_scratch(blk, scr);
                    } else {
                        p1.process_with_scratch(blk, scr);
                        twist(j0, blk);
                    }
                    spread(blk, m1, |i, r, z| put(i * m2 + j0 + r, z));
                })
        });
    }

    /// The row pass: each row (length M2) of `u` transformed in place, in blocks of rows on
    /// the pool.
    fn rows(&self, u: &mut [C], inv: bool) {
        let p2 = if inv { &self.inv2 } else { &self.fwd2 };
        let per = (BLOCK / self.m2).max(1);
        let sl = p2.get_inplace_scratch_len();
        on_pool(|| {
            u.par_chunks_mut(per * self.m2).for_each_init(
                || vec![C::new(0.0, 0.0); sl],
                |scr, blk| p2.process_with_scratch(blk, scr),
            )
        });
    }
}

/// realfft's forward packing twiddles e^{−2πia/N}/2 of the pairs' lower bins a = 1..⌊M/2⌋ (bin
/// a pairs with M − a; for even M, a = M/2 pairs with itself and takes none), stored at a's
/// position for the split M = M1·(M/M1) (M1 = 1: natural order, position a).
fn pack_table(n: usize, m1: usize) -> Vec<C> {
    let m = n / 2;
    let m2 = m / m1;
    let count = if n % 4 == 0 { n / 4 } else { n / 4 + 1 };
    let mut t = vec![C::new(0.0, 0.0); m];
    for a in 1..count {
        t[(a % m1) * m2 + a / m1] = pack_twiddle(a, n) * 0.5;
    }
    t
}

/// The part that realfft's forward and inverse packings of a pair share: the sum and the
/// difference of the pair's values, and the real and imaginary parts of the twiddled terms.
#[inline(always)]
fn twiddled(a: C, b: C, twiddle: C) -> (C, C, f64, f64) {
    let sum = a + b;
    let diff = a - b;
    let twiddled_re_sum = sum * twiddle.re;
    let twiddled_im_sum = sum * twiddle.im;
    let twiddled_re_diff = diff * twiddle.re;
    let twiddled_im_diff = diff * twiddle.im;
    let output_twiddled_real = twiddled_re_sum.im + twiddled_im_diff.re;
    let output_twiddled_im = twiddled_im_sum.im - twiddled_re_diff.re;
    (sum, diff, output_twiddled_real, output_twiddled_im)
}

/// realfft's forward packing of one pair: `out` at bin a, `out_rev` at bin M − a (a < M − a),
/// `twiddle` = e^{−2πia/N}/2; the same operations as `RealToComplexEven::process_with_scratch`.
#[inline(always)]
fn pair_forward(out: &mut C, out_rev: &mut C, twiddle: C) {
    let (sum, diff, real, im) = twiddled(*out, *out_rev, twiddle);
    let half = 0.5;
    let half_sum_re = half * sum.re;
    let half_diff_im = half * diff.im;
    *out = C::new(half_sum_re + real, half_diff_im + im);
    *out_rev = C::new(half_sum_re - real, im - half_diff_im);
}

/// realfft's forward packing of bins 0 and M (from the complex FFT's bin 0).
fn ends_forward(first: &mut C, last: &mut C) {
    let v = *first;
    *first = C::new(v.re + v.im, 0.0);
    *last = C::new(v.re - v.im, 0.0);
}

/// realfft's forward packing of the center bin M/2 (even M).
fn center_forward(c: &mut C) {
    c.im = -c.im;
}

/// realfft's inverse preprocessing of bins 0 and M (imaginary parts taken as 0).
fn ends_inverse(first: &mut C, last: &mut C) {
    first.im = 0.0;
    last.im = 0.0;
    let first_sum = *first + *last;
    let first_diff = *first - *last;
    *first = C::new(first_sum.re - first_sum.im, first_diff.re - first_diff.im);
}

/// realfft's inverse preprocessing of the center bin M/2 (even M).
fn center_inverse(c: &mut C) {
    let doubled = *c + *c;
    *c = doubled.conj();
}

/// realfft's inverse preprocessing of one pair (`ComplexToRealEven::process_with_scratch`): its
/// twiddle is conj(e^{−2πia/N}) = conj(2·`half`) (the doubling is exact).
#[inline(always)]
fn pair_inverse(fft_input: &mut C, fft_input_rev: &mut C, half: C) {
    let twiddle = C::new(2.0 * half.re, 2.0 * half.im).conj();
    let (sum, diff, real, im) = twiddled(*fft_input, *fft_input_rev, twiddle);
    *fft_input = C::new(sum.re - real, diff.im - im);
    *fft_input_rev = C::new(sum.re + real, -im - diff.im);
}

/// realfft's packing pass on `spec` (M + 1 bins, position p = k1·M2 + k2 holding bin
/// k1 + M1·k2, the last holding bin M; M1 = 1 is the natural order): `ends(bin 0, bin M)`
/// (forward: DC and Nyquist from bin 0; inverse: bin 0 from both), `pair(lower, upper,
/// twp[lower's position])` on every pair of bins (a, M − a) with a < M − a, and `center` on bin
/// M/2 for even M. Bin a ≠ 0 of row k1 pairs with row M1 − k1 (bins of row 0 with row 0), so
/// the pairs are taken a row pair at a time, on the pool.
fn pack(
    spec: &mut [C],
    m1: usize,
    twp: &[C],
    pair: impl Fn(&mut C, &mut C, C) + Sync,
    center: impl Fn(&mut C) + Sync,
    ends: impl Fn(&mut C, &mut C),
) {
    let m = spec.len() - 1;
    let m2 = m / m1;
    let (body, last) = spec.split_at_mut(m);
    ends(&mut body[0], &mut last[0]);
    let (row0, rest) = body.split_at_mut(m2);
    let h = (m1 - 1) / 2;
    let (lo, rest) = rest.split_at_mut(h * m2);
    let (mid, hi) = rest.split_at_mut(rest.len() - h * m2);
    on_pool(|| {
        let ((), ()) = rayon::join(
            || {
                // row 0: bins M1·k2, partner M2 − k2
                let tw = &twp[..m2];
                for k2 in 1..m2 {
                    let q = m2 - k2;
                    if q > k2 {
                        let (a, b) = row0.split_at_mut(q);
                        pair(&mut a[k2], &mut b[0], tw[k2]);
                    } else if q == k2 {
                        center(&mut row0[k2]);
                    }
                }
                // the middle row M1/2 (even M1): element k2 with M2 − 1 − k2
                if !mid.is_empty() {
                    let k1 = m1 / 2;
                    let tw = &twp[k1 * m2..(k1 + 1) * m2];
                    for k2 in 0..m2 {
                        let q = m2 - 1 - k2;
                        if q > k2 {
                            let (a, b) = mid.split_at_mut(q);
                            pair(&mut a[k2], &mut b[0], tw[k2]);
                        } else if q == k2 {
                            center(&mut mid[k2]);
                        }
                    }
                }
            },
            || {
                // rows k1 and M1 − k1, 1 ≤ k1 < M1 − k1: element k2 of row k1 (bin
                // k1 + M1·k2) with element M2 − 1 − k2 of row M1 − k1; the lower bin is row
                // k1's where k1 + M1·k2 < M/2
                lo.par_chunks_mut(m2)
                    .zip(hi.par_chunks_mut(m2).rev())
                    .enumerate()
                    .for_each(|(i, (r1, r2))| {
                        let k1 = 1 + i;
                        let t1 = &twp[k1 * m2..(k1 + 1) * m2];
                        let t2 = &twp[(m1 - k1) * m2..(m1 - k1 + 1) * m2];
                        for k2 in 0..m2 {
                            let q = m2 - 1 - k2;
                            if 2 * (k1 + m1 * k2) < m {
                                pair(&mut r1[k2], &mut r2[q], t1[k2]);
                            } else {
                                pair(&mut r2[q], &mut r1[k2], t2[q]);
                            }
                        }
                    })
            },
        );
    });
}

/// Writes into one slice from several tasks at once, at indices that the callers partition
/// between the tasks (each index written by one task only, nothing read while they run): the
/// column blocks of [`SplitFft::columns`] write interleaved, disjoint index sets (whole
/// columns) that no safe slice split can express. Every write is bounds-checked.
#[derive(Clone, Copy)]
struct Scatter<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: a Scatter only writes (never reads) through its pointer, at indices the callers keep
// disjoint between threads, for the lifetime of the exclusive borrow it was made from.
unsafe impl<T: Send> Sync for Scatter<'_, T> {}
unsafe impl<T: Send> Send for Scatter<'_, T> {}

impl<'a, T> Scatter<'a, T> {
    fn new(s: &'a mut [T]) -> Self {
        Scatter {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _borrow: std::marker::PhantomData,
        }
    }

    /// # Safety
    /// No other thread writes index `i` while the scatter is in use.
    #[inline(always)]
    unsafe fn put(&self, i: usize, v: T) {
        assert!(i < self.len);
        // SAFETY: in bounds (checked); exclusive per index by the caller's contract
        unsafe { self.ptr.add(i).write(v) }
    }
}

/// A source of a gather: complex elements, or complex elements stored as (re, im) pairs of a
/// real signal.
#[derive(Clone, Copy)]
enum Src<'a> {
    Cplx(&'a [C]),
    Pairs(&'a [f64]),
}

impl Src<'_> {
    #[inline(always)]
    fn get(self, i: usize) -> C {
        match self {
            Src::Cplx(s) => s[i],
            Src::Pairs(x) => C::new(x[2 * i], x[2 * i + 1]),
        }
    }
}

/// Columns per tile of [`gather`] and [`spread`]: eight complex values fill two 64-byte cache
/// lines of a row (measured on one thread at N = 714,420: the column pass 2.5 → 2.0 ms against
/// four, 2.3 ms with sixteen).
const TILE: usize = 8;

/// `blk` (rows of length `len`, the rows r0, r0 + 1, … of a transpose): row r, column c =
/// `src[c·stride + r0 + r]`. Tiles of [`TILE`] columns, so that each row's writes fill whole
/// cache lines and the reads run along [`TILE`] source rows.
#[inline(always)]
fn gather(blk: &mut [C], len: usize, src: Src<'_>, stride: usize, r0: usize) {
    let nr = blk.len() / len;
    let mut c0 = 0;
    while c0 + TILE <= len {
        let base: [usize; TILE] = std::array::from_fn(|d| (c0 + d) * stride + r0);
        for (r, row) in blk.chunks_exact_mut(len).enumerate() {
            let dst = &mut row[c0..c0 + TILE];
            for d in 0..TILE {
                dst[d] = src.get(base[d] + r);
            }
        }
        c0 += TILE;
    }
    for c in c0..len {
        for r in 0..nr {
            blk[r * len + c] = src.get(c * stride + r0 + r);
        }
    }
}

fn on_pool(op: impl FnOnce() + Send) {
    match crate::driver::pool() {
        Some(p) => p.install(op),
        None => op(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use realfft::RealFftPlanner;

    fn signal(n: usize) -> Vec<f64> {
        // a sub-probability with a wide dynamic range (like a PLD's masses)
        let mut v: Vec<f64> = (0..n)
            .map(|i| {
                let z = (i as f64 - 0.3 * n as f64) / (0.05 * n as f64);
                (-0.5 * z * z).exp() * (1.0 + 0.1 * ((i * 7919 % 101) as f64 / 101.0))
            })
            .collect();
        let s: f64 = v.iter().sum();
        v.iter_mut().for_each(|x| *x /= s);
        v
    }

    #[test]
    fn split_factor_picks_the_largest_short_column() {
        assert_eq!(halves(714_420), Some((126, 2835)));
        assert_eq!(split_factor(714_420), Some((126, 2835)));
        assert_eq!(split_factor(392_000), None); // below SPLIT_MIN: realfft's transform
        assert_eq!(split_factor(1 << 20), Some((128, 4096)));
        assert_eq!(halves(2 * 65_537), None); // M prime
        assert_eq!(halves(2 * 17 * 65_537), Some((17, 65_537))); // the only divisor in range
        assert_eq!(halves(2 * 15 * 65_537), None); // its divisors in range: none (3, 5, 15 < 16)
    }

    fn bits(v: &[C]) -> Vec<(u64, u64)> {
        v.iter().map(|z| (z.re.to_bits(), z.im.to_bits())).collect()
    }

    /// The split transforms against realfft's (same packing, another complex FFT): every bin
    /// within the bound of `fft_error_coeff` times ‖x‖₁, forward and back; the same bits at 1
    /// and at several threads.
    #[test]
    fn split_fft_matches_realfft_within_the_bound() {
        for n in [65_536, 98_304, 714_420, SPLIT_MIN] {
            let x = signal(n);
            let l1: f64 = x.iter().sum();
            let s = SplitFft::of(n).unwrap();
            let mut planner = RealFftPlanner::<f64>::new();
            let (f, i) = (planner.plan_fft_forward(n), planner.plan_fft_inverse(n));
            let mut want = f.make_output_vec();
            f.process(&mut x.clone(), &mut want).unwrap();
            let mut got = vec![C::new(0.0, 0.0); n / 2 + 1];
            s.forward(&x, &mut got, &mut []);
            let kappa = super::super::fft::fft_error_coeff(n);
            let worst = (0..got.len())
                .map(|p| (got[p] - want[s.bin(p)]).norm())
                .fold(0.0, f64::max);
            assert!(
                worst <= 2.0 * kappa * l1,
                "n={n}: {worst:e} vs {:e}",
                kappa * l1
            );
            assert!(worst > 0.0); // a different algorithm (not realfft's own)
                                  // every bin once
            let mut seen = vec![false; got.len()];
            (0..got.len()).for_each(|p| seen[s.bin(p)] = true);
            assert!(seen.iter().all(|&b| b));
            // inverse: back to N·x, as realfft's inverse of its own spectrum
            let mut spec = got.clone();
            let mut back = vec![0.0; n];
            s.inverse(&mut spec, &mut back, &mut []);
            let mut spec2 = want.clone();
            let mut back2 = vec![0.0; n];
            i.process(&mut spec2, &mut back2).unwrap();
            let worst = back
                .iter()
                .zip(&back2)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            let l1s: f64 = want.iter().map(|z| 2.0 * z.norm()).sum();
            assert!(worst <= 2.0 * kappa * l1s, "n={n}: inverse {worst:e}");
            let rel = back
                .iter()
                .zip(&x)
                .map(|(a, b)| (a / n as f64 - b).abs())
                .fold(0.0, f64::max);
            assert!(rel < 1e-15, "n={n}: round trip {rel:e}");
            // thread count does not move a bit
            let prev = crate::driver::num_threads();
            for threads in [1usize, 3] {
                crate::driver::set_num_threads(threads).unwrap();
                let mut again = vec![C::new(0.0, 0.0); n / 2 + 1];
                s.forward(&x, &mut again, &mut []);
                assert_eq!(bits(&again), bits(&got));
                let mut spec3 = got.clone();
                let mut back3 = vec![0.0; n];
                s.inverse(&mut spec3, &mut back3, &mut []);
                assert!(back3
                    .iter()
                    .zip(&back)
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
            }
            crate::driver::set_num_threads(prev).unwrap();
        }
    }

    /// The split transform's claimed bound against an independent, more accurate computation:
    /// on the lengths that take it (κ_N with the twiddle stage's level), sampled bins of the
    /// spectrum within κ_N·‖x‖₁ of the compensated direct DFT (exact index reduction, Neumaier
    /// sums; its own bound `direct_dft_coeff` added), in an even×even and an even×odd split.
    #[test]
    fn split_fft_within_its_bound_of_the_direct_dft() {
        use super::super::fft::{direct_dft_coeff, fft_error_coeff};
        for n in [SPLIT_MIN, 1_058_400] {
            let s = SplitFft::new(n).unwrap();
            let (m, m1, m2) = (n / 2, s.m1, s.m2);
            assert!((m1 % 2, m2 % 2) == (0, 0) || (m1 % 2, m2 % 2) == (0, 1));
            let x = signal(n);
            let l1: f64 = x.iter().sum();
            let mut got = vec![C::new(0.0, 0.0); m + 1];
            s.forward(&x, &mut got, &mut []);
            let tw = TwiddleTable::new(n);
            let pos = |k: usize| if k == m { m } else { (k % m1) * m2 + k / m1 };
            let kappa = fft_error_coeff(n);
            let mut worst = 0.0f64;
            for k in [
                0,
                1,
                2,
                3,
                7,
                40,
                m1 - 1,
                m1,
                m1 + 1,
                m / 3,
                m / 2,
                m - 1,
                m,
            ] {
                assert_eq!(s.bin(pos(k)), k);
                let want = tw.direct_dft(&x, 0, k);
                let err = (got[pos(k)] - want).norm();
                let bound =
                    (kappa + direct_dft_coeff(n)) * l1 + 4.0 * crate::num::round::U * want.norm();
                assert!(err <= bound, "n={n} k={k}: {err:e} > {bound:e}");
                worst = worst.max(err / (kappa * l1));
            }
            eprintln!("n={n}: worst error {worst:.2e} of the bound");
        }
    }

    /// The packing pass is realfft's bit for bit: in natural order (M1 = 1) with rustfft's own
    /// complex FFT of length M in between, the result is realfft's, forward and inverse; in
    /// every split layout (even and odd M1 and M2) it is the natural-order pass, permuted.
    #[test]
    fn packing_is_realfft_bit_for_bit() {
        for n in [10usize, 12, 4098, 4100] {
            let x = signal(n);
            let mut planner = RealFftPlanner::<f64>::new();
            let f = planner.plan_fft_forward(n);
            let i = planner.plan_fft_inverse(n);
            let mut want = f.make_output_vec();
            f.process(&mut x.clone(), &mut want).unwrap();
            let m = n / 2;
            let inner = FftPlanner::<f64>::new().plan_fft_forward(m);
            let mut got: Vec<C> = (0..m).map(|j| C::new(x[2 * j], x[2 * j + 1])).collect();
            inner.process(&mut got);
            got.push(C::new(0.0, 0.0));
            let t1 = pack_table(n, 1);
            pack(&mut got, 1, &t1, pair_forward, center_forward, ends_forward);
            assert_eq!(bits(&got), bits(&want), "forward n={n}");
            // inverse preprocessing + rustfft inverse = realfft's inverse
            let mut spec = want.clone();
            let mut back = vec![0.0; n];
            i.process(&mut spec, &mut back).unwrap();
            let mut mine = want.clone();
            pack(
                &mut mine,
                1,
                &t1,
                pair_inverse,
                center_inverse,
                ends_inverse,
            );
            let inv = FftPlanner::<f64>::new().plan_fft_inverse(m);
            let mut z = mine[..m].to_vec();
            inv.process(&mut z);
            let flat: Vec<f64> = z.iter().flat_map(|c| [c.re, c.im]).collect();
            assert_eq!(
                flat.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "inverse n={n}"
            );
        }
        for (m1, m2) in [(6usize, 10usize), (7, 9), (6, 5), (5, 6), (4, 4), (3, 3)] {
            let m = m1 * m2;
            let n = 2 * m;
            let nat: Vec<C> = (0..=m)
                .map(|k| C::new((k as f64 * 0.37).sin(), (k as f64 * 0.91).cos()))
                .collect();
            let pos = |k: usize| if k == m { m } else { (k % m1) * m2 + k / m1 };
            let mut perm = vec![C::new(0.0, 0.0); m + 1];
            (0..=m).for_each(|k| perm[pos(k)] = nat[k]);
            let (t1, tp) = (pack_table(n, 1), pack_table(n, m1));
            for inverse in [false, true] {
                let (mut a, mut b) = (nat.clone(), perm.clone());
                if inverse {
                    pack(&mut a, 1, &t1, pair_inverse, center_inverse, ends_inverse);
                    pack(&mut b, m1, &tp, pair_inverse, center_inverse, ends_inverse);
                } else {
                    pack(&mut a, 1, &t1, pair_forward, center_forward, ends_forward);
                    pack(&mut b, m1, &tp, pair_forward, center_forward, ends_forward);
                }
                let want: Vec<C> = (0..=m)
                    .map(|p| a[(0..=m).find(|&k| pos(k) == p).unwrap()])
                    .collect();
                assert_eq!(bits(&b), bits(&want), "m1={m1} m2={m2} inverse={inverse}");
            }
        }
    }
}
