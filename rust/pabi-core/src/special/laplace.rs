//! The Laplace hockey-stick divergence E_{e^ε}(Lap(r, 1) ‖ Lap(0, 1)) = max(0, 1 − e^{(ε−r)/2})
//! (Asoodeh–Diaz–Calmon, *Privacy amplification of iterative algorithms via contraction
//! coefficients*, ISIT 2020, Lemma 1; Sordello–Bu–Dong, eq. (5)), its complement and its
//! logarithm, each rounded in the conservative direction (θ and ln θ up, 1 − θ down).
//! Derivation: `docs/derivations/theta.md`. Re-exported by [`super::theta`] (the old paths).

use crate::dd::two_sum;
use crate::num::log1mexp;
use crate::num::round::{down, up_inflate, EPS4};
use crate::vmath;

/// ln of the Laplace factor max(0, 1 − e^{(ε−r)/2}) rounded up (−∞ where it is 0): x = (ε − r)/2
/// taken at or below its exact value (ε − r = d + dl exactly by `two_sum`; x = d/2, one double
/// lower when dl < 0), then ln(1 − e^x) by `log1mexp` (a few ulp, relative). For products of
/// many factors (B^(n−i), online noise) where a relative shift per factor would accumulate.
///
/// The input was once moved down by 2^-52·(ε + r)/2, the bound on the rounding of ε − r, also
/// where that difference is exact: at ε ≈ r (d exact by Sterbenz, |d| ≪ ε + r) x moved by many
/// times itself and the factor came out up to ~9× its exact value (ε = 1 − 2^-53, r = 1).
#[inline(always)]
pub fn log_laplace_theta(eps: f64, r: f64) -> f64 {
    // the sign of ε − r is exact (a difference of doubles rounds to 0 only when it is 0); its
    // half may not be: (0 − 5e-324)/2 rounds to −0, and the factor 2.5e-324 came out as −∞
    let (d, dl) = two_sum(eps, -r);
    if d >= 0.0 {
        return f64::NEG_INFINITY;
    }
    if d > -1e-300 {
        // ln(1 − e^x) ≤ ln(−x) = ln(−d) − ln 2 (x = d/2, 1 − e^x ≤ −x), within |x|/2 of it
        let v = vmath::ln(-d) - std::f64::consts::LN_2;
        return v - EPS4 * v;
    }
    // d ≤ −1e-300: d/2 is exact, and |dl| ≤ ulp(d)/2, so x = (d + dl)/2 lies in
    // [next_down(d/2), d/2] when dl < 0 and at or above d/2 otherwise (ln(1 − e^x) falls as x
    // grows: a lower x rounds the result up). Infinite ε or r: dl is NaN, d = −∞ gives 0.
    let x = if dl < 0.0 {
        (0.5 * d).next_down()
    } else {
        0.5 * d
    };
    let v = log1mexp(x);
    // log1mexp is good to a few ulp (relative); the input error is covered by moving x down.
    v - EPS4 * v
}

/// E_{e^ε}(Lap(r,1) ‖ Lap(0,1)) = max(0, 1 − e^{(ε−r)/2}) (Asoodeh–Diaz–Calmon Lemma 1,
/// Sordello–Bu–Dong eq. (5)), rounded up. r is the shift in units of the Laplace scale.
/// Domain: ε ≥ 0, r ≥ 0 (ε = ∞ gives 0, r = ∞ gives 1).
#[inline(always)]
pub fn laplace_theta(eps: f64, r: f64) -> f64 {
    // decided on ε − r (sign exact), not on its half: (0 − 5e-324)/2 rounds to −0 and θ(0,
    // 5e-324) came out as 0, below the exact 2.5e-324 (now TINY from `up_inflate`)
    let d = eps - r;
    let x = 0.5 * d;
    let v = if d < 0.0 {
        up_inflate(-vmath::expm1(x)).min(1.0)
    } else {
        0.0
    };
    if r == f64::INFINITY && eps < f64::INFINITY {
        1.0
    } else {
        v
    }
}

/// ln(1 − laplace_theta) = min(0, (ε − r)/2), rounded down (−∞ for r = ∞ and finite ε): the
/// logarithm of [`laplace_theta_complement`] where that underflows. ε − r = d + dl exactly
/// (`two_sum`); d/2 is exact unless subnormal, and one double lower when dl < 0 (or when the
/// halving rounded) keeps it at or below (d + dl)/2.
#[inline(always)]
pub fn log_laplace_theta_complement(eps: f64, r: f64) -> f64 {
    let (d, dl) = two_sum(eps, -r);
    if r == f64::INFINITY && eps < f64::INFINITY {
        return f64::NEG_INFINITY;
    }
    if d >= 0.0 {
        return 0.0;
    }
    let x = 0.5 * d;
    if dl < 0.0 || 2.0 * x != d {
        x.next_down()
    } else {
        x
    }
}

/// 1 − laplace_theta = min(1, e^{(ε−r)/2}), rounded down.
#[inline(always)]
pub fn laplace_theta_complement(eps: f64, r: f64) -> f64 {
    // ε − r = d + dl exactly: e^{d/2}·(1 + dl/2). With the rounded difference alone, e^{x} had
    // a relative error of |x|·2^-53 (5.7e-14 at x ≈ −700), beyond the INFLATE margin of `down`.
    let (d, dl) = two_sum(eps, -r);
    let v = if d < 0.0 {
        down(vmath::exp(0.5 * d) * (1.0 + 0.5 * dl))
    } else {
        1.0
    };
    if r == f64::INFINITY && eps < f64::INFINITY {
        0.0
    } else {
        v
    }
}
