//! Gaussian differential privacy (Dong–Roth–Su): inversions of the GDP privacy profile
//! δ_μ(ε) = θ_{e^ε}(μ) (DRS Cor. 2.13), the smallest μ whose GDP profile dominates a given
//! privacy profile (DRS Prop. 2.12), and the GDP route of multi-epoch composition
//! (Sordello–Bu–Dong §5). Derivations: `docs/derivations/composition.md`.
//!
//! # Directed results
//! θ is evaluated by the engine's `log_theta` (rounded up, error ≤ a few ulp + INFLATE·|ln θ|),
//! so `log_theta(ε, μ) ≤ ln δ` certifies θ ≤ δ, and `log_theta − 3·INFLATE·max(1, |ln θ|) ≥ ln δ`
//! certifies θ ≥ δ. Every root is bracketed (Illinois regula falsi with bisection fallback) to a
//! few ulp and the certified end of the bracket is returned: `gdp_epsilon` and
//! `gdp_mu_dominating` round up, `gdp_mu` rounds down.
//!
//! # Dominating μ over all ε ≥ 0 (no cutoff assumption)
//! For a symmetric privacy profile bounded by δ_i at the points 0 = ε_0 < ε_1 < … < ε_J:
//! a true profile is non-increasing, so δ(ε) ≤ δ_i on [ε_i, ε_{i+1}] and δ(ε) ≤ δ_J on
//! [ε_J, ∞). Let μ_i solve θ_{e^{ε_{i+1}}}(μ_i) = δ_i/(1 − δ_J) and μ* = max_i μ_i. Since θ is
//! decreasing in ε and increasing in μ, δ(ε) ≤ δ_J + (1 − δ_J)·θ_{e^ε}(μ*) for **every**
//! ε ≥ 0: the mechanism is dominated by the pair "μ*-GDP, except with probability δ_J a
//! distinguishing event" (a Gaussian pair mixed with an atom at infinite loss, whose profile is
//! exactly that right-hand side, also for ε < 0 by symmetry). Composing E such pairs gives
//! δ_E(ε) ≤ 1 − (1−δ_J)^E + (1−δ_J)^E·θ_{e^ε}(√E·μ*) (the atoms compose to "at least one
//! atom", the Gaussians to √E·μ*, DRS Cor. 3.3). With δ_J ≈ 0 (the profile sampled until it has
//! decayed) this is the GDP route with a proof-backed tail instead of a sup over a finite ε range.

use super::gdp_edges::log_theta_lo;
use crate::driver::at;
use crate::error::{PabiError, Result};
use crate::num::bisect::{bisect_bits, Certificates, Search};
use crate::num::consts::LN_2PI;
use crate::num::round::{add_up, div_dn, ln_down_2u, mul_up, sqrt_up, EPS, EPS2, EPS4};
use crate::tail::log_gaussian_tail;
use crate::theta::{log_theta, theta};

/// Lower bound on ln θ_{e^ε}(μ), tight near θ = 1 ([`log_theta_lo`]).
#[inline(always)]
fn log_theta_low(eps: f64, mu: f64) -> f64 {
    log_theta_lo(eps, mu).0
}

/// Illinois regula falsi with bisection fallback for g decreasing, g(lo) > 0 ≥ g(hi); returns
/// the final bracket (hi − lo ≤ 4u·|hi| or adjacent doubles).
#[inline(always)]
fn bracket_dec(g: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> (f64, f64) {
    let mut glo = g(lo);
    let mut ghi = g(hi);
    let mut side = 0i32;
    let mut width = hi - lo;
    let mut slow = 0;
    for _ in 0..400 {
        if hi - lo <= EPS2 * hi.abs().max(lo.abs()) || hi <= lo.next_up() {
            break;
        }
        let mut x = if glo.is_finite() && ghi.is_finite() && slow < 2 {
            lo + (hi - lo) * (glo / (glo - ghi))
        } else {
            0.5 * (lo + hi)
        };
        if !(x > lo && x < hi) {
            x = 0.5 * (lo + hi);
        }
        let gx = g(x);
        if gx > 0.0 {
            lo = x;
            glo = gx;
            if side == 1 {
                ghi *= 0.5;
            }
            side = 1;
        } else {
            hi = x;
            ghi = gx;
            if side == -1 {
                glo *= 0.5;
            }
            side = -1;
        }
        let w = hi - lo;
        if w > 0.5 * width {
            slow += 1;
        } else {
            slow = 0;
        }
        if slow >= 3 {
            slow = 2; // force bisection steps until progress resumes
        }
        width = w;
    }
    (lo, hi)
}

/// Safeguarded Newton for g decreasing with g(lo) > 0 ≥ g(hi): `f` returns (g, g'). Newton
/// steps inside the bracket (bisection otherwise); once the steps reach the round-off level the
/// iterate is pushed a few ulp towards the open side so that both ends close. Falls back to
/// [`bracket_dec`] if that has not happened after 60 evaluations.
#[inline(always)]
fn newton_dec(f: impl Fn(f64) -> (f64, f64), mut lo: f64, mut hi: f64, x0: f64) -> (f64, f64) {
    let mut x = if x0 > lo && x0 < hi {
        x0
    } else {
        0.5 * (lo + hi)
    };
    for _ in 0..60 {
        let (gx, dx) = f(x);
        if gx > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        if hi - lo <= EPS2 * hi.abs().max(lo.abs()) || hi <= lo.next_up() {
            return (lo, hi);
        }
        let mut xn = x - gx / dx;
        let tiny = EPS4 * x.abs().max(f64::MIN_POSITIVE);
        if (xn - x).abs() < tiny {
            xn = if gx > 0.0 { x + tiny } else { x - tiny };
        }
        if !(xn > lo && xn < hi) {
            xn = 0.5 * (lo + hi);
        }
        x = xn;
    }
    bracket_dec(|t| f(t).0, lo, hi)
}

fn check_delta(delta: f64) -> Result<()> {
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    Ok(())
}

fn check_mu(mu: f64) -> Result<()> {
    if !(mu >= 0.0 && mu.is_finite()) {
        return Err(PabiError::domain("mu", ">= 0 and finite", mu));
    }
    Ok(())
}

/// Smallest double ε ≥ 0 with gdp_delta(ε, μ) = [`theta`]`(ε, μ)` ≤ δ (pabi's own upward-rounded
/// θ, so the round trip gdp_delta(gdp_epsilon(δ, μ), μ) ≤ δ holds and the double below the result
/// gives more than δ): an upper bound on the exact inverse. δ ∈ (0, 1), μ ≥ 0. For δ below
/// f64::MIN_POSITIVE (where θ as a double has no relative accuracy) the smallest ε with
/// `log_theta(ε, μ)` ≤ ln δ (rounded down) is returned instead.
///
/// The root is bracketed by Newton on ln θ to a few ulp (`gdp_epsilon_log`), then located to
/// the exact double by an exponential search and bisection over the bit patterns with θ itself
/// (`refine_eps`): the log-space end alone could be an ulp on either side of θ's threshold
/// (gdp_delta(gdp_epsilon(0.9977000638225533, 10), 10) was 0.9977000638225534).
#[inline(always)]
pub fn gdp_epsilon(delta: f64, mu: f64) -> Result<f64> {
    let e = gdp_epsilon_log(delta, mu)?;
    Ok(refine_eps(delta, mu, e))
}

/// The smallest double ε with θ(ε, μ) ≤ δ, searched from the log-space result `e` (kept for
/// δ < f64::MIN_POSITIVE and where `e` is not finite). The search loop calls θ directly (no
/// closure): a closure is a function of its own, compiled without the array kernel's FMA and
/// AVX target features unless inlined, and θ's `mul_add`s became calls of libm's software
/// `fma` (43 % of the time of `gdp_epsilon` arrays).
#[inline(always)]
fn refine_eps(delta: f64, mu: f64, e: f64) -> f64 {
    if delta.is_nan() || delta < f64::MIN_POSITIVE || e.is_nan() || e == f64::INFINITY {
        return e;
    }
    let mut s = Search::first_ok(e);
    while let Some(x) = s.probe() {
        s.feed(theta(x, mu) <= delta);
    }
    s.result().unwrap_or(f64::NAN)
}

/// Relative bound η on the overshoot of the computed θ over the exact θ at the given doubles
/// (θ ≤ θ̃ ≤ θ·(1 + η)): θ's outward margin 2^-46 and its kernel error (< 2.5e-15), with a
/// margin of 6 (the bound the PNSGD inversions' certified skips use, `pnsgd::inverse_lanes`).
const CERT_ETA: f64 = 1e-13;

/// Smallest δ for which [`refine_mu`] uses certificates: δ·η far above θ's absolute floor of a
/// few subnormal ulps (where θ underflows, θ̃ is that floor, not within 1 + η of θ).
const CERT_MIN_DELTA: f64 = 1e-290;

/// The search of [`refine_mu`] for one lane, as a state machine driven by evaluations of θ at
/// the points it asks for ([`MuSearch::probe`], [`MuSearch::feed`]): the scalar path feeds it
/// `theta`, the array path (`k_gdp_mu` in `gdp_arrays.rs`) 32 lanes at once through the block
/// kernel, so both make the same search, to the bit.
///
/// **Certificates** ([`Certificates`], for the predicate θ̃(ε, μ) > δ): every μ ≤ `miss` has
/// θ̃ ≤ δ and every μ ≥ `meet` has θ̃ > δ, each proven by one evaluation. θ is increasing in μ
/// and θ ≤ θ̃ ≤ θ·(1 + η) ([`CERT_ETA`]), so an evaluated point x with θ̃(x) ≤ δ/(1 + η) gives,
/// for every μ ≤ x, θ̃(μ) ≤ (1 + η)θ(μ) ≤ (1 + η)θ(x) ≤ (1 + η)θ̃(x) ≤ δ, and one with
/// θ̃(x) > δ(1 + η) gives θ̃(μ) ≥ θ(μ) ≥ θ(x) ≥ θ̃(x)/(1 + η) > δ for every μ ≥ x. The
/// thresholds δ/(1 + η) and δ(1 + η) are rounded towards δ's side that keeps them proofs (down,
/// up). The points come from Newton's method on ln θ̃(μ) = ln δ (∂_μ ln θ = φ(a)/θ, DRS
/// Cor. 2.13, at most [`CERT_NEWTON`] steps) from the Gaussian-tail guess, then one point 4η
/// beyond the root on each side (skipped where not positive). An evaluation only adds a
/// certificate when its inequality holds, so a poor start or a flat θ costs evaluations,
/// never a different result.
///
/// **Bisection**: the midpoints of [`bisect_bits`] over all doubles [0, ∞); a midpoint on the
/// far side of a certificate takes the verdict it proves instead of an evaluation. An end of
/// the final bracket that a certificate decided is then evaluated (as in the PNSGD
/// inversions): if the evaluation disagrees (η was not a bound there), the plain bisection
/// runs, so the result is a threshold of θ̃ itself (θ̃(μ) ≤ δ < θ̃(next μ)) whatever η.
#[derive(Clone, Copy, Debug)]
struct MuSearch {
    eps: f64,
    delta: f64,
    /// δ/(1 + η) rounded down, δ(1 + η) rounded up: the certificates' thresholds.
    lo_t: f64,
    hi_t: f64,
    proof: Certificates,
    stage: MuStage,
    search: Search,
    /// The bisection's current ends (bits) and whether a certificate decided them.
    a: u64,
    b: u64,
    a_dec: bool,
    b_dec: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum MuStage {
    /// Newton step `k` at `x`.
    Newton { k: u32, x: f64 },
    /// The points x − h, x + h beyond the root (`side` 0, 1).
    Beyond { side: u32, x: f64, h: f64 },
    /// The bisection.
    Bisect,
    /// Evaluating an end of the final bracket that a certificate decided (`b_end`: b, else a).
    Confirm { b_end: bool },
    /// Finished.
    Done,
}

/// Newton steps of [`MuSearch`]'s certificate stage.
const CERT_NEWTON: u32 = 8;

impl MuSearch {
    /// Whether [`gdp_mu`] answers (ε, δ) by this search ([`refine_mu`]): valid ε and
    /// δ ∈ [f64::MIN_POSITIVE, 1); else the log-space path (tiny δ) or its domain errors.
    #[inline(always)]
    fn applies(eps: f64, delta: f64) -> bool {
        eps >= 0.0 && eps.is_finite() && (f64::MIN_POSITIVE..1.0).contains(&delta)
    }

    #[inline(always)]
    fn new(eps: f64, delta: f64) -> Self {
        let stage = if delta >= CERT_MIN_DELTA {
            // θ ≈ Q(a), a = ε/μ − μ/2: a ≈ √(−2 ln δ) − 1, μ = √(a² + 2ε) − a
            let a0 = (-2.0 * delta.ln()).sqrt() - 1.0;
            let x = (a0 * a0 + 2.0 * eps).sqrt() - a0;
            let x = if x > 0.0 && x.is_finite() { x } else { 1.0 };
            MuStage::Newton { k: 0, x }
        } else {
            MuStage::Bisect
        };
        let mut s = MuSearch {
            eps,
            delta,
            lo_t: div_dn(delta, 1.0 + CERT_ETA),
            hi_t: mul_up(delta, 1.0 + CERT_ETA),
            proof: Certificates::NONE,
            stage,
            search: Search::bisect(0.0, f64::INFINITY),
            a: 0,
            b: f64::INFINITY.to_bits(),
            a_dec: false,
            b_dec: false,
        };
        s.settle();
        s
    }

    /// The point at which θ is to be evaluated next; None once finished.
    #[inline(always)]
    fn probe(&self) -> Option<f64> {
        match self.stage {
            MuStage::Newton { x, .. } => Some(x),
            MuStage::Beyond { side, x, h } => Some(if side == 0 { x - h } else { x + h }),
            MuStage::Bisect => self.search.probe(),
            MuStage::Confirm { b_end } => Some(f64::from_bits(if b_end { self.b } else { self.a })),
            MuStage::Done => None,
        }
    }

    /// Record a certificate proven by θ̃(x) = t, if any.
    #[inline(always)]
    fn note(&mut self, x: f64, t: f64) {
        if t <= self.lo_t {
            self.proof.add_miss(x.to_bits());
        } else if t > self.hi_t {
            self.proof.add_meet(x.to_bits());
        }
    }

    /// Feed the bisection one verdict at its probe `x`, tracking its ends.
    #[inline(always)]
    fn bisect_feed(&mut self, x: f64, bad: bool, decided: bool) {
        if bad {
            (self.b, self.b_dec) = (x.to_bits(), decided);
        } else {
            (self.a, self.a_dec) = (x.to_bits(), decided);
        }
        self.search.feed(bad);
    }

    /// Advance to the next point that needs an evaluation: past the points beyond the root that
    /// are not positive, the midpoints a certificate decides, and at the end of the bisection
    /// to the confirmation of its decided ends.
    #[inline(always)]
    fn settle(&mut self) {
        loop {
            match self.stage {
                MuStage::Beyond { side, x, h } => {
                    let y = if side == 0 { x - h } else { x + h };
                    if y > 0.0 && y.is_finite() {
                        return;
                    }
                    self.stage = if side == 0 {
                        MuStage::Beyond { side: 1, x, h }
                    } else {
                        MuStage::Bisect
                    };
                }
                MuStage::Bisect => match self.search.probe() {
                    Some(m) => match self.proof.decided(m.to_bits()) {
                        Some(bad) => self.bisect_feed(m, bad, true),
                        None => return,
                    },
                    None if self.b_dec => {
                        self.stage = MuStage::Confirm { b_end: true };
                        return;
                    }
                    None if self.a_dec => {
                        self.stage = MuStage::Confirm { b_end: false };
                        return;
                    }
                    None => {
                        self.stage = MuStage::Done;
                        return;
                    }
                },
                _ => return,
            }
        }
    }

    /// Take θ̃ = t at [`MuSearch::probe`].
    #[inline(always)]
    fn feed(&mut self, t: f64) {
        let Some(x) = self.probe() else { return };
        match self.stage {
            MuStage::Newton { k, .. } => {
                self.note(x, t);
                self.stage = self.newton(k, x, t);
            }
            MuStage::Beyond { side, x: root, h } => {
                self.note(x, t);
                self.stage = if side == 0 {
                    MuStage::Beyond {
                        side: 1,
                        x: root,
                        h,
                    }
                } else {
                    MuStage::Bisect
                };
            }
            MuStage::Bisect => self.bisect_feed(x, t > self.delta, false),
            MuStage::Confirm { b_end } => {
                if (t > self.delta) == b_end {
                    // as certified: this end is now evaluated
                    if b_end {
                        self.b_dec = false;
                    } else {
                        self.a_dec = false;
                    }
                    self.stage = MuStage::Bisect;
                } else {
                    // η was not a bound here: the plain bisection
                    self.proof = Certificates::NONE;
                    self.search = Search::bisect(0.0, f64::INFINITY);
                    (self.a, self.b, self.a_dec, self.b_dec) =
                        (0, f64::INFINITY.to_bits(), false, false);
                    self.stage = MuStage::Bisect;
                }
            }
            MuStage::Done => {}
        }
        self.settle();
    }

    /// The stage after Newton step `k` at `x` with θ̃(x) = t.
    #[inline(always)]
    fn newton(&self, k: u32, x: f64, t: f64) -> MuStage {
        if !(t > 0.0 && t < 1.0) || k + 1 >= CERT_NEWTON {
            return MuStage::Bisect;
        }
        let a = self.eps / x - 0.5 * x;
        let slope = (-0.5 * a * a - 0.5 * LN_2PI).exp() / t; // ∂_μ ln θ = φ(a)/θ
        let g = (t / self.delta).ln();
        if !(slope > 0.0 && slope.is_finite()) {
            return MuStage::Bisect;
        }
        if g.abs() <= 8.0 * CERT_ETA {
            // at the root: one point 4η (in ln θ) beyond it on each side
            return MuStage::Beyond {
                side: 0,
                x,
                h: 4.0 * CERT_ETA / slope,
            };
        }
        let xn = (x - g / slope).clamp(0.25 * x, 4.0 * x);
        if xn > 0.0 && xn.is_finite() {
            MuStage::Newton { k: k + 1, x: xn }
        } else {
            MuStage::Bisect
        }
    }

    /// The largest μ with θ̃(ε, μ) ≤ δ, once finished: the first μ with θ̃ > δ, minus one ulp.
    #[inline(always)]
    fn result(&self) -> f64 {
        let first_bad = self.search.result().unwrap_or(f64::NAN);
        if first_bad == 0.0 {
            0.0
        } else {
            f64::from_bits(first_bad.to_bits() - 1)
        }
    }
}

/// The largest double μ with θ(ε, μ) ≤ δ (δ ≥ f64::MIN_POSITIVE): the first μ with θ > δ,
/// minus one ulp, found by [`bisect_bits`] over **all** non-negative doubles (θ(ε, 0) = 0 ≤ δ,
/// θ(ε, ∞) = 1 > δ). The bracket does not depend on δ, so the result is exactly non-decreasing
/// in δ even though the computed θ is not monotone in μ to the last ulp: the predicates
/// θ > δ₂ ⇒ θ > δ₁ are nested for δ₁ ≤ δ₂ (see [`crate::num::bisect`]). A search started from
/// the log-space estimate found different thresholds for neighbouring δ
/// (gdp_mu(0, 0.15625) = 0.39419816858861395 > gdp_mu(0, 0.15625000000000003) = 0.39419816858861384).
///
/// The midpoints that certificates decide are not evaluated ([`MuSearch`]): the same
/// midpoints, verdicts and result, to the bit (unit test `refine_mu_equals_plain_bisection`),
/// in ~20 evaluations of θ instead of 64.
#[inline(always)]
fn refine_mu(eps: f64, delta: f64) -> f64 {
    let mut s = MuSearch::new(eps, delta);
    while let Some(x) = s.probe() {
        s.feed(theta(eps, x));
    }
    s.result()
}

/// [`gdp_epsilon`]'s log-space stage: the smallest ε with `log_theta(ε, μ)` ≤ ln δ (rounded
/// down), bracketed to a few ulp.
#[inline(always)]
fn gdp_epsilon_log(delta: f64, mu: f64) -> Result<f64> {
    check_delta(delta)?;
    check_mu(mu)?;
    // ln δ rounded down: a smaller target only makes the certified ε larger / μ smaller
    let ld = ln_down_2u(delta);
    if mu == 0.0 || log_theta(0.0, mu) <= ld {
        return Ok(0.0);
    }
    // Q(a) ≤ e^{−a²/2}/2 ≤ δ at a = ε/μ − μ/2 = √(−2 ln δ)
    let mut hi = (mu * mu / 2.0 + mu * (-2.0 * ld).sqrt() + 1.0).max(1.0);
    let g = |e: f64| log_theta(e, mu) - ld;
    while g(hi) > 0.0 {
        hi *= 2.0;
        if !hi.is_finite() {
            return Err(PabiError::internal("gdp_epsilon: no bracket"));
        }
    }
    // ∂_ε ln θ = −e^ε Q(b)/θ, b = ε/μ + μ/2 (from DRS Cor. 2.13)
    let f = |e: f64| {
        let lt = log_theta(e, mu);
        let d = -(e + log_gaussian_tail(e / mu + mu / 2.0) - lt).exp();
        (lt - ld, d)
    };
    // start: the Gaussian-tail guess a = √(−2 ln δ) − 1, i.e. ε = μ(a + μ/2)
    let a0 = ((-2.0 * ld).sqrt() - 1.0).max(0.0);
    Ok(newton_dec(f, 0.0, hi, mu * (a0 + mu / 2.0)).1)
}

/// Largest double μ with gdp_delta(ε, μ) = [`theta`]`(ε, μ)` ≤ δ (pabi's own upward-rounded θ;
/// the next double gives more than δ): the GDP level certifying (ε, δ)-DP (rounded down).
/// ε ≥ 0 finite, δ ∈ (0, 1). For δ ≥ f64::MIN_POSITIVE a bisection over the bit patterns of
/// all non-negative doubles with θ itself (`refine_mu`: exactly non-decreasing in δ); below,
/// Newton on ln θ (the log-space result).
#[inline(always)]
pub fn gdp_mu(eps: f64, delta: f64) -> Result<f64> {
    if MuSearch::applies(eps, delta) {
        return Ok(refine_mu(eps, delta));
    }
    gdp_mu_log(eps, delta)
}

#[inline(always)]
fn gdp_mu_log(eps: f64, delta: f64) -> Result<f64> {
    if !(eps >= 0.0 && eps.is_finite()) {
        return Err(PabiError::domain("eps", ">= 0 and finite", eps));
    }
    check_delta(delta)?;
    let ld = ln_down_2u(delta);
    // g decreasing in μ: ld − ln θ(ε, μ)
    let g = |m: f64| ld - log_theta(eps, m);
    let mut hi = (2.0 * eps).sqrt() + 2.0 * (-2.0 * ld).sqrt() + 2.0;
    while g(hi) > 0.0 {
        hi *= 2.0;
        if !hi.is_finite() {
            return Err(PabiError::internal("gdp_mu: no bracket"));
        }
    }
    Ok(newton_dec(|m| mu_newton(eps, ld, m, 0.0), 0.0, hi, 0.5 * hi).0)
}

/// Smallest μ with θ_{e^ε}(μ) ≥ e^{ld} (certified, rounded up); +∞ if ld ≥ 0, 0 if ld = −∞.
fn mu_at_least(eps: f64, ld: f64) -> f64 {
    if ld == f64::NEG_INFINITY {
        return 0.0;
    }
    if ld >= 0.0 {
        return f64::INFINITY;
    }
    let target = ld + EPS * ld.abs() + 1e-300;
    // g decreasing in μ: target − lower bound of ln θ
    let g = |m: f64| target - log_theta_low(eps, m);
    let mut hi = (2.0 * eps).sqrt() + 2.0 * (-2.0 * target).sqrt() + 2.0;
    while g(hi) > 0.0 {
        hi *= 2.0;
        if !hi.is_finite() {
            return f64::INFINITY;
        }
    }
    let (lo, hi) = newton_dec(|m| mu_newton(eps, target, m, 3.0), 0.0, hi, 0.5 * hi);
    if hi - lo <= EPS2 * hi || hi <= lo.next_up() {
        return hi;
    }
    // not converged: the root is far below the start (μ ≈ e^{ld}·√(2π)/… at ε = 0, e.g. 4.8e-174
    // for ln δ = −400, where halving from ~10 gave up at 2e-137): the first double with
    // g ≤ 0 by bisection over the bit patterns of (lo, hi] (≤ 64 evaluations, any scale)
    bisect_bits(lo, hi, |m| g(m) <= 0.0)
}

/// (target − ln θ(ε, μ), its μ-derivative), with ∂_μ ln θ = φ(a)/θ, a = ε/μ − μ/2 (from DRS
/// Cor. 2.13); margin 0 → the upper-rounded ln θ, > 0 → a certified lower bound of ln θ
/// ([`log_theta_lo`]: 3·INFLATE·max(1, |ln θ|) below the engine's, or from 1 − θ near θ = 1).
#[inline(always)]
fn mu_newton(eps: f64, target: f64, m: f64, margin: f64) -> (f64, f64) {
    let (lt, v) = if margin > 0.0 {
        log_theta_lo(eps, m)
    } else {
        let v = log_theta(eps, m);
        (v, v)
    };
    if m <= 0.0 {
        return (target - lt, f64::NEG_INFINITY);
    }
    let a = eps / m - m / 2.0;
    let d = (-0.5 * a * a - 0.5 * LN_2PI - v).exp();
    (target - lt, -d)
}

/// μ of the composition of μ_k-GDP mechanisms, sqrt(Σ μ_k²) (Dong–Roth–Su Cor. 3.3), rounded
/// up and **exactly** non-decreasing in every μ_k and in appending a μ_k. Every operation is a
/// correctly rounded upward one (`num::round`: [`mul_up`], [`add_up`], [`sqrt_up`]), each
/// monotone in each argument, in a fixed structure: the μ_k are scaled by a power of two 2^-E
/// from the largest (exact; no overflow of μ_k², no underflow near the top; an upward product
/// of positive numbers is never 0), the squares summed over a canonical binary tree (left
/// subtrees of power-of-two size, absent leaves 0: appending a term replaces a 0 leaf; error
/// ≤ ⌈log2 n⌉ + 1 ulp of the sum), then √ and 2^E (an upward product). A compensated sum moved up
/// by a relative margin reversed by one ulp when one μ_k grew
/// (gdp_compose([7.15989777155113e16]·2) = 1.0125624533732518e17 >
/// gdp_compose([7.159897771551131e16, 7.15989777155113e16]) = 1.0125624533732517e17).
/// 0 for an empty or all-zero input.
pub fn gdp_compose(mus: &[f64]) -> Result<f64> {
    if let Some(i) = crate::batch::first_bad(mus, |x| x >= 0.0 && x.is_finite()) {
        return Err(PabiError::domain("mu", ">= 0 and finite", mus[i]).at(i));
    }
    let top = mus.iter().copied().fold(0.0, f64::max);
    if top == 0.0 {
        return Ok(0.0);
    }
    // E = the binary exponent of top, clamped so that 2^E and 2^-E are normal doubles
    let e = (((top.to_bits() >> 52) as i32) - 1023).clamp(-1000, 1000);
    let (down, up) = (pow2(-e), pow2(e));
    fn tree(xs: &[f64], down: f64) -> f64 {
        match xs.len() {
            0 => 0.0,
            1 => {
                // exact where no underflow (a power of two); never 0 for a positive μ_k
                let r = mul_up(xs[0], down);
                mul_up(r, r)
            }
            n => {
                let half = n.next_power_of_two() / 2;
                add_up(tree(&xs[..half], down), tree(&xs[half..], down))
            }
        }
    }
    Ok(mul_up(sqrt_up(tree(mus, down)), up))
}

/// 2^e for |e| ≤ 1022 (exact).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// sup_i μ_i with θ_{e^{ε_i}}(μ_i) = δ_i: the smallest μ whose GDP profile dominates the
/// profile **at the sample points** (rounded up). `log_delta` = ln δ_i (−∞ = δ 0, skipped).
pub fn gdp_mu_dominating(eps: &[f64], log_delta: &[f64]) -> Result<f64> {
    PabiError::same_lengths("eps", eps.len(), "delta", log_delta.len())?;
    for (i, &e) in eps.iter().enumerate() {
        if !(e >= 0.0 && e.is_finite()) {
            return Err(PabiError::domain("eps", ">= 0 and finite", e).at(i));
        }
    }
    for (i, &l) in log_delta.iter().enumerate() {
        if l.is_nan() || l > 0.0 {
            return Err(PabiError::domain("delta", "in [0, 1] (a privacy profile)", l.exp()).at(i));
        }
    }
    let mut best = 0.0f64;
    for (&e, &l) in eps.iter().zip(log_delta) {
        // already dominated by the current best: skip the root solve
        if l == f64::NEG_INFINITY
            || (best > 0.0 && log_theta_low(e, best) >= l + EPS * l.abs() + 1e-300)
        {
            continue;
        }
        best = best.max(mu_at_least(e, l));
    }
    Ok(best)
}

/// The GDP dominating pair of a symmetric privacy profile over **all** ε ≥ 0 (module doc):
/// returns (μ*, δ_J) with δ(ε) ≤ δ_J + (1 − δ_J)·θ_{e^ε}(μ*) for every ε ≥ 0, from upper
/// bounds `log_delta[i]` = ln δ(ε_i) at strictly increasing `eps` starting at 0. (+∞, 1) for
/// ln δ_J = 0; δ_J is returned rounded up (1 where e^{ln δ_J} > 1 − 2^-53, μ* still finite).
pub fn gdp_dominating_pair(eps: &[f64], log_delta: &[f64]) -> Result<(f64, f64)> {
    let j = eps.len();
    if j < 2 || log_delta.len() != j {
        return Err(PabiError::Shape {
            message: format!(
                "eps and log_delta must have the same length >= 2, got {} and {}",
                j,
                log_delta.len()
            ),
        });
    }
    if eps[0] != 0.0 {
        return Err(PabiError::domain("eps", "starting at 0", eps[0]).at(0));
    }
    for i in 1..j {
        if !(eps[i] > eps[i - 1] && eps[i].is_finite()) {
            return Err(PabiError::domain("eps", "strictly increasing and finite", eps[i]).at(i));
        }
    }
    for (i, &l) in log_delta.iter().enumerate() {
        if l.is_nan() || l > 0.0 {
            return Err(PabiError::domain("delta", "in [0, 1] (a privacy profile)", l.exp()).at(i));
        }
    }
    let lj = log_delta[j - 1];
    if lj == 0.0 {
        return Ok((f64::INFINITY, 1.0));
    }
    let mut dj = crate::num::exp_up_unit(lj);
    // δ_i/(1 − δ_J) in log space, rounded up: −ln(1 − δ_J) by log1p of δ_J rounded up where
    // δ_J ≤ ½; above, from ln δ_J itself (δ_J rounded up by INFLATE reached 1 at
    // δ_J ≥ 1 − 1.4e-14, which gave +∞): 1 − δ_J = −expm1(ln δ_J), expm1 faithful (< 1 ulp),
    // so c = (its value)·(1 − 2ε) ≤ 1 − δ_J, and −ln c (ln faithful) times 1 + 2ε ≥ −ln(1 − δ_J).
    // δ_J itself is then e^{ln δ_J} rounded up by two doubles (capped at 1: still an upper bound).
    let shift = if dj <= 0.5 {
        -(-dj).ln_1p() * (1.0 + EPS2)
    } else {
        dj = crate::num::round::exp_up(lj).min(1.0);
        let c = -lj.exp_m1() * (1.0 - EPS2);
        -c.ln() * (1.0 + EPS2)
    };
    let mut best = 0.0f64;
    for i in 0..j - 1 {
        let l = log_delta[i];
        if l == f64::NEG_INFINITY {
            continue;
        }
        let l = l + shift;
        let e = eps[i + 1];
        if best > 0.0 && log_theta_low(e, best) >= l + EPS * l.abs() + 1e-300 {
            continue;
        }
        best = best.max(mu_at_least(e, l));
        if best == f64::INFINITY {
            break;
        }
    }
    Ok((best, dj))
}

/// ε(δ) after `epochs` compositions of the pair (μ, δ_J) of [`gdp_dominating_pair`]: the
/// smallest ε with 1 − (1−δ_J)^E + (1−δ_J)^E·θ_{e^ε}(√E·μ) ≤ δ (+∞ if δ_J's atoms alone
/// exceed δ).
pub fn gdp_composed_epsilon(delta: f64, mu: f64, delta_tail: f64, epochs: f64) -> Result<f64> {
    check_delta(delta)?;
    if mu.is_nan() || mu < 0.0 {
        return Err(PabiError::domain("mu", ">= 0", mu));
    }
    if !(0.0..=1.0).contains(&delta_tail) {
        return Err(PabiError::domain("delta_tail", "in [0, 1]", delta_tail));
    }
    if !(epochs >= 1.0 && epochs.fract() == 0.0 && epochs <= 9.0e15) {
        return Err(PabiError::domain("epochs", "an integer >= 1", epochs));
    }
    if !mu.is_finite() {
        return Ok(f64::INFINITY);
    }
    let keep_log = epochs * (-delta_tail).ln_1p();
    let atom = crate::num::up(-keep_log.exp_m1());
    if atom >= delta {
        return Ok(f64::INFINITY);
    }
    // θ ≤ (δ − a)/(1 − a), decreasing in the atom mass a: the rounded-up atom is safe
    let t = crate::num::down((delta - atom) / (1.0 - atom));
    if t <= 0.0 {
        return Ok(f64::INFINITY);
    }
    let mu_e = crate::num::up(epochs.sqrt() * mu);
    gdp_epsilon(t.min(1.0 - 1e-16), mu_e)
}

#[path = "gdp_arrays.rs"]
mod arrays;
pub use arrays::{gdp_epsilon_array, gdp_mu_array};

#[cfg(test)]
#[path = "gdp_tests.rs"]
mod tests;
