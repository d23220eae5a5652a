//! δ_n(i) = A_i·∏_{t=i+1}^n B_t for any per-step noise array (Sordello–Bu–Dong §6, eq. (11)):
//! the per-step factor logs by the engine's block kernels, then an O(n) Neumaier-compensated
//! suffix scan, chunk by chunk from the last (derivation: `docs/derivations/schedules.md`).

use super::super::params::check_noise;
use super::{Neumaier, Noise, Problem, EPS4};
use crate::batch::PAR_MIN;
use crate::error::{PabiError, Result};
use crate::gd::Radii;
use crate::num::round::prob_up;
use crate::num::{shift_log, INFLATE};
use crate::pnsgd::{log_a_gauss_block, log_a_up, log_b_gauss_block};
use crate::theta;

simd! {
    /// Fill ln A_t, ln B_t (rounded up) for one chunk of steps, block by block: radii from
    /// [`Radii::at_block`] (rounded up), the Gaussian factors by the engine's block kernels (one θ-type
    /// evaluation per factor: ln A from θ, ln B from 1 − θ as in the fixed-order PNSGD bound, see
    /// `pnsgd::log_b_gauss_block`), the Laplace factors in closed form.
    ///
    /// ln A, Gaussian: only the second bound of the one rule for ln A, [`log_a_up`] (ln of the
    /// engine's θ rounded up, by `pnsgd::log_a_gauss_block`), not the minimum with the engine's
    /// ln θ (the Laplace lanes take the full rule: both bounds are closed forms there). Measured
    /// (1e6 steps of `benches/bench_schedules.py`, one thread, best-of-15 CPU time, same
    /// machine, load ≈ 7 on 2 cores): 37.7–40.0 ms as written, 57.6–57.8 ms with the full rule
    /// (the engine's ln θ block kernel and [`log_a_up`] per lane), i.e. +45–53 %, for a gain in δ
    /// of at most ≈ 2^-46 relative (where |ln A| < 1); on arrays of 1,000 to 200,000 steps
    /// the full rule moved 0.03–100 % of the values, all by about one ulp of ln δ (≤ 2.3e-10
    /// relative where the suffix sums reach ≈ −1e6), and 35 of them up by ≤ 7e-15 (the
    /// rounding margin grows with |ln A|). Kept as is.
    ///
    /// Compiled for the best SIMD target, AVX-512 included (multiversion's `"simd"` preset stops at
    /// AVX2): every engine call below is inlined into the clone.
    pub(super) fn fill_factor_logs(
        kind: Noise,
        eps: f64,
        rad: Radii,
        s: &[f64],
        a: &mut [f64],
        b: &mut [f64],
    ) {
        const BL: usize = theta::BLOCK;
        let x = [eps; BL];
        let mut tb = theta::ThetaBlocks::default();
        for ((sc, ac), bc) in s.chunks(BL).zip(a.chunks_mut(BL)).zip(b.chunks_mut(BL)) {
            let nl = sc.len();
            let (mut ra, mut rb) = ([0.0; BL], [0.0; BL]);
            rad.at_block(sc, &mut ra, &mut rb);
            match kind {
                Noise::Gaussian => {
                    let (mut th, mut u) = ([0.0; BL], [0.0; BL]);
                    tb.theta(&x[..nl], &ra[..nl], &mut th[..nl]);
                    log_a_gauss_block(&th[..nl], &x[..nl], &ra[..nl], ac);
                    tb.theta_complement(&x[..nl], &rb[..nl], &mut u[..nl]);
                    log_b_gauss_block(&mut tb, &u[..nl], &x[..nl], &rb[..nl], bc);
                }
                Noise::Laplace => {
                    for t in 0..nl {
                        let direct = theta::log_laplace_theta(eps, ra[t]);
                        ac[t] = log_a_up(theta::laplace_theta(eps, ra[t]), direct);
                        bc[t] = theta::log_laplace_theta(eps, rb[t]);
                    }
                }
            }
        }
    }
}

/// ln δ from ln A and the suffix sum s of the ln B (rounded up; −∞ when A = 0 or a later
/// B = 0).
///
/// Two edge cases are decided here, on the safe side: an unknown sum (NaN: a tail estimate that
/// failed) is bounded above by 0, since every ln B ≤ 0 (the result is then ln A, rounded up);
/// and ln A + s below −f64::MAX (an overflowed sum of finite terms: the exact value is finite)
/// is −f64::MAX, its upward rounding. (Both had become ln δ = 0, δ = 1, through `min(0, NaN)`,
/// and the overflow had also given −∞, below the exact value.)
#[inline(always)]
pub(super) fn finish_suffix(la: f64, s: f64, zero: bool) -> f64 {
    if zero || la == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    let s = if s.is_nan() { 0.0 } else { s };
    let scale = la.abs() + s.abs();
    let v = la + s;
    if v == f64::NEG_INFINITY || scale == f64::INFINITY {
        return -f64::MAX;
    }
    shift_log(v, 1.0, EPS4 / INFLATE * scale)
}

simd! {
    /// Pass 2 of the scan for one chunk: out[t] holds ln A_t on entry, `lb` the ln B_t of the
    /// chunk (overwritten); `acc`/`zero` carry the (compensated) sum of the ln B of every later
    /// step. Converts to δ unless `log`. The sum is read with [`Neumaier::sum`]: a partial sum
    /// that overflowed (finite ln B summing below −f64::MAX) is −∞ there, and
    /// [`finish_suffix`] makes ln δ −f64::MAX, its upward rounding (`value` gave NaN, which
    /// [`finish_suffix`] must bound by 0: ln δ = ln A, far looser).
    ///
    /// Three loops: the serial compensated sum only records the running sum before each step
    /// (in place of its ln B) and the last zero factor; [`finish_suffix`] and the exponential
    /// then run over the chunk in loops that vectorize (inside the serial loop they ran per
    /// step in scalar code).
    fn scan_chunk(out: &mut [f64], lb: &mut [f64], mut acc: Neumaier, zero: bool, log: bool) {
        let n = out.len().min(lb.len());
        let mut last_zero = 0; // 1 + the last t with B_t = 0 (0: none)
        for t in (0..n).rev() {
            let v = lb[t];
            lb[t] = acc.sum();
            if v == f64::NEG_INFINITY {
                last_zero = last_zero.max(t + 1);
            } else {
                acc.add(v);
            }
        }
        // step t sees a zero factor when one comes later in the chunk (t + 1 < last_zero) or
        // in a later chunk (`zero`)
        for t in 0..n {
            out[t] = finish_suffix(out[t], lb[t], zero || t + 1 < last_zero);
        }
        if !log {
            for o in out.iter_mut() {
                *o = prob_up(*o);
            }
        }
    }
}

/// Neumaier sum of a chunk of ln B and whether one of them is −∞ (B = 0).
#[inline(always)]
fn chunk_sum(lb: &[f64]) -> (Neumaier, bool) {
    let mut acc = Neumaier::default();
    let mut zero = false;
    for &v in lb.iter().rev() {
        if v == f64::NEG_INFINITY {
            zero = true;
        } else {
            acc.add(v);
        }
    }
    (acc, zero)
}

/// The offset of the chunk before one (the compensated sum of the ln B of every later step)
/// from the chunk's own offset and its [`chunk_sum`].
#[inline(always)]
fn next_offset(off: (Neumaier, bool), sum: (Neumaier, bool)) -> (Neumaier, bool) {
    let (mut acc, zero) = off;
    let (s, z) = sum;
    acc.add(s.s);
    if s.s.is_finite() {
        acc.add(s.c); // (an overflowed chunk sum is −∞, its compensation NaN)
    }
    (acc, zero || z)
}

/// Steps per chunk of the scan.
pub(super) const SCAN_CHUNK: usize = 1 << 13;

/// δ_n(i) (or ln δ_n(i) with `log`) for every i = 1..n (out[i−1]), noise[t−1] = σ_t (Gaussian)
/// or v_t (Laplace); rounded up. ln δ_n(i) = ln A_i + Σ_{t>i} ln B_t as a compensated suffix
/// scan over chunks of [`SCAN_CHUNK`] steps, taken from the last chunk to the first
/// ([`crate::driver::scan_rev`]): for each chunk, (1) the per-step factors ln A_t (into `out`)
/// and ln B_t (into a buffer of the chunk, still in cache for the scan; the expensive part) and
/// the chunk's own Neumaier sum of the ln B; (2) the offset of the chunk (the compensated sum of
/// the later chunks' sums) and (3) the Neumaier suffix scan inside the chunk, started from it.
/// Long arrays on several threads run the chunks in parallel, each chunk's steps (1)–(3) on one
/// worker in one go; the chunks, sums and offsets are the same, so the result is bitwise the
/// same for any thread count. (Two passes over the whole array had kept every ln B in an array
/// as long as the input: its page faults and the second sweep cost about a tenth of the
/// kernel.)
pub fn online_delta_all(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    out: &mut [f64],
    log: bool,
) -> Result<()> {
    check_noise(noise)?;
    if out.len() != noise.len() {
        return Err(PabiError::Shape {
            message: "output length differs from the noise length".into(),
        });
    }
    let workers = if noise.len() >= PAR_MIN {
        crate::driver::num_threads()
    } else {
        1
    };
    scan_all(kind, p, noise, out, log, workers)
}

/// [`online_delta_all`] after its checks, on `workers` workers (1: serially); the bits do not
/// depend on `workers`.
pub(super) fn scan_all(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    out: &mut [f64],
    log: bool,
    workers: usize,
) -> Result<()> {
    let (eps, rad) = (p.eps, p.radii());
    crate::driver::scan_rev(
        out,
        SCAN_CHUNK,
        workers,
        (Neumaier::default(), false),
        || vec![0.0; SCAN_CHUNK],
        |start, a, b| {
            let b = &mut b[..a.len()];
            fill_factor_logs(kind, eps, rad, &noise[start..start + a.len()], a, b);
            chunk_sum(b)
        },
        next_offset,
        |o, b, (acc, zero)| scan_chunk(o, &mut b[..o.len()], acc, zero, log),
    )
}

/// ln δ_n(i) for every i = 1..n (see [`online_delta_all`]).
pub fn online_log_delta_all(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    out: &mut [f64],
) -> Result<()> {
    online_delta_all(kind, p, noise, out, true)
}

/// ln δ_n(index) for one 1-based index (O(n − index), the same factors and compensated
/// summation as [`online_delta_all`], so the two agree).
pub fn online_log_delta_at(kind: Noise, p: &Problem, noise: &[f64], index: f64) -> Result<f64> {
    check_noise(noise)?;
    let n = noise.len() as f64;
    crate::setup::index(index, n)?;
    let i = index as usize - 1;
    let tail = &noise[i..];
    let mut out = vec![0.0; tail.len()];
    online_delta_all(kind, p, tail, &mut out, true)?;
    Ok(out[0])
}
