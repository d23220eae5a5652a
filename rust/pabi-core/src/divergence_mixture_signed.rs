//! Cancellation-free forms of E_γ(P‖Q) for mixtures that nearly agree (a child module of
//! `divergence_mixture.rs`).
//!
//! The cell method bounds p and γq separately, so where p/(γq) − 1 is below the accuracy of
//! the log-density bounds (~1e-15) no cell can be certified and the budget ends with the
//! uncertain total of order P(uncertain region): 7.6e-5 for an exact value of 8.2e-14 (two
//! mixtures of N(0, 1) whose weights differ by 3e-13), 7.5e-5 for a subsampled Gaussian at
//! sampling rate 1e-10. Two remedies:
//!
//! * [`signed_parts`]: components with the same (μ, s) in P and Q are merged into one signed
//!   coefficient c = w_P − γ·w_Q = (w_P − w_Q) − expm1(ε)·w_Q, formed in double-double and
//!   bracketed (the exact difference of the weights, expm1 faithful). Then p − γq = p' − q'
//!   with p' = Σ_{c>0} c·φ and q' = Σ_{c<0} |c|·φ, and E_γ(P‖Q) = E_1(p'‖q'): the cell method
//!   runs on (p', q', γ = 1), where the identical parts have cancelled exactly.
//! * [`theta_pair`]: one component each, equal weights and deviations: E = w·θ_{e^ε}(r),
//!   r = |μ_P − μ_Q|/s as a double-double (the difference exact by TwoSum), by the
//!   double-double θ of `theta_dd` (no cancellation for any r: the cells returned 8e-17 for an
//!   exact 7.8e-39 at a tiny shift, and 2e-55 for 1.7e-377).
//!
//! What remains loose (the bound stays safe, `bracket=True` shows the width): mixtures with
//! more than one component whose components differ by tiny shifts or scale changes (not equal
//! doubles), where p and γq agree to ~1e-15 or better over a whole region.

#![allow(clippy::neg_cmp_op_on_partial_ord)] // `!(x <= y)`-style checks also catch NaN
use super::Comp;
use crate::dd::{two_sum, Dd};
use crate::num::round::{add_dn, add_up, mul_dn, mul_up, TINY};
use crate::theta_dd::ln_theta_dd;

/// 2^-90: the error of a double-double sum or product of a few terms, relative to the terms.
const DD_ERR: f64 = 8.077_935_669_463_161e-28;
/// Relative margin of [`theta_pair`] on top of `ln_theta_dd`'s own error estimate: 2^-48
/// covers std's exp (< 1 ulp), the product by 1 + lo and the final roundings many times over.
const THETA_MARGIN: f64 = 1.0 / 281_474_976_710_656.0;

/// (p', q') of the signed form, or `None` when P and Q share no (μ, s) or ε > 700 (the caller
/// keeps the direct form). p' empty means p − γq ≤ 0 everywhere (E = 0).
pub(super) fn signed_parts(p: &[Comp], q: &[Comp], eps: f64) -> Option<(Vec<Comp>, Vec<Comp>)> {
    if !(eps <= 700.0) {
        return None;
    }
    // (μ, s, w_P, w_Q, number of terms summed) per distinct (μ, s), weights in double-double
    let mut keys: Vec<(f64, f64, Dd, Dd, u32)> = Vec::with_capacity(p.len() + q.len());
    for (k, side) in p.iter().map(|c| (c, 0)).chain(q.iter().map(|c| (c, 1))) {
        let w = Dd::from_f64(k.w_up); // the given weight (w_dn = w_up)
        let z = Dd::from_f64(0.0);
        keys.push(if side == 0 {
            (k.mu, k.s, w, z, 1)
        } else {
            (k.mu, k.s, z, w, 1)
        });
    }
    keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut merged: Vec<(f64, f64, Dd, Dd, u32)> = Vec::with_capacity(keys.len());
    let mut shared = false;
    for (mu, s, wp, wq, n) in keys {
        match merged.last_mut() {
            Some(l) if l.0 == mu && l.1 == s => {
                l.2 = l.2 + wp;
                l.3 = l.3 + wq;
                l.4 += n;
                shared |= l.2.hi > 0.0 && l.3.hi > 0.0;
            }
            _ => merged.push((mu, s, wp, wq, n)),
        }
    }
    if !shared {
        return None;
    }
    // expm1(ε) bracketed: std's expm1 is faithful (the true value is within one ulp)
    let em = eps.exp_m1();
    let (em_dn, em_up) = if eps == 0.0 {
        (0.0, 0.0)
    } else {
        (em.next_down().max(0.0), em.next_up())
    };
    let (mut pp, mut qq) = (Vec::new(), Vec::new());
    for (mu, s, wp, wq, n) in merged {
        let diff = wp - wq;
        // c = diff − expm1(ε)·w_Q for expm1(ε) at either end of its bracket; a sum of two
        // doubles is exact (TwoSum), else the double-double error is ≤ n·2^-90 of the terms
        let c_at = |e: f64, up: bool| {
            let t = wq.mul_f(e);
            let c = diff - t;
            let exact = n <= 2 && (e == 0.0 || wq.hi == 0.0);
            let err = if exact {
                0.0
            } else {
                DD_ERR * n as f64 * (wp.hi.abs() + wq.hi.abs() + t.hi.abs())
            };
            if up {
                add_up(add_up(c.hi, c.lo), err)
            } else {
                add_dn(add_dn(c.hi, c.lo), -err)
            }
        };
        let (c_dn, c_up) = (c_at(em_up, false), c_at(em_dn, true));
        if c_up > 0.0 {
            pp.push(Comp::new(c_dn.max(0.0), c_up, mu, s));
        }
        if c_dn < 0.0 {
            qq.push(Comp::new((-c_up).max(0.0), -c_dn, mu, s));
        }
    }
    Some((pp, qq))
}

/// The bracket of w·θ_{e^ε}(|μ_P − μ_Q|/s) for one component each with equal weights w and
/// equal deviations s, or `None` (other mixtures, or where `ln_theta_dd` does not apply).
pub(super) fn theta_pair(p: &[Comp], q: &[Comp], eps: f64) -> Option<(f64, f64)> {
    let ([a], [b]) = (p, q) else {
        return None;
    };
    if !(a.s == b.s && a.w_up == b.w_up && eps.is_finite()) {
        return None;
    }
    let (h, l) = two_sum(a.mu, -b.mu); // μ_P − μ_Q exactly
    let d = if h < 0.0 {
        Dd::new(-h, -l)
    } else {
        Dd::new(h, l)
    };
    if !(d.hi > 0.0) {
        return None;
    }
    let r = d.div_f(a.s);
    let (lt, err) = ln_theta_dd(eps, r)?;
    // err: the estimate of the log's absolute error (2^-98 + 1e-22 times the cancellation
    // factors measured at run time), taken four-fold on top of the 2^-48 margin: used while
    // it is below 1e-14 (a relative margin ≤ 4.4e-14), or whatever it is when even the raised
    // log is below ln 2^-1076 (θ underflows: the upper end is TINY); else the cells decide
    if !lt.hi.is_finite() {
        return None;
    }
    if lt.hi + 4.0 * err.max(1e-300) + 1e-6 < -746.0 {
        return Some((0.0, TINY));
    }
    if !(err <= 1e-14) {
        return None;
    }
    // θ = e^{hi}·e^{lo}: while e^{hi} is not 0, |lo| ≤ 2^-53·745 and e^{lo} = 1 + lo within
    // lo² < 1e-26; an underflowing e^{hi} is within 2^-1073 absolute after the roundings
    // (covered by TINY)
    let v = lt.hi.exp() * (1.0 + lt.lo);
    let m = THETA_MARGIN + 4.0 * err;
    let w = a.w_up;
    let up = add_up(mul_up(mul_up(v, 1.0 + m), w), TINY).min(w);
    let lo = add_dn(mul_dn(mul_dn(v, 1.0 - m), w), -TINY).max(0.0);
    Some((lo, up))
}
