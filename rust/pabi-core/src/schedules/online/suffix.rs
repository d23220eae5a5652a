//! δ_n(i) = A_i·∏_{t=i+1}^n B_t for any per-step noise array (Sordello–Bu–Dong §6, eq. (11)):
//! the per-step factor logs by the engine's block kernels, then an O(n) Neumaier-compensated
//! suffix scan in two parallel passes (derivation: `docs/derivations/schedules.md`).

use rayon::prelude::*;

use super::super::params::check_noise;
use super::{Neumaier, Noise, Problem, EPS4};
use crate::batch::{pool, PAR_MIN};
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
        for ((sc, ac), bc) in s.chunks(BL).zip(a.chunks_mut(BL)).zip(b.chunks_mut(BL)) {
            let nl = sc.len();
            let (mut ra, mut rb) = ([0.0; BL], [0.0; BL]);
            rad.at_block(sc, &mut ra, &mut rb);
            match kind {
                Noise::Gaussian => {
                    let (mut th, mut u) = ([0.0; BL], [0.0; BL]);
                    theta::theta_block(&x[..nl], &ra[..nl], &mut th[..nl]);
                    log_a_gauss_block(&th[..nl], &x[..nl], &ra[..nl], ac);
                    theta::theta_complement_block(&x[..nl], &rb[..nl], &mut u[..nl]);
                    log_b_gauss_block(&u[..nl], &x[..nl], &rb[..nl], bc);
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
    /// Pass 2 of the scan for one chunk: out[t] holds ln A_t on entry; `acc`/`zero` carry the
    /// (compensated) sum of the ln B of every later step. Converts to δ unless `log`. The sum is
    /// read with [`Neumaier::sum`]: a partial sum that overflowed (finite ln B summing below
    /// −f64::MAX) is −∞ there, and [`finish_suffix`] makes ln δ −f64::MAX, its upward rounding
    /// (`value` gave NaN, which [`finish_suffix`] must bound by 0: ln δ = ln A, far looser).
    fn scan_chunk(out: &mut [f64], lb: &[f64], mut acc: Neumaier, mut zero: bool, log: bool) {
        for t in (0..out.len()).rev() {
            out[t] = finish_suffix(out[t], acc.sum(), zero);
            if lb[t] == f64::NEG_INFINITY {
                zero = true;
            } else {
                acc.add(lb[t]);
            }
        }
        // δ from ln δ in a loop of its own: inside the serial scan the exponential ran per step
        // in scalar code (a fifth of the kernel where δ does not underflow); here it vectorizes
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

/// Steps per chunk of the parallel scan.
pub(super) const SCAN_CHUNK: usize = 1 << 13;

/// δ_n(i) (or ln δ_n(i) with `log`) for every i = 1..n (out[i−1]), noise[t−1] = σ_t (Gaussian)
/// or v_t (Laplace); rounded up. ln δ_n(i) = ln A_i + Σ_{t>i} ln B_t as a suffix scan in two
/// passes, both parallel for long arrays: (1) the per-step factors ln A_t, ln B_t (the
/// expensive part) and each chunk's Neumaier sum of ln B; the chunk offsets (suffix sums of
/// the chunk sums, compensated); (2) the Neumaier suffix scan inside each chunk from its
/// offset. With one chunk this is the sequential compensated scan.
pub fn online_delta_all(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    out: &mut [f64],
    log: bool,
) -> Result<()> {
    check_noise(noise)?;
    let n = noise.len();
    if out.len() != n {
        return Err(PabiError::Shape {
            message: "output length differs from the noise length".into(),
        });
    }
    let mut lb = vec![0.0; n];
    let (eps, rad) = (p.eps, p.radii());
    let pl = pool().filter(|_| n >= PAR_MIN);
    let pass1 = |(s, (a, b)): (&[f64], (&mut [f64], &mut [f64]))| {
        if crate::interrupt::requested() {
            return (Neumaier::default(), false); // discarded: checked after the pass
        }
        fill_factor_logs(kind, eps, rad, s, a, b);
        chunk_sum(b)
    };
    let sums: Vec<(Neumaier, bool)> = match &pl {
        Some(pl) => pl.install(|| {
            noise
                .par_chunks(SCAN_CHUNK)
                .zip(
                    out.par_chunks_mut(SCAN_CHUNK)
                        .zip(lb.par_chunks_mut(SCAN_CHUNK)),
                )
                .map(pass1)
                .collect()
        }),
        None => noise
            .chunks(SCAN_CHUNK)
            .zip(out.chunks_mut(SCAN_CHUNK).zip(lb.chunks_mut(SCAN_CHUNK)))
            .map(pass1)
            .collect(),
    };
    crate::interrupt::check()?;
    // offsets[c] = Σ over the chunks after c
    let mut offsets = vec![(Neumaier::default(), false); sums.len()];
    for c in (0..sums.len().saturating_sub(1)).rev() {
        let (mut acc, zero) = offsets[c + 1];
        let (s, z) = sums[c + 1];
        acc.add(s.s);
        if s.s.is_finite() {
            acc.add(s.c); // (an overflowed chunk sum is −∞, its compensation NaN)
        }
        offsets[c] = (acc, zero || z);
    }
    type Part<'a> = ((&'a mut [f64], &'a [f64]), &'a (Neumaier, bool));
    let pass2 = |((o, b), &(acc, zero)): Part| {
        if crate::interrupt::requested() {
            return; // the partial output is discarded: checked after the pass
        }
        scan_chunk(o, b, acc, zero, log)
    };
    match &pl {
        Some(pl) => pl.install(|| {
            out.par_chunks_mut(SCAN_CHUNK)
                .zip(lb.par_chunks(SCAN_CHUNK))
                .zip(offsets.par_iter())
                .for_each(pass2)
        }),
        None => out
            .chunks_mut(SCAN_CHUNK)
            .zip(lb.chunks(SCAN_CHUNK))
            .zip(offsets.iter())
            .for_each(pass2),
    }
    crate::interrupt::check()
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
    if !(index >= 1.0 && index <= n && index == index.floor()) {
        return Err(PabiError::domain(
            "index",
            format!("an integer in 1..=steps (steps = {n})"),
            index,
        ));
    }
    let i = index as usize - 1;
    let tail = &noise[i..];
    let mut out = vec![0.0; tail.len()];
    online_delta_all(kind, p, tail, &mut out, true)?;
    Ok(out[0])
}
