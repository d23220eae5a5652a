//! δ_n(i) of the online schedules for n up to 1e15 and beyond, the exact limit δ_∞(i), its
//! certified upper bound and the paper's integral bounds eqs. (13), (15) (Sordello–Bu–Dong §6,
//! Thms 6, 7; the printed eqs. corrected, see `docs/derivations/schedules.md`): direct sums of
//! the first 2^18 factors, then the Euler–Maclaurin tail (estimate) or the certified sums below.
//! The integrals come from `quadrature.rs`.
//!
//! # The certified sums (δ_n for n − i > 2^18, and the certified limit bound)
//!
//! ln δ_n(i) ≤ ln A_i + Σ_{t=i+1}^{i+2^18} g(t) + U_n, where every term of the direct sum is
//! rounded up and U_n ≥ Σ_{t=a}^{n} g(t), a = i + 2^18 + 1 (n = ∞ for the limit), is
//! ([`OnlineSchedule::sum_upper`]):
//!
//! * g concave on [a, ∞) (`quadrature.rs`, "Concavity"): the trapezoid rule on each [t, t+1]
//!   has the error ∫_t^{t+1} g − (g(t) + g(t+1))/2 = −g''(ξ_t)/12 ≥ 0, so summed
//!   Σ_{t=a}^{n} g(t) = ∫_a^n g + (g(a) + g(n))/2 − Σ_{t=a}^{n−1} |g''(ξ_t)|/12
//!   ≤ ∫_a^n g + (g(a) + g(n))/2 (Hermite–Hadamard). If moreover g''' ≥ 0 on (a, ∞)
//!   (`quadrature.rs`, "Third derivative"), |g''| is non-increasing, |g''(ξ_t)| ≥ |g''(t+1)|
//!   ≥ ∫_{t+1}^{t+2} |g''|, and the defect sum is ≥ ∫_{a+1}^{n+1} |g''| = g'(a+1) − g'(n+1)
//!   ≥ g'(a+2) − g'(n+1) (g' decreasing): this is subtracted, with g'(a+2) bounded from below
//!   and g'(n+1) from above (g'(x) = F'(ln x)/x from the bracketed ℓ = ln F' at a point
//!   moved to the safe side of ln x).
//! * otherwise (g increasing: g(t) ≤ ∫_t^{t+1} g): Σ_{t=a}^{n} g ≤ ∫_a^{n+1} g.
//!
//! ∫_a^n g = ∫_a^∞ g − ∫_n^∞ g takes the certified upper end of the first bracket and the lower
//! end of the second (`quadrature.rs`, "Certified quadrature"); every addition is
//! Neumaier-compensated and its rounding bounded outward. Nothing is assumed or estimated. The
//! remaining gap to the exact sum is ≈ the quadrature width (≈ 2e-13 relative to ∫ g) plus,
//! without the g''' step, g'(a)/12 (≈ 1e-12 relative at the paper's parameters).

use rayon::prelude::*;

use multiversion::multiversion;

use super::super::params::count;
use super::quadrature::Bracket;
use super::suffix::finish_suffix;
use super::{
    log_factor, Neumaier, Noise, OnlineSchedule, CERT_TOL, DIRECT_TERMS, EPS, EPS2, EPS4, EPS8,
};
use crate::batch::pool;
use crate::error::{PabiError, Result};
use crate::num::INFLATE;
use crate::{theta, vmath};

/// Σ_{k=lo}^{hi−1} g(from + k) for the Gaussian schedule, compensated, in the order of the
/// scalar loop (bitwise equal to it): the radii of 32 steps at a time, then the engine's
/// [`theta::log_theta_tight_block`] (independent lanes: throughput- instead of latency-bound).
#[multiversion(targets = "simd")]
pub(super) fn gauss_direct_chunk(sc: &OnlineSchedule, from: f64, lo: u64, hi: u64) -> Neumaier {
    const BL: usize = theta::BLOCK;
    let e = [sc.p.eps; BL];
    let mut acc = Neumaier::default();
    let mut k = lo;
    while k < hi {
        let m = ((hi - k) as usize).min(BL);
        let (mut r, mut g) = ([1.0; BL], [0.0; BL]);
        for (j, rj) in r[..m].iter_mut().enumerate() {
            *rj = sc.gauss_rb(from + (k + j as u64) as f64) * (1.0 + EPS2);
        }
        theta::log_theta_tight_block(&e[..m], &r[..m], &mut g[..m]);
        for &v in &g[..m] {
            acc.add(v);
        }
        k += m as u64;
    }
    acc
}

impl OnlineSchedule {
    /// Σ_{t=from}^{to} g(t), Neumaier-compensated (in parallel for long ranges).
    pub(super) fn direct(&self, from: f64, to: f64) -> f64 {
        if to < from {
            return 0.0;
        }
        let n = (to - from) as u64 + 1;
        const CH: u64 = 1 << 14;
        let chunk = |c: u64| -> (f64, f64) {
            if crate::interrupt::requested() {
                // Ctrl-C: skip the remaining work; the binding discards a result computed
                // while an interrupt was requested
                return (0.0, 0.0);
            }
            let lo = c * CH;
            let hi = (lo + CH).min(n);
            let acc = match self.kind {
                Noise::Gaussian => gauss_direct_chunk(self, from, lo, hi),
                Noise::Laplace => {
                    let mut acc = Neumaier::default();
                    for k in lo..hi {
                        acc.add(self.g(from + k as f64));
                    }
                    acc
                }
            };
            // an overflowed chunk (terms of ~−f64::MAX at huge ε) carries −∞, not a NaN
            // compensation: the exact sum is below −f64::MAX
            (acc.s, if acc.s.is_finite() { acc.c } else { 0.0 })
        };
        let nch = n.div_ceil(CH);
        let parts: Vec<(f64, f64)> = match pool() {
            Some(pl) if n >= 2 * CH => pl.install(|| (0..nch).into_par_iter().map(chunk).collect()),
            _ => (0..nch).map(chunk).collect(),
        };
        let mut acc = Neumaier::default();
        for (s, c) in parts {
            acc.add(s);
            acc.add(c);
        }
        acc.sum()
    }

    /// Σ_{t≥a} g(t) by Euler–Maclaurin (estimate) and its error margin.
    pub(super) fn tail_em(&self, a: f64) -> (f64, f64) {
        let (int, err) = self.integral_from(a);
        let h = a * (1.0 / 1024.0);
        let gp = (self.g(a + h) - self.g(a - h)) / (2.0 * h);
        let ga = self.g(a);
        let v = int + 0.5 * ga - gp / 12.0;
        (
            v,
            2.0 * err + 1e-6 * gp.abs() + EPS4 * (int.abs() + ga.abs()),
        )
    }

    /// Certified upper bound of Σ_{t=a}^{n} g(t) (n = ∞ for `None`; integer a ≥ 2, n ≥ a), see the
    /// module doc, "The certified sums":
    /// * g concave on [a, ∞): ∫_a^n g + (g(a) + g(n))/2 − (g'(a+2) − g'(n))/12 (Hermite–Hadamard
    ///   per unit interval, minus the trapezoid defect where −g'' is proven non-increasing);
    /// * otherwise ∫_a^{n+1} g (g increasing: g(t) ≤ ∫_t^{t+1} g).
    ///
    /// The integrals are certified upper bounds ([`Self::bracket`]; a finite one directly, not as
    /// a difference of two infinite ones).
    pub(super) fn sum_upper(&self, a: f64, n: Option<f64>) -> f64 {
        if n.is_some_and(|n| n < a) {
            return 0.0;
        }
        let concave = self.concave_from(a);
        let end = n.map(|n| if concave { n } else { n + 1.0 });
        let int = match end {
            Some(e) if e <= a => Bracket {
                lo: 0.0,
                hi: 0.0,
                g3: false,
            },
            _ => self.bracket(a, CERT_TOL, end),
        };
        let mut acc = Neumaier::default();
        acc.add(int.hi);
        let mut mag = int.hi.abs();
        if concave {
            let ga = self.g(a);
            acc.add(0.5 * ga);
            mag += 0.5 * ga.abs();
            if let Some(n) = n {
                let gn = self.g(n);
                acc.add(0.5 * gn);
                mag += 0.5 * gn.abs();
            }
            if int.g3 {
                // g'(a + 2) from below, g'(n) from above (g' > 0 decreasing: evaluate at points
                // above / below them); the correction only ever shrinks the bound
                let s2 = vmath::ln(a + 2.0) * (1.0 + EPS4);
                let d2 = vmath::exp(self.qpoint(s2).l_lo - s2) * (1.0 - 16.0 * EPS);
                let dn = match n {
                    Some(n) => {
                        let sn = vmath::ln(n) * (1.0 - EPS4);
                        vmath::exp(self.qpoint(sn).l_hi - sn) * (1.0 + 16.0 * EPS)
                    }
                    None => 0.0,
                };
                let corr = (d2 - dn) / 12.0;
                if corr.is_finite() && corr > 0.0 {
                    acc.add(-corr * (1.0 - EPS4));
                }
            }
        }
        let v = acc.value();
        (v + EPS4 * mag).min(0.0)
    }

    /// ln δ = ln A_i + s rounded up (−∞ when A_i = 0): the suffix scan's rule.
    #[inline(always)]
    fn finish(la: f64, s: f64) -> f64 {
        finish_suffix(la, s, false)
    }

    /// ln δ_n(i) = ln A_i + Σ_{t=i+1}^n g(t) (n ≥ i; n up to 1e15 and beyond).
    pub fn log_delta(&self, n: f64, i: f64) -> Result<f64> {
        self.check_index("index", i)?;
        count("n", n, 1.0)?;
        if n < i {
            return Err(PabiError::domain("n", format!(">= index ({i})"), n));
        }
        let la = self.log_a(i, false);
        let s = if n - i <= DIRECT_TERMS {
            self.direct(i + 1.0, n)
        } else {
            let t = i + DIRECT_TERMS;
            self.direct(i + 1.0, t) + self.sum_upper(t + 1.0, Some(n))
        };
        Ok(Self::finish(la, s.min(0.0)))
    }

    /// ln δ_∞(i): the exact limit A_i·exp(Σ_{t>i} g(t)) (Euler–Maclaurin tail), rounded up.
    pub fn log_delta_limit(&self, i: f64) -> Result<f64> {
        self.check_index("index", i)?;
        let la = self.log_a(i, false);
        let t = i + DIRECT_TERMS;
        let (e, m) = self.tail_em(t + 1.0);
        let d = self.direct(i + 1.0, t);
        // where the Euler–Maclaurin estimate fails (at huge ε its derivative term dominates: the
        // margin is not small against the estimate, or estimate + margin is even positive,
        // although every g ≤ 0), the certified upper bound of the tail stands in: still above
        // the exact limit (and no longer ln δ = 0)
        let good = e.is_finite() && m.is_finite() && m <= 1e-9 * e.abs() && e + m <= 0.0;
        let s = if good {
            d + e + m
        } else {
            d + self.sum_upper(t + 1.0, None)
        };
        Ok(Self::finish(la, s))
    }

    /// Certified upper bound of ln δ_∞(i): direct sum to i + 2^18, then the Hermite–Hadamard
    /// (concave g) or monotone (increasing g) integral bound of the tail.
    pub fn log_delta_limit_bound(&self, i: f64) -> Result<f64> {
        self.check_index("index", i)?;
        let la = self.log_a(i, false);
        let t = i + DIRECT_TERMS;
        Ok(Self::finish(
            la,
            self.direct(i + 1.0, t) + self.sum_upper(t + 1.0, None),
        ))
    }

    /// The paper's bound eq. (13)/(15): A_i·exp(∫_{i+1}^∞ g) (corrected, an upper bound of
    /// δ_∞(i)); `as_published` gives the printed forms: eq. (13) with e^{−ε/2} in A (loose),
    /// eq. (15) θ(2L/σ_i·exp(∫_{i+1}^∞ g)) (UNSOUND: certifies δ ≈ 0).
    pub fn log_delta_star_upper(&self, i: f64, as_published: bool) -> Result<f64> {
        self.check_index("index", i)?;
        let (int, err) = self.integral_from(i + 1.0);
        let int_up = if int.is_finite() && err <= 1e-10 * int.abs() {
            (int + 2.0 * err + EPS8 * int.abs()).min(0.0)
        } else {
            // (the quadrature estimate failed: the certified bracket, coarser)
            self.integral_bracket(i + 1.0, 1e-10).1
        };
        if as_published && self.kind == Noise::Gaussian {
            let r = self.r_a(i) * vmath::exp(int_up);
            return Ok(log_factor(Noise::Gaussian, self.p.eps, r));
        }
        let la = self.log_a(i, as_published);
        Ok(Self::finish(la, int_up))
    }

    /// The paper's lower bound A_i·exp(∫_i^∞ g) ≤ δ_∞(i) (003 after Thm 6), rounded DOWN (its
    /// use is to bracket δ_∞ from below).
    pub fn log_delta_star_lower(&self, i: f64) -> Result<f64> {
        self.check_index("index", i)?;
        let la = self.log_a(i, false);
        if la == f64::NEG_INFINITY {
            return Ok(la);
        }
        let (int, err) = self.integral_from(i);
        let (int, err) = if int.is_finite() && err <= 1e-10 * int.abs() {
            (int, err)
        } else {
            (self.integral_bracket(i, 1e-10).0, 0.0)
        };
        if int == f64::NEG_INFINITY {
            return Ok(int);
        }
        let v = la + int - 2.0 * err;
        Ok(v - 64.0 * EPS * (la.abs() + int.abs()) - INFLATE * (la.abs() + int.abs()))
    }
}
