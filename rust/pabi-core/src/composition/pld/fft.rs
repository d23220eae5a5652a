//! FFT machinery of [`compose`](super::compose): FFT-friendly lengths, cached realfft plans,
//! the two-level twiddle table of the directly recomputed bins, and the coefficients of the
//! round-off bound. The bound itself (a proof, not an estimate):
//!
//! Let u = 2^-53. Write x_i for the pmf of part i on the length-N circle, z_i = DFT(x_i), the
//! composed spectrum A = Π_i z_i^{T_i} and y = IDFT(A)/N the composed (aliased) pmf.
//! 1. *Forward FFT.* Per bin |ẑ_k − z_k| ≤ κ_N·‖x‖₁ (`fft_error_coeff`: the componentwise
//!    form of Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §24.1,
//!    Thm 24.2, ≈ 2(log₂N + 2)·32u ≈ 1.5e-13 at N = 2^20). Where it matters after powering
//!    (T·R^{T−1}·κ_N > 1e-18, a few dozen bins near the peaks of |z|), the bin is recomputed by
//!    a direct DFT with exact index reduction, two-level twiddle tables and Neumaier summation,
//!    with the bound ε_k = (28u + 4mu²)‖x‖₁ + 4u|ẑ_k| (`direct_dft_coeff`; ≈ 3e-15).
//! 2. *Powering.* ẑ^T is formed in polar form; its relative error against ẑ^T is
//!    ρ ≤ 1.5·T·u + 2u|T ln|ẑ|| + 4u|T arg ẑ| + 12u (ln of |ẑ|² with 3u relative error, exp;
//!    atan2 within 2u relative, sin_cos), and by the mean-value theorem
//!    |ẑ^T − z^T| ≤ T·R^{T−1}·ε_k with R = max(|ẑ|, min(|ẑ| + ε_k, 1)) ≥ max(|ẑ|, |z|) (|z| ≤ 1:
//!    spectrum of a sub-probability). So |â − z^T| ≤ E_k := ρ|â| + T R^{T−1} ε_k, where R^{T−1}
//!    makes every bin away from the peaks negligible (the T-fold amplification is confined to
//!    the few refined bins).
//! 3. *Products over parts.* B ← 3u|Â||â| + |Â|E_k + B·min(|â| + E_k, 1) (complex product
//!    within √2γ₂ ≤ 3u; Higham Lemma 3.5), so |Â_k − A_k| ≤ B_k.
//! 4. *Inverse FFT and window.* y − ŷ = IDFT(A − Â)/N + rounding; per point
//!    ≤ (Σ_k B_k + κ_N Σ_k |Â_k|)/N (componentwise bound of step 1 applied to the inverse),
//!    and in ℓ2, by Parseval, ≤ (‖B‖₂ + κ_N‖Â‖₂)/√N. Summed over the W window points:
//!    `fft_err` = min(W/N·(‖B‖₁ + κ_N‖Â‖₁), √(W/N)·(‖B‖₂ + κ_N‖Â‖₂)) (full Hermitian spectrum),
//!    plus 2u·(window mass) for the 1/N scaling. Negative outputs are clipped to 0, which only
//!    moves them towards the exact (non-negative) values. Since every φ_ε(ℓ) = (1 − e^{ε−ℓ})_+
//!    is in [0, 1], |δ̂(ε) − δ(ε)| ≤ `fft_err` for every ε.
//! 5. *Queries.* δ(ε) is read from suffix sums; their rounding (≤ (3W + 10)u relative on
//!    non-negative sums, plus the exponential factor) is bounded per query
//!    ([`Composition`](super::Composition)'s `query_err`) and added (upper) or subtracted (lower).
//!
//! For q = 0.01, σ = 1, T = 1e5 (N = 714420) this gives `fft_err` ≈ 9e-10: the upper ε at
//! δ = 1e-5 moves by ≈ 1e-4.

use crate::driver::PerProcess;
use crate::num::logspace::Neumaier;
use crate::num::round::U;
use realfft::num_complex::Complex;
use realfft::RealFftPlanner;

use super::cache::Lru;
use super::fft_split::{split_factor, SplitFft};

/// Smallest even 2^a·3^b·5^c·7^d ≥ n (FFT-friendly length).
pub(super) fn next_smooth(n: usize) -> usize {
    let mut best = n.next_power_of_two();
    let mut p7 = 1usize;
    while p7 < best {
        let mut p5 = p7;
        while p5 < best {
            let mut p3 = p5;
            while p3 < best {
                let mut v = p3 * 2;
                while v < n {
                    v *= 2;
                }
                if v < best {
                    best = v;
                }
                p3 *= 3;
            }
            p5 *= 5;
        }
        p7 *= 7;
    }
    best
}

/// κ_N: per-bin bound |ŷ_k − y_k| ≤ κ_N·‖x‖₁ of realfft/rustfft's length-N real FFT (forward,
/// or inverse per output point in terms of ‖spectrum‖₁), and the normwise analogue.
///
/// Componentwise version of Higham, *Accuracy and Stability of Numerical Algorithms* (2nd ed.,
/// 2002), §24.1, Thm 24.2: a Cooley–Tukey FFT is a product of sparse stages whose outputs are
/// sums of ≤ r inputs times unit-modulus twiddles; the stage's computed output differs from
/// the exact stage applied to the computed input by ≤ η·Σ|inputs| per output, and since every
/// output of the DFT reaches each input along exactly one path with unit-modulus weights, the
/// entrywise-absolute stage products map |x| to ‖x‖₁. Hence per output |ŷ − y| ≤
/// ((1+η)^L − 1)‖x‖₁ ≤ Lη/(1 − Lη)·‖x‖₁ for L radix-2-equivalent levels. Here η = 32u covers
/// a twiddle error μ ≤ 21u (rustfft: sin/cos of the f64 angle −2π·j/N, |angle| ≤ 2π) plus
/// γ₄(√2 + μ) of the complex multiply-add (Higham's η = μ + γ₄(√2 + μ)); a radix-p butterfly
/// (p = 3, 5, 7: sums of p terms with precomputed constants) is counted as ⌈log₂ p⌉ levels;
/// realfft's real↔half-length-complex packing adds one level and doubles the bound (each
/// output combines two bins of the half-length transform).
pub(super) fn fft_error_coeff(n: usize) -> f64 {
    let mut m = (n / 2).max(1);
    let mut levels = 0.0;
    for (p, l) in [(2usize, 1.0), (3, 2.0), (5, 3.0), (7, 3.0)] {
        while m % p == 0 {
            m /= p;
            levels += l;
        }
    }
    // any other factor (not produced by next_smooth): count a generic radix as log2(m)+1 levels
    if m > 1 {
        levels += (m as f64).log2().ceil() + 1.0;
    }
    // the split transform's twiddle stage (module doc of `fft_split`)
    if split_factor(n).is_some() {
        levels += 1.0;
    }
    let lam = 2.0 * (levels + 2.0) * 32.0 * U;
    lam / (1.0 - lam)
}

/// Per-bin bound (over ‖x‖₁) of [`TwiddleTable::direct_dft`] over m terms: twiddle as a product
/// of two table entries (each within 11u: sin/cos of an f64 angle |a| ≤ π with 3u relative
/// error), the complex product (√2γ₂), the real×complex product (u), and Neumaier summation
/// (Higham §4.3: ≤ 2u|s| + O(m u²)Σ|terms|; the 2u|s| part is added by the caller as 4u|z|).
pub(super) fn direct_dft_coeff(m: usize) -> f64 {
    28.0 * U + 4.0 * m as f64 * U * U
}

/// Terms per segment of a long direct DFT ([`dft_segments`]).
const DFT_SEGMENT: usize = 4096;

/// The segments [a, b) into which the m terms of a direct DFT are cut (equal lengths, their
/// number ⌈m / 4096⌉ fixed by m alone, so no value depends on the thread count). Each segment's
/// Neumaier sums run as their own task and [`combine_segments`] adds their (sum, compensation)
/// pairs in order. A DP-SGD part has m ≈ 54,000 terms and ~19 bins to recompute: 5 groups of
/// [`DFT_LANES`] bins were at most 5 parallel tasks (×3.7 from 1 to 16 threads on the 16-core
/// device, 1.7 ms of a 9.4 ms composition at T = 1e5; 2026-11-28).
///
/// Error bound: the pairs (s_i, c_i) are the segments' Neumaier states, each within
/// O(m_i u²)·Σ|terms| of its segment's sum before any final rounding; adding the 2S numbers
/// s_1, c_1, …, s_S, c_S by Neumaier's rule errs by 2u|s| + O(2S u²)·Σ|s_i + c_i| (Higham §4.3),
/// so the whole sum keeps the bound of one Neumaier sum over m + 2S terms:
/// [`direct_dft_coeff`]`(m + 2S)` (the 2u|s| part added by the caller as before).
pub(super) fn dft_segments(m: usize) -> Vec<(usize, usize)> {
    let s = dft_segment_count(m);
    let len = m.div_ceil(s);
    (0..s).map(|i| (i * len, ((i + 1) * len).min(m))).collect()
}

/// The number S of [`dft_segments`] of m terms.
fn dft_segment_count(m: usize) -> usize {
    m.div_ceil(DFT_SEGMENT).max(1)
}

/// The bound coefficient of a direct DFT over m terms as it is computed: one Neumaier sum, or
/// the [`dft_segments`] combined (their S pairs counted as 2S more terms).
pub(super) fn direct_dft_coeff_of(m: usize) -> f64 {
    match dft_segment_count(m) {
        1 => direct_dft_coeff(m),
        s => direct_dft_coeff(m + 2 * s),
    }
}

/// The value of each lane from the Neumaier states of its segments (in segment order): one
/// segment is its own s + c, as [`TwiddleTable::direct_dft_lanes`] gives; several are added as
/// the terms s_1, c_1, s_2, c_2, … of one more Neumaier sum (see [`dft_segments`]).
pub(super) fn combine_segments(parts: &[LaneSums]) -> [Complex<f64>; DFT_LANES] {
    std::array::from_fn(|l| {
        if parts.len() == 1 {
            return Complex::new(parts[0][l][0].value(), parts[0][l][1].value());
        }
        let (mut re, mut im) = (Neumaier::default(), Neumaier::default());
        for p in parts {
            re.add(p[l][0].s);
            re.add(p[l][0].c);
            im.add(p[l][1].s);
            im.add(p[l][1].c);
        }
        Complex::new(re.value(), im.value())
    })
}

/// The Neumaier states (real sum, imaginary sum) of each of the [`DFT_LANES`] bins of a direct
/// DFT over some terms.
pub(super) type LaneSums = [[Neumaier; 2]; DFT_LANES];

/// [`Neumaier::add`] on every lane: the running sums `s` and compensations `c` of
/// [`DFT_LANES`] independent Neumaier sums, each with its own term of `x`. Both compensation
/// candidates are formed and one selected: the same operations on the same values, hence the
/// same sums bit for bit, without the data-dependent branch (the sign of the imaginary parts
/// alternates, which defeated the branch predictor), and written as lane-wise steps that the
/// compiler packs into vector registers.
#[inline(always)]
fn add_select_lanes(s: &mut [f64; DFT_LANES], c: &mut [f64; DFT_LANES], x: &[f64; DFT_LANES]) {
    for l in 0..DFT_LANES {
        let t = s[l] + x[l];
        let a = (s[l] - t) + x[l];
        let b = (x[l] - t) + s[l];
        c[l] += if s[l].abs() >= x[l].abs() { a } else { b };
        s[l] = t;
    }
}

/// Bins computed together by [`TwiddleTable::direct_dft_lanes`].
pub(super) const DFT_LANES: usize = 4;

/// Two-level table of e^{−2πi r/N}: r = r1·B + r0 with B a divisor of N near √N.
pub(super) struct TwiddleTable {
    n: usize,
    b: usize,
    nb: usize,
    t0: Vec<Complex<f64>>,
    t1: Vec<Complex<f64>>,
}

impl TwiddleTable {
    pub(super) fn new(n: usize) -> Self {
        let mut b = ((n as f64).sqrt() as usize).max(1);
        while n % b != 0 {
            b -= 1;
        }
        let nb = n / b;
        let w = |r: usize| -> Complex<f64> {
            // symmetric reduction: angle in [−π, π]
            let ri = if 2 * r <= n {
                r as f64
            } else {
                r as f64 - n as f64
            };
            let a = -std::f64::consts::TAU * (ri / n as f64);
            let (s, c) = a.sin_cos();
            Complex::new(c, s)
        };
        let t0 = (0..b).map(w).collect();
        let t1 = (0..nb).map(|r1| w(r1 * b)).collect();
        TwiddleTable { n, b, nb, t0, t1 }
    }

    /// The twiddles e^{−2πi·(r + step·k)/N}, k = 0, 1, …: each the product of the two table
    /// entries of (r + step·k) mod N, the index reduced exactly and incrementally.
    pub(super) fn twiddles(
        &self,
        r: usize,
        step: usize,
    ) -> impl Iterator<Item = Complex<f64>> + '_ {
        let r = r % self.n;
        let step = step % self.n;
        let (s1, s0) = (step / self.b, step % self.b);
        let (mut r1, mut r0) = (r / self.b, r % self.b);
        std::iter::from_fn(move || {
            let w = self.t1[r1] * self.t0[r0];
            r0 += s0;
            r1 += s1;
            if r0 >= self.b {
                r0 -= self.b;
                r1 += 1;
            }
            if r1 >= self.nb {
                r1 -= self.nb;
            }
            Some(w)
        })
    }

    /// Σ_j x_j e^{−2πi (j0 + j) k / N} with exact index arithmetic and Neumaier summation.
    /// The one-bin reference of [`Self::direct_dft_lanes`] and [`Self::direct_dft_sparse`]
    /// (their tests compare bit for bit).
    #[cfg(test)]
    pub(super) fn direct_dft(&self, xs: &[f64], j0: i64, k: usize) -> Complex<f64> {
        let r = ((j0 as i128) * (k as i128)).rem_euclid(self.n as i128) as usize;
        let (mut re, mut im) = (Neumaier::default(), Neumaier::default());
        for (&x, w) in xs.iter().zip(self.twiddles(r, k)) {
            if x != 0.0 {
                re.add(x * w.re);
                im.add(x * w.im);
            }
        }
        Complex::new(re.value(), im.value())
    }

    /// [`Self::direct_dft`] at [`DFT_LANES`] bins in one pass over `xs`: each bin keeps its own
    /// twiddle indices and its own two Neumaier sums, with exactly the operations of
    /// [`Self::direct_dft`] in the same order (the lanes only interleave independent chains), so
    /// every value is bit for bit that of the one-bin call.
    #[cfg(test)]
    pub(super) fn direct_dft_lanes(
        &self,
        xs: &[f64],
        j0: i64,
        ks: [usize; DFT_LANES],
    ) -> [Complex<f64>; DFT_LANES] {
        combine_segments(&[dft_lanes(self, xs, j0, ks)])
    }

    /// The Neumaier states of [`Self::direct_dft_lanes`] over the terms `xs` (the first at grid
    /// index j0), not yet added: one segment of [`dft_segments`].
    pub(super) fn direct_dft_partial(
        &self,
        xs: &[f64],
        j0: i64,
        ks: [usize; DFT_LANES],
    ) -> LaneSums {
        dft_lanes(self, xs, j0, ks)
    }

    /// [`Self::direct_dft`] over the nonzero terms only, given as (absolute grid index j0 + j,
    /// x_j) in increasing j: the same twiddles (r = (j0 + j)·k mod N split as r = r1·B + r0)
    /// and the same Neumaier sums in the same order, hence the same value.
    pub(super) fn direct_dft_sparse(&self, nz: &[(i64, f64)], k: usize) -> Complex<f64> {
        let n = self.n as i128;
        let (mut re, mut im) = (Neumaier::default(), Neumaier::default());
        for &(j, x) in nz {
            let r = ((j as i128) * (k as i128)).rem_euclid(n) as usize;
            let w = self.t1[r / self.b] * self.t0[r % self.b];
            re.add(x * w.re);
            im.add(x * w.im);
        }
        Complex::new(re.value(), im.value())
    }
}

simd! {
    /// The body of [`TwiddleTable::direct_dft_lanes`], compiled for the widest vector unit the CPU
    /// has (chosen at run time). Rust never contracts a·b + c into a fused multiply-add, so every
    /// target performs the same IEEE operations in the same order: the value is bit for bit the
    /// same on every target (the lanes are only packed into wider registers).
    fn dft_lanes(
        tw: &TwiddleTable,
        xs: &[f64],
        j0: i64,
        ks: [usize; DFT_LANES],
    ) -> LaneSums {
        let n = tw.n as i128;
        let mut r1 = [0usize; DFT_LANES];
        let mut r0 = [0usize; DFT_LANES];
        let mut s1 = [0usize; DFT_LANES];
        let mut s0 = [0usize; DFT_LANES];
        for (l, &k) in ks.iter().enumerate() {
            let r = ((j0 as i128) * (k as i128)).rem_euclid(n) as usize;
            (r1[l], r0[l]) = (r / tw.b, r % tw.b);
            let step = k % tw.n;
            (s1[l], s0[l]) = (step / tw.b, step % tw.b);
        }
        // the lanes' state as arrays of plain doubles (structure of arrays), so that each
        // step below is one lane-wise operation the compiler packs into vector registers;
        // per lane exactly the operations of `direct_dft`: the twiddle product of num_complex
        // (re = a.re·b.re − a.im·b.im, im = a.re·b.im + a.im·b.re), the two products with x,
        // then [`add_select_lanes`] on (s, c) of the real and of the imaginary sum
        let (mut rs, mut rc) = ([0.0f64; DFT_LANES], [0.0f64; DFT_LANES]);
        let (mut is, mut ic) = ([0.0f64; DFT_LANES], [0.0f64; DFT_LANES]);
        for &x in xs {
            if x != 0.0 {
                let mut ar = [0.0f64; DFT_LANES];
                let mut ai = [0.0f64; DFT_LANES];
                let mut br = [0.0f64; DFT_LANES];
                let mut bi = [0.0f64; DFT_LANES];
                for l in 0..DFT_LANES {
                    let (a, b) = (tw.t1[r1[l]], tw.t0[r0[l]]);
                    (ar[l], ai[l], br[l], bi[l]) = (a.re, a.im, b.re, b.im);
                }
                let mut tr = [0.0f64; DFT_LANES];
                let mut ti = [0.0f64; DFT_LANES];
                for l in 0..DFT_LANES {
                    tr[l] = x * (ar[l] * br[l] - ai[l] * bi[l]);
                    ti[l] = x * (ar[l] * bi[l] + ai[l] * br[l]);
                }
                add_select_lanes(&mut rs, &mut rc, &tr);
                add_select_lanes(&mut is, &mut ic, &ti);
            }
            for l in 0..DFT_LANES {
                r0[l] += s0[l];
                r1[l] += s1[l];
                if r0[l] >= tw.b {
                    r0[l] -= tw.b;
                    r1[l] += 1;
                }
                if r1[l] >= tw.nb {
                    r1[l] -= tw.nb;
                }
            }
        }
        std::array::from_fn(|l| {
            [
                Neumaier { s: rs[l], c: rc[l] },
                Neumaier { s: is[l], c: ic[l] },
            ]
        })
    }
}

/// The real FFT plans of one length: realfft's serial transforms, or the split transform that
/// runs on the pool ([`split_factor`] decides, from the length alone).
#[derive(Clone)]
pub(super) enum Plans {
    Serial(
        std::sync::Arc<dyn realfft::RealToComplex<f64>>,
        std::sync::Arc<dyn realfft::ComplexToReal<f64>>,
    ),
    Split(std::sync::Arc<SplitFft>),
}

impl Plans {
    /// The bin (frequency index) held at position `p` of a spectrum of these plans: `p` for
    /// realfft's natural order, the split transform's permutation otherwise.
    pub(super) fn bin(&self, p: usize) -> usize {
        match self {
            Plans::Serial(..) => p,
            Plans::Split(s) => s.bin(p),
        }
    }

    /// Complex scratch elements the transforms need.
    pub(super) fn scratch_len(&self) -> usize {
        match self {
            Plans::Serial(f, i) => f.get_scratch_len().max(i.get_scratch_len()),
            Plans::Split(s) => s.scratch_len(),
        }
    }

    /// The N/2 + 1 bins of the real signal `x` (length N; `x` may be overwritten), in the order
    /// of [`Self::bin`].
    pub(super) fn forward(
        &self,
        x: &mut [f64],
        spec: &mut [Complex<f64>],
        scratch: &mut [Complex<f64>],
    ) -> crate::error::Result<()> {
        match self {
            Plans::Serial(f, _) => f.process_with_scratch(x, spec, scratch).map_err(failed),
            Plans::Split(s) => {
                s.forward(x, spec, scratch);
                Ok(())
            }
        }
    }

    /// The real signal (unnormalised) of the N/2 + 1 bins `spec` in the order of
    /// [`Self::bin`] (overwritten; the imaginary parts at positions 0 and N/2 must be 0).
    pub(super) fn inverse(
        &self,
        spec: &mut [Complex<f64>],
        out: &mut [f64],
        scratch: &mut [Complex<f64>],
    ) -> crate::error::Result<()> {
        match self {
            Plans::Serial(_, i) => i.process_with_scratch(spec, out, scratch).map_err(failed),
            Plans::Split(s) => {
                s.inverse(spec, out, scratch);
                Ok(())
            }
        }
    }
}

/// A realfft error (a buffer of the wrong length: a bug) as an internal error.
fn failed(e: realfft::FftError) -> crate::error::PabiError {
    crate::error::PabiError::internal(format!("FFT failed: {e}"))
}

/// Bytes of FFT plans kept between calls (an [`Lru`] by estimated plan size, the least recently
/// used dropped first; a plan above a quarter of it, 64 MiB, is never kept): split plans take
/// ≈ 16 bytes per point, so every length up to ≈ 4e6 is kept. The DP-SGD accountant at
/// h = 1e-4 needs 714,420 points at T = 1e5 and 2,204,496 (a 36 MB plan) at T = 1e6; with the
/// former budget of 128 MiB (quarter 32 MiB) the T = 1e6 plan was computed afresh on every call,
/// its sines and cosines ~6 % of the call (2026-11-28).
const PLAN_BYTES: usize = 256 << 20;

/// Estimated bytes of the plans of length n: realfft's packing twiddles (n/4 complex) and the
/// half-length complex FFT's twiddles (≈ n/2 complex), forward and inverse: ≈ 24·n; the split
/// transform's tables.
fn plan_bytes(e: &(usize, Plans)) -> usize {
    match &e.1 {
        Plans::Serial(..) => 24 * e.0,
        Plans::Split(s) => s.bytes(),
    }
}

/// Per process (a child forked while another thread held the lock starts empty).
static PLANS: PerProcess<Lru<(usize, Plans)>> =
    PerProcess::new(|| Lru::new(PLAN_BYTES, plan_bytes));

/// FFT plans of length n, kept in a least-recently-used list of at most [`PLAN_BYTES`]
/// (planning computes O(n) twiddles, a sizeable part of one composition; calibration, repeated
/// queries and the two neighbouring directions reuse a length). A plan is a pure function of
/// n, so no value depends on the cache. Two threads missing the same length at once both plan
/// it (outside the lock); the first to finish keeps its copy.
pub(super) fn fft_plans(n: usize) -> Plans {
    let lock = || PLANS.lock();
    {
        let mut c = lock();
        if let Some(hit) = c.take(|es| es.iter().position(|(m, _)| *m == n)) {
            let plans = hit.1.clone();
            c.push(hit);
            return plans;
        }
    }
    let plans = match SplitFft::new(n) {
        Some(s) => Plans::Split(std::sync::Arc::new(s)),
        None => {
            let mut planner = RealFftPlanner::<f64>::new();
            Plans::Serial(planner.plan_fft_forward(n), planner.plan_fft_inverse(n))
        }
    };
    let mut c = lock();
    if !c.items().iter().any(|(m, _)| *m == n) {
        c.push((n, plans.clone()));
    }
    plans
}
