//! ∫_X^∞ g for the online schedules (g(t) = ln B_t; Sordello–Bu–Dong §6, the integrals of
//! eqs. (13), (15)): the tanh–sinh estimate [`OnlineSchedule::integral_from`] (with the
//! Gauss–Legendre estimate [`OnlineSchedule::integral_gl`] where the mass lies beyond its range,
//! huge ε: `limit.rs`, "Huge ε"), the certified
//! bracket [`OnlineSchedule::integral_bracket`], and the conditions (g concave, g''' ≥ 0) that
//! the certified sums of `limit.rs` rely on. Derivation: below and
//! `docs/derivations/schedules.md`.
//!
//! ## Third derivative
//!
//! With F(s) = g(e^s), L = F''/F' (below): g'' = e^{−2s}F'(L − 1), and differentiating once
//! more (F'' = F'L) g''' = e^{−3s}F'·[(L − 1)(L − 2) + L']. With F' > 0, g''' ≥ 0 wherever
//! (L − 1)(L − 2) + L' ≥ 0. On each quadrature piece L ∈ [L_lo, L_hi] and L' ≥ M_lo (the
//! interval bounds the quadrature already has); the parabola's minimum over [L_lo, L_hi] is
//! taken (at the end nearer 3/2, or −1/4 if it contains 3/2). On the far tail [S, ∞), L ≤ −λ ≤ 0
//! gives (L − 1)(L − 2) ≥ (1 + λ)(2 + λ), and L' is bounded below from the values at S:
//! Gaussian L' = 2α²ρ(1−ρ)(B − 2) + 2α²ρ²D(w) − F'L with D = wB'/(1+w) < 0,
//! ρ(1 − ρ) ≤ 1 − ρ_S, B − 2 > −3, ρ² ≤ 1, D(w) ≥ D(w_S) for w_S ≥ 1/3 (D increasing there) and
//! D ≥ −27/64 + D₂(w_S) otherwise (27/64 = max of 4w/(1+w)⁴, D₂ the ε² part, increasing), and
//! −F'L ≥ 0; Laplace L' = −α²(p(1−p) + q(1−q)) with p(1−p) ≤ min(1/4, 1 − p_S) and
//! q(1−q) ≤ max(0, min(1/4, 1 − q_S)). Every check carries a relative margin; where any piece or
//! the tail fails, the g''' correction is simply not used.
//!
//! ## Concavity
//!
//! Write F(s) = g(e^s), so g'' (x) = (F''(s) − F'(s))/x², and with F' > 0 (g increasing) g is
//! concave at x iff L(s) = (ln F')'(s) ≤ 1.
//!
//! *Laplace* (y = x^α + d, c = C1e^{ε/2}, d = C1C2, F' = cαe^{−αs}/((1 + de^{−αs})(1 + (d − c)e^{−αs}))):
//! L = α(1 − p − q) with p = x^α/y, q = x^α/(y − c); the sufficient condition used
//! ([`OnlineSchedule::concave_from`]) is d ≤ c or a^α(α+1) ≥ d(α−1).
//!
//! *Gaussian.* g(x) = ln θ(ε, r), r = 2√w, w = W0(z), z = x^{2α}/(2πC1²) + C2, ρ = 1 − C2/z.
//! Derivation notes (each identity checked against mpmath at 60 digits, to 1e-52):
//! * θ_r = φ(ε/r − r/2) (the e^εφ(b) = φ(a) identity), θ_rr/θ_r = −a·a_r = ε²/r³ − r/4.
//! * dz/ds = 2α(z − C2), dw/dz = w/(z(1+w)), so w_s = 2αρw/(1+w), r_s = 2αρ√w/(1+w),
//!   ρ_s = 2αρ(1−ρ), (ln r_s)_s = 2α(1−ρ) + αρ(1−w)/(1+w)².
//! * F' = (θ_r/θ)·r_s and L = (θ_rr/θ_r − θ_r/θ)·r_s + (ln r_s)_s; collecting terms
//!   (−w/(1+w) + (1−w)/(1+w)² = −1 + 2/(1+w)²):
//!
//!   L = αρ·B(w) + 2α(1 − ρ) − F',   B(w) = −1 + 2/(1+w)² + ε²/(4w(1+w)).
//!
//! B is decreasing in w (B' = −4/(1+w)³ − ε²(2w+1)/(4w²(1+w)²) < 0) and > −1; w and ρ increase
//! with s; F' > 0. Hence on [a, ∞): L ≤ α·max(ρ_a B(w_a), B(w_a)) + 2α(1 − ρ_a), and g is
//! concave on [a, ∞) when this is < 1 (checked in floating point with a margin). As w → ∞ the
//! bound tends to −α, so the condition holds from moderate a on for any parameters (at the
//! paper's parameters (C1 = C2 = 100, α = 1.5, ε = 1) from x ≈ 200 on, where z outgrows C2; it
//! fails at a = 2^18 only for huge C1 or C2, e.g. C2 = 1e20, where the monotone bound is used).
//!
//! ## Certified quadrature ([`OnlineSchedule::integral_bracket`])
//!
//! ∫_X^∞ g dx = −∫_{ln X}^∞ F'(t)(e^t − X) dt (parts; x g(x) → 0). With ℓ = ln F' (explicit:
//! Gaussian ℓ = ln φ(a) − ln θ + ln r_s), ℓ' = L and ℓ'' = L', where for the Gaussian
//!
//!   L' = 2α²ρ(1−ρ)(B − 2) + 2α²ρ²·wB'(w)/(1+w) − F'·L,
//!
//! and for Laplace L' = −α²(p(1−p) + q(1−q)). On a grid s_0 < s_1 < … each piece gets interval
//! bounds M_lo ≤ ℓ'' ≤ M_hi from the end-point values of the monotone ingredients (w, ρ, B,
//! wB'/(1+w) — increasing for w ≥ 1/3 —, p, q; F' on the piece from F'(s_k) and the bounds of L).
//! Then ℓ − M_hi τ²/2 is concave, so ℓ ≥ chord − M_hi τ(h−τ)/2 (and ≤ chord − M_lo τ(h−τ)/2),
//! with the chord through bracketed end values of ℓ. e^y ≥ 1 + y and e^y ≤ 1 + y + y²e^{max(y,0)}/2
//! turn both into closed forms (∫ e^{μτ}, ∫ e^{μτ}τ(h−τ)); the rounding of every term is bounded
//! and added outward. Past the last point S: −γ ≤ L ≤ −λ on [S, ∞) (Gaussian: γ = α + F'(S) once
//! L ≤ 0 makes F' decreasing, λ = −(α·max(ρ_S B_S, B_S) + 2α(1−ρ_S)); Laplace from p, q) gives
//! F'(S)e^{−γτ} ≤ F' ≤ F'(S)e^{−λτ} and the tail in closed form. The bracket is third order in
//! the step (width ≈ |L''|h³/8 per unit of mass); steps adapt to a relative target, the grid stops
//! when the tail bracket is small. The computed values of ℓ are bracketed by their rounding
//! (a few ulp of each term, and of the evaluation position: the errors of 2αs, ln z and W move
//! the point by δs, hence ℓ by ≤ |L|·δs), which sets a floor of ≈ 2e-13 on the relative width.

use super::{Neumaier, Noise, OnlineSchedule, EPS, EPS2, EPS4, EPS8};
use crate::{lambertw, theta, vmath};

/// Grid point of the certified quadrature (see [`OnlineSchedule::integral_bracket`]).
#[derive(Clone, Copy)]
pub(super) struct QPoint {
    pub(super) s: f64,
    /// ln F'(s) bracket.
    pub(super) l_lo: f64,
    pub(super) l_hi: f64,
    /// Gaussian: ρ = 1 − C2/z, 1 − ρ; Laplace: p = v/(v+d), q = v/(v+d−c) (v = x^α).
    pub(super) u1: f64,
    pub(super) u2: f64,
    /// Gaussian: B(w), D1(w) = −4w/(1+w)⁴, D2(w) = −ε²(2w+1)/(4w(1+w)³), w = W(z).
    pub(super) b: f64,
    pub(super) d1: f64,
    pub(super) d2: f64,
    pub(super) w: f64,
}

/// Result of [`OnlineSchedule::bracket`]: lo ≤ ∫_X^∞ g ≤ hi, and whether g''' ≥ 0 (−g''
/// non-increasing) is proven on (X, ∞).
#[derive(Clone, Copy, Debug)]
pub(super) struct Bracket {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) g3: bool,
    /// The step control gave up (the pieces' width could not reach the target, see
    /// [`STUCK_PIECES`]): `lo`, `hi` still bracket the integral, but loosely.
    pub(super) aborted: bool,
}

/// Consecutive pieces at the smallest step (1e-6) whose width still misses the target after
/// which [`OnlineSchedule::bracket`] stops (keeping its partial, still valid, bounds): at huge ε
/// the interval bounds of ℓ'' carry the cancellation between αρB(w) and F' (both ≈ ε²/(4w²))
/// and the target is out of reach at any step (2^20 pieces of 1e-6 had covered only one unit
/// of ln x, in ≈ 2 s). Normal parameters never sit at the step floor.
const STUCK_PIECES: usize = 1 << 11;

/// Pieces after which [`OnlineSchedule::bracket`] gives up as at [`STUCK_PIECES`] (≈ 0.2 s):
/// at ε ≈ 200 the steps stay a few 1e-6 without sitting at the floor (the full 2^20 pieces
/// took 1.5 s for a bound 1e13 times too high in the log). The probes and tests use at most
/// ≈ 68,000 (C2 = 1e20).
const PIECE_BUDGET: usize = 1 << 17;

/// g''' ≥ 0 on a piece with L ∈ [l.0, l.1] and L' ≥ m_lo: (L − 1)(L − 2) + L' ≥ 0
/// (module doc, "Third derivative"); the parabola's minimum over the interval, with a margin.
fn g3_holds(l: (f64, f64), m_lo: f64) -> bool {
    let par = |x: f64| (x - 1.0) * (x - 2.0);
    let pmin = if l.1 <= 1.5 {
        par(l.1)
    } else if l.0 >= 1.5 {
        par(l.0)
    } else {
        -0.25
    };
    let slack = 1e-12 * (1.0 + pmin.abs() + m_lo.abs());
    pmin.is_finite() && m_lo.is_finite() && pmin + m_lo - slack >= 0.0
}

/// Interval product.
#[inline(always)]
fn imul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let c = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
    (
        c.iter().cloned().fold(f64::INFINITY, f64::min),
        c.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// Range of u(1 − u) for u in the interval (concave parabola, maximum 1/4 at 1/2).
#[inline(always)]
fn parab(u: (f64, f64)) -> (f64, f64) {
    let f0 = u.0 * (1.0 - u.0);
    let f1 = u.1 * (1.0 - u.1);
    let hi = if u.0 <= 0.5 && u.1 >= 0.5 {
        0.25
    } else {
        f0.max(f1)
    };
    (f0.min(f1), hi)
}

/// expm1(y)/y.
#[inline(always)]
fn e1(y: f64) -> f64 {
    if y.abs() < 1e-300 {
        1.0
    } else {
        vmath::expm1(y) / y
    }
}

/// Bracket of E2(y) = ∫_0^1 e^{yu} u(1−u) du.
#[inline(always)]
fn e2(y: f64) -> (f64, f64) {
    if y.abs() < 0.5 {
        let v = 1.0 / 6.0 + y * (1.0 / 12.0 + y * (1.0 / 40.0 + y / 180.0));
        let r = y.powi(4) * vmath::exp(y.abs()) / 1008.0 + EPS4 * v;
        (v - r, v + r)
    } else {
        let v = ((y - 2.0) * vmath::exp(y) + y + 2.0) / (y * y * y);
        let r = 1e-13 * (v.abs() + vmath::exp(y.max(0.0)));
        (v - r, v + r)
    }
}

/// For ℓ(τ) = c + μτ on [0, h] (μ from the endpoint values lc, lq; s = piece start, X the
/// lower limit): (∫ e^ℓ(e^{s+τ} − X) dτ, a bound of its rounding error (also covering the
/// rounding of μ), and the bracket of ∫ e^ℓ(e^{s+τ} − X)·τ(h−τ)/2 dτ).
#[inline(always)]
fn piece_terms(lc: f64, lq: f64, s: f64, h: f64, x0: f64) -> (f64, f64, (f64, f64)) {
    let mu = (lq - lc) / h;
    let t1 = vmath::exp(lc + s) * h * e1((mu + 1.0) * h);
    let t2 = x0 * vmath::exp(lc) * h * e1(mu * h);
    // exp(lc + s): ≤ ε_m/2·(|lc| + |s|) + 1 ulp; the line through lq: μh off by ≤ ε_m(|lc| + |lq|);
    // expm1, the quotients and products: a few ulp
    let err = (EPS8 + EPS2 * (lc.abs() + lq.abs() + s.abs())) * (t1 + t2);
    let h3 = 0.5 * h * h * h;
    let (a0, a1) = e2((mu + 1.0) * h);
    let (b0, b1) = e2(mu * h);
    let u1 = vmath::exp(lc + s) * h3;
    let u2 = x0 * vmath::exp(lc) * h3;
    let curv = (
        (u1 * a0 - u2 * b1) * (1.0 - 1e-12) - 1e-12 * (u1 * a1 + u2 * b1).abs(),
        (u1 * a1 - u2 * b0) * (1.0 + 1e-12) + 1e-12 * (u1 * a1 + u2 * b1).abs(),
    );
    (t1 - t2, err, (curv.0.max(0.0), curv.1))
}

impl OnlineSchedule {
    /// g concave on [a, ∞)? A sufficient condition, proven (module doc, "Concavity").
    ///
    /// Laplace: with y = x^α + d, g' = α c x^{α−1}/(y(y − c)) > 0 and
    /// d ln g'/dx = (α−1)/x − αx^{α−1}(1/y + 1/(y−c)) < 0 ⟺ α−1 < αx^α(1/y + 1/(y−c)). If
    /// d ≤ c then x^α/(y−c) ≥ 1 and the right side exceeds α; if d > c the right side is
    /// ≥ 2αx^α/y, increasing in x, and exceeds α−1 iff x^α(α+1) > d(α−1).
    /// Gaussian: g''(x) = F'(s)(L(s) − 1)/x² with s = ln x, F' > 0 and
    /// L ≤ α·max(ρB(w), B(w)) + 2α(1 − ρ) on [a, ∞) (evaluated at a); concave if that is < 1.
    pub(super) fn concave_from(&self, a: f64) -> bool {
        match self.kind {
            Noise::Laplace => {
                // (margins: d and a^α to nearest, c rounded down)
                self.d * (1.0 + EPS4) <= self.c
                    || a.powf(self.decay) * (1.0 - 1e-12)
                        >= self.d * (self.decay - 1.0) / (self.decay + 1.0)
            }
            Noise::Gaussian => {
                let la = vmath::ln(a);
                let q = self.qpoint(la - EPS4 * la.abs()); // a point ≤ a
                let alpha = self.decay;
                let sl = 1e-14 * alpha * (4.0 + q.b.abs());
                alpha * (q.u1 * q.b).max(q.b) + 2.0 * alpha * q.u2 + sl < 1.0
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Certified bracket of ∫_X^∞ g (see the module doc, "Certified quadrature")

    /// The integrand data at s = ln x: a bracket of ℓ(s) = ln F'(s) (F(s) = g(e^s)) and the
    /// monotone quantities the piece bounds are built from.
    pub(super) fn qpoint(&self, s: f64) -> QPoint {
        let alpha = self.decay;
        match self.kind {
            Noise::Gaussian => {
                let lz = self.ln_arg(s);
                let w = lambertw::wright_omega(lz);
                let omr = if self.c2 > 0.0 {
                    self.c2 * vmath::exp(-lz)
                } else {
                    0.0
                };
                let r = 2.0 * w.sqrt();
                let a = self.p.eps / r - 0.5 * r;
                let lt = theta::log_theta_tight(self.p.eps, r); // ln θ rounded up
                let lt_lo = lt - 5e-14 * lt.abs();
                let lphi = -0.5 * a * a - 0.918_938_533_204_672_8; // ln φ(a)
                let lrs = vmath::ln(2.0 * alpha) + vmath::log1p(-omr) + 0.5 * vmath::ln(w)
                    - vmath::log1p(w);
                let l = lphi + lrs;
                let w1 = 1.0 + w;
                let e2 = self.p.eps * self.p.eps;
                let b = -1.0 + 2.0 / (w1 * w1) + e2 / (4.0 * w * w1);
                // Rounding: the terms (a few ulp each), and the position: the point evaluated is
                // s + δs with |δs| ≤ ulp-level errors of 2αs, of ln z (→ /2α) and of W
                // (2 ulp, δs = δw/w_s ≈ ε_m(1+w)/(2α)); ℓ moves by |L|·|δs|, |L| ≤ α(|B| + 2(1−ρ)) + F'.
                let lmax = alpha * (b.abs() + 2.0 * omr) + vmath::exp(l - lt_lo) + 0.1;
                let sl = 4.0
                    * EPS
                    * (lphi.abs()
                        + vmath::ln(2.0 * alpha).abs()
                        + 0.5 * vmath::ln(w).abs()
                        + vmath::log1p(w)
                        + lt.abs()
                        + 1.0)
                    + lmax
                        * EPS
                        * (2.0 * s.abs()
                            + (2.0 * alpha * s.abs() + 2.0 * self.ln_c1.abs() + lz.abs() + 4.0)
                                / alpha
                            + (1.0 + w) / alpha);
                QPoint {
                    s,
                    l_lo: l - lt - sl,
                    l_hi: l - lt_lo + sl,
                    u1: 1.0 - omr,
                    u2: omr,
                    b,
                    d1: -4.0 * w / (w1 * w1 * w1 * w1),
                    d2: -e2 * (2.0 * w + 1.0) / (4.0 * w * w1 * w1 * w1),
                    w,
                }
            }
            Noise::Laplace => {
                // F' = cα e^{−αs}/((1 + d e^{−αs})(1 + (d − c) e^{−αs}))
                let e = vmath::exp(-alpha * s);
                // d − c from its double-double (in doubles it cancels: ~1e-15·C1 off)
                let (pd, pe) = (self.d * e, self.dc.hi * e);
                let l =
                    vmath::ln(alpha) + self.ln_c - alpha * s - vmath::log1p(pd) - vmath::log1p(pe);
                let sl = 4.0
                    * EPS
                    * (vmath::ln(alpha).abs()
                        + 2.0 * self.ln_c.abs()
                        + 2.0 * alpha * s.abs()
                        + 3.0)
                    + EPS8 * (pd.abs() + pe.abs()) / (1.0 + pe).min(1.0);
                QPoint {
                    s,
                    l_lo: l - sl,
                    l_hi: l + sl,
                    u1: 1.0 / (1.0 + pd),
                    u2: 1.0 / (1.0 + pe),
                    b: pd.abs() + pe.abs(),
                    d1: 0.0,
                    d2: 0.0,
                    w: 0.0,
                }
            }
        }
    }

    /// Bounds of L = ℓ' and of L' = ℓ'' on the piece [P.s, Q.s].
    pub(super) fn piece_bounds(&self, p: &QPoint, q: &QPoint) -> ((f64, f64), (f64, f64)) {
        let alpha = self.decay;
        let h = q.s - p.s;
        match self.kind {
            Noise::Gaussian => {
                let a2 = alpha * alpha;
                let sl = 1e-14 * alpha * (4.0 + p.b.abs() + q.b.abs());
                let rho = (p.u1, q.u1);
                let omr = (q.u2, p.u2);
                let bint = (q.b, p.b);
                let rb = imul(rho, bint);
                let l0 = (
                    alpha * rb.0 + 2.0 * alpha * omr.0 - sl,
                    alpha * rb.1 + 2.0 * alpha * omr.1 + sl,
                );
                // F' on the piece (T2 = −F'); between its end values where L ≤ L0_hi ≤ 0
                let decreasing = l0.1 <= 0.0;
                let fhi = vmath::exp(p.l_hi + l0.1.max(0.0) * h) * (1.0 + EPS4);
                let llo = l0.0 - fhi;
                let flo = if decreasing {
                    vmath::exp(q.l_lo)
                } else {
                    vmath::exp(p.l_lo + llo.min(0.0) * h)
                } * (1.0 - EPS4);
                let lhi = l0.1 - flo;
                // L' = 2α²ρ(1−ρ)(B − 2) + 2α²ρ²D(w) − F'·L
                let t1 = imul(imul(rho, omr), (bint.0 - 2.0, bint.1 - 2.0));
                let d1 = if p.w >= 1.0 / 3.0 {
                    (p.d1, q.d1)
                } else {
                    (-0.421_875, p.d1.max(q.d1))
                };
                let dd = (d1.0 + p.d2, d1.1 + q.d2);
                let t2 = imul((rho.0 * rho.0, rho.1 * rho.1), dd);
                let t3 = imul((flo, fhi), (llo, lhi));
                let m = (
                    2.0 * a2 * (t1.0 + t2.0) - t3.1,
                    2.0 * a2 * (t1.1 + t2.1) - t3.0,
                );
                // rounding: a few ulp of every term (no cancellation assumed)
                let mag = 2.0 * a2 * (t1.0.abs().max(t1.1.abs()) + t2.0.abs().max(t2.1.abs()))
                    + t3.0.abs().max(t3.1.abs());
                let slm = 64.0 * EPS * mag + 1e-16 * a2;
                ((llo, lhi), (m.0 - slm, m.1 + slm))
            }
            Noise::Laplace => {
                // L = α(1 − p − q), L' = −α²(p(1−p) + q(1−q)), p = v/(v+d) increasing, q = v/(v+d−c) monotone
                // (rounding of p, q: a few ulp, and δq ≤ q²·8ε_m(|pd| + |pe|) from d − c)
                let dq = 16.0 * EPS * (p.u2 * p.u2 * p.b + q.u2 * q.u2 * q.b);
                let sl = 64.0 * EPS * alpha * (3.0 + p.u2.abs() + q.u2.abs()) + alpha * dq;
                let pp = (p.u1, q.u1);
                let qq = (p.u2.min(q.u2), p.u2.max(q.u2));
                let l = (
                    alpha * (1.0 - pp.1 - qq.1) - sl,
                    alpha * (1.0 - pp.0 - qq.0) + sl,
                );
                let fp = parab(pp);
                let fq = parab(qq);
                let a2 = alpha * alpha;
                let slm = 64.0 * EPS * a2 * (1.0 + fq.0.abs() + fq.1.abs())
                    + a2 * dq * (1.0 + 2.0 * qq.1.abs());
                (l, (-a2 * (fp.1 + fq.1) - slm, -a2 * (fp.0 + fq.0) + slm))
            }
        }
    }

    /// On [P.s, ∞): (γ, λ) with −γ ≤ L and L ≤ −λ, or None when F' is not yet known to decrease.
    fn tail_rates(&self, p: &QPoint) -> Option<(f64, f64)> {
        let alpha = self.decay;
        match self.kind {
            Noise::Gaussian => {
                // ρB(w) ≤ max(ρ_P·B_P, B_P) (B decreasing, ρ ∈ [ρ_P, 1]), ≥ −1 (B > −1); T3 ≤ 2α(1−ρ_P)
                let sl = 1e-14 * alpha * (4.0 + p.b.abs());
                let lsup = alpha * (p.u1 * p.b).max(p.b) + 2.0 * alpha * p.u2 + sl;
                if lsup > 0.0 {
                    return None;
                }
                // F' decreasing on [P.s, ∞): T2 = −F' ≥ −F'(P)
                let gamma = alpha + vmath::exp(p.l_hi) * (1.0 + EPS4) + sl;
                Some((gamma, -lsup))
            }
            Noise::Laplace => {
                // p ∈ [p_P, 1], q between q_P and 1
                let sl = 64.0 * EPS * alpha * (3.0 + p.u2.abs())
                    + 16.0 * EPS * alpha * p.u2 * p.u2 * p.b;
                let lsup = alpha * (1.0 - p.u1 - p.u2.min(1.0)) + sl;
                if lsup > 0.0 {
                    return None;
                }
                Some((alpha * p.u2.max(1.0) + sl, -lsup))
            }
        }
    }

    /// Certified bracket (lo, hi) ∋ ∫_X^∞ g(x) dx (hi ≤ 0; lo = −∞ if the far tail could not
    /// be bounded), with hi − lo ≈ `tol`·|∫| (module doc, "Certified quadrature"): ∫_X^∞ g =
    /// −∫_{ln X}^∞ F'(t)(e^t − X) dt, F' bracketed piece by piece by exp(chord ± curvature) from
    /// ℓ at the grid points and the interval bound of ℓ'' on the piece; the far tail from the
    /// bounds of ℓ' on [S, ∞).
    pub fn integral_bracket(&self, x0: f64, tol: f64) -> (f64, f64) {
        let b = self.bracket(x0, tol, None);
        (b.lo, b.hi)
    }

    /// [`Self::integral_bracket`], and whether −g'' is proven non-increasing on (X, ∞)
    /// (module doc, "Third derivative"): every piece and the far tail satisfy
    /// (L − 1)(L − 2) + L' ≥ 0 with the interval bounds of L and L'.
    ///
    /// With a finite `end` N > X: the certified upper bound of ∫_X^N g only (`lo` = −∞), from
    /// ∫_X^N g = (N − X)·g(N) − ∫_{ln X}^{ln N} F'(t)(e^t − X) dt (`limit.rs` module doc, "The
    /// certified sums"), and g''' ≥ 0 on the pieces up to N. No difference of two infinite
    /// integrals is formed, so the bound is tight relative to ∫_X^N g itself however close N is
    /// to X.
    pub(super) fn bracket(&self, x0: f64, tol: f64, end: Option<f64>) -> Bracket {
        let alpha = self.decay;
        let lx0 = vmath::ln(x0);
        let l_end = end.map(vmath::ln);
        // start at s0 ≥ ln X (the omitted [ln X, s0] is added to the upper J below)
        let gap = EPS4 * lx0.abs() + f64::MIN_POSITIVE;
        let s0 = lx0 + gap;
        let mut p = self.qpoint(s0);
        let mut jlo = Neumaier::default();
        let mut jhi = Neumaier::default();
        let (mut err_lo, mut err_hi) = (0.0, 0.0); // rounding-error bounds of the two sums
                                                   // [ln X − gap, s0]: F'(e^t − X) ≤ F'·X·(2gap), length ≤ 2 gap
        jhi.add(vmath::exp(p.l_hi + s0 + 1.0) * 4.0 * gap * gap * (1.0 + alpha));
        let mut h: f64 = 1e-3 / alpha.max(1.0);
        const MAX_PIECES: usize = 1 << 20;
        let mut tail = (0.0, f64::INFINITY);
        let mut g3 = true; // g''' ≥ 0 on every piece so far
        let mut g3_tail = false; // … and on the far tail [S, ∞)
        let mut stuck = 0usize; // consecutive pieces at the step floor missing the target
        for k in 0..=MAX_PIECES {
            if let Some(le) = l_end {
                if p.s >= le {
                    break;
                }
            }
            let rates = if l_end.is_none() {
                self.tail_rates(&p)
            } else {
                None
            };
            g3_tail = rates.is_some_and(|(_, lambda)| self.g3_tail(&p, lambda));
            if let Some((gamma, lambda)) = rates {
                // J_tail ≥ e^{ℓ_lo}(e^S/(γ−1) − X/γ); ≤ e^{ℓ_hi}(e^S/(λ−1) − X/λ) if λ > 1
                let lo1 = vmath::exp(p.l_lo + p.s) / (gamma - 1.0);
                let lo2 = x0 * vmath::exp(p.l_lo) / gamma;
                let t_lo = (lo1 - lo2 - EPS8 * (lo1 + lo2)).max(0.0);
                let t_hi = if lambda > 1.0 {
                    let hi1 = vmath::exp(p.l_hi + p.s) / (lambda - 1.0);
                    let hi2 = x0 * vmath::exp(p.l_hi) / lambda;
                    let v = hi1 - hi2 + EPS8 * (hi1 + hi2);
                    if v.is_finite() {
                        v
                    } else {
                        f64::INFINITY
                    }
                } else {
                    f64::INFINITY
                };
                tail = (t_lo, t_hi);
                if t_hi - t_lo <= 0.25 * tol * (jlo.value() + t_lo)
                    || k == MAX_PIECES
                    || stuck >= STUCK_PIECES
                {
                    break;
                }
            }
            // (the tail bracket, if any, is the one from this p: consistent with the pieces summed)
            if k == MAX_PIECES || stuck >= STUCK_PIECES {
                break;
            }
            let q = match l_end {
                Some(le) if p.s + h >= le => self.qpoint(le),
                _ => self.qpoint(p.s + h),
            };
            let hh = q.s - p.s;
            let ((llo, lhi), (mlo, mhi)) = self.piece_bounds(&p, &q);
            g3 = g3 && g3_holds((llo, lhi), mlo);
            // lower: ℓ ≥ ℓ_lo(P) + μτ + κτ(h−τ)/2 with κ = −M_hi; e^y ≥ 1 + y
            let (lo_main, lo_mag, lo_curv) = piece_terms(p.l_lo, q.l_lo, p.s, hh, x0);
            let k_lo = -mhi;
            let lo = lo_main
                + if k_lo >= 0.0 {
                    k_lo * lo_curv.0
                } else {
                    k_lo * lo_curv.1
                };
            // upper: ℓ ≤ ℓ_hi(P) + μτ + κτ(h−τ)/2 with κ = −M_lo;
            // e^y ≤ 1 + y + y²e^{max(y,0)}/2 and y² ≤ κ²(h²/8)·q
            let (hi_main, hi_mag, hi_curv) = piece_terms(p.l_hi, q.l_hi, p.s, hh, x0);
            let k_hi = -mlo;
            let qm = k_hi * hh * hh / 8.0;
            let k_hi2 =
                k_hi + k_hi * k_hi * hh * hh / 16.0 * vmath::exp(qm.max(0.0)) * (1.0 + 1e-12);
            let hi = hi_main
                + if k_hi2 >= 0.0 {
                    k_hi2 * hi_curv.1
                } else {
                    k_hi2 * hi_curv.0
                };
            // Where ℓ varies so fast that the bounds overflow (tiny w with large ε, far below the
            // tails this is used for), the piece falls back to 0 ≤ J_piece ≤ ∞.
            let (lo, hi) = (
                if lo.is_finite() { lo } else { 0.0 },
                if hi.is_finite() { hi } else { f64::INFINITY },
            );
            let e_lo = lo_mag + EPS4 * (k_lo * lo_curv.1).abs();
            let e_hi = hi_mag + EPS4 * (k_hi2 * hi_curv.1).abs();
            err_lo += if e_lo.is_finite() && lo != 0.0 {
                e_lo
            } else {
                0.0
            };
            err_hi += if e_hi.is_finite() {
                e_hi
            } else {
                f64::INFINITY
            };
            jlo.add(lo);
            jhi.add(hi);
            // step control: relative width of this piece against a target growing like the
            // square root of the decay of the integrand
            let target = tol * 0.125 * vmath::exp((0.5 * (alpha - 1.0) * (p.s - s0)).min(600.0));
            // (the part of the width from the brackets of ℓ at the grid points does not shrink with h)
            let fixed = 0.5 * ((p.l_hi - p.l_lo) + (q.l_hi - q.l_lo));
            let rel = ((hi - lo) / lo.max(f64::MIN_POSITIVE) - fixed).max(1e-300);
            let f = if rel.is_finite() {
                (target / rel).cbrt().clamp(0.5, 2.0)
            } else {
                0.5
            };
            stuck = if hh <= 1.000_001e-6 && f < 1.0 {
                stuck + 1
            } else if k + 1 >= PIECE_BUDGET {
                STUCK_PIECES // out of budget: give up the same way
            } else {
                0
            };
            h = (hh * f).clamp(1e-6, 1.0);
            p = q;
        }
        if let (Some(n), Some(le)) = (end, l_end) {
            // (stopped early at MAX_PIECES: J over the pieces done is still a lower bound of J)
            // ln N is rounded: J over [ln X, le] differs from J over [ln X, ln N] by
            // ≤ F'(le)·N·|le − ln N| ≤ e^{ℓ_hi(le) + le}·2ε_m|le| (F'·e^t is increasing or
            // nearly flat there; the factor 4 covers it)
            let jl = jlo.value();
            let end_err = if p.s >= le {
                4.0 * vmath::exp(p.l_hi + le) * 2.0 * EPS * le.abs()
            } else {
                0.0
            };
            let j_lower = (jl - err_lo - end_err - EPS4 * jl.abs()).max(0.0);
            // (N − X)·g(N): N − X exact (integers below 2^53), g(N) rounded up, the product
            // moved up by one rounding
            let gn = (n - x0) * self.g(n);
            let gn = gn - EPS * gn.abs();
            let v = gn - j_lower;
            let hi = (v + EPS2 * (gn.abs() + j_lower)).min(0.0);
            return Bracket {
                lo: f64::NEG_INFINITY,
                hi: if hi.is_nan() { 0.0 } else { hi },
                g3,
                aborted: stuck >= STUCK_PIECES,
            };
        }
        let g3 = g3 && g3_tail && tail.1.is_finite();
        let lo_tot = jlo.value() + tail.0;
        let hi_tot = jhi.value() + tail.1;
        let int_hi = -(lo_tot - err_lo - EPS4 * lo_tot.abs()).max(0.0);
        let int_lo = -(hi_tot + err_hi + EPS4 * hi_tot.abs());
        // (never NaN: a NaN lower sum has become 0 above, an upper one ∞)
        let int_lo = if int_lo.is_nan() {
            f64::NEG_INFINITY
        } else {
            int_lo
        };
        Bracket {
            lo: int_lo,
            hi: int_hi,
            g3,
            aborted: stuck >= STUCK_PIECES,
        }
    }

    /// g''' ≥ 0 on [S, ∞) given L ≤ −λ ≤ 0 there (module doc, "Third derivative"):
    /// (L − 1)(L − 2) ≥ (1 + λ)(2 + λ) and a lower bound of L' from the end values at S.
    fn g3_tail(&self, p: &QPoint, lambda: f64) -> bool {
        let a2 = self.decay * self.decay;
        let lp_lo = match self.kind {
            Noise::Gaussian => {
                // L' = 2α²ρ(1−ρ)(B − 2) + 2α²ρ²D(w) − F'L with ρ(1 − ρ) ≤ 1 − ρ_S, B − 2 > −3,
                // D(w) ≥ D(w_S) for w_S ≥ 1/3 (D increasing there), ≥ −0.421875 + D2(w_S)
                // otherwise (|D2| decreasing), ρ² ≤ 1, −F'L ≥ 0
                let d = if p.w >= 1.0 / 3.0 {
                    p.d1 + p.d2
                } else {
                    -0.421_875 + p.d2
                };
                2.0 * a2 * (-3.0 * p.u2 + d)
            }
            Noise::Laplace => {
                // L' = −α²(p(1−p) + q(1−q)), p ∈ [p_S, 1], q between q_S and 1; x(1−x) ≤ ¼
                let fp = (1.0 - p.u1).clamp(0.0, 0.25);
                let fq = (1.0 - p.u2).clamp(0.0, 0.25);
                -a2 * (fp + fq)
            }
        };
        let slack = 1e-12 * (1.0 + a2) + 64.0 * EPS * lp_lo.abs();
        (1.0 + lambda) * (2.0 + lambda) + lp_lo - slack >= 0.0
    }
}
