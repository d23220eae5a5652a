//! The limit δ* = lim_n δ(n) = (1 − e^{−x})/x of the two fixed-horizon schedules
//! (x_L = C1·e^{ε/2}, x_G = 2·C1·e^{ε/2}: Sordello–Bu–Dong §4, eqs. (8), (10)) and the
//! calibration that inverts it, C1 for a target δ* (derivation: `docs/derivations/schedules.md`).

use super::params::{finite_nonneg, finite_pos, Noise};
use crate::error::{PabiError, Result};
use crate::num::round::EPS4;
use crate::num::up;
use crate::{lambertw, vmath};

/// e^y, exactly non-decreasing in y (error ≤ 2.5 ulp where normal): on the cell
/// k = ⌊64y⌋, e^{k/64}·p(r) with r = y − k/64 ∈ [0, 1/64] and p the Taylor polynomial of e^r
/// to degree 8 (positive coefficients, Horner with non-negative operands: each rounded step is
/// non-decreasing in r), capped by the next cell's value e^{(k+1)/64} (both by std `exp`,
/// 1.6% apart, so the cell values are increasing): within a cell the result is non-decreasing,
/// and it never exceeds the value at the start of the next cell.
#[inline(always)]
fn exp_monotone(y: f64) -> f64 {
    let k = (64.0 * y).floor();
    let r = y - k / 64.0;
    let mut p: f64 = 1.0 / 40_320.0;
    for c in [
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = p * r + c; // two roundings, each non-decreasing in r (no fma: it may be a libm call)
    }
    (cell_start(k) * p).min(cell_start(k + 1.0))
}

/// e^{k/64} by std `exp` (≤ 1 ulp), from a table for the cells of [−2, 0] (the rules' range).
#[inline(always)]
fn cell_start(k: f64) -> f64 {
    static TABLE: std::sync::OnceLock<[f64; 129]> = std::sync::OnceLock::new();
    if (-128.0..=0.0).contains(&k) {
        let t = TABLE.get_or_init(|| std::array::from_fn(|i| ((i as f64 - 128.0) / 64.0).exp()));
        t[(k + 128.0) as usize]
    } else {
        (k / 64.0).exp()
    }
}

/// Σ w_i·e^{−x s_i} over the fixed positive 8-point rule: non-increasing in x ≥ 0 (each term
/// is), summed pairwise in a fixed order (error ≤ 4u of the sum).
#[inline(always)]
fn laplace_rule(x: f64) -> f64 {
    let t: [f64; 8] = std::array::from_fn(|i| NEAR_W[i] * exp_monotone(-(x * NEAR_S[i])));
    ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
}

/// δ*(x) = (1 − e^{−x})/x = ∫_0^1 e^{−xs} ds to nearest (≤ ~16 ulp), **exactly non-increasing**
/// in x ≥ 0. For x < 2 by 8-point Gauss–Legendre on [0, 1] (rule error < 1e-18): positive
/// weights times [`exp_monotone`] of −x·s_i. For 2 ≤ x < 40 by splitting [0, 1] into 32 equal
/// parts, δ*(x) = δ*(x/32)/32 · Σ_{j<32} z^j with z = e^{−x/32}, and
/// Σ_{j<32} z^j = (1 + z)(1 + z²)(1 + z⁴)(1 + z⁸)(1 + z¹⁶): every factor is non-negative and
/// non-increasing in x (x/32 is exact, x/32 < 2). From 40 on 1/x (e^{−x} < 2^-57). At each
/// switch the value below is raised to at least the value at the switch point (a maximum with
/// a constant), so the pieces join without a reversal.
fn delta_star_of_x(x: f64) -> f64 {
    const X1: f64 = 2.0;
    const X2: f64 = 40.0;
    if x >= X2 {
        return 1.0 / x;
    }
    if x >= X1 {
        return far(x).max(1.0 / X2);
    }
    static AT_X1: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    let at_x1 = *AT_X1.get_or_init(|| far(X1).max(1.0 / X2));
    laplace_rule(x).max(at_x1)
}

/// δ*(x) = δ*(x/32)/32 · Π_{i<5} (1 + z^{2^i}), z = e^{−x/32} (x < 64).
#[inline(always)]
fn far(x: f64) -> f64 {
    let y = x / 32.0;
    let mut z = exp_monotone(-y);
    let mut prod = 1.0 + z;
    for _ in 0..4 {
        z *= z;
        prod *= 1.0 + z;
    }
    laplace_rule(y) / 32.0 * prod
}

simd! {
    /// δ* = (1 − e^{−x})/x (003 eqs. (8), (10)), rounded up, **exactly non-increasing in ε and in
    /// C1** (a bisection over either needs no one-ulp reversal): x = C1·e^{ε/2} (·2 for the Gaussian
    /// schedule, exact) is one rounded product of two non-decreasing factors ([`exp_monotone`]),
    /// δ*(x) is exactly non-increasing ([`delta_star_of_x`]) and `up` is an increasing map.
    /// Error budget: x ≤ 3.5 ulp (δ* has elasticity ≤ 1 in x), δ*(x) ≤ ~16 ulp, against the 2^-46
    /// (128 ulp) of `up`. Where x overflows (C1·e^{ε/2} > f64::MAX) δ* < 1/f64::MAX and an
    /// upward e^{−ln x} capped by 1/f64::MAX is used (below the values at finite x, so no reversal
    /// at the switch; inside that subnormal range monotone only to rounding).
    /// (The former ln x = ln C1 + ε/2 moved down by 4 ulp and −expm1(−x)/x reversed by one ulp:
    /// laplace_schedule_delta_star(9.875, 0.001) = 0.9334192401790746 > the value at
    /// 9.874999999999998, 0.9334192401790745.)
    pub fn schedule_delta_star(noise: Noise, eps: f64, c1: f64) -> Result<f64> {
        finite_nonneg("eps", eps)?;
        finite_pos("c1", c1)?;
        let factor = match noise {
            Noise::Laplace => 1.0,
            Noise::Gaussian => 2.0,
        };
        // x = C1·e^{y} as a product of factors e^{≤ 700} (no intermediate overflow while x itself
        // is finite: C1 ≥ 2^-1074 > e^-745, so x > f64::MAX once y > 1455), each non-decreasing
        let y = 0.5 * eps;
        let (y1, y2, y3) = (
            y.min(700.0),
            (y - 700.0).clamp(0.0, 700.0),
            (y - 1400.0).max(0.0),
        );
        let x = factor * (((c1 * exp_monotone(y1)) * exp_monotone(y2)) * exp_monotone(y3));
        let v = if x.is_finite() {
            delta_star_of_x(x)
        } else {
            // x > f64::MAX: δ* < 1/x = e^{−(ln C1 + y)}/factor < 1/f64::MAX, from logarithms moved
            // up by their rounding error (sound; monotone only to rounding in this subnormal range)
            let lv = -(c1.ln() + y + factor.ln());
            let lv = lv + EPS4 * (c1.ln().abs() + y + 1.0);
            let e = lv.exp(); // faithful: 0 only below 2^-1074, which `up`'s TINY covers
            if e > 0.0 {
                e.next_up().min(1.0 / f64::MAX)
            } else {
                0.0
            }
        };
        Ok(up(v).min(1.0))
    }
}

/// 1 − (1 − e^{−x})/x = (x − 1 + e^{−x})/x and its derivative, by their series (x ≤ 2).
#[inline(always)]
fn one_minus_f_series(x: f64) -> (f64, f64) {
    // g = Σ_{k≥1} (−1)^{k+1} x^k/(k+1)!, g' = Σ_{k≥1} (−1)^{k+1} k x^{k−1}/(k+1)!
    let (mut g, mut dg) = (0.0, 0.0);
    let mut term = 1.0; // x^{k-1}/(k+1)! times sign, starting at k = 1: 1/2
    let mut fact = 2.0;
    term /= fact;
    for k in 1..40 {
        let kf = k as f64;
        g += term * x;
        dg += term * kf;
        fact = kf + 2.0;
        term *= -x / fact;
        if term.abs() < 1e-18 * g.abs().max(1e-300) && k > 3 {
            break;
        }
    }
    (g, dg)
}

/// The x > 0 with (1 − e^{−x})/x = δ* for δ* ∈ (0, 1): x = 1/δ* + W0(−e^{−1/δ*}/δ*) for
/// δ* ≤ 1/2, Newton on 1 − (1 − e^{−x})/x = 1 − δ* (series, no cancellation) above
/// (`docs/derivations/schedules.md`, calibration; checked in `docs/errata.md#p-c24`).
pub fn x_for_delta_star(delta_star: f64) -> Result<f64> {
    if !(delta_star > 0.0 && delta_star < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta_star));
    }
    if delta_star <= 0.5 {
        let y = 1.0 / delta_star;
        let w = if y < 700.0 {
            lambertw::lambertw0(-y * vmath::exp(-y))
        } else {
            0.0
        };
        return Ok(y + w);
    }
    let target = 1.0 - delta_star; // exact (Sterbenz)
    let mut x = 2.0 * target;
    for _ in 0..100 {
        let (g, dg) = one_minus_f_series(x);
        let step = (target - g) / dg;
        x += step;
        if step.abs() <= 1e-17 * x {
            break;
        }
    }
    Ok(x)
}

simd! {
    /// C1 such that the schedule's limit δ* equals `delta_star` (003 eqs. (8), (10) inverted):
    /// C1 = x·e^{−ε/2} (Laplace), x·e^{−ε/2}/2 (Gaussian), then made exactly minimal with
    /// respect to the value [`schedule_delta_star`] returns: the smallest double C1 with
    /// schedule_delta_star(ε, C1) ≤ δ* ([`least_c1`]; δ* is non-increasing in C1, exactly),
    /// so the returned constant meets its target (it had been the nearest double to the formula,
    /// below the exact root by a few ulp: δ*(C1) 2.8e-14 relative above the target at
    /// ε = 1400, δ* = 1.46e-8). +∞ where even f64::MAX misses the target.
    pub fn schedule_c1_for_target(noise: Noise, delta_star: f64, eps: f64) -> Result<f64> {
        finite_nonneg("eps", eps)?;
        let x = x_for_delta_star(delta_star)?;
        let lc = vmath::ln(x)
            - 0.5 * eps
            - match noise {
                Noise::Laplace => 0.0,
                Noise::Gaussian => std::f64::consts::LN_2,
            };
        if lc < -745.0 {
            // the constant exists but is below the smallest double: the eps asked for is too large
            return Err(PabiError::domain(
                "eps",
                format!(
                    "small enough that c1 for delta_star = {delta_star} is a positive double \
                     (here ln c1 = {lc:e} < -745)"
                ),
                eps,
            ));
        }
        least_c1(noise, eps, delta_star, vmath::exp(lc))
    }
}

/// The smallest positive double C1 with `schedule_delta_star`(ε, C1) ≤ δ*, from the estimate
/// `c0`: a doubling walk on the bit pattern (positive doubles are ordered as their bits) to a
/// bracket, then bisection over the doubles between (δ* is exactly non-increasing in C1).
fn least_c1(noise: Noise, eps: f64, target: f64, c0: f64) -> Result<f64> {
    let ok = |bits: u64| -> Result<bool> {
        Ok(schedule_delta_star(noise, eps, f64::from_bits(bits))? <= target)
    };
    const MAX: u64 = 0x7fef_ffff_ffff_ffff; // f64::MAX
    if c0.is_nan() || c0 <= 0.0 {
        return Ok(c0);
    }
    let c0 = c0.min(f64::MAX).to_bits();
    // invariant: ok(hi), !ok(lo) (lo = 0 stands for "none below": C1 > 0)
    let (mut lo, mut hi);
    if ok(c0)? {
        hi = c0;
        let mut step = 1u64;
        loop {
            let cand = hi.saturating_sub(step).max(1);
            if !ok(cand)? {
                lo = cand;
                break;
            }
            hi = cand;
            if cand == 1 {
                return Ok(f64::from_bits(1));
            }
            step = step.saturating_mul(2);
        }
    } else {
        lo = c0;
        let mut step = 1u64;
        loop {
            let cand = lo.saturating_add(step).min(MAX);
            if ok(cand)? {
                hi = cand;
                break;
            }
            if cand == MAX {
                return Ok(f64::INFINITY);
            }
            lo = cand;
            step = step.saturating_mul(2);
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(f64::from_bits(hi))
}

// Gauss–Legendre nodes s_i and weights w_i on [0, 1] (numpy leggauss, mapped): 8 points.
#[allow(clippy::excessive_precision, clippy::unreadable_literal)]
mod rules {
    pub(super) const NEAR_S: [f64; 8] = [
        0.019855071751231912,
        0.10166676129318664,
        0.2372337950418355,
        0.4082826787521751,
        0.5917173212478248,
        0.7627662049581645,
        0.8983332387068134,
        0.9801449282487681,
    ];
    pub(super) const NEAR_W: [f64; 8] = [
        0.05061426814518853,
        0.11119051722668721,
        0.15685332293894344,
        0.18134189168918083,
        0.18134189168918083,
        0.15685332293894344,
        0.11119051722668721,
        0.05061426814518853,
    ];
}
use rules::{NEAR_S, NEAR_W};
