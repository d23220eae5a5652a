//! The estimates of ∫_X^∞ g for the online schedules (split from `quadrature.rs`): tanh–sinh
//! [`OnlineSchedule::integral_from`], composite Gauss–Legendre [`OnlineSchedule::integral_gl`]
//! and the choice between them [`OnlineSchedule::integral_est`]. Each takes the direction of its
//! integrand: `lower = false` evaluates ln(−g) rounded down (g rounded up: the upper bounds and
//! the estimates), `lower = true` rounded UP ([`OnlineSchedule::ln_neg_g_up`]: g rounded down,
//! for the lower bound eq. after Thm 6, `log_delta_star_lower`). The rounding of ln(−g) is not
//! small against the integral where α is near 1: the mass of g(e^s)e^s ∝ e^{(1−α)s} lies at
//! s ≈ 1/(α − 1), where the engine's INFLATE·|ln(1 − θ)| shift of ln(−g) (≈ 2^-46·αs) is a
//! relative error of the integrand of ≈ 1e-11 at α = 1.001 — far above the quadrature's own
//! error estimate, and on the wrong side for a lower bound if not directed.

use super::{Neumaier, Noise, OnlineSchedule, EPS, EPS2, EPS4, EPS8};
use crate::num::logspace::softplus_vmath;
use crate::num::INFLATE;
use crate::{theta, vmath};

/// 8-point Gauss–Legendre nodes (positive half) and weights on [−1, 1].
const GL8: [(f64, f64); 4] = [
    (0.1834346424956498, 0.362683783378362),
    (0.525532409916329, 0.3137066458778873),
    (0.7966664774136267, 0.2223810344533745),
    (0.9602898564975363, 0.1012285362903763),
];

impl OnlineSchedule {
    /// ∫_X^∞ g(x) dx and an error estimate (tanh–sinh, x = X·s^{−1/(α−1)}).
    pub fn integral_from(&self, x0: f64) -> (f64, f64) {
        self.integral_from_dir(x0, false)
    }

    /// [`Self::integral_from`] with ln(−g) rounded up where `lower` (module doc).
    pub(super) fn integral_from_dir(&self, x0: f64, lower: bool) -> (f64, f64) {
        let p = 1.0 / (self.decay - 1.0);
        let lx0 = vmath::ln(x0);
        let f = |ln_s: f64| -> f64 {
            let lx = lx0 - p * ln_s;
            -p * vmath::exp(self.ln_neg_g_dir(lx, lower) + lx - ln_s)
        };
        const H: f64 = 1.0 / 64.0;
        const K: i32 = 256; // τ ∈ [−4, 4]
        let (mut all, mut even) = (Neumaier::default(), Neumaier::default());
        for k in -K..=K {
            let tau = k as f64 * H;
            let q = std::f64::consts::PI * tau.sinh();
            let ln_s = -softplus_vmath(-q);
            let ln_1ms = -softplus_vmath(q);
            let w = std::f64::consts::PI * tau.cosh() * vmath::exp(ln_s + ln_1ms);
            let v = f(ln_s) * w;
            all.add(v);
            if k % 2 == 0 {
                even.add(v);
            }
        }
        let i1 = H * all.value();
        let i2 = 2.0 * H * even.value();
        (i1, (i1 - i2).abs())
    }

    /// ln(−g(e^{lx})) rounded down ([`Self::ln_neg_g`]) or, where `lower`, up
    /// ([`Self::ln_neg_g_up`]).
    fn ln_neg_g_dir(&self, lx: f64, lower: bool) -> f64 {
        if lower {
            self.ln_neg_g_up(lx)
        } else {
            self.ln_neg_g(lx)
        }
    }

    /// ln(−g(e^{lx})) rounded UP (g rounded down), for the lower bound. Gaussian: r = 2√W(z)
    /// (≈ 2 ulp) moved down by 2^-51 relative (θ increases with r), then ln(1 − θ) — rounded
    /// down by its kernel, by at most INFLATE·|ln(1 − θ)| (the engine's shift, where 1 − θ
    /// underflows) or a few ulp (the tight kernels) — moved up by 2·INFLATE·|ln(1 − θ)|; where
    /// θ < 1/2, ln θ (rounded up, the same policy) moved down by 2·INFLATE·|ln θ|. The last
    /// logarithms (≤ 4 ulp) are covered by EPS8·(1 + |result|). Laplace: ln u (its terms ≈ ½ ulp
    /// of ln c, αlx, ln d each, and log_add_exp's few ulp) moved up by 4ε_m(|ln c| + α|lx| +
    /// |ln d| + 1); where u > 1/2, B (a quotient of sums, ≤ 4 ulp) moved down by 8 ulp.
    pub(super) fn ln_neg_g_up(&self, lx: f64) -> f64 {
        let v = match self.kind {
            Noise::Gaussian => {
                let eps = self.p.eps;
                let r = self.gauss_rb_log(lx) * (1.0 - EPS2);
                let lu = theta::log_theta_complement_tight(eps, r);
                if lu > -std::f64::consts::LN_2 {
                    let l = theta::log_theta_tight(eps, r);
                    vmath::ln(-(l + 2.0 * INFLATE * l))
                } else {
                    super::ln_neg_log1m(lu - 2.0 * INFLATE * lu)
                }
            }
            Noise::Laplace => {
                let ld = vmath::ln(self.d); // (−∞ for d = 0: log_add_exp gives αlx)
                let lda = if ld.is_finite() { ld.abs() } else { 0.0 };
                let lu = self.ln_c - crate::num::log_add_exp(self.decay * lx, ld);
                if lu < -std::f64::consts::LN_2 {
                    let m = 4.0 * EPS * (self.ln_c.abs() + self.decay * lx.abs() + lda + 1.0);
                    super::ln_neg_log1m((lu + m).min(-1e-300))
                } else {
                    let xa = vmath::exp(self.decay * lx);
                    let b = ((xa + self.dc.hi) + self.dc.lo) / (xa + self.d) * (1.0 - EPS8);
                    vmath::ln(-vmath::ln(b.max(0.0)))
                }
            }
        };
        v + EPS8 * (1.0 + v.abs())
    }

    /// ln(−g(e^{lx})) to nearest (no upward nudge of r), with the input of g moved by the
    /// relative amount `pert` (Gaussian: r·(1 + pert); Laplace: ln u + pert·((|ln c| + α|lx|)/2 + 1),
    /// the scale of its rounding): the estimate [`Self::integral_gl`] and its sensitivity.
    fn ln_neg_g_near(&self, lx: f64, pert: f64) -> f64 {
        match self.kind {
            Noise::Gaussian => {
                super::ln_neg_log_theta(self.p.eps, self.gauss_rb_log(lx) * (1.0 + pert))
            }
            Noise::Laplace => self.laplace_ln_neg_g(lx, pert),
        }
    }

    /// ∫_X^∞ g(x) dx and an error estimate by composite 8-point Gauss–Legendre in s = ln x
    /// (∫ g(e^s)e^s ds), for where the mass of the integrand lies far out: at huge ε, g ≈
    /// −(ε/r − r/2)²/2 stays large until r² ≈ 4W(z) outgrows ≈ 2ε, i.e. up to ln x ≈ ε/(2α) and
    /// beyond where the fixed tanh–sinh range of [`Self::integral_from`] (x ≤ X·e^{85.7/(α−1)}) resolves it.
    /// Panels adapt (each compared with its two halves, the halves kept); the walk stops where
    /// the integrand, decaying like e^{(1−α)s}, is negligible, the rest estimated as
    /// G(S)/(α − 1). An estimate with its error (∞ where it failed), like [`Self::integral_from`].
    #[cfg(test)]
    pub(super) fn integral_gl(&self, x0: f64) -> (f64, f64) {
        self.integral_gl_dir(x0, false)
    }

    /// [`Self::integral_gl`] with ln(−g) rounded up where `lower` (module doc; the
    /// sensitivity κ stays that of the nearest evaluation).
    pub(super) fn integral_gl_dir(&self, x0: f64, lower: bool) -> (f64, f64) {
        // G(s) = g(e^s)·e^s: a product of two values correct to a few ulp where e^s is finite,
        // else exp(s + ln(−g)) (whose argument's rounding is in the error below)
        let gfun = |s: f64| -> f64 {
            let l = if lower {
                self.ln_neg_g_up(s)
            } else {
                self.ln_neg_g_near(s, 0.0)
            };
            if s < 700.0 {
                -(vmath::exp(s) * vmath::exp(l))
            } else {
                -vmath::exp(s + l)
            }
        };
        // sensitivity of ln(−g) to the rounding of its input (r, or ln u for Laplace), per ε_m
        let kappa = |s: f64| -> f64 {
            const D: f64 = 1e-8;
            ((self.ln_neg_g_near(s, D) - self.ln_neg_g_near(s, 0.0)) / D).abs()
        };
        let rule = |s: f64, w: f64| -> f64 {
            let (c, hw) = (s + 0.5 * w, 0.5 * w);
            let mut v = 0.0;
            for &(x, wt) in &GL8 {
                v += wt * (gfun(c - hw * x) + gfun(c + hw * x));
            }
            v * hw
        };
        let mut s = vmath::ln(x0);
        let mut w: f64 = 0.25;
        let (mut acc, mut err) = (Neumaier::default(), 0.0);
        let mut quiet = 0;
        const MAX_PANELS: usize = 1 << 14;
        for _ in 0..MAX_PANELS {
            if crate::interrupt::requested() {
                return (0.0, f64::INFINITY); // discarded by the binding
            }
            let (mut one, mut two, mut d, mut thr);
            loop {
                one = rule(s, w);
                two = rule(s, 0.5 * w) + rule(s + 0.5 * w, 0.5 * w);
                d = (one - two).abs();
                // target 1e-15 of the total; the floor of the evaluation noise: exp of s + ln(−g)
                // carries ≈ ε_m·(|s| + |ln(−g)|) relative
                thr = 1e-15 * (acc.value() + two).abs() + EPS8 * (s.abs() + 100.0) * two.abs();
                if d.is_nan() || d <= thr || w < 1e-6 {
                    break;
                }
                w *= 0.5;
            }
            if !two.is_finite() || !d.is_finite() {
                return (two, f64::INFINITY);
            }
            acc.add(two);
            // (the comparison, and the evaluation noise taken as systematic: the nodes s are
            // rounded to ε_m|s| (G moves by ≈ |G'/G|·ε_m|s|, |G'/G| ≈ 1–2 there), past s = 700
            // exp(s + ln(−g)) carries its argument's rounding)
            // the input of g rounded: r to ≈ 2 ulp (W 2 ulp, ln z ≈ ½ ulp of W, the square root),
            // ln(−g) moves by κ·2ε_m
            let kap = kappa(s + 0.5 * w);
            let kap = if kap.is_finite() { kap } else { 1e6 };
            let arg = if s < 700.0 {
                0.0
            } else {
                EPS * (2.0 * s + 100.0)
            };
            err += d + (EPS2 * (s.abs() + 1.0) + arg + EPS2 * kap) * two.abs();
            s += w;
            let tot = acc.value().abs();
            if d < 0.01 * thr {
                w = (2.0 * w).min(8.0);
            }
            // negligible panels in a row, past the mass: stop, the rest ≈ G(s)/(α − 1)
            let gs = gfun(s);
            quiet = if two.abs() <= 1e-18 * tot && gs.abs() <= gfun(s - w).abs() {
                quiet + 1
            } else {
                0
            };
            if quiet >= 3 {
                let rest = gs / (self.decay - 1.0);
                acc.add(rest);
                return (acc.value(), err + rest.abs() + EPS4 * tot);
            }
        }
        (acc.value(), f64::INFINITY)
    }

    /// ∫_X^∞ g by [`Self::integral_from`] where it sees the whole integrand, else by
    /// [`Self::integral_gl`]. The tanh–sinh estimate is trusted only where its range covers
    /// the mass: x·|g(x)| at its farthest node (the scale of what lies beyond) is below 1e-15 of
    /// the integral (≈ e^{−85.7} of it in the algebraic tail, whatever α).
    pub(super) fn integral_est(&self, x0: f64) -> (f64, f64) {
        self.integral_est_dir(x0, false)
    }

    /// [`Self::integral_est`] with ln(−g) rounded up where `lower` (module doc).
    pub(super) fn integral_est_dir(&self, x0: f64, lower: bool) -> (f64, f64) {
        let (int, err) = self.integral_from_dir(x0, lower);
        let lfar = vmath::ln(x0) + 85.7 / (self.decay - 1.0);
        let far = vmath::exp(lfar + self.ln_neg_g(lfar)) / (self.decay - 1.0);
        if int.is_finite() && err <= 1e-10 * int.abs() && far <= 1e-15 * int.abs() {
            return (int, err);
        }
        let (v, e) = self.integral_gl_dir(x0, lower);
        if v.is_finite() && e <= 1e-10 * v.abs() {
            (v, e)
        } else {
            (int, err.max(e))
        }
    }
}
