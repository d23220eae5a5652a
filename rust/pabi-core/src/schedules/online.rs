//! Online PNSGD with decaying noise (Sordello–Bu–Dong §6; SPEC_pabi.md §4.4–§4.6).
//!
//! δ_n(i) = A_i·∏_{t=i+1}^n B_t (003 eq. (11)), evaluated as ln A_i + Σ_t ln B_t.
//!
//! * Any per-step noise array: [`online_delta_all`] (every index: the per-step factor logs by
//!   the engine's block kernels, then an O(n) Neumaier-compensated suffix scan in two parallel
//!   passes) and [`online_log_delta_at`].
//! * The online schedules v_j (eq. (12)) and σ_j (eq. (14)) ([`OnlineSchedule`]): δ_n(i) for n up
//!   to 1e15 and beyond (direct sum of the first 2^18 factors, then a certified upper bound of
//!   the remaining finite sum, below); the exact limit δ_∞(i) = A_i·exp(Σ_{t>i} g(t)) (direct
//!   sum, then the Euler–Maclaurin tail Σ_{t≥a} g ≈ ∫_a^∞ g + g(a)/2 − g'(a)/12, an estimate
//!   with its error margin added); a certified upper bound of δ_∞(i) (below); and the paper's
//!   integral bounds eqs. (13), (15) (corrected, or as printed on request).
//!
//! The estimates (the exact limit, eqs. (13)/(15)) integrate ∫_X^∞ g by tanh–sinh
//! quadrature after x = X·s^{−1/(α−1)}, which maps the algebraic tail g(x) ~ −c·x^{−α} onto a
//! bounded integrand on (0, 1], with the usual (heuristic) error estimate |I_h − I_2h|.
//! All functions return natural logarithms (δ underflows long before its log does).
//!
//! # The certified sums (δ_n for n − i > 2^18, and the certified limit bound)
//!
//! ln δ_n(i) ≤ ln A_i + Σ_{t=i+1}^{i+2^18} g(t) + U_n, where every term of the direct sum is
//! rounded up and U_n ≥ Σ_{t=a}^{n} g(t), a = i + 2^18 + 1 (n = ∞ for the limit), is
//! ([`OnlineSchedule::sum_upper`]):
//!
//! * g concave on [a, ∞) (below, "Concavity"): the trapezoid rule on each [t, t+1] has the
//!   error ∫_t^{t+1} g − (g(t) + g(t+1))/2 = −g''(ξ_t)/12 ≥ 0, so summed
//!   Σ_{t=a}^{n} g(t) = ∫_a^n g + (g(a) + g(n))/2 − Σ_{t=a}^{n−1} |g''(ξ_t)|/12
//!   ≤ ∫_a^n g + (g(a) + g(n))/2 (Hermite–Hadamard). If moreover g''' ≥ 0 on (a, ∞)
//!   (below, "Third derivative"), |g''| is non-increasing, |g''(ξ_t)| ≥ |g''(t+1)|
//!   ≥ ∫_{t+1}^{t+2} |g''|, and the defect sum is ≥ ∫_{a+1}^{n+1} |g''| = g'(a+1) − g'(n+1)
//!   ≥ g'(a+2) − g'(n+1) (g' decreasing): this is subtracted, with g'(a+2) bounded from below
//!   and g'(n+1) from above (g'(x) = F'(ln x)/x from the bracketed ℓ = ln F' at a point
//!   moved to the safe side of ln x).
//! * otherwise (g increasing: g(t) ≤ ∫_t^{t+1} g): Σ_{t=a}^{n} g ≤ ∫_a^{n+1} g.
//!
//! ∫_a^n g = ∫_a^∞ g − ∫_n^∞ g takes the certified upper end of the first bracket and the lower
//! end of the second ("Certified quadrature", below); every addition is Neumaier-compensated and
//! its rounding bounded outward. Nothing is assumed or estimated. The remaining gap to the exact
//! sum is ≈ the quadrature width (≈ 2e-13 relative to ∫ g) plus, without the g''' step,
//! g'(a)/12 (≈ 1e-12 relative at the paper's parameters).
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

use rayon::prelude::*;

use super::{count, finite_nonneg, finite_pos, Noise, Problem, NUDGE};
use multiversion::multiversion;

use crate::batch::{pool, PAR_MIN};
use crate::error::{PabiError, Result};
use crate::gd::Radii;
use crate::num::{shift_log, INFLATE, TINY};
use crate::pnsgd::{log_a_gauss_block, log_b_gauss_block};
use crate::{lambertw, theta, vmath};

const EPS: f64 = f64::EPSILON;
/// Number of factors summed directly before the Euler–Maclaurin tail takes over.
pub const DIRECT_TERMS: f64 = 262_144.0;
/// Relative width asked of the certified quadrature in the certified limit (the width also has
/// a floor of ≈ 2e-13 from the rounding of the integrand's logarithm).
const CERT_TOL: f64 = 1e-13;

/// Neumaier accumulator.
#[derive(Clone, Copy, Default)]
struct Acc {
    s: f64,
    c: f64,
}

impl Acc {
    #[inline(always)]
    fn add(&mut self, x: f64) {
        let t = self.s + x;
        if self.s.abs() >= x.abs() {
            self.c += (self.s - t) + x;
        } else {
            self.c += (x - t) + self.s;
        }
        self.s = t;
    }
    #[inline(always)]
    fn value(&self) -> f64 {
        self.s + self.c
    }
}

/// ln of the per-step factor h(ε, r) (θ or the Laplace factor), rounded up; r nudged up.
#[inline(always)]
fn log_factor(kind: Noise, eps: f64, r: f64) -> f64 {
    let r = r * (1.0 + NUDGE);
    match kind {
        Noise::Gaussian => theta::log_theta_tight(eps, r),
        Noise::Laplace => theta::log_laplace_theta(eps, r),
    }
}

fn check_noise(noise: &[f64]) -> Result<()> {
    if noise.is_empty() {
        return Err(PabiError::Shape {
            message: "noise must be a non-empty array of per-step noise levels".into(),
        });
    }
    if let Some(i) = crate::batch::first_bad(noise, |x| x > 0.0 && x.is_finite()) {
        return Err(PabiError::domain("noise", "finite and > 0", noise[i]).at(i));
    }
    Ok(())
}

/// Fill ln A_t, ln B_t (rounded up) for one chunk of steps, block by block: radii from
/// [`Radii::at`] (rounded up), the Gaussian factors by the engine's block kernels (one θ-type
/// evaluation per factor: ln A from θ, ln B from 1 − θ as in the fixed-order PNSGD bound, see
/// `pnsgd::log_b_gauss_block`), the Laplace factors in closed form.
/// Compiled for the best SIMD target: every engine call below is inlined into the clone.
#[multiversion(targets = "simd")]
fn fill_factor_logs(kind: Noise, eps: f64, rad: Radii, s: &[f64], a: &mut [f64], b: &mut [f64]) {
    const BL: usize = theta::BLOCK;
    let x = [eps; BL];
    for ((sc, ac), bc) in s.chunks(BL).zip(a.chunks_mut(BL)).zip(b.chunks_mut(BL)) {
        let nl = sc.len();
        let (mut ra, mut rb) = ([0.0; BL], [0.0; BL]);
        for t in 0..nl {
            (ra[t], rb[t]) = rad.at(sc[t]);
        }
        match kind {
            Noise::Gaussian => {
                let (mut th, mut u) = ([0.0; BL], [0.0; BL]);
                theta::theta_block(&x[..nl], &ra[..nl], &mut th[..nl]);
                log_a_gauss_block(&th[..nl], &x[..nl], &ra[..nl], ac);
                theta::theta_complement_block(&x[..nl], &rb[..nl], &mut u[..nl]);
                log_b_gauss_block(&u[..nl], &x[..nl], &rb[..nl], bc);
            }
            Noise::Laplace => {
                for t in 0..nl {
                    ac[t] = theta::log_laplace_theta(eps, ra[t]);
                    bc[t] = theta::log_laplace_theta(eps, rb[t]);
                }
            }
        }
    }
}

/// ln δ from ln A and the suffix sum s of the ln B (rounded up; −∞ when A = 0 or a later
/// B = 0).
#[inline(always)]
fn finish_suffix(la: f64, s: f64, zero: bool) -> f64 {
    if zero || la == f64::NEG_INFINITY {
        f64::NEG_INFINITY
    } else {
        shift_log(la + s, 1.0, 4.0 * EPS / INFLATE * (la.abs() + s.abs()))
    }
}

/// Pass 2 of the scan for one chunk: out[t] holds ln A_t on entry; `acc`/`zero` carry the
/// (compensated) sum of the ln B of every later step. Converts to δ unless `log`.
#[multiversion(targets = "simd")]
fn scan_chunk(out: &mut [f64], lb: &[f64], mut acc: Acc, mut zero: bool, log: bool) {
    for t in (0..out.len()).rev() {
        let v = finish_suffix(out[t], acc.value(), zero);
        out[t] = if log { v } else { prob_from_log(v) };
        if lb[t] == f64::NEG_INFINITY {
            zero = true;
        } else {
            acc.add(lb[t]);
        }
    }
}

/// δ from ln δ, rounded up, in [0, 1] (`num::exp_up_unit` with the vectorizable exp, and no
/// libm underflow path: ln δ below −746 gives `up(0)` = [`TINY`]).
#[inline(always)]
pub fn prob_from_log(v: f64) -> f64 {
    if v == f64::NEG_INFINITY {
        0.0
    } else if v < -708.0 {
        // (subnormal or zero: the constant, no arithmetic on subnormals, which is slow)
        if v < -746.0 {
            TINY
        } else {
            crate::num::up(vmath::exp(v))
        }
    } else {
        crate::num::up(vmath::exp(v)).min(1.0)
    }
}

/// Neumaier sum of a chunk of ln B and whether one of them is −∞ (B = 0).
#[inline(always)]
fn chunk_sum(lb: &[f64]) -> (Acc, bool) {
    let mut acc = Acc::default();
    let mut zero = false;
    for &v in lb.iter().rev() {
        if v == f64::NEG_INFINITY {
            zero = true;
        } else {
            acc.add(v);
        }
    }
    (acc, zero)
}

/// Steps per chunk of the parallel scan.
const SCAN_CHUNK: usize = 1 << 13;

/// δ_n(i) (or ln δ_n(i) with `log`) for every i = 1..n (out[i−1]), noise[t−1] = σ_t (Gaussian)
/// or v_t (Laplace); rounded up. ln δ_n(i) = ln A_i + Σ_{t>i} ln B_t as a suffix scan in two
/// passes, both parallel for long arrays: (1) the per-step factors ln A_t, ln B_t (the
/// expensive part) and each chunk's Neumaier sum of ln B; the chunk offsets (suffix sums of
/// the chunk sums, compensated); (2) the Neumaier suffix scan inside each chunk from its
/// offset. With one chunk this is the sequential compensated scan.
pub fn online_delta_all(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    out: &mut [f64],
    log: bool,
) -> Result<()> {
    check_noise(noise)?;
    let n = noise.len();
    if out.len() != n {
        return Err(PabiError::Shape {
            message: "output length differs from the noise length".into(),
        });
    }
    let mut lb = vec![0.0; n];
    let (eps, rad) = (p.eps, p.radii());
    let pl = pool().filter(|_| n >= PAR_MIN);
    let pass1 = |(s, (a, b)): (&[f64], (&mut [f64], &mut [f64]))| {
        if crate::interrupt::requested() {
            return (Acc::default(), false); // discarded: checked after the pass
        }
        fill_factor_logs(kind, eps, rad, s, a, b);
        chunk_sum(b)
    };
    let sums: Vec<(Acc, bool)> = match &pl {
        Some(pl) => pl.install(|| {
            noise
                .par_chunks(SCAN_CHUNK)
                .zip(
                    out.par_chunks_mut(SCAN_CHUNK)
                        .zip(lb.par_chunks_mut(SCAN_CHUNK)),
                )
                .map(pass1)
                .collect()
        }),
        None => noise
            .chunks(SCAN_CHUNK)
            .zip(out.chunks_mut(SCAN_CHUNK).zip(lb.chunks_mut(SCAN_CHUNK)))
            .map(pass1)
            .collect(),
    };
    crate::interrupt::check()?;
    // offsets[c] = Σ over the chunks after c
    let mut offsets = vec![(Acc::default(), false); sums.len()];
    for c in (0..sums.len().saturating_sub(1)).rev() {
        let (mut acc, zero) = offsets[c + 1];
        let (s, z) = sums[c + 1];
        acc.add(s.s);
        acc.add(s.c);
        offsets[c] = (acc, zero || z);
    }
    type Part<'a> = ((&'a mut [f64], &'a [f64]), &'a (Acc, bool));
    let pass2 = |((o, b), &(acc, zero)): Part| scan_chunk(o, b, acc, zero, log);
    match &pl {
        Some(pl) => pl.install(|| {
            out.par_chunks_mut(SCAN_CHUNK)
                .zip(lb.par_chunks(SCAN_CHUNK))
                .zip(offsets.par_iter())
                .for_each(pass2)
        }),
        None => out
            .chunks_mut(SCAN_CHUNK)
            .zip(lb.chunks(SCAN_CHUNK))
            .zip(offsets.iter())
            .for_each(pass2),
    }
    Ok(())
}

/// ln δ_n(i) for every i = 1..n (see [`online_delta_all`]).
pub fn online_log_delta_all(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    out: &mut [f64],
) -> Result<()> {
    online_delta_all(kind, p, noise, out, true)
}

/// ln δ_n(index) for one 1-based index (O(n − index), the same factors and compensated
/// summation as [`online_delta_all`], so the two agree).
pub fn online_log_delta_at(kind: Noise, p: &Problem, noise: &[f64], index: f64) -> Result<f64> {
    check_noise(noise)?;
    let n = noise.len() as f64;
    if !(index >= 1.0 && index <= n && index == index.floor()) {
        return Err(PabiError::domain(
            "index",
            format!("an integer in 1..=n (n = {n})"),
            index,
        ));
    }
    let i = index as usize - 1;
    let tail = &noise[i..];
    let mut out = vec![0.0; tail.len()];
    online_delta_all(kind, p, tail, &mut out, true)?;
    Ok(out[0])
}

/// Grid point of the certified quadrature (see [`OnlineSchedule::integral_bracket`]).
#[derive(Clone, Copy)]
struct QPoint {
    s: f64,
    /// ln F'(s) bracket.
    l_lo: f64,
    l_hi: f64,
    /// Gaussian: ρ = 1 − C2/z, 1 − ρ; Laplace: p = v/(v+d), q = v/(v+d−c) (v = x^α).
    u1: f64,
    u2: f64,
    /// Gaussian: B(w), D1(w) = −4w/(1+w)⁴, D2(w) = −ε²(2w+1)/(4w(1+w)³), w = W(z).
    b: f64,
    d1: f64,
    d2: f64,
    w: f64,
}

/// Result of [`OnlineSchedule::bracket`]: lo ≤ ∫_X^∞ g ≤ hi, and whether g''' ≥ 0 (−g''
/// non-increasing) is proven on (X, ∞).
#[derive(Clone, Copy, Debug)]
struct Bracket {
    lo: f64,
    hi: f64,
    g3: bool,
}

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
        let r = y.powi(4) * vmath::exp(y.abs()) / 1008.0 + 4.0 * EPS * v;
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
    let err = (8.0 * EPS + 2.0 * EPS * (lc.abs() + lq.abs() + s.abs())) * (t1 + t2);
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
}

/// softplus(y) = ln(1 + e^y).
#[inline(always)]
fn softplus(y: f64) -> f64 {
    y.max(0.0) + vmath::log1p(vmath::exp(-y.abs()))
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

/// Σ_{k=lo}^{hi−1} g(from + k) for the Gaussian schedule, compensated, in the order of the
/// scalar loop (bitwise equal to it): the radii of 32 steps at a time, then the engine's
/// [`theta::log_theta_tight_block`] (independent lanes: throughput- instead of latency-bound).
#[multiversion(targets = "simd")]
fn gauss_direct_chunk(sc: &OnlineSchedule, from: f64, lo: u64, hi: u64) -> Acc {
    const BL: usize = theta::BLOCK;
    let e = [sc.p.eps; BL];
    let mut acc = Acc::default();
    let mut k = lo;
    while k < hi {
        let m = ((hi - k) as usize).min(BL);
        let (mut r, mut g) = ([1.0; BL], [0.0; BL]);
        for (j, rj) in r[..m].iter_mut().enumerate() {
            *rj = sc.gauss_rb(from + (k + j as u64) as f64) * (1.0 + NUDGE);
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
    pub fn new(kind: Noise, p: Problem, c1: f64, c2: f64, decay: f64) -> Result<Self> {
        finite_pos("c1", c1)?;
        finite_nonneg("c2", c2)?;
        if !(decay > 1.0 && decay.is_finite()) {
            return Err(PabiError::domain("decay", "finite and > 1", decay));
        }
        let ln_c1 = vmath::ln(c1);
        let ln_c = ln_c1 + 0.5 * p.eps;
        let c = vmath::exp(ln_c) * (1.0 - 4.0 * EPS);
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
            d: c1 * c2,
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
    /// (every B_t > 0 from t = i on; SPEC §4.5).
    pub fn check_index(&self, name: &'static str, i: f64) -> Result<()> {
        count(name, i, 1.0)?;
        if self.kind == Noise::Laplace {
            let lhs = crate::num::log_add_exp(self.decay * vmath::ln(i), vmath::ln(self.d));
            if lhs.partial_cmp(&self.ln_c) != Some(std::cmp::Ordering::Greater) {
                return Err(PabiError::domain(
                    name,
                    format!(
                        "such that {name}^decay + c1*c2 > c1*e^(eps/2) = {} (the schedule's B_t must be > 0)",
                        self.ln_c.exp()
                    ),
                    i,
                ));
            }
        }
        Ok(())
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
                // ln(j^α/C1 + C2) near 0: recompute with log1p.
                let q = (self.decay * vmath::ln(j) - self.ln_c1).exp();
                let la = if q + self.c2 < 2.0 {
                    vmath::log1p(q + (self.c2 - 1.0))
                } else {
                    la
                };
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
                // r_A = 2L/v_i = 2κ ln(i^α/C1 + C2); printed: exponent −ε/2 − κ ln(...)
                let r = 2.0 * self.p.kappa() * la;
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

    /// r_A = 2L/σ_i (Gaussian), used by the printed eq. (15).
    fn r_a(&self, i: f64) -> f64 {
        let rb = 2.0 * lambertw::wright_omega(self.ln_arg(vmath::ln(i))).sqrt();
        self.p.kappa() * rb
    }

    /// g(t) = ln B_t, rounded up.
    #[inline(always)]
    pub fn g(&self, t: f64) -> f64 {
        match self.kind {
            Noise::Laplace => {
                // c is rounded down; c/y and log1p add ≤ 5 ulp (relative): move 8 ulp up.
                let y = t.powf(self.decay) + self.d;
                let v = vmath::log1p(-self.c / y);
                v - 8.0 * EPS * v
            }
            Noise::Gaussian => log_factor(Noise::Gaussian, self.p.eps, self.gauss_rb(t)),
        }
    }

    /// r_B = 2·sqrt(W0(z_t)) of step t (Gaussian schedule), to nearest.
    #[inline(always)]
    fn gauss_rb(&self, t: f64) -> f64 {
        2.0 * lambertw::wright_omega(self.ln_arg(vmath::ln(t))).sqrt()
    }

    /// ln(−g(e^{lx})), for the quadrature (no overflow for any lx).
    #[inline(always)]
    fn ln_neg_g(&self, lx: f64) -> f64 {
        let ln_u = match self.kind {
            Noise::Laplace => {
                self.ln_c - crate::num::log_add_exp(self.decay * lx, vmath::ln(self.d))
            }
            Noise::Gaussian => {
                let rb = 2.0 * lambertw::wright_omega(self.ln_arg(lx)).sqrt();
                let r = rb * (1.0 + NUDGE);
                let lu = theta::log_theta_complement_tight(self.p.eps, r);
                if lu > -std::f64::consts::LN_2 {
                    // θ < 1/2 (small r): −g = −ln θ directly (1 − θ would round to 1 where θ
                    // underflows, giving ln(−g) = ∞)
                    return vmath::ln(-theta::log_theta_tight(self.p.eps, r));
                }
                lu
            }
        };
        ln_neg_log1m(ln_u)
    }

    /// g concave on [a, ∞)? A sufficient condition, proven (module doc, "Concavity").
    ///
    /// Laplace: with y = x^α + d, g' = α c x^{α−1}/(y(y − c)) > 0 and
    /// d ln g'/dx = (α−1)/x − αx^{α−1}(1/y + 1/(y−c)) < 0 ⟺ α−1 < αx^α(1/y + 1/(y−c)). If
    /// d ≤ c then x^α/(y−c) ≥ 1 and the right side exceeds α; if d > c the right side is
    /// ≥ 2αx^α/y, increasing in x, and exceeds α−1 iff x^α(α+1) > d(α−1).
    /// Gaussian: g''(x) = F'(s)(L(s) − 1)/x² with s = ln x, F' > 0 and
    /// L ≤ α·max(ρB(w), B(w)) + 2α(1 − ρ) on [a, ∞) (evaluated at a); concave if that is < 1.
    fn concave_from(&self, a: f64) -> bool {
        match self.kind {
            Noise::Laplace => {
                // (margins: d and a^α to nearest, c rounded down)
                self.d * (1.0 + 4.0 * EPS) <= self.c
                    || a.powf(self.decay) * (1.0 - 1e-12)
                        >= self.d * (self.decay - 1.0) / (self.decay + 1.0)
            }
            Noise::Gaussian => {
                let la = vmath::ln(a);
                let q = self.qpoint(la - 4.0 * EPS * la.abs()); // a point ≤ a
                let alpha = self.decay;
                let sl = 1e-14 * alpha * (4.0 + q.b.abs());
                alpha * (q.u1 * q.b).max(q.b) + 2.0 * alpha * q.u2 + sl < 1.0
            }
        }
    }

    /// ∫_X^∞ g(x) dx and an error estimate (tanh–sinh, x = X·s^{−1/(α−1)}).
    pub fn integral_from(&self, x0: f64) -> (f64, f64) {
        let p = 1.0 / (self.decay - 1.0);
        let lx0 = vmath::ln(x0);
        let f = |ln_s: f64| -> f64 {
            let lx = lx0 - p * ln_s;
            -p * vmath::exp(self.ln_neg_g(lx) + lx - ln_s)
        };
        const H: f64 = 1.0 / 64.0;
        const K: i32 = 256; // τ ∈ [−4, 4]
        let (mut all, mut even) = (Acc::default(), Acc::default());
        for k in -K..=K {
            let tau = k as f64 * H;
            let q = std::f64::consts::PI * tau.sinh();
            let ln_s = -softplus(-q);
            let ln_1ms = -softplus(q);
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

    // -----------------------------------------------------------------------------------------
    // Certified bracket of ∫_X^∞ g (see the module doc, "Certified quadrature")

    /// The integrand data at s = ln x: a bracket of ℓ(s) = ln F'(s) (F(s) = g(e^s)) and the
    /// monotone quantities the piece bounds are built from.
    fn qpoint(&self, s: f64) -> QPoint {
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
                let c = vmath::exp(self.ln_c);
                let (pd, pe) = (self.d * e, (self.d - c) * e);
                let l =
                    vmath::ln(alpha) + self.ln_c - alpha * s - vmath::log1p(pd) - vmath::log1p(pe);
                let sl = 4.0
                    * EPS
                    * (vmath::ln(alpha).abs()
                        + 2.0 * self.ln_c.abs()
                        + 2.0 * alpha * s.abs()
                        + 3.0)
                    + 8.0 * EPS * (pd.abs() + pe.abs()) / (1.0 + pe).min(1.0);
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
    fn piece_bounds(&self, p: &QPoint, q: &QPoint) -> ((f64, f64), (f64, f64)) {
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
                let fhi = vmath::exp(p.l_hi + l0.1.max(0.0) * h) * (1.0 + 4.0 * EPS);
                let llo = l0.0 - fhi;
                let flo = if decreasing {
                    vmath::exp(q.l_lo)
                } else {
                    vmath::exp(p.l_lo + llo.min(0.0) * h)
                } * (1.0 - 4.0 * EPS);
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
                let gamma = alpha + vmath::exp(p.l_hi) * (1.0 + 4.0 * EPS) + sl;
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
    /// ∫_X^N g = (N − X)·g(N) − ∫_{ln X}^{ln N} F'(t)(e^t − X) dt (module doc, "The certified
    /// sums"), and g''' ≥ 0 on the pieces up to N. No difference of two infinite integrals is
    /// formed, so the bound is tight relative to ∫_X^N g itself however close N is to X.
    fn bracket(&self, x0: f64, tol: f64, end: Option<f64>) -> Bracket {
        let alpha = self.decay;
        let lx0 = vmath::ln(x0);
        let l_end = end.map(vmath::ln);
        // start at s0 ≥ ln X (the omitted [ln X, s0] is added to the upper J below)
        let gap = 4.0 * EPS * lx0.abs() + f64::MIN_POSITIVE;
        let s0 = lx0 + gap;
        let mut p = self.qpoint(s0);
        let mut jlo = Acc::default();
        let mut jhi = Acc::default();
        let (mut err_lo, mut err_hi) = (0.0, 0.0); // rounding-error bounds of the two sums
                                                   // [ln X − gap, s0]: F'(e^t − X) ≤ F'·X·(2gap), length ≤ 2 gap
        jhi.add(vmath::exp(p.l_hi + s0 + 1.0) * 4.0 * gap * gap * (1.0 + alpha));
        let mut h: f64 = 1e-3 / alpha.max(1.0);
        const MAX_PIECES: usize = 1 << 20;
        let mut tail = (0.0, f64::INFINITY);
        let mut g3 = true; // g''' ≥ 0 on every piece so far
        let mut g3_tail = false; // … and on the far tail [S, ∞)
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
                let t_lo = (lo1 - lo2 - 8.0 * EPS * (lo1 + lo2)).max(0.0);
                let t_hi = if lambda > 1.0 {
                    let hi1 = vmath::exp(p.l_hi + p.s) / (lambda - 1.0);
                    let hi2 = x0 * vmath::exp(p.l_hi) / lambda;
                    let v = hi1 - hi2 + 8.0 * EPS * (hi1 + hi2);
                    if v.is_finite() {
                        v
                    } else {
                        f64::INFINITY
                    }
                } else {
                    f64::INFINITY
                };
                tail = (t_lo, t_hi);
                if t_hi - t_lo <= 0.25 * tol * (jlo.value() + t_lo) || k == MAX_PIECES {
                    break;
                }
            }
            if k == MAX_PIECES {
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
            let e_lo = lo_mag + 4.0 * EPS * (k_lo * lo_curv.1).abs();
            let e_hi = hi_mag + 4.0 * EPS * (k_hi2 * hi_curv.1).abs();
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
            let j_lower = (jl - err_lo - end_err - 4.0 * EPS * jl.abs()).max(0.0);
            // (N − X)·g(N): N − X exact (integers below 2^53), g(N) rounded up, the product
            // moved up by one rounding
            let gn = (n - x0) * self.g(n);
            let gn = gn - EPS * gn.abs();
            let v = gn - j_lower;
            let hi = (v + 2.0 * EPS * (gn.abs() + j_lower)).min(0.0);
            return Bracket {
                lo: f64::NEG_INFINITY,
                hi: if hi.is_nan() { 0.0 } else { hi },
                g3,
            };
        }
        let g3 = g3 && g3_tail && tail.1.is_finite();
        let lo_tot = jlo.value() + tail.0;
        let hi_tot = jhi.value() + tail.1;
        let int_hi = -(lo_tot - err_lo - 4.0 * EPS * lo_tot.abs()).max(0.0);
        let int_lo = -(hi_tot + err_hi + 4.0 * EPS * hi_tot.abs());
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

    /// Σ_{t=from}^{to} g(t), Neumaier-compensated (in parallel for long ranges).
    fn direct(&self, from: f64, to: f64) -> f64 {
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
                    let mut acc = Acc::default();
                    for k in lo..hi {
                        acc.add(self.g(from + k as f64));
                    }
                    acc
                }
            };
            (acc.s, acc.c)
        };
        let nch = n.div_ceil(CH);
        let parts: Vec<(f64, f64)> = match pool() {
            Some(pl) if n >= 2 * CH => pl.install(|| (0..nch).into_par_iter().map(chunk).collect()),
            _ => (0..nch).map(chunk).collect(),
        };
        let mut acc = Acc::default();
        for (s, c) in parts {
            acc.add(s);
            acc.add(c);
        }
        acc.value()
    }

    /// Σ_{t≥a} g(t) by Euler–Maclaurin (estimate) and its error margin.
    fn tail_em(&self, a: f64) -> (f64, f64) {
        let (int, err) = self.integral_from(a);
        let h = a * (1.0 / 1024.0);
        let gp = (self.g(a + h) - self.g(a - h)) / (2.0 * h);
        let ga = self.g(a);
        let v = int + 0.5 * ga - gp / 12.0;
        (
            v,
            2.0 * err + 1e-6 * gp.abs() + 4.0 * EPS * (int.abs() + ga.abs()),
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
    fn sum_upper(&self, a: f64, n: Option<f64>) -> f64 {
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
        let mut acc = Acc::default();
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
                let s2 = vmath::ln(a + 2.0) * (1.0 + 4.0 * EPS);
                let d2 = vmath::exp(self.qpoint(s2).l_lo - s2) * (1.0 - 16.0 * EPS);
                let dn = match n {
                    Some(n) => {
                        let sn = vmath::ln(n) * (1.0 - 4.0 * EPS);
                        vmath::exp(self.qpoint(sn).l_hi - sn) * (1.0 + 16.0 * EPS)
                    }
                    None => 0.0,
                };
                let corr = (d2 - dn) / 12.0;
                if corr.is_finite() && corr > 0.0 {
                    acc.add(-corr * (1.0 - 4.0 * EPS));
                }
            }
        }
        let v = acc.value();
        (v + 4.0 * EPS * mag).min(0.0)
    }

    fn finish(la: f64, s: f64) -> f64 {
        if la == f64::NEG_INFINITY {
            return la;
        }
        shift_log(la + s, 1.0, 4.0 * EPS / INFLATE * (la.abs() + s.abs()))
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
        Ok(Self::finish(la, self.direct(i + 1.0, t) + e + m))
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
            (int + 2.0 * err + 8.0 * EPS * int.abs()).min(0.0)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(n: usize) -> Vec<f64> {
        (1..=n)
            .map(|t| {
                40.0 * (t as f64).powf(-0.3) * (0.8 + 0.4 * ((t * 7919 % 1000) as f64) / 1000.0)
            })
            .collect()
    }

    /// The chunked two-pass scan (several chunks) against a plain sequential scalar evaluation
    /// of ln A_i + Σ_{t>i} ln B_t with the same per-step factors.
    #[test]
    fn chunked_scan_matches_sequential() {
        for kind in [Noise::Gaussian, Noise::Laplace] {
            let p = Problem::new(1.0, 1.0, 0.1, 1.0, None, 0.0).unwrap();
            let mut s = noise(3 * SCAN_CHUNK + 123);
            if kind == Noise::Laplace {
                // r_B = 10/v > ε mostly (B > 0); a few zero factors remain
                s.iter_mut().for_each(|x| *x /= 20.0);
                s[5000] = 100.0;
            }
            let mut out = vec![0.0; s.len()];
            online_log_delta_all(kind, &p, &s, &mut out).unwrap();
            let (mut la, mut lb) = (vec![0.0; s.len()], vec![0.0; s.len()]);
            fill_factor_logs(kind, p.eps, p.radii(), &s, &mut la, &mut lb);
            let mut acc = Acc::default(); // sequential compensated sum
            let mut zero = false;
            for t in (0..s.len()).rev() {
                let want = la[t] + acc.value();
                if zero || la[t] == f64::NEG_INFINITY {
                    assert_eq!(out[t], f64::NEG_INFINITY);
                    zero |= lb[t] == f64::NEG_INFINITY;
                    if !zero {
                        acc.add(lb[t]);
                    }
                    continue;
                }
                assert!(
                    (out[t] - want).abs() <= 1e-13 * want.abs().max(1.0),
                    "{kind:?} {t}: {} vs {want}",
                    out[t]
                );
                assert!(out[t] >= want.min(0.0), "{kind:?} {t}: not rounded up"); // rounded up
                if lb[t] == f64::NEG_INFINITY {
                    zero = true;
                } else {
                    acc.add(lb[t]);
                }
            }
            // values: exp of the logs, rounded up, in [0, 1]
            let mut v = vec![0.0; s.len()];
            online_delta_all(kind, &p, &s, &mut v, false).unwrap();
            let checked = out.iter().filter(|v| v.is_finite()).count();
            assert!(
                checked > s.len() / 2,
                "{kind:?}: too few finite values to test"
            );
            for t in 0..s.len() {
                let e = out[t].exp();
                assert!(v[t] >= e && v[t] <= 1.0 && v[t] <= e * (1.0 + 1e-13) + 1e-320);
            }
        }
    }

    /// The Gaussian factor logs by blocks equal the scalar forms bitwise.
    #[test]
    fn block_factor_logs_equal_scalar() {
        let p = Problem::new(0.7, 1.3, 0.1, 1.0, None, 0.0).unwrap();
        let mut s = noise(1000);
        s.extend([1e-3, 1e3, 0.05, 3.0, 1e-6]);
        let (mut la, mut lb) = (vec![0.0; s.len()], vec![0.0; s.len()]);
        fill_factor_logs(Noise::Gaussian, p.eps, p.radii(), &s, &mut la, &mut lb);
        for (t, &x) in s.iter().enumerate() {
            let (ra, rb) = p.radii().at(x);
            let a = theta::theta(p.eps, ra);
            let want_a = if a > 1e-300 {
                let l = vmath::ln(a);
                l - 2.0 * f64::EPSILON * l
            } else {
                theta::log_theta(p.eps, ra)
            };
            assert_eq!(la[t].to_bits(), want_a.to_bits(), "ln A at {t}");
            let u = theta::theta_complement(p.eps, rb);
            let mut one = [0.0];
            log_b_gauss_block(&[u], &[p.eps], &[rb], &mut one);
            assert_eq!(lb[t].to_bits(), one[0].to_bits(), "ln B at {t}");
            assert!(lb[t] <= 0.0 && la[t] <= 0.0);
        }
    }

    /// The block direct sum of the Gaussian schedule is bitwise equal to the scalar loop over g,
    /// including ranges that end inside a block, and lanes with θ < ½ (small r: the θ kernel).
    #[test]
    fn gauss_direct_chunk_equals_scalar_loop() {
        let mut scheds = schedules();
        let p = Problem::new(3.0, 0.5, 0.01, 1.0, None, 0.0).unwrap();
        scheds.push(OnlineSchedule::new(Noise::Gaussian, p, 1e4, 0.5, 1.1).unwrap());
        for sc in scheds.iter().filter(|s| s.kind == Noise::Gaussian) {
            for (from, len) in [(1.0, 1000u64), (101.0, 77), (262_245.0, 300), (1e12, 33)] {
                let mut acc = Acc::default();
                for k in 0..len {
                    acc.add(sc.g(from + k as f64));
                }
                let b = gauss_direct_chunk(sc, from, 0, len);
                assert_eq!((b.s, b.c), (acc.s, acc.c), "from {from}, len {len}");
            }
        }
    }

    fn schedules() -> Vec<OnlineSchedule> {
        let mut v = Vec::new();
        for kind in [Noise::Gaussian, Noise::Laplace] {
            for (eps, c1, c2, decay) in [
                (1.0, 100.0, 100.0, 1.5), // Fig. 4/5
                (0.5, 5.0, 3.0, 2.0),
                (2.0, 1.0, 10.0, 1.2),
                (6.0, 30.0, 0.0, 3.0),
            ] {
                let p = Problem::new(eps, 10.0, 0.01, 1.0, None, 0.0).unwrap();
                v.push(OnlineSchedule::new(kind, p, c1, c2, decay).unwrap());
            }
        }
        v
    }

    /// The interval bounds of ℓ' and ℓ'' on a piece contain the divided differences of ℓ
    /// (mean-value theorem: (ℓ(s+h) − ℓ(s))/h = ℓ'(ξ), second differences/h² = ℓ''(ξ)).
    #[test]
    fn piece_bounds_contain_divided_differences() {
        for sch in schedules() {
            for s0 in [1.0f64, 2.5, 4.0, 7.0, 12.5, 20.0, 40.0] {
                if sch.kind == Noise::Laplace && sch.check_index("i", s0.exp().ceil()).is_err() {
                    continue;
                }
                let h = 0.05;
                let (p, m, q) = (sch.qpoint(s0), sch.qpoint(s0 + h), sch.qpoint(s0 + 2.0 * h));
                let mid = |x: &QPoint| 0.5 * (x.l_lo + x.l_hi);
                let ((llo, lhi), _) = sch.piece_bounds(&p, &m);
                let d1 = (mid(&m) - mid(&p)) / h;
                let tol1 = 1e-11 * (1.0 + mid(&p).abs());
                assert!(
                    d1 >= llo - tol1 && d1 <= lhi + tol1,
                    "{:?} s={s0}: ℓ' {d1} not in [{llo}, {lhi}]",
                    sch.kind
                );
                // tight: the width of the L bracket is O(h·sup|ℓ''|) (where F' = e^ℓ is small, as in the tails)
                let (_, (m1, m2)) = sch.piece_bounds(&p, &m);
                assert!(
                    p.l_hi > -4.0 || lhi - llo <= 4.0 * h * m1.abs().max(m2.abs()) + 1e-12,
                    "{:?} s={s0}: L bracket [{llo}, {lhi}] too wide for ℓ'' in [{m1}, {m2}]",
                    sch.kind
                );
                let (_, (mlo, mhi)) = sch.piece_bounds(&p, &q);
                let d2 = (mid(&p) - 2.0 * mid(&m) + mid(&q)) / (h * h);
                let tol2 = 4e-12 * (1.0 + mid(&p).abs()) / (h * h);
                assert!(
                    d2 >= mlo - tol2 && d2 <= mhi + tol2,
                    "{:?} s={s0}: ℓ'' {d2} not in [{mlo}, {mhi}]",
                    sch.kind
                );
            }
        }
    }

    /// The certified bracket of ∫_X^∞ g contains the tanh–sinh value (accurate to ~1e-15
    /// there) and is narrow.
    #[test]
    fn certified_bracket_contains_quadrature_and_is_narrow() {
        for sch in schedules() {
            for (x0, tol) in [(101.0, 1e-10), (262_245.0, CERT_TOL), (1e9, CERT_TOL)] {
                if sch.check_index("i", x0 - 1.0).is_err() {
                    continue;
                }
                let (lo, hi) = sch.integral_bracket(x0, tol);
                let (v, e) = sch.integral_from(x0);
                assert!(
                    e <= 1e-14 * v.abs(),
                    "{:?} x0={x0}: tanh-sinh estimate {e}",
                    sch.kind
                );
                assert!(
                    lo <= v && v <= hi,
                    "{:?} x0={x0}: {v} not in [{lo}, {hi}]",
                    sch.kind
                );
                let w = (hi - lo) / v.abs();
                assert!(
                    w < 4.0 * tol.max(3e-13),
                    "{:?} x0={x0}: relative width {w:e}",
                    sch.kind
                );
            }
        }
    }

    /// The Gaussian concavity condition: where it holds, g has negative second differences
    /// from a on; with C2 huge it fails (ρ ≈ 0: g is convex near a) and g is indeed convex there.
    #[test]
    fn gauss_concavity_condition() {
        for sch in schedules()
            .into_iter()
            .filter(|s| s.kind == Noise::Gaussian)
        {
            let a = 262_245.0;
            assert!(
                sch.concave_from(a),
                "{:?}",
                (sch.p.eps, sch.c1, sch.c2, sch.decay)
            );
            for k in 0..40 {
                let x = a * 2f64.powi(k);
                let h = x / 8.0;
                let d2 = sch.g(x - h) + sch.g(x + h) - 2.0 * sch.g(x);
                assert!(d2 < 0.0, "second difference at {x}: {d2}");
            }
        }
        let p = Problem::new(1.0, 10.0, 0.01, 1.0, None, 0.0).unwrap();
        let sch = OnlineSchedule::new(Noise::Gaussian, p, 100.0, 1e20, 1.5).unwrap();
        assert!(!sch.concave_from(262_245.0));
        let x = 262_245.0;
        assert!(sch.g(x - x / 8.0) + sch.g(x + x / 8.0) - 2.0 * sch.g(x) > 0.0);
        // the condition is met further out, where C2 no longer dominates z
        assert!(sch.concave_from(1e9));
    }

    /// Deterministic uniform draws in [0, 1) (64-bit LCG, top 53 bits).
    fn uniform(mut state: u64) -> impl FnMut() -> f64 {
        move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// A random schedule (Gaussian for even k, Laplace for odd): ε ∈ [0, 8), C1, C2 log-uniform
    /// over `decades` decades from 0.1 (C2 = 0 with probability `zero_c2`), decay ∈ [1.1, 4).
    fn random_schedule(
        k: usize,
        unif: &mut impl FnMut() -> f64,
        decades: f64,
        zero_c2: f64,
    ) -> (OnlineSchedule, (Noise, f64, f64, f64, f64)) {
        let kind = if k % 2 == 0 {
            Noise::Gaussian
        } else {
            Noise::Laplace
        };
        let eps = 8.0 * unif();
        let c1 = 10f64.powf(-1.0 + decades * unif());
        let c2 = if zero_c2 > 0.0 && unif() < zero_c2 {
            0.0
        } else {
            10f64.powf(-1.0 + decades * unif())
        };
        let decay = 1.1 + 2.9 * unif();
        let p = Problem::new(eps, 1.0, 0.1, 1.0, None, 0.0).unwrap();
        let sch = OnlineSchedule::new(kind, p, c1, c2, decay).unwrap();
        (sch, (kind, eps, c1, c2, decay))
    }

    /// Random parameters (fixed-seed): the certified bracket contains the tanh–sinh value
    /// wherever that one's error estimate is small, and the certified tail bound of the sum lies
    /// above the Euler–Maclaurin estimate.
    #[test]
    fn certified_bracket_random_parameters() {
        let mut unif = uniform(0x9E37_79B9_7F4A_7C15);
        let mut checked = 0;
        for k in 0..30 {
            let (sch, (kind, eps, c1, c2, decay)) = random_schedule(k, &mut unif, 5.0, 0.2);
            for x0 in [30.0, 262_245.0, 1e7] {
                if sch.check_index("i", x0 - 1.0).is_err() {
                    continue;
                }
                let (lo, hi) = sch.integral_bracket(x0, 1e-10);
                assert!(
                    !lo.is_nan() && lo <= hi && hi <= 0.0,
                    "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: [{lo}, {hi}]"
                );
                let (v, e) = sch.integral_from(x0);
                if e <= 1e-14 * v.abs() {
                    checked += 1;
                    let slack = 1e-15 * v.abs(); // the estimate's own rounding
                    assert!(
                        lo - slack <= v && v <= hi + slack,
                        "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: {v} not in [{lo}, {hi}]"
                    );
                }
                let (em, m) = sch.tail_em(x0);
                assert!(
                    em.is_finite() && m.is_finite(),
                    "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: EM tail {em} ± {m}"
                );
                assert!(
                    sch.sum_upper(x0, None) >= em - m,
                    "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: {} < {em} - {m}; [{lo}, {hi}], quad {v} ± {e}, g = {}",
                    sch.sum_upper(x0, None),
                    sch.g(x0)
                );
            }
        }
        assert!(checked > 30, "only {checked} comparisons");
    }

    /// The certified upper bound of a finite sum Σ_{t=a}^{n} g(t) against the sum itself, summed
    /// term by term (random parameters, fixed seed): never below it (the direct terms are rounded
    /// up by ≤ 2^-46 relative, so the exact sum is ≥ direct − 2^-45·|direct|), and tight.
    #[test]
    fn certified_finite_sum_against_direct_sum() {
        let mut unif = uniform(0x2545_F491_4F6C_DD1D);
        let (mut worst, mut with_g3) = (0.0f64, 0);
        for k in 0..24 {
            let (sch, (kind, eps, c1, c2, decay)) = random_schedule(k, &mut unif, 4.0, 0.0);
            for a in [40.0, 3000.0, 262_145.0] {
                if sch.check_index("i", a - 1.0).is_err() {
                    continue; // B_t = 0 below this index: no schedule
                }
                let n = a + 65_536.0;
                let direct = sch.direct(a, n);
                let up = sch.sum_upper(a, Some(n));
                let what = format!("{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} a={a}");
                assert!(
                    up.is_finite() && direct.is_finite(),
                    "{what}: {up} {direct}"
                );
                let floor = direct - 2f64.powi(-45) * direct.abs();
                assert!(up >= floor, "{what}: certified {up} below the sum {direct}");
                let gap = up - direct; // the relative error of δ = e^S it causes
                let g3 = sch.bracket(a, CERT_TOL, Some(n)).g3;
                with_g3 += usize::from(g3);
                // the gap: the quadrature width (≈ 2e-13 of |∫ g|), plus the rule's defect:
                // concave g with the g''' step ≈ ∫_a^{a+2}|g''|/12 ≈ |g''(a)|/6 (the subtracted
                // integral starts at a + 2; allowed 1.5×), concave g without it
                // Σ|g''|/12 ≈ g'(a)/12 (allowed 2×); the monotone bound ∫_a^{n+1} g defect
                // Σ(∫_t^{t+1} g − g(t)) ≤ g(n + 1) − g(a)
                let d1 = sch.g(a + 1.0) - sch.g(a);
                let d2 = d1 - (sch.g(a + 2.0) - sch.g(a + 1.0));
                let defect = if !sch.concave_from(a) {
                    sch.g(n + 1.0) - sch.g(a)
                } else if g3 {
                    d2.abs() / 4.0
                } else {
                    d1.abs() / 6.0
                };
                let allowed = 1e-12 * direct.abs() + 1e-18 + defect; // (1e-18: rounding floor)
                assert!(gap <= allowed, "{what}: gap {gap:e} (g3 {g3})");
                if a > 1e5 {
                    worst = worst.max(gap / direct.abs().max(1.0));
                }
            }
        }
        assert!(
            with_g3 > 10,
            "only {with_g3} cases with the g''' correction"
        );
        // where pabi uses it (a = i + 2^18 + 1): the log of δ is within 3e-13·max(1, |Σ g|)
        // (the quadrature's relative width), i.e. δ within 3e-13·max(1, |ln δ|) relative
        assert!(worst <= 3e-13, "worst gap at a = 2^18 + 1: {worst:e}");
        eprintln!("certified finite sum at a = 2^18 + 1: worst gap / max(1, |sum|) {worst:e}");
    }
}
