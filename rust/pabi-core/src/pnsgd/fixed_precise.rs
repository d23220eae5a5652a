//! The precise path of the fixed order δ = A·B^k (Sordello–Bu–Dong Thm 1): where the condition
//! number |k·ln B| makes the fast ln B too coarse, ln B is recomputed from the inputs in
//! double-double (r_B, then ln θ by [`crate::theta_dd`]) and the smaller of the two upper bounds
//! is kept. The error analysis is in the module doc of `pnsgd` ("Accuracy of the fixed order")
//! and in `docs/derivations/pnsgd.md`.

use crate::dd::{two_sum, Dd};
use crate::num::{up, TINY};
use crate::theta_dd;
use crate::vmath;

use super::ab_factors::Fac;
use super::at;
use super::params::{Noise, Order};
use super::prepared::Elem;
use crate::setup::SetupArgs;

// ---------------------------------------------------------------------------------------------
// The precise path of the fixed order (module doc, "Accuracy of the fixed order")

/// The precise path is taken where |k·ln B|·w exceeds this, w ≥ 1 the sensitivity weight of
/// [`wants_precise`]; below it the fast path's error is ≲ 3e-13 relative.
const PRECISE_T: f64 = 20.0;
/// Relative outward margin on the double-double ln B for what its error estimate does not model
/// (2^-55 ≈ 2.8e-17: δ moves by ≤ 2.1e-14 relative at |k·ln B| = 745).
const LB_MARGIN: f64 = 2.775_557_561_562_891_4e-17;

/// The inputs of the radius r_B = M·D/(η·s), M = sqrt(1 − 2ηβρ/(β + ρ)) (β = 0: no smoothness
/// given, M = 1), for the precise path (which carries r_B as a double-double).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Geo {
    lr: f64,
    beta: f64,
    rho: f64,
    diam: f64,
}

impl Geo {
    pub(super) fn at(p: &SetupArgs, j: usize) -> Geo {
        Geo {
            lr: at(p.lr, j),
            beta: p.smoothness.map_or(0.0, |b| at(b, j)),
            rho: at(p.strong_convexity, j),
            diam: at(p.diameter, j),
        }
    }

    /// M·D/η as a double-double (relative error ~1e-31): M the double-double square root of the
    /// M² of [`crate::gd::contraction_dd`], the one formula of the contraction (Lemma 4's
    /// (β + ρ − 2ηβρ)/(β + ρ), and (ηβ − 1)² for an η accepted a hair above 2/(β+ρ), where
    /// Lemma 4's value is below the step's Lipschitz constant: this path used Lemma 4's formula
    /// there too, and its fixed-order δ came out 3.1e-14 below the exact value for η = 1.6,
    /// β = 1.25, ρ = 1.25e-18; found 2026-11-28). `None` where M = 0 (B = 0: no precise path
    /// needed).
    fn mdl_dd(&self) -> Option<Dd> {
        let beta = (self.beta != 0.0).then_some(self.beta);
        let (_, m2, _) = crate::gd::contraction_dd(self.lr, beta, self.rho);
        if m2.hi.is_nan() || m2.hi <= 0.0 {
            return None;
        }
        Some(m2.sqrt().mul_f(self.diam).div_f(self.lr))
    }
}

/// Does the fixed-order lane with t = k·ln B (fast), radius r_B and A take the precise path?
/// The fast ln B has a relative error ≈ 3e-15 + (the rounding of r_B, ≤ 6 ulp) × d ln|ln B|/d ln r,
/// the latter ≈ r²/4 (Gaussian, B near 1) or r/2 (Laplace): the weight w = 1 + r²/64 or
/// 1 + r/32 keeps the fast path's error below ~3e-13.
#[inline(always)]
pub(super) fn wants_precise(noise: Noise, t: f64, rb: f64, a: f64) -> bool {
    let w = match noise {
        Noise::Gaussian => 1.0 + rb * rb * (1.0 / 64.0),
        Noise::Laplace => 1.0 + rb * (1.0 / 32.0),
    };
    t.abs() * w > PRECISE_T && t.is_finite() && a > 0.0
}

/// ln B rounded up (towards 0) as a double-double, from the inputs: r_B = (M·D/η)/s in
/// double-double, ln B by [`theta_dd`], moved up by its error estimate and [`LB_MARGIN`].
/// `None` where the double-double formulas do not apply (the caller keeps the fast value).
#[inline(never)]
pub(super) fn precise_lb(noise: Noise, g: &Geo, eps: f64, s: f64) -> Option<Dd> {
    let r = g.mdl_dd()?.div_f(s);
    if !(r.hi >= 1e-300 && r.hi.is_finite()) {
        return None;
    }
    let (l, err) = match noise {
        Noise::Gaussian => theta_dd::ln_theta_dd(eps, r)?,
        Noise::Laplace => theta_dd::ln_laplace_theta_dd(eps, r)?,
    };
    let v = l.add_f(err + l.hi.abs() * LB_MARGIN);
    if v.hi < 0.0 && v.hi.is_finite() {
        Some(v)
    } else {
        None
    }
}

/// A·B^k from the double-double ln B (rounded up): k·ln B = t_hi + t_lo exactly to ~1e-31,
/// δ = A·e^{t_hi}·(1 + t_lo) rounded up.
#[inline(never)]
pub(super) fn value_fixed_precise(a: f64, lb: Dd, k: f64) -> f64 {
    let t = lb.mul_f(k);
    if t.hi < -746.0 {
        return TINY;
    }
    up(a * vmath::exp(t.hi) * (1.0 + t.lo)).min(a).min(1.0)
}

/// ln A + k·ln B from the double-double ln B (rounded up): the sum is formed exactly
/// (two_sum) and rounded up to a double.
#[inline(never)]
pub(super) fn log_fixed_precise(la: f64, lb: Dd, k: f64) -> f64 {
    let t = lb.mul_f(k);
    if !t.hi.is_finite() {
        return -f64::MAX;
    }
    let (s, e) = two_sum(la, t.hi);
    let lo = e + t.lo;
    let v = s + lo;
    let res = (s - v) + lo; // exact: v + res = s + lo
    let v = if res > 0.0 && v < 0.0 {
        f64::from_bits(v.to_bits() - 1) // the next double towards 0
    } else {
        v
    };
    v.min(la).min(0.0)
}

/// The precise fixed-order value (or log) of one element, where its condition number asks for
/// it (`None` elsewhere, and where the double-double formulas do not apply).
#[inline(always)]
pub(super) fn precise_fixed(
    e: &Elem,
    f: &Fac,
    eps: f64,
    s: f64,
    rb: f64,
    log: bool,
) -> Option<f64> {
    if e.order != Order::Fixed {
        return None;
    }
    let k = e.n - e.i;
    if !wants_precise(e.noise, k * f.lb, rb, f.a) {
        return None;
    }
    let lb = precise_lb(e.noise, &e.geo, eps, s)?;
    Some(if log {
        log_fixed_precise(f.la, lb, k)
    } else {
        value_fixed_precise(f.a, lb, k)
    })
}
