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
//!
//! # Huge ε
//!
//! At large ε the Gaussian factor g(t) = ln θ(ε, r_t) ≈ −(ε/r_t − r_t/2)²/2 stays large while
//! r_t = 2√W(z_t) ≪ √(2ε), i.e. up to ln t ≈ ε/(2α): at ε = 1e3 (Fig. 5 schedule) g ≈ −48 at
//! t = 1e50 and ln δ_∞ ≈ −3.93e94, almost all of it from far beyond the direct sum (for Laplace
//! similarly where x^α ≲ C1C2 with C1·e^{ε/2} large). Three things keep this bounded and right:
//!
//! * **Saturation** ([`OnlineSchedule::saturated`]): for x ≥ 2a, Σ_{t=a}^{⌊x⌋} g and ∫_a^x g are
//!   ≤ (x − a)·g(x) ≤ (x/2)·g(x) (g increasing, ≤ 0). Where some x on a geometric walk of ln x
//!   makes this < −f64::MAX, ln δ is below −f64::MAX and −f64::MAX (its upward rounding) is
//!   returned at once (−∞ for the lower bound `log_delta_star_lower`), before any sum.
//! * **Estimates** (the limit, eqs. (13)/(15)): the tanh–sinh range ends at x = X·e^{85.7/(α−1)};
//!   where the integrand has mass beyond it, composite Gauss–Legendre in ln x takes over
//!   (`quadrature.rs`, `integral_gl`), its error including the evaluation noise and the
//!   sensitivity of ln(−g) to the rounding of its input (≈ 4e-13 relative at ε = 1e3: the
//!   limit lies within 1e-12 of the exact value there, above it).
//! * **The certified sums**: the certified quadrature cannot reach its target there (the interval
//!   bounds of ℓ'' carry the cancellation of two ≈ ε²/(4w²) terms) and stops after
//!   2^11 pieces at its smallest step (`quadrature.rs`, `STUCK_PIECES`; it had run 2^20 pieces,
//!   ≈ 2 s, for a bound 1e85 times too high in the log). Its partial bound stays valid and the
//!   smaller of it and the monotone bound [`OnlineSchedule::integral_upper_monotone`]
//!   (∫_{x_k}^{x_{k+1}} g ≤ (x_{k+1} − x_k)·g(x_{k+1}) on an adapted grid, first order) is
//!   used: certified, ≈ 1e-3 relative above the exact value at ε = 1e3 (the looseness of the
//!   `*_limit_bound` functions and of δ_n for n − i > 2^18 in this regime only).

use super::super::params::count;
use super::quadrature::Bracket;
use super::suffix::finish_suffix;
use super::{
    log_factor, Neumaier, Noise, OnlineSchedule, CERT_TOL, DIRECT_TERMS, EPS, EPS2, EPS4, EPS8,
};
use crate::error::{PabiError, Result};
use crate::num::round::{add_dn, mul_dn};
use crate::num::INFLATE;
use crate::{theta, vmath};

/// The horizon n of δ_n(i): an integer ≥ 1 and ≥ the index i (the checks of
/// [`OnlineSchedule::log_delta`] after the index's).
pub(super) fn check_horizon(n: f64, i: f64) -> Result<()> {
    count("steps", n, 1.0)?;
    if n < i {
        return Err(PabiError::domain("steps", format!(">= index ({i})"), n));
    }
    Ok(())
}

/// Panels of the second grid of [`OnlineSchedule::integral_upper_monotone`] (each grid stops at
/// 4× this: its work bound).
const MONO_PANELS: usize = 1 << 15;

simd! {
    /// Σ_{k=lo}^{hi−1} g(from + k) for the Gaussian schedule, compensated, in the order of the
    /// scalar loop (bitwise equal to it): the radii of 32 steps at a time, then the engine's
    /// [`theta::log_theta_tight_block`] (independent lanes: throughput- instead of latency-bound).
    /// AVX-512 included (multiversion's `"simd"` preset stops at AVX2).
    pub(super) fn gauss_direct_chunk(sc: &OnlineSchedule, from: f64, lo: u64, hi: u64) -> Neumaier {
        const BL: usize = theta::BLOCK;
        let e = [sc.p.eps; BL];
        let mut acc = Neumaier::default();
        let mut tb = theta::ThetaBlocks::default();
        let mut k = lo;
        while k < hi {
            let m = ((hi - k) as usize).min(BL);
            let (mut r, mut g) = ([1.0; BL], [0.0; BL]);
            for (j, rj) in r[..m].iter_mut().enumerate() {
                *rj = sc.gauss_rb(from + (k + j as u64) as f64) * (1.0 + EPS2);
            }
            theta::log_theta_tight_block(&mut tb, &e[..m], &r[..m], &mut g[..m]);
            for &v in &g[..m] {
                acc.add(v);
            }
            k += m as u64;
        }
        acc
    }
}

simd! {
    /// [`OnlineSchedule::monotone_pass`] compiled for each SIMD target: its `vmath` kernels and
    /// g's engine call (a few hundred thousand panels) use the hardware FMA there; compiled for
    /// the baseline target, each `mul_add` was a call of the software `fma` (a quarter of the
    /// Gaussian limit's time). The same operations, so the same values on every target.
    fn monotone_pass_in(sched: &OnlineSchedule, a: f64, end: f64, c: Option<f64>) -> (f64, f64) {
        // magnitudes scaled by 2^-200 (exact): a total above f64::MAX is still seen
        let sc = 2f64.powi(-200);
        let limit = f64::MAX * sc;
        let mut acc = Neumaier::default();
        let mut q = Neumaier::default();
        let (mut x, mut gx, mut h) = (a, sched.g(a), 1.0 / 16.0);
        if c.is_some() {
            h = 1e-4;
        }
        let mut dens_prev = 0.0; // the previous panel's m/h (≈ G)
        for _ in 0..4 * MONO_PANELS {
            if crate::interrupt::requested() || gx.is_nan() || gx >= 0.0 {
                break; // (a truncated grid is still an upper bound; g = 0 from here on)
            }
            let xn = (x * vmath::exp(h)).min(end);
            if !(xn > x && xn.is_finite()) {
                break;
            }
            let gn = sched.g(xn); // rounded up, ≤ 0
            if gn.is_nan() || gn > 0.0 {
                break;
            }
            let m = mul_dn(add_dn(xn, -x) * sc, -gn);
            let dens = m / h;
            let d = (gn - gx) / -gx / h; // slope of ln(−g) per unit of s (≥ 0)
            if let Some(c) = c {
                // a panel far wider than its optimum (a knee of G the previous panel did not
                // show) is taken again, narrower
                let hopt = c / (dens * d).sqrt();
                if h > 2.0 * hopt && h > 1e-7 {
                    h = hopt.max(h / 16.0).max(1e-7);
                    continue;
                }
            }
            acc.add(m);
            let tot = acc.value();
            if tot * (1.0 - EPS4) > limit {
                return (f64::INFINITY, 0.0);
            }
            if xn >= end {
                break;
            }
            q.add((dens * d).sqrt() * h);
            let falling = dens < dens_prev;
            // past the mass the rest is ≈ G/(α − 1) or less: stop where that is negligible
            if falling && dens <= 1e-18 * (sched.decay - 1.0) * tot {
                break;
            }
            h = match c {
                None if falling => (h * (1e-3 * tot / dens).sqrt().clamp(1.0, 2.0)).min(8.0),
                None => h,
                Some(c) => {
                    let hn = c / (dens * d).sqrt();
                    (if hn.is_finite() { hn } else { 8.0 })
                        .clamp(h * 0.5, h * 2.0)
                        .clamp(1e-7, 8.0)
                }
            };
            dens_prev = dens;
            (x, gx) = (xn, gn);
        }
        ((acc.value() * (1.0 - EPS4)) / sc, q.value())
    }
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
        let parts = crate::driver::map_range(nch, n >= 2 * CH, chunk);
        let mut acc = Neumaier::default();
        for (s, c) in parts {
            acc.add(s);
            acc.add(c);
        }
        acc.sum()
    }

    /// Σ_{t≥a} g(t) by Euler–Maclaurin (estimate) and its error margin.
    pub(super) fn tail_em(&self, a: f64) -> (f64, f64) {
        let (int, err) = self.integral_est(a);
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
                aborted: false,
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
        let v = (acc.value() + EPS4 * mag).min(0.0);
        if int.aborted {
            // the quadrature gave up (huge ε): its partial bound is valid but loose; the
            // monotone bound of Σ_{t=a}^n g ≤ ∫_a^{n+1} g is another
            v.min(self.integral_upper_monotone(a, Some(n.map_or(f64::INFINITY, |n| n + 1.0))))
        } else {
            v
        }
    }

    /// Certified upper bound of ∫_a^{end} g (a ≥ 1; −∞ where it is below −f64::MAX) from g
    /// increasing and ≤ 0 alone: on any grid a = x_0 < x_1 < …, ∫_{x_k}^{x_{k+1}} g ≤
    /// (x_{k+1} − x_k)·g(x_{k+1}), with x_{k+1} − x_k rounded down and g(x_{k+1}) rounded up; the
    /// part beyond the last point is bounded by 0. It is the fallback of the certified sums where
    /// the certified quadrature gives up (huge ε: module doc, "Huge ε").
    ///
    /// The grid (in s = ln x) only decides how tight the bound is. A panel of width h where
    /// G = −g·x has density G and ln(−g) slope D exceeds its integral by ≈ G·D·h²/2; for a
    /// given number N of panels the total excess Σ G·D·h²/2 is smallest with h = c/√(G·D), and
    /// it is then Q²/(2N) with Q = ∫ √(G·D) ds. A first pass (h = 1/16) gives Q and is a bound
    /// too; the second walks h = (Q/N)/√(G·D) from the local values with N = [`MONO_PANELS`].
    /// The smaller of the two is returned: ≈ 1.2e-3 (Gaussian) and 1.6e-4 (Laplace) relative above
    /// the integral at ε = 1e3 (first order in h; the certified variant's looseness there).
    pub(super) fn integral_upper_monotone(&self, a: f64, end: Option<f64>) -> f64 {
        let end = end.unwrap_or(f64::INFINITY);
        if end.is_nan() || end <= a {
            return 0.0;
        }
        let (t1, q) = self.monotone_pass(a, end, None);
        let t2 = if t1.is_finite() && q > 0.0 && q.is_finite() {
            self.monotone_pass(a, end, Some(q / MONO_PANELS as f64)).0
        } else {
            t1
        };
        let t = t1.max(t2); // the larger lower bound of the magnitude
        if t == f64::INFINITY {
            return f64::NEG_INFINITY;
        }
        -t
    }

    /// One grid of [`Self::integral_upper_monotone`]: (a lower bound of ∫_a^{end} (−g), ∞ where
    /// it exceeds f64::MAX; the estimate of Q = ∫ √(G·D) ds). `c` = None: h = 1/16 (coarser past
    /// the peak of G where G is small against the sum so far); Some(c): h = c/√(G·D).
    fn monotone_pass(&self, a: f64, end: f64, c: Option<f64>) -> (f64, f64) {
        monotone_pass_in(self, a, end, c)
    }

    /// Whether Σ_{t=a}^{⌊x⌋} g(t) and ∫_a^x g are proven below −f64::MAX for some x ≤ `end`
    /// (integer a ≥ 1; Gaussian only; module doc, "Huge ε"): for x ≥ 2a both are ≤
    /// (x − a)·g(x) ≤ (x/2)·g(x) (g increasing, ≤ 0), tried at x = e^{lx} on a geometric walk of
    /// ln x. Then ln δ (and the integral bounds) are below −f64::MAX: the answer is −f64::MAX, the
    /// upward rounding, without summing anything. A few hundred evaluations of g at most.
    pub(super) fn saturated(&self, a: f64, end: Option<f64>) -> bool {
        if self.kind != Noise::Gaussian {
            return false;
        }
        // ln f64::MAX = 709.78271289338397; margins: 1e-3 absolute, 1e-9 relative
        const LN_MAX: f64 = 709.783;
        let l0 = vmath::ln(2.0 * a) * (1.0 + 1e-9) + 1e-9;
        let lend = end.map_or(f64::INFINITY, |n| vmath::ln(n) * (1.0 - 1e-9) - 1e-9);
        if lend.is_nan() || lend < l0 {
            return false; // (also a NaN end)
        }
        let (mut lx, mut step) = (l0, l0.max(1.0) * 0.125);
        loop {
            // the walk, and ln(end) itself last (the largest x: the best candidate while g is
            // still large there)
            let last = lx >= lend;
            let lx_try = lx.min(lend);
            if lx_try > 1e300 {
                return false;
            }
            let g = log_factor(Noise::Gaussian, self.p.eps, self.gauss_rb_log(lx_try));
            if g.is_nan() || g == 0.0 {
                return false;
            }
            let v = lx_try - std::f64::consts::LN_2 + vmath::ln(-g);
            if v - 1e-9 * (lx_try + v.abs()) > LN_MAX {
                return true;
            }
            if last {
                return false;
            }
            lx += step;
            step *= 1.25;
        }
    }

    /// ln δ = ln A_i + s rounded up (−∞ when A_i = 0): the suffix scan's rule.
    #[inline(always)]
    fn finish(la: f64, s: f64) -> f64 {
        finish_suffix(la, s, false)
    }

    /// ln δ = ln A_i + `sum()`, the sum of g over the steps after i (up to the horizon `n`;
    /// None: all), rounded up, after the checks of i (and n): −∞ for the sum where those
    /// factors are saturated (their sum is below −f64::MAX), `sum` not called.
    fn log_delta_from(&self, i: f64, n: Option<f64>, sum: impl FnOnce() -> f64) -> Result<f64> {
        self.check_index("index", i)?;
        if let Some(n) = n {
            check_horizon(n, i)?;
        }
        let la = self.log_a(i, false);
        let s = if self.saturated(i + 1.0, n) {
            f64::NEG_INFINITY
        } else {
            sum()
        };
        Ok(Self::finish(la, s))
    }

    /// ln δ_n(i) = ln A_i + Σ_{t=i+1}^n g(t) (n ≥ i; n up to 1e15 and beyond).
    pub fn log_delta(&self, n: f64, i: f64) -> Result<f64> {
        self.log_delta_from(i, Some(n), || {
            let s = if n - i <= DIRECT_TERMS {
                self.direct(i + 1.0, n)
            } else {
                let t = i + DIRECT_TERMS;
                self.direct(i + 1.0, t) + self.sum_upper(t + 1.0, Some(n))
            };
            s.min(0.0)
        })
    }

    /// ln δ_∞(i): the exact limit A_i·exp(Σ_{t>i} g(t)) (Euler–Maclaurin tail), rounded up.
    pub fn log_delta_limit(&self, i: f64) -> Result<f64> {
        self.log_delta_from(i, None, || {
            let t = i + DIRECT_TERMS;
            let (e, m) = self.tail_em(t + 1.0);
            let d = self.direct(i + 1.0, t);
            // where the Euler–Maclaurin estimate fails (at huge ε its derivative term
            // dominates: the margin is not small against the estimate, or estimate + margin is
            // even positive, although every g ≤ 0), the certified upper bound of the tail
            // stands in: still above the exact limit (and no longer ln δ = 0)
            let good = e.is_finite() && m.is_finite() && m <= 1e-9 * e.abs() && e + m <= 0.0;
            if good {
                d + e + m
            } else {
                d + self.sum_upper(t + 1.0, None)
            }
        })
    }

    /// Certified upper bound of ln δ_∞(i): direct sum to i + 2^18, then the Hermite–Hadamard
    /// (concave g) or monotone (increasing g) integral bound of the tail.
    pub fn log_delta_limit_bound(&self, i: f64) -> Result<f64> {
        self.log_delta_from(i, None, || {
            let t = i + DIRECT_TERMS;
            self.direct(i + 1.0, t) + self.sum_upper(t + 1.0, None)
        })
    }

    /// The paper's bound eq. (13)/(15): A_i·exp(∫_{i+1}^∞ g) (corrected, an upper bound of
    /// δ_∞(i)); `as_published` gives the printed forms: eq. (13) with e^{−ε/2} in A (loose),
    /// eq. (15) θ(2L/σ_i·exp(∫_{i+1}^∞ g)) (UNSOUND: certifies δ ≈ 0).
    pub fn log_delta_star_upper(&self, i: f64, as_published: bool) -> Result<f64> {
        self.check_index("index", i)?;
        let int_up = if self.saturated(i + 1.0, None) {
            f64::NEG_INFINITY // ∫_{i+1}^∞ g < −f64::MAX
        } else {
            let (int, err) = self.integral_est(i + 1.0);
            if int.is_finite() && err <= 1e-10 * int.abs() {
                (int + 2.0 * err + EPS8 * int.abs()).min(0.0)
            } else {
                // (the quadrature estimates failed: the certified bracket, coarser)
                let b = self.bracket(i + 1.0, 1e-10, None);
                if b.aborted {
                    b.hi.min(self.integral_upper_monotone(i + 1.0, None))
                } else {
                    b.hi
                }
            }
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
        if self.saturated(i, None) {
            return Ok(f64::NEG_INFINITY); // ∫_i^∞ g < −f64::MAX: rounded down
        }
        // the integrand with ln(−g) rounded up (g down): `estimate.rs`, module doc
        let (int, err) = self.integral_est_dir(i, true);
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
