//! The RDP comparison bound of Asoodeh–Diaz–Calmon Proposition 1 (§IV-D): PNSGD with Gaussian
//! noise is (α, α·c_i)-RDP for record i, c_i = (2L²/σ²)·x(1−x)^k/(1 − (1−x)^{k+1}),
//! x = 1 − M², k = n − i (Balle et al. Thm 5 as cited there; at x = 0 the limit 2L²/(σ²(k+1)) of
//! Feldman et al. Thm 23); the conversion to (ε, δ) optimized over α (Mironov, *Rényi
//! differential privacy*, Prop. 3) gives δ_B(ε) = exp(−(ε − c)²/(4c)) for ε > c, with inverse
//! ε = c + 2√(c ln(1/δ)). The proposition is reconstructed (its extracted text lost the
//! formulas); the reconstruction is in `docs/derivations/pnsgd.md`.

#![allow(clippy::neg_cmp_op_on_partial_ord)] // `!(x > 0.0)`-style checks also catch NaN
use crate::dd::Dd;
use crate::error::Result;
use crate::gd::{step_contraction, StepContraction};
use crate::num::{up, TINY};
use crate::vmath;

use super::at;
use super::inverse::bisect_bits;
use super::params::{check_eps, check_model, check_target, RdpParams};
use super::LOG_REL;
use super::{drive, PAR_DELTA};
use crate::num::round::{log_up_rel, rel_dn, rel_err, rel_up, EPS4, HALF_ULP_ONE};
use crate::rdp::conversion_prob::exp_prob_up;
use crate::setup::check_broadcast;

/// x = 1 − M² of the RDP slope with ln(1 − x) = ln M² as a double-double.
///
/// c_i depends on x through ln c = ln x + k·ln(1 − x) − ln(1 − (1 − x)^{k+1}); the middle term
/// has the condition number k·x/(1 − x) with respect to the relative error of x, which reaches
/// thousands for M ≈ 0.1 and k ≈ 80 (a few ulp of a rounded x cost 1e-12 of c). So ln M² is
/// formed from the double-double x and M² of [`step_contraction`] (log1p(−x) for x ≤ ½, ln M²
/// above, where M² = (β + ρ − 2ηβρ)/(β + ρ) carries no cancellation of 1 − x), and its error
/// bound `l1_err` (absolute) is carried to the result.
#[derive(Debug, Clone, Copy)]
pub struct RdpM {
    /// x = 1 − M² to nearest.
    pub x: f64,
    /// ln M² = log1p(−x) (≤ 0), double-double.
    pub l1: Dd,
    /// Absolute error bound of `l1`.
    pub l1_err: f64,
}

impl RdpM {
    /// From the contraction of [`step_contraction`]. x < 0 where M > 1 (an η a hair above
    /// 2/(β+ρ)): there c_i = (2L²/σ²)/Σ_{j≤k} M^{−2j} exceeds the M = 1 limit; the formulas
    /// below hold for either sign of x (x and −expm1((k+1) ln M²) share it).
    pub fn new(c: &StepContraction) -> RdpM {
        let x = c.one_minus_m2;
        if x == 0.0 || c.m2_dd.hi <= 0.0 {
            return RdpM {
                x,
                l1: Dd::from_f64(if x == 0.0 { 0.0 } else { f64::NEG_INFINITY }),
                l1_err: 0.0,
            };
        }
        if x <= 0.5 {
            let l1 = crate::dd::log1p_dd(-c.x_dd);
            // x_dd relative 2^-100·(1 + ...) moves log1p by ≤ 2·x·2^-100 ≤ 2^-99·|l1|
            RdpM {
                x,
                l1,
                l1_err: l1.hi.abs() * 2f64.powi(-96),
            }
        } else {
            let l1 = crate::dd::ln_dd(c.m2_dd);
            RdpM {
                x,
                l1,
                l1_err: c.m2_rel_err * 2.0 + l1.hi.abs() * 2f64.powi(-96),
            }
        }
    }

    /// From a double x ∈ [0, 1] taken as exact (tests).
    pub fn from_x(x: f64) -> RdpM {
        if x == 0.0 || x >= 1.0 {
            return RdpM {
                x: x.min(1.0),
                l1: Dd::from_f64(if x == 0.0 { 0.0 } else { f64::NEG_INFINITY }),
                l1_err: 0.0,
            };
        }
        let l1 = crate::dd::log1p_dd(Dd::from_f64(-x));
        RdpM {
            x,
            l1,
            l1_err: l1.hi.abs() * 2f64.powi(-96),
        }
    }
}

/// ln c_i of the RDP slope (PNSGD is (α, α c_i)-RDP for record i), rounded up:
/// c = (2L²/σ²)·x·e^{k ln M²}/(−expm1((k+1) ln M²)), x = 1 − M², k = n − i;
/// continuous at x = 0 (Feldman et al.: 2L²/(σ²(k+1))). In log form so that a c_i far below
/// the double range (strong convexity, large n − i) keeps its digits. −∞ iff c = 0 (L = 0,
/// or M = 0 and k > 0).
///
/// Error: k·ln M² is formed in double-double from [`RdpM`] (its error k·`l1_err` added), the
/// other terms (ln L − ln σ, ln x, ln(−expm1(t1))) to a few ulp each (t1 = (k+1) ln M² rounded
/// to a double moves ln(−expm1(t1)) by ≤ ulp·|t1|·e^{t1}/(1 − e^{t1}) ≤ 1 ulp), and every
/// rounding of the sum is bounded by 4 half-ulps of the magnitude of the summed terms.
#[inline]
pub fn rdp_log_slope(max_grad_norm: f64, sigma: f64, cm: &RdpM, k: f64) -> f64 {
    if max_grad_norm == 0.0 {
        return f64::NEG_INFINITY;
    }
    let lq = vmath::ln(max_grad_norm) - vmath::ln(sigma);
    let lbase = std::f64::consts::LN_2 + 2.0 * lq;
    let x = cm.x;
    // (value, magnitude of the summed terms, extra absolute error)
    let (v, scale, extra) = if x == 0.0 {
        let l = vmath::ln(k + 1.0);
        (lbase - l, lbase.abs() + l, 0.0)
    } else if cm.l1.hi == f64::NEG_INFINITY {
        // M = 0 exactly (x to nearest is 1 also for 0 < M² < 2^-53: those take the general
        // form below, where ln x = 0 only rounds up)
        if k > 0.0 {
            return f64::NEG_INFINITY; // M = 0: record i is forgotten
        }
        (lbase, lbase.abs(), 0.0)
    } else {
        let t0 = cm.l1.mul_f(k);
        let t1 = cm.l1.mul_f(k + 1.0).to_f64();
        // (x and −expm1(t1) have the same sign: both < 0 where M > 1)
        let lx = vmath::ln(x.abs());
        let ld = vmath::ln(vmath::expm1(t1).abs());
        (
            ((lbase + lx) - ld) + t0.hi + t0.lo,
            lbase.abs() + lx.abs() + t0.hi.abs() + 2.0 * ld.abs() + 1.0,
            (k + 1.0) * cm.l1_err,
        )
    };
    v + rel_err(2.0 * (scale + 2.0 * lq.abs() + 1.0)) + extra
}

/// The RDP slope c_i itself, rounded up: computed in value space (relative error a few ulp
/// times 1 + |k ln M²|) when it is a normal double, else exp of [`rdp_log_slope`]; 0 iff c = 0.
#[inline]
pub fn rdp_slope(max_grad_norm: f64, sigma: f64, cm: &RdpM, k: f64) -> f64 {
    let lc = rdp_log_slope(max_grad_norm, sigma, cm, k);
    if lc == f64::NEG_INFINITY {
        return 0.0;
    }
    if lc < -700.0 {
        return up(vmath::exp(lc));
    }
    let q = max_grad_norm / sigma;
    let base = 2.0 * q * q;
    let x = cm.x;
    let (f, ulps) = if x == 0.0 {
        (1.0 / (k + 1.0), 8.0)
    } else if cm.l1.hi == f64::NEG_INFINITY {
        (if k == 0.0 { 1.0 } else { 0.0 }, 8.0) // M = 0 exactly (as in rdp_log_slope)
    } else {
        let t0 = cm.l1.mul_f(k);
        let t1 = cm.l1.mul_f(k + 1.0).to_f64();
        let err = (k + 1.0) * cm.l1_err;
        (
            x * (vmath::exp(t0.hi) * (1.0 + t0.lo)) / -vmath::expm1(t1),
            20.0 + 2.0 * err / HALF_ULP_ONE,
        )
    };
    (base * f) * (1.0 + rel_err(0.5 * ulps))
}

/// The slope c of [`rdp_slope`] as a double-double with a bound ρ of its relative error
/// (|c_dd − c| ≤ ρ·c), for the conversion's (ε − c)²/(4c): an error ρ of c moves ln δ_B by
/// ρ·(ε − c)/2·(1 + (ε − c)/(2c)) ≈ ρ·√(c·ln(1/δ)), which made the ~10 ulps of the double c
/// cost 1.3e-10 relative in δ_B at c ≈ 1e10 (found 2026-11-28). c = 2(L/σ)²·f with f = 1 at
/// k = 0 (x/(1 − M²) = 1 exactly), 1/(k + 1) at M = 1, else f = expm1(ℓ)·e^{kℓ}/expm1((k+1)ℓ)
/// with ℓ = ln M² of [`RdpM`] (x = −expm1(ℓ)): the double-double operations and elementary
/// functions cost < 2^-90 in all (exp_dd: (|kℓ| + 8)·2^-104 ≤ 2^-94 on |kℓ| ≤ 700), and the
/// error `l1_err` of ℓ moves ln f by ≤ B·l1_err, B = 1/expm1(|ℓ|) + k + (k+1)/expm1((k+1)|ℓ|)
/// (the three terms' derivatives, for either sign of ℓ), taken twice. None where c is outside
/// [1e-200, 1e200], |(k+1)ℓ| > 700, or the bound is not below 1e-6 (the double path is used).
pub(super) fn rdp_slope_dd(max_grad_norm: f64, sigma: f64, cm: &RdpM, k: f64) -> Option<(Dd, f64)> {
    if max_grad_norm == 0.0 {
        return None;
    }
    let base = Dd::from_f64(max_grad_norm).div_f(sigma).sqr().mul_f(2.0);
    let (f, ferr) = if cm.x == 0.0 {
        (Dd::from_f64(1.0) / Dd::from_f64(k).add_f(1.0), 0.0)
    } else if k == 0.0 {
        (Dd::from_f64(1.0), 0.0)
    } else if cm.l1.hi == f64::NEG_INFINITY {
        return None; // M = 0 with k > 0: c = 0
    } else {
        let l = cm.l1;
        let t0 = l.mul_f(k);
        let t1 = t0 + l;
        if !(t1.hi.abs() <= 700.0 && t0.hi.abs() <= 700.0) {
            return None;
        }
        let a = l.hi.abs();
        let b = 1.0 / a.exp_m1() + k + (k + 1.0) / ((k + 1.0) * a).exp_m1();
        (
            crate::dd::expm1_dd(l) * crate::dd::exp_dd(t0) / crate::dd::expm1_dd(t1),
            2.0 * b * cm.l1_err,
        )
    };
    let c = base * f;
    let rho = 2f64.powi(-90) + ferr;
    if (1e-200..=1e200).contains(&c.hi) && rho < 1e-6 {
        Some((c, rho))
    } else {
        None
    }
}

/// The slope of element j as the conversions use it: ln c and c rounded up ([`rdp_log_slope`],
/// [`rdp_slope`]) and, where available, c as a double-double with its relative error bound
/// ([`rdp_slope_dd`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Slope {
    pub lc: f64,
    pub c: f64,
    pub dd: Option<(Dd, f64)>,
}

/// The slope of element j ([`Slope`]).
fn rdp_slope_at(p: &RdpParams, j: usize) -> Result<Slope> {
    let c = step_contraction(
        at(p.lr, j),
        p.smoothness.map(|b| at(b, j)),
        at(p.strong_convexity, j),
    )
    .map_err(|e| e.at(j))?;
    let k = at(p.n, j) - at(p.index, j);
    let (l, s) = (at(p.max_grad_norm, j), at(p.sigma, j));
    let cm = RdpM::new(&c);
    Ok(Slope {
        lc: rdp_log_slope(l, s, &cm, k),
        c: rdp_slope(l, s, &cm, k),
        dd: rdp_slope_dd(l, s, &cm, k),
    })
}

/// ln δ_B(ε) from the double-double slope (c, ρ): −(ε − c↑)²/(4c↑) with c↑ = c(1 + ρ)·(1 +
/// 1e-6·ρ) ≥ the exact c ((ε − c)²/(4c) decreases in c below ε), d = ε − c↑ and the quotient
/// in double-double (relative error < 2^-98 however much ε and c cancel), rounded toward 0
/// (h.hi where h.lo shows the exact quotient above it, else one double down: ≤ 1 ulp).
/// None (the double path decides) where d is outside [1e-130, 1e130] (squares under- or
/// overflowing) or the quotient below 1e-280.
fn rdp_log_delta_dd(eps: f64, c: Dd, rho: f64) -> Option<f64> {
    let cu = c.add_f(c.hi * (rho * 1.000_001));
    let d = Dd::from_f64(eps) - cu;
    if !(d.hi.abs() <= 1e130) {
        return None; // (NaN too)
    }
    if !(d.hi > 0.0) {
        return Some(0.0);
    }
    if d.hi < 1e-130 {
        return None;
    }
    let h = d.sqr() / cu.mul_f(4.0);
    if !(h.hi >= 1e-280) {
        return None;
    }
    let q = if h.lo > h.hi * 2f64.powi(-96) {
        h.hi
    } else {
        h.hi.next_down()
    };
    Some(-q)
}

/// [`rdp_log_delta_one`] with the double-double slope where it has one.
#[inline]
pub(super) fn rdp_log_delta_s(eps: f64, s: &Slope) -> f64 {
    if s.lc != f64::NEG_INFINITY {
        if let Some((c, rho)) = s.dd {
            if let Some(v) = rdp_log_delta_dd(eps, c, rho) {
                return v;
            }
        }
    }
    rdp_log_delta_one(eps, s.lc, s.c)
}

/// ln δ_B(ε) = −(ε − c)²/(4c) for ε > c, else 0 (rounded up); `lc` = ln c, `c_val` = c.
/// c = 0 (L = 0, or M = 0 with k > 0) is 0-zCDP: every Rényi divergence of the two output
/// distributions is 0, they are equal, and δ = 0 for every ε ≥ 0 (ln δ = −∞), consistently
/// with ε(δ) = c + 2√(c ln(1/δ)) = 0 (the formula's "else 1" at ε ≤ c is only the trivial
/// bound; at c = 0 it would contradict the inverse).
///
/// (ε − c)²/(4c) decreases in c (both factors do), so the upper bounds `lc`, `c_val` of c give
/// an upper bound of ln δ. The direct double form is used where d = ε − c, d² and the quotient
/// are normal, the quotient ≥ 1e-300 and finite (4 roundings against the `LOG_REL` = 4u
/// margin); elsewhere
/// (c below 1e-290, d² under- or overflowing, a quotient out of range) [`rdp_log_delta_scaled`].
#[inline]
pub(super) fn rdp_log_delta_one(eps: f64, lc: f64, c_val: f64) -> f64 {
    if lc == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    let c = c_val;
    // (below 1e-290 c_val may be e^{lc} rounded up into the subnormal grid, TINY above it:
    // the scaled form decides ε ≤ c from ln c)
    if eps <= c && (c >= 1e-290 || eps <= 0.0) {
        return 0.0;
    }
    if c >= 1e-290 {
        let d = eps - c;
        let dd = d * d;
        if (f64::MIN_POSITIVE..=f64::MAX).contains(&dd) {
            let q = dd / (4.0 * c);
            if (1e-300..=f64::MAX).contains(&q) {
                return log_up_rel(-q);
            }
        }
    }
    rdp_log_delta_scaled(eps, lc, c_val)
}

/// x = m·2^e with m ∈ [1, 2) exactly (x > 0 finite, subnormals included).
#[inline]
fn split_exp(x: f64) -> (f64, i64) {
    let (xs, adj) = if x < f64::MIN_POSITIVE {
        (x * 18_014_398_509_481_984.0, -54) // 2^54, exact
    } else {
        (x, 0)
    };
    let b = xs.to_bits();
    let e = ((b >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((b & ((1u64 << 52) - 1)) | (1023u64 << 52));
    (m, e + adj)
}

/// 2^k for an integer k in [−1022, 1023] (from the bit pattern, exact).
#[inline]
fn pow2i(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// [`rdp_log_delta_one`] for a c or an ε − c outside the direct form's range (c subnormal or
/// underflowed, from ~2e-320 down; the former "ε²/(4c)" form lost the −c of (ε − c)², 2.25
/// times too negative at ε = 3c). Exponents and mantissas apart: c ≤ m_c·2^{e_c} (c_val's
/// exact split where c ≥ e^-700, else e^{lc} as m·2^k by `exp_parts` raised by 8u: c_val was
/// e^{lc} rounded into the subnormal grid there), ε = m_ε·2^{e_ε}; then
/// (ε − c)²/(4c) = (m_d²/(4 m_c))·2^{2e_ε − e_c}, m_d = m_ε − m_c·2^{e_c − e_ε} (one rounding;
/// the subtrahend bounded above by 2^-1000 when smaller), m_d² and the quotient 2 more: the
/// mantissa quotient lowered by 8u covers the 4u; the power of two is applied in two exact
/// steps, the last of which may round into the subnormal grid (then lowered by one subnormal
/// ulp) or overflow (capped at −MAX, an upper bound). ln c below −2000 (c < e^-2000, so
/// c/ε < e^-1250): ln q = 2 ln ε − ln 4 − ln c, every term rounded down.
fn rdp_log_delta_scaled(eps: f64, lc: f64, c_val: f64) -> f64 {
    if lc < -2000.0 {
        // (1 − c/ε)² = 1 − O(e^-1250) is below the margin
        let t = 2.0 * vmath::ln(eps) - 2.0 * std::f64::consts::LN_2 - lc;
        let t = t - rel_err(2.0 * (t.abs() + lc.abs() + 2.0 * vmath::ln(eps).abs() + 2.0));
        return -(vmath::exp(t).min(f64::MAX));
    }
    let (mc, ec) = if lc >= -700.0 && c_val >= f64::MIN_POSITIVE {
        split_exp(c_val)
    } else {
        let (m, k) = vmath::exp_parts(lc);
        let (m1, e1) = split_exp(m);
        (rel_up(m1, EPS4), k as i64 + e1) // m1(1 + 8u) ≤ 2·(1 + 2^-50): fine as a mantissa
    };
    let (me, ee) = split_exp(eps);
    let s = ec - ee;
    if s > 1 {
        return 0.0; // c ≥ 2^{e_c} > ε (c_val rounded below the reconstruction): trivial bound
    }
    let sub = if s < -1000 {
        pow2i(-1000) // > m_c·2^s
    } else {
        mc * pow2i(s)
    };
    let md = me - sub;
    if md <= 0.0 {
        return 0.0;
    }
    let qm = rel_dn(md * md / mc * 0.25, EPS4);
    // qm ∈ [2^-110, 4): (qm·2^{e1})·2^{e2} with |e1|, |e2| ≤ 660; the first product is normal
    let e = (2 * ee - ec).clamp(-1320, 1200);
    let e1 = e / 2;
    let q = (qm * pow2i(e1)) * pow2i(e - e1);
    let q = if q <= f64::MIN_POSITIVE {
        // rounded to nearest in the subnormal grid (or up to MIN_POSITIVE): one ulp down
        (q - 5e-324).max(0.0)
    } else {
        q
    };
    -(q.min(f64::MAX))
}

/// δ_B(ε) of Asoodeh–Diaz–Calmon Proposition 1 (or its log), elementwise; `index` is required.
pub fn rdp_delta(eps: &[f64], p: RdpParams, out: &mut [f64], log: bool) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("eps", eps.len())])?;
    check_eps(eps)?;
    map_slopes(&p, out, |j, s| {
        let l = rdp_log_delta_s(at(eps, j), &s);
        if log {
            l
        } else {
            exp_prob_up(l)
        }
    })
}

/// `f(j, slope_j)` into every element j of `out`, slope_j the slope of `p` at j
/// ([`rdp_slope_at`]; the model's arguments checked first).
fn map_slopes(
    p: &RdpParams,
    out: &mut [f64],
    f: impl Fn(usize, Slope) -> f64 + Sync,
) -> Result<()> {
    check_model(&p.model(), Some(p.sigma), out.len())?;
    drive(out, PAR_DELTA, |j0, o| {
        for (t, slot) in o.iter_mut().enumerate() {
            let j = j0 + t;
            *slot = f(j, rdp_slope_at(p, j)?);
        }
        Ok(())
    })
}

/// The smallest ε (to the ulp) whose δ_B as [`rdp_delta`] returns it meets `target`, given the
/// slope (ln c, c): the closed form ε(δ) = c + 2√(c ln(1/δ)) (rounded up) as the starting
/// point, then a bracket of a few ulp around it and [`bisect_bits`] on the bit patterns (δ_B is
/// non-increasing in ε to the ulp: a composition of monotone roundings). Sound: δ_B ≥ the
/// exact δ, so δ_B(ε) ≤ target implies the exact δ at ε is, and ε ≥ the exact inverse.
/// Normal targets are compared in value space; subnormal ones on ln δ ≤ ln(target)·(1 + 4 ulp).
#[cfg(test)]
pub(super) fn rdp_epsilon_one(target: f64, lc: f64, c: f64) -> f64 {
    rdp_epsilon_s(target, &Slope { lc, c, dd: None })
}

/// [`rdp_epsilon_one`] with the double-double slope where it has one (the δ_B of
/// [`rdp_log_delta_s`], as [`rdp_delta`] returns it). Near δ = 1 the certified δ_B is e^{ln δ_B}
/// rounded up to (almost always) the least double above it ([`exp_prob_up`]): with the former
/// 2^-46 relative margin (128 doubles below 1) the ε at δ = 1 − 2^-53 needed ln(1/δ_B) ≈
/// 129·2^-53, i.e. ε − c √129 ≈ 11 times the exact 2√(c·ln(1/δ)).
pub(super) fn rdp_epsilon_s(target: f64, s: &Slope) -> f64 {
    let (lc, c) = (s.lc, s.c);
    if lc == f64::NEG_INFINITY {
        return 0.0; // c = 0: δ_B = 0 at every ε ≥ 0
    }
    let log = target < f64::MIN_POSITIVE;
    let lt = rel_dn(vmath::ln(target), LOG_REL);
    let ok = |x: f64| {
        let l = rdp_log_delta_s(x, s);
        if log {
            l <= lt
        } else {
            exp_prob_up(l) <= target
        }
    };
    // c + 2√(c ln(1/δ)) with the root as exp(½(ln c + ln ln(1/δ))) (c may underflow)
    let ll = vmath::ln(-vmath::ln(target));
    let h = 0.5 * (lc + ll);
    let root = vmath::exp(h + rel_err(2.0 * (h.abs() + ll.abs() + 1.0)));
    let e0 = up(c + 2.0 * root);
    if !(e0.is_finite() && e0 > 0.0) {
        return e0;
    }
    // bracket (lo, hi] with !ok(lo), ok(hi): relative steps from 2^-44, doubling
    let mut step = 2f64.powi(-44);
    let mut hi = e0;
    let mut n = 0;
    while !ok(hi) {
        hi = hi * (1.0 + step) + TINY;
        step *= 2.0;
        n += 1;
        if n > 80 || !hi.is_finite() {
            return e0.max(hi); // (not reached: δ_B → 0 as ε grows)
        }
    }
    let mut step = 2f64.powi(-44);
    let mut lo = e0 * (1.0 - step);
    // (down to 0, not to the rounded-up c: below ~1e-290 δ_B decides ε ≤ c from ln c, so a
    // double just below the stored c can already meet the target; the loop ends where δ_B = 1,
    // at the latest at ε = 0, after at most ~44 + log2(e0/5e-324) steps)
    while ok(lo) {
        if lo == 0.0 {
            break;
        }
        step = (step * 2.0).min(0.5);
        lo *= 1.0 - step;
    }
    if ok(lo) {
        return lo;
    }
    bisect_bits(lo, hi, ok)
}

/// ε(δ) of Asoodeh–Diaz–Calmon Proposition 1 (c + 2√(c ln(1/δ)), the smallest double whose δ_B as
/// [`rdp_delta`] returns it meets δ: `rdp_epsilon_one`), elementwise.
pub fn rdp_epsilon(target: &[f64], p: RdpParams, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("delta", target.len())])?;
    check_target(target)?;
    map_slopes(&p, out, |j, s| rdp_epsilon_s(at(target, j), &s))
}

/// The RDP slope c_i of Asoodeh–Diaz–Calmon Proposition 1 (PNSGD is (α, α c_i)-RDP, i.e.
/// c_i-zCDP, for record i), rounded up, elementwise.
pub fn rdp_slope_values(p: RdpParams, out: &mut [f64]) -> Result<()> {
    map_slopes(&p, out, |_, s| s.c)
}
