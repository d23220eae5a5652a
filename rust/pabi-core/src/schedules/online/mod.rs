//! Online PNSGD with decaying noise (Sordello–Bu–Dong §6, Thms 6, 7, eqs. (11)–(15));
//! derivations, the corrected eqs. (13), (15) and the rounding directions in
//! `docs/derivations/schedules.md`.
//!
//! δ_n(i) = A_i·∏_{t=i+1}^n B_t (003 eq. (11)), evaluated as ln A_i + Σ_t ln B_t.
//!
//! * Any per-step noise array: [`online_delta_all`] (every index: the per-step factor logs by
//!   the engine's block kernels, then an O(n) Neumaier-compensated suffix scan, chunk by chunk
//!   from the last, the chunks in parallel by `driver::scan_rev`) and [`online_log_delta_at`].
//! * The online schedules v_j (eq. (12)) and σ_j (eq. (14)) ([`OnlineSchedule`]): δ_n(i) for n up
//!   to 1e15 and beyond (direct sum of the first 2^18 factors, then a certified upper bound of
//!   the remaining finite sum, `limit.rs`); the exact limit δ_∞(i) = A_i·exp(Σ_{t>i} g(t)) (direct
//!   sum, then the Euler–Maclaurin tail Σ_{t≥a} g ≈ ∫_a^∞ g + g(a)/2 − g'(a)/12, an estimate
//!   with its error margin added); a certified upper bound of δ_∞(i) (`limit.rs`); and the paper's
//!   integral bounds eqs. (13), (15) (corrected, or as printed on request).
//!
//! The estimates (the exact limit, eqs. (13)/(15)) integrate ∫_X^∞ g by tanh–sinh
//! quadrature after x = X·s^{−1/(α−1)}, which maps the algebraic tail g(x) ~ −c·x^{−α} onto a
//! bounded integrand on (0, 1], with the usual (heuristic) error estimate |I_h − I_2h|.
//! All functions return natural logarithms (δ underflows long before its log does).
//!
//! Where things are:
//! * `suffix.rs` — any per-step noise array: [`online_delta_all`], [`online_log_delta_at`]
//!   (eq. (11) as a compensated suffix scan).
//! * this file — [`OnlineSchedule`]: the schedule's constants, its noise levels, A_i and the
//!   per-step log factor g(t) = ln B_t.
//! * `limit.rs` — δ_n(i) for large n, the limit δ_∞(i) and its bounds (direct sums, the
//!   Euler–Maclaurin tail, the certified sums, eqs. (13)/(15)).
//! * `inverse.rs` — ε(δ): [`online_epsilon_at`] (a per-step noise array) and
//!   [`online_schedule_epsilon`] (the schedules, on the Laplace bound's ε-dependent domain).
//! * `quadrature.rs` — ∫ g: the tanh–sinh estimate and the certified bracket, with the
//!   concavity and third-derivative conditions the certified sums rely on.
//! * `tests.rs` — unit tests.

mod estimate;
mod inverse;
mod limit;
mod quadrature;
mod quantity;
mod suffix;
#[cfg(test)]
mod tests;

pub use inverse::{online_epsilon_at, online_schedule_epsilon};
pub use quantity::{online_delta_at, quantities_if_defined, OnlineQuantity};
pub use suffix::{online_delta_all, online_log_delta_all, online_log_delta_at};

use super::params::{check_c, check_decay, count, Noise, Problem};

use crate::error::{PabiError, Result};
use crate::num::dd::{exp_dd, ln_dd, Dd};
use crate::num::logspace::Neumaier;
use crate::num::round::{rel_dn, rel_up, EPS, EPS2, EPS4, EPS8};
use crate::{lambertw, theta, vmath};
use std::ops::{Add, Sub};

/// Number of factors summed directly before the Euler–Maclaurin tail takes over.
pub const DIRECT_TERMS: f64 = 262_144.0;
/// Relative width asked of the certified quadrature in the certified limit (the width also has
/// a floor of ≈ 2e-13 from the rounding of the integrand's logarithm).
const CERT_TOL: f64 = 1e-13;

/// ln of the per-step factor h(ε, r) (θ or the Laplace factor), rounded up; r nudged up.
#[inline(always)]
fn log_factor(kind: Noise, eps: f64, r: f64) -> f64 {
    let r = rel_up(r, EPS2);
    match kind {
        Noise::Gaussian => theta::log_theta_tight(eps, r),
        Noise::Laplace => theta::log_laplace_theta(eps, r),
    }
}

// ---------------------------------------------------------------------------------------------
// The online schedules (003 Thms 6, 7)

/// An online schedule v_j (Laplace, eq. (12)) or σ_j (Gaussian, eq. (14)) with its problem.
#[derive(Debug, Clone, Copy)]
pub struct OnlineSchedule {
    pub kind: Noise,
    pub p: Problem,
    pub c1: f64,
    pub c2: f64,
    pub decay: f64,
    ln_c1: f64,
    ln_c2: f64,
    /// Laplace: c = C1·e^{ε/2} (rounded down) and ln c; d = C1·C2.
    c: f64,
    ln_c: f64,
    d: f64,
    /// Laplace: d − c = C1·(C2 − e^{ε/2}) in double-double (relative error ~2^-100), so that
    /// t^α + d − c, the numerator of B_t = 1 − c/(t^α + d), is formed without the cancellation of
    /// d against c (e.g. C2 = 1, ε = 0: exactly 0, where d − c in doubles is ~1e-15·C1).
    dc: Dd,
}

/// ln(−log1p(−u)) from ln u (u ∈ (0, 1)).
#[inline(always)]
fn ln_neg_log1m(ln_u: f64) -> f64 {
    if ln_u > -20.0 {
        vmath::ln(-vmath::log1p(-vmath::exp(ln_u)))
    } else {
        let u = vmath::exp(ln_u);
        ln_u + u * (0.5 + u / 3.0)
    }
}

/// ln(−ln θ(ε, r)), −g of the Gaussian schedule at radius r: from ln(1 − θ) where θ ≥ 1/2,
/// else from ln θ directly (1 − θ would round to 1 where θ underflows, giving ∞).
#[inline(always)]
fn ln_neg_log_theta(eps: f64, r: f64) -> f64 {
    let lu = theta::log_theta_complement_tight(eps, r);
    if lu > -std::f64::consts::LN_2 {
        vmath::ln(-theta::log_theta_tight(eps, r))
    } else {
        ln_neg_log1m(lu)
    }
}

impl OnlineSchedule {
    pub fn new(kind: Noise, p: Problem, c1: f64, c2: f64, decay: f64) -> Result<Self> {
        check_c(c1, c2)?;
        check_decay(decay)?;
        let ln_c1 = vmath::ln(c1);
        let ln_c = ln_c1 + 0.5 * p.eps;
        let d = c1 * c2;
        // c = C1·e^{ε/2} from the exact half ε (≤ 2 ulp; exp(ln C1 + ε/2) carries the rounding
        // of ln C1 times |ln c|), rounded down; e^{ε/2} in double-double for d − c
        let (c, dc) = if 0.5 * p.eps <= 700.0 {
            let e = exp_dd(Dd::from_f64(0.5 * p.eps));
            let c = rel_dn(c1 * e.hi, EPS4);
            (c, Dd::from_f64(c2).sub(e).mul_f(c1))
        } else {
            let c = rel_dn(vmath::exp(ln_c), EPS4);
            (c, Dd::from_f64(d - c))
        };
        Ok(OnlineSchedule {
            kind,
            p,
            c1,
            c2,
            decay,
            ln_c1,
            ln_c2: if c2 > 0.0 {
                vmath::ln(c2)
            } else {
                f64::NEG_INFINITY
            },
            c,
            ln_c,
            d,
            dc,
        })
    }

    /// ln(j^α/C1 + C2) (Laplace) or ln z_j = ln(j^{2α}/(2πC1²) + C2) (Gaussian).
    #[inline(always)]
    fn ln_arg(&self, lj: f64) -> f64 {
        match self.kind {
            Noise::Laplace => crate::num::log_add_exp(self.decay * lj - self.ln_c1, self.ln_c2),
            Noise::Gaussian => super::ln_gauss_arg(self.decay * 2.0 * lj, self.c1, self.c2),
        }
    }

    /// Domain of the index (1-based): integer ≥ 1 and, for Laplace, i^α + C1·C2 > C1·e^{ε/2}
    /// (every B_t > 0 from t = i on; 003 Thm 6).
    pub fn check_index(&self, name: &'static str, i: f64) -> Result<()> {
        count(name, i, 1.0)?;
        if !self.defined_at(i) {
            return Err(PabiError::domain(
                name,
                format!(
                    "such that {name}^decay + c1*c2 > c1*e^(eps/2) = {} (the schedule's B_t must be > 0)",
                    self.ln_c.exp()
                ),
                i,
            ));
        }
        Ok(())
    }

    /// Whether the bound is defined at the index `i` (an integer ≥ 1): always for the Gaussian
    /// schedule; for the Laplace schedule where i^α + C1·C2 > C1·e^{ε/2} (the second test of
    /// [`OnlineSchedule::check_index`]). Monotone in ε as computed: ln(C1·e^{ε/2}) is
    /// ln C1 + ε/2 rounded, never below ln C1 + 0 for ε ≥ 0, so an index defined at some ε is
    /// defined at ε = 0 (of the same C1, C2, α).
    pub fn defined_at(&self, i: f64) -> bool {
        if self.kind != Noise::Laplace {
            return true;
        }
        let la = self.decay * vmath::ln(i);
        if la > 700.0 || 0.5 * self.p.eps > 700.0 || !self.dc.hi.is_finite() {
            let lhs = crate::num::log_add_exp(la, vmath::ln(self.d));
            return lhs.partial_cmp(&self.ln_c) == Some(std::cmp::Ordering::Greater);
        }
        // i^α + (d − c) in double-double (relative errors ~2^-100 each; i^α from exp_dd of
        // α·ln_dd(i), |α ln i| ≤ 700): defined where the sum exceeds its error bound 1e-28·(i^α +
        // |d − c|) (not in rounded doubles: C1 = 1.3e306, C2 = 1.036450187595371, ε = 0.0716…
        // has 1 + C1·C2 − C1·e^{ε/2} < 0 although ln(1 + C1·C2) > ln C1 + ε/2 as rounded)
        let ia = exp_dd(ln_dd(Dd::from_f64(i)).mul_f(self.decay));
        let n = ia.add(self.dc);
        n.hi > 1e-28 * (ia.hi + self.dc.hi.abs())
    }

    /// ln(j^α/C1 + C2) of the Laplace schedule and a bound of its absolute error: from
    /// q = j^α/C1 (≤ 2 ulp: j^α of a faithful pow, one division); next to 1 (below 2) as
    /// log1p(q + (C2 − 1)), and with C2 < 1 (where those terms cancel) from the exact expansion of
    /// j^α + C1·C2 − C1 (then the 1-ulp error of j^α, ≤ 2^-52·q, enters the absolute error of s).
    /// Where j^α overflows, the logarithmic form.
    fn laplace_ln_arg(&self, j: f64) -> (f64, f64) {
        let ja = j.powf(self.decay);
        let q = ja / self.c1;
        let z = q + self.c2;
        if !z.is_finite() {
            let la = self.ln_arg(vmath::ln(j));
            return (
                la,
                EPS4 * (la.abs() + self.decay * vmath::ln(j) + self.ln_c1.abs()),
            );
        }
        if z >= 2.0 {
            // z ≤ 4 ulp, ln ≤ 1 ulp: ≤ 4·2^-53/ln 2 + 2^-52 ≤ 8·2^-53 relative (|ln z| ≥ ln 2)
            let la = vmath::ln(z);
            return (la, EPS4 * la.abs());
        }
        if self.c2 >= 1.0 {
            // s ≤ 4 ulp (no cancellation), log1p's condition ≤ 1, its own ≤ 1 ulp
            let la = vmath::log1p(q + (self.c2 - 1.0));
            return (la, EPS4 * la.abs());
        }
        let (num, _) = super::exact::laplace_gap_times_c1(ja, self.c1, self.c2);
        let s = num.div_f(self.c1).to_f64();
        let la = vmath::log1p(s);
        // s's error (the 1-ulp error of j^α, ≤ 2^-52·q, and its rounding) through log1p' ≤ 1/(1+s)
        (
            la,
            EPS8 * la.abs() + EPS2 * (q + s.abs()) / (1.0 + s).max(0.5),
        )
    }

    /// The noise of step j: v_j (eq. (12)) or σ_j (eq. (14)), to nearest.
    pub fn noise(&self, j: f64) -> Result<f64> {
        count("index", j, 1.0)?;
        let la = self.ln_arg(vmath::ln(j));
        match self.kind {
            Noise::Laplace => {
                if la.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                    return Err(PabiError::domain(
                        "index",
                        "such that index^decay/c1 + c2 > 1 (positive scale)",
                        j,
                    ));
                }
                // ln(j^α/C1 + C2) accurately also next to 1 (there its relative error is
                // that of the noise, and the logarithmic form's is |ln C1|·2^-53/ln(...))
                let (la, _) = self.laplace_ln_arg(j);
                if la.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                    return Err(PabiError::domain(
                        "index",
                        "such that index^decay/c1 + c2 > 1 (positive scale)",
                        j,
                    ));
                }
                Ok(self.p.mdl_near() / (2.0 * la))
            }
            Noise::Gaussian => Ok(self.p.mdl_near() / (2.0 * lambertw::wright_omega(la).sqrt())),
        }
    }

    /// ln A_i rounded up; `as_published` uses eq. (13)'s printed e^{−ε/2} (Laplace only).
    pub fn log_a(&self, i: f64, as_published: bool) -> f64 {
        let lj = vmath::ln(i);
        let la = self.ln_arg(lj);
        match self.kind {
            Noise::Laplace => {
                // r_A = 2L/v_i = 2κ ln(i^α/C1 + C2) (A increases with r: the logarithm moved
                // up by its error bound); printed: exponent −ε/2 − κ ln(...)
                let (la, err) = self.laplace_ln_arg(i);
                let r = 2.0 * self.p.kappa() * (la + err);
                if as_published {
                    log_factor(Noise::Laplace, 0.0, r + self.p.eps)
                } else {
                    log_factor(Noise::Laplace, self.p.eps, r)
                }
            }
            Noise::Gaussian => {
                let rb = 2.0 * lambertw::wright_omega(la).sqrt();
                log_factor(Noise::Gaussian, self.p.eps, self.p.kappa() * rb)
            }
        }
    }

    /// ln(−g(e^{lx})) of the Laplace schedule to nearest, with ln u = ln(c/(x^α + d)) moved by
    /// `pert`·((|ln c| + α|lx|)/2 + 1) (the scale of its rounding; [`Self::ln_neg_g_near`]).
    /// Where B = 1 − u ≤ 1/2, B = (x^α + (d − c))/(x^α + d) is formed directly (from ln u the
    /// complement 1 − u loses all digits where B is small: C1 = 1e14, C2 = 1, x = 2), B moved by
    /// 4·`pert` relative.
    pub(super) fn laplace_ln_neg_g(&self, lx: f64, pert: f64) -> f64 {
        let lu = self.ln_c - crate::num::log_add_exp(self.decay * lx, vmath::ln(self.d));
        if lu < -std::f64::consts::LN_2 {
            let scale = 0.5 * (self.ln_c.abs() + self.decay * lx.abs()) + 1.0;
            return ln_neg_log1m(lu + pert * scale);
        }
        let xa = vmath::exp(self.decay * lx);
        let b = ((xa + self.dc.hi) + self.dc.lo) / (xa + self.d) * (1.0 + 4.0 * pert);
        vmath::ln(-vmath::ln(b.max(0.0)))
    }

    /// r_A = 2L/σ_i (Gaussian), used by the printed eq. (15).
    fn r_a(&self, i: f64) -> f64 {
        self.p.kappa() * self.gauss_rb(i)
    }

    /// g(t) = ln B_t, rounded up.
    #[inline(always)]
    pub fn g(&self, t: f64) -> f64 {
        match self.kind {
            Noise::Laplace => {
                // c is rounded down; c/y and log1p add ≤ 5 ulp (relative): move 8 ulp up.
                let ta = t.powf(self.decay);
                let y = ta + self.d;
                let x = self.c / y;
                if x <= 0.5 {
                    return rel_up(vmath::log1p(-x), EPS8);
                }
                // B_t ≤ ~1/2: 1 − c/y would turn the rounding of c/y into a relative error of
                // B_t as large as 2^-53/B_t; form B_t = (t^α + (d − c))/y directly. Numerator
                // moved up by its error bound (t^α ≤ 1 ulp, d − c ~2^-100, two sums ≤ ½ ulp of
                // t^α + |d − c| each), y down by 4 ulp (t^α, d, the sum), then the logarithm
                // (|ln B_t| ≥ ln 2 here: ≤ 2 ulp relative) moved 4 ulp up.
                let num = (ta + self.dc.hi) + self.dc.lo;
                let num_up = (num + EPS2 * (ta + self.dc.hi.abs())).max(0.0);
                let v = vmath::ln(num_up / (y * (1.0 - EPS4)));
                rel_up(v, EPS4).min(0.0)
            }
            Noise::Gaussian => log_factor(Noise::Gaussian, self.p.eps, self.gauss_rb(t)),
        }
    }

    /// r_B = 2·sqrt(W0(z_t)) of step t (Gaussian schedule), to nearest.
    #[inline(always)]
    fn gauss_rb(&self, t: f64) -> f64 {
        self.gauss_rb_log(vmath::ln(t))
    }

    /// r_B = 2·sqrt(W0(z_x)) at x = e^{lx} (Gaussian schedule), to nearest.
    #[inline(always)]
    fn gauss_rb_log(&self, lx: f64) -> f64 {
        2.0 * lambertw::wright_omega(self.ln_arg(lx)).sqrt()
    }

    /// ln(−g(e^{lx})), for the quadrature (no overflow for any lx).
    #[inline(always)]
    fn ln_neg_g(&self, lx: f64) -> f64 {
        match self.kind {
            Noise::Laplace => self.laplace_ln_neg_g(lx, 0.0),
            Noise::Gaussian => ln_neg_log_theta(self.p.eps, rel_up(self.gauss_rb_log(lx), EPS2)),
        }
    }
}
