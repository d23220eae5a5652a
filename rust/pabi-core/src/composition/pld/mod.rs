//! f-DP, exact (ε,δ) composition and privacy-loss distributions (PLD) composed by FFT, with
//! certified error bars; the DP-SGD (Poisson-subsampled Gaussian) accountant.
//! SPEC_pabi.md §5.1–§5.3; paper 003 §5; Dong–Roth–Su (GDP); Kairouz–Oh–Viswanath (exact
//! composition); Koskela et al. (FFT accountant); Doroshenko et al. ("connect the dots").
//!
//! # Discretisation (why the upper value is a valid bound)
//! A PLD is the law of the privacy loss L = ln(dP/dQ)(X), X ~ P, with an atom at +∞. For any
//! ε, δ(ε) = E[φ_ε(e^{−L})] with φ_ε(y) = (1 − e^ε y)_+, a **convex, non-increasing** function of
//! y = e^{−L}; for a composition, y is the product of the per-step y's, and φ_ε stays convex and
//! non-increasing in each factor. Hence a per-step replacement L → L' that is (i) a
//! mean-preserving spread of y, or (ii) moves loss up, can only increase every composed δ(ε).
//! The grid here is ℓ_k = k·h; the mass of every cell [a, b] = [kh, (k+1)h] is split between a
//! and b so that E[e^{−L'}] = E[e^{−L}] on the cell ("connect the dots", (i)); the tail above the
//! grid goes to +∞ and the tail below to the lowest grid point ((ii)). So the composed δ of the
//! discretised PLD is an upper bound for every ε, with an error O(h²) per step instead of O(h).
//!
//! # Lower bound
//! The split couples L' with L so that, given L, L' − L lies in an interval of length h with
//! conditional mean in [0, h²/4]. Over T steps, S' − S ≤ T·h²/4 + t except with probability
//! η = exp(−2t²/(T h²)) (Azuma–Hoeffding). Since φ is non-decreasing in the loss,
//! δ_true(ε) ≥ δ'(ε + T h²/4 + t) − η − (truncated mass). This is the `lower` value.
//!
//! # FFT composition
//! The spectra of all parts are raised to their multiplicities and multiplied (frequency-domain
//! powering), one inverse real FFT of length N (a power of two) gives the composed pmf on a
//! window [K_lo, K_lo + N) of grid indices chosen by Chernoff bounds from the exact log-MGF of
//! the discretised parts: the mass outside the window (which aliases into it) is at most
//! `tail_hi + tail_lo`, added to the upper value (upper tail; the lower tail too when the window
//! starts at a positive loss) and subtracted from the lower one.
//!
//! # FFT round-off (a proof, not an estimate)
//! Let u = 2^-53. Write x_i for the pmf of part i on the length-N circle, z_i = DFT(x_i), the
//! composed spectrum A = Π_i z_i^{T_i} and y = IDFT(A)/N the composed (aliased) pmf.
//! 1. *Forward FFT.* Per bin |ẑ_k − z_k| ≤ κ_N·‖x‖₁ (`fft_error_coeff`: the componentwise
//!    form of Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §24.1,
//!    Thm 24.2, ≈ 2(log₂N + 2)·32u ≈ 1.5e-13 at N = 2^20). Where it matters after powering
//!    (T·R^{T−1}·κ_N > 1e-18, a few dozen bins near the peaks of |z|), the bin is recomputed by
//!    a direct DFT with exact index reduction, two-level twiddle tables and Neumaier summation,
//!    with the bound ε_k = (28u + 4mu²)‖x‖₁ + 4u|ẑ_k| (`direct_dft_coeff`; ≈ 3e-15).
//! 2. *Powering.* ẑ^T is formed in polar form; its relative error against ẑ^T is
//!    ρ ≤ 1.5·T·u + 2u|T ln|ẑ|| + 4u|T arg ẑ| + 12u (ln of |ẑ|² with 3u relative error, exp;
//!    atan2 within 2u relative, sin_cos), and by the mean-value theorem
//!    |ẑ^T − z^T| ≤ T·R^{T−1}·ε_k with R = max(|ẑ|, min(|ẑ| + ε_k, 1)) ≥ max(|ẑ|, |z|) (|z| ≤ 1:
//!    spectrum of a sub-probability). So |â − z^T| ≤ E_k := ρ|â| + T R^{T−1} ε_k, where R^{T−1}
//!    makes every bin away from the peaks negligible (the T-fold amplification is confined to
//!    the few refined bins).
//! 3. *Products over parts.* B ← 3u|Â||â| + |Â|E_k + B·min(|â| + E_k, 1) (complex product
//!    within √2γ₂ ≤ 3u; Higham Lemma 3.5), so |Â_k − A_k| ≤ B_k.
//! 4. *Inverse FFT and window.* y − ŷ = IDFT(A − Â)/N + rounding; per point
//!    ≤ (Σ_k B_k + κ_N Σ_k |Â_k|)/N (componentwise bound of step 1 applied to the inverse),
//!    and in ℓ2, by Parseval, ≤ (‖B‖₂ + κ_N‖Â‖₂)/√N. Summed over the W window points:
//!    `fft_err` = min(W/N·(‖B‖₁ + κ_N‖Â‖₁), √(W/N)·(‖B‖₂ + κ_N‖Â‖₂)) (full Hermitian spectrum),
//!    plus 2u·(window mass) for the 1/N scaling. Negative outputs are clipped to 0, which only
//!    moves them towards the exact (non-negative) values. Since every φ_ε(ℓ) = (1 − e^{ε−ℓ})_+
//!    is in [0, 1], |δ̂(ε) − δ(ε)| ≤ `fft_err` for every ε.
//! 5. *Queries.* δ(ε) is read from suffix sums; their rounding (≤ (3W + 10)u relative on
//!    non-negative sums, plus the exponential factor) is bounded per query ([`Composition`]'s
//!    `query_err`) and added (upper) or subtracted (lower).
//!
//! For q = 0.01, σ = 1, T = 1e5 (N = 714420) this gives `fft_err` ≈ 9e-10: the upper ε at
//! δ = 1e-5 moves by ≈ 1e-4.
//!
//! # Resource limits
//! Every length is decided in floating point (finite, |index| ≤ 2^53, at most the cap) before
//! it is converted to an integer or anything is allocated, and a violation is a `DomainError`:
//! a single-step PLD has at most [`MAX_GRID`] = 2^21 grid points (16 MiB; a profile for
//! [`Pld::from_profile`] at most 2^20 samples, its PLD being reflected) and a composed window /
//! FFT length at most [`MAX_WINDOW`] = 2^22 points (a few hundred MB of buffers in all). The
//! error names `h` (with the coarsest step that fits) when a coarser grid step ≤ 0.1 would fit,
//! and otherwise the mechanism's parameter (`sigma`, `eps0`, `losses`, or `steps` for a window
//! whose indices leave ±2^53). Multiplicities are at most 2^53 and supports are summed in i128
//! with checked arithmetic. The DP-SGD accountant takes h ∈ [1e-6, 0.1] and coarsens it by
//! powers of two (≤ 18 rounds, the single-step size found without allocating) until both caps
//! hold, else names `sigma`; its calibration takes ε ∈ (0, 100], rtol ∈ [1e-12, 0.1) and has a
//! bound on every loop fixed up front ([`dpsgd_calibrate_sigma`]).

use crate::error::{PabiError, Result};
use crate::num::{log1mexp, up};
use crate::tail::gaussian_tail;
use realfft::num_complex::Complex;
use realfft::RealFftPlanner;

// ---------------------------------------------------------------------------------------------
// Exact composition of k copies of an (ε0, δ0)-DP mechanism (Kairouz–Oh–Viswanath, SPEC §5.2)

const STIRLERR: [f64; 16] = [
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
];

/// ln Γ(n+1) − (n+½)ln n + n − ln√(2π) for integer n ≥ 1 (Loader 2000).
fn stirlerr(n: f64) -> f64 {
    if n <= 15.0 {
        return STIRLERR[n as usize];
    }
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// x·ln(x/m) + m − x without cancellation (Loader's bd0); `d` = x − m computed accurately by
/// the caller.
fn bd0(x: f64, m: f64, d: f64) -> f64 {
    if d.abs() < 0.1 * (x + m) {
        let v = d / (x + m);
        let mut s = d * v;
        let mut ej = 2.0 * x * v;
        let v2 = v * v;
        for j in 1..2000 {
            ej *= v2;
            let s1 = s + ej / (2 * j + 1) as f64;
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        return s;
    }
    x * (x / m).ln() + m - x
}

/// ln of the binomial pmf C(n,x) p^x q^(n−x), full relative precision (Loader's saddle point);
/// `d` = x − n·p computed accurately by the caller.
fn log_binom_pmf(x: f64, n: f64, p: f64, q: f64, lp: f64, lq: f64, d: f64) -> f64 {
    if x == 0.0 {
        return n * lq;
    }
    if x == n {
        return n * lp;
    }
    let lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p, d) - bd0(n - x, n * q, -d);
    let lf = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / n).ln_1p();
    lc - 0.5 * lf
}

fn check_eps_delta(eps0: f64, delta0: f64) -> Result<()> {
    if !(eps0 >= 0.0 && eps0.is_finite()) {
        return Err(PabiError::domain("eps0", ">= 0 and finite", eps0));
    }
    if !(0.0..=1.0).contains(&delta0) {
        return Err(PabiError::domain("delta0", "in [0, 1]", delta0));
    }
    Ok(())
}

/// Largest number of compositions the exact (KOV) formula accepts. Its sum has O(√k) terms
/// after the geometric tail bound (k = 1e10: ~0.1 s; an ε inversion evaluates it ~60 times);
/// beyond, compose the PLD of the (ε0, δ0) mechanism instead (`Pld::eps_delta`).
pub const KOV_K_MAX: f64 = 1e10;

fn check_kov_k(k: f64) -> Result<()> {
    if k >= 1.0 && k.fract() == 0.0 && k <= KOV_K_MAX {
        Ok(())
    } else {
        Err(PabiError::domain(
            "k",
            "an integer in [1, 1e10] (beyond, compose the PLD of the (eps0, delta0) mechanism)",
            k,
        ))
    }
}

/// δ(ε) of the optimal k-fold composition of an (ε0, δ0)-DP mechanism, i.e. of f_{ε0,δ0}^{⊗k}
/// (Kairouz–Oh–Viswanath; SPEC §5.2), an upper bound within ~1e-13 relative of the exact value.
///
/// Rounding: each term's exponent ε − (2j − k)ε0 is correctly rounded (one fma; near the top
/// loss kε0 the rounded difference had lost 5 digits, −6.4e-6 relative), so the set of terms
/// (the breakpoints ε = (2j − k)ε0) is decided exactly; terms far below the mode and the tail
/// past it are bounded, not dropped (a geometric bound on the pmf, added); ln q is
/// −softplus(ε0) (e^{ε0} overflowed for ε0 > 709.8 and the NaN terms erased the sum), and the
/// saddle-point log-pmf, whose bd0 terms carry ≤ ~32 ulp of their magnitude (≤ |ln term| +
/// ½ln(2πk) + 1), moves the sum up by 48 ulp of the terms' weighted mean magnitude (it was
/// 5.5e-14 below the exact value in the far tail, beyond the 2^-46 final margin).
pub fn approx_dp_composition_delta(eps0: f64, delta0: f64, k: f64, eps: f64) -> Result<f64> {
    check_eps_delta(eps0, delta0)?;
    check_kov_k(k)?;
    // one evaluation is at most ~0.4 s (k = 1e10); the ε inversion calls it repeatedly
    crate::interrupt::check()?;
    if eps.is_nan() || eps < 0.0 {
        return Err(PabiError::domain("eps", ">= 0", eps));
    }
    let lkeep = k * (-delta0).ln_1p(); // ln (1-δ0)^k
    let a = -lkeep.exp_m1();
    let b = lkeep.exp();
    let mut lsum = f64::NEG_INFINITY;
    if eps0 > 0.0 && eps.is_finite() && b > 0.0 {
        let lp = -(-eps0).exp().ln_1p();
        let lq = -(eps0 + (-eps0).exp().ln_1p()); // −softplus(ε0), no overflow
        let lmag0 = 0.5 * (2.0 * std::f64::consts::PI * k).ln() + 1.0;
        // Σ_j e^{lt_j − m}·mag_j: each term's error is ≤ 48 ulp of its magnitude, so the sum's
        // relative error is ≤ 48 ulp of the magnitudes' weighted mean
        let mut wmag = 0.0f64;
        let (p, q) = (lp.exp(), lq.exp());
        // x − k·p = (x − k/2) − (k/2)·tanh(ε0/2): exact first part, so the deviation from the
        // mean carries no k·ulp(p) error
        let half_t = 0.5 * k * (0.5 * eps0).tanh();
        // x_j = ε − (2j − k)ε0 correctly rounded by one fma ((2j − k) is an exact integer), so
        // its sign — which terms exist — is decided exactly. (j_min was ⌊(k + ε/ε0)/2⌋ + 1 with
        // a rounded quotient: at ε0 = 0.1, k = 10, ε = 1, where 10·ε0 > 1 in exact arithmetic,
        // the j = 10 term was dropped and δ = 2e-323 against the exact 8.8e-20.)
        let xj = |j: f64| (-(2.0 * j - k)).mul_add(eps0, eps);
        // j_min = the smallest j ∈ [0, k] with x_j < 0 (x_j decreases in j), by bisection
        let jmin = if xj(k) >= 0.0 {
            k + 1.0
        } else if xj(0.0) < 0.0 {
            0.0
        } else {
            let (mut lo, mut hi) = (0.0f64, k); // x_lo ≥ 0 > x_hi
            while hi - lo > 1.0 {
                let mid = lo + (0.5 * (hi - lo)).floor(); // exact: integers < 2^53
                if xj(mid) < 0.0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            hi
        };
        let mode = (k * p).floor();
        let lpmf = |j: f64| log_binom_pmf(j, k, p, q, lp, lq, (j - 0.5 * k) - half_t);
        // streaming log-sum-exp with Neumaier compensation
        let (mut m, mut s, mut c) = (f64::NEG_INFINITY, 0.0_f64, 0.0_f64);
        let add = |lt: f64, m: &mut f64, s: &mut f64, c: &mut f64, wmag: &mut f64| {
            if lt > *m {
                let f = (*m - lt).exp();
                *s *= f;
                *c *= f;
                *wmag *= f;
                *m = lt;
            }
            let v = (lt - *m).exp();
            *wmag += v * (lt.abs() + lmag0);
            let t = *s + v;
            if s.abs() >= v {
                *c += (*s - t) + v;
            } else {
                *c += (v - t) + *s;
            }
            *s = t;
        };
        let mut j = jmin;
        // Far below the mode (j < mode − 40σ − 40) the terms are skipped and bounded instead
        // (the loop was O(k): ~5 s at k = 1e8, hours at k = 1e12): each term is ≤ its pmf P_j,
        // and below j0 the pmf ratios P_{j−1}/P_j ≤ ρ = j0·q/((k − j0 + 1)p) < 1, so
        // Σ_{j<j0} P_j ≤ P_{j0}·ρ/(1 − ρ), added as one term (≈ e^{−800} of the mode's pmf).
        let j0 = (mode - 40.0 * (k * p * q).sqrt() - 40.0).floor();
        if j0 > jmin + 1.0 {
            let rho = j0 * q / ((k - j0 + 1.0) * p);
            if rho < 1.0 {
                let lb = lpmf(j0) + (rho / (1.0 - rho)).ln() + 1e-6;
                if lb > f64::NEG_INFINITY {
                    add(lb, &mut m, &mut s, &mut c, &mut wmag);
                }
                j = j0;
            }
        }
        while j <= k {
            let x = xj(j);
            if x < 0.0 {
                let lpj = lpmf(j);
                let lt = lpj + log1mexp(x);
                if lt == f64::NEG_INFINITY {
                    j += 1.0; // (a pmf that underflows its own log: q = 0 for ε0 > 745)
                    continue;
                }
                add(lt, &mut m, &mut s, &mut c, &mut wmag);
                if j > mode + 1.0 && j < k {
                    // the rest: Σ_{i>j} T_i ≤ Σ_{i>j} P_i ≤ P_j·ρ'/(1 − ρ'), ρ' = P_{j+1}/P_j
                    // < 1 past the mode (ratios decrease); stop once that is e^{−60} of the
                    // largest term, and add the bound (the cut had been a heuristic on T_j)
                    let rho = (k - j) * p / ((j + 1.0) * q);
                    if rho < 1.0 {
                        let lr = lpj + (rho / (1.0 - rho)).ln() + 1e-6;
                        if lr < m - 60.0 {
                            if lr > f64::NEG_INFINITY {
                                add(lr, &mut m, &mut s, &mut c, &mut wmag);
                            }
                            break;
                        }
                    }
                }
            }
            j += 1.0;
        }
        if s > 0.0 {
            lsum = m + (s + c).ln() + 48.0 * f64::EPSILON * (wmag / s) * (1.0 + 1e-3);
        }
    }
    let d = a + b * lsum.exp();
    Ok(up(d).min(1.0))
}

/// Smallest ε ≥ 0 with [`approx_dp_composition_delta`]`(eps0, delta0, k, ε) ≤ delta` (+∞ if
/// the δ0 atoms alone, 1 − (1−δ0)^k, reach δ). δ(ε) is continuous and decreasing; the root is
/// bisected to adjacent doubles and the certified end returned (an upper bound).
pub fn approx_dp_composition_epsilon(eps0: f64, delta0: f64, k: f64, delta: f64) -> Result<f64> {
    check_eps_delta(eps0, delta0)?;
    check_kov_k(k)?;
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    let f = |e: f64| approx_dp_composition_delta(eps0, delta0, k, e).unwrap_or(1.0);
    if f(0.0) <= delta {
        return Ok(0.0);
    }
    // all finite losses are ≤ k·ε0: δ(k ε0) is the atom part alone
    let mut hi = up(k * eps0);
    if f(hi) > delta {
        return Ok(f64::INFINITY);
    }
    let mut lo = 0.0f64;
    for _ in 0..2100 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) <= delta {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// The single-point route of multi-epoch composition (paper 003 §5): for each candidate
/// (ε0_i, δ0_i) of the per-epoch profile, the exact E-fold composition of f_{ε0,δ0} (KOV)
/// inverted at `delta`; the minimum over i (every candidate is a valid certificate).
pub fn single_point_composed_epsilon(
    eps0: &[f64],
    delta0: &[f64],
    epochs: f64,
    delta: f64,
) -> Result<f64> {
    if eps0.len() != delta0.len() {
        return Err(PabiError::lengths(
            "eps0",
            eps0.len(),
            "delta0",
            delta0.len(),
        ));
    }
    let mut best = f64::INFINITY;
    for i in 0..eps0.len() {
        check_eps_delta(eps0[i], delta0[i]).map_err(|e| e.at(i))?;
        // the atoms alone: 1 − (1−δ0)^E ≥ δ → no certificate from this point
        if -(epochs * (-delta0[i]).ln_1p()).exp_m1() >= delta {
            continue;
        }
        best = best.min(approx_dp_composition_epsilon(
            eps0[i], delta0[i], epochs, delta,
        )?);
    }
    Ok(best)
}

/// The trade-off function f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} (SPEC §5.1),
/// evaluated without forming e^ε (stable for ε up to f64::MAX). Rounded down: a trade-off
/// curve is a lower bound on the type II error, so a smaller value is the conservative side.
pub fn tradeoff_eps_delta(alpha: f64, eps: f64, delta: f64) -> Result<f64> {
    check_eps_delta(eps, delta).map_err(|e| match e {
        PabiError::Domain {
            param,
            allowed,
            value,
            index,
        } => PabiError::Domain {
            param: if param == "eps0" { "eps" } else { "delta" },
            allowed,
            value,
            index,
        },
        o => o,
    })?;
    if !(0.0..=1.0).contains(&alpha) {
        return Err(PabiError::domain("alpha", "in [0, 1]", alpha));
    }
    let r = 1.0 - delta;
    let p1 = if alpha > 0.0 {
        // r and e^{ε + ln α} carry a few ulp each: that much absolute, taken off (the difference
        // may cancel, so a relative margin would not do)
        let t = (eps + alpha.ln()).exp();
        r - t - 4.0 * f64::EPSILON * (r + t)
    } else {
        r
    };
    // 1 − δ − α without rounding 1 − δ first (it cancels for α near 1 − δ: +5e-14 above the
    // exact value at α = 0.999): two_sum of 1 − α, then δ
    let (s1, e1) = crate::dd::two_sum(1.0, -alpha);
    let p2 = (-eps).exp() * (s1 + (e1 - delta));
    Ok(crate::num::down(p1.max(p2).max(0.0)))
}

// ---------------------------------------------------------------------------------------------
// Privacy-loss distributions on the grid ℓ_k = k·h

/// Neighbouring relation for the Poisson-subsampled Gaussian (as dp-accounting):
/// `Remove`: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²); `Add`: P = N(0,σ²), Q = the mixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Neighbour {
    Remove,
    Add,
}

/// A discretised (pessimistic, connect-the-dots) privacy-loss distribution.
#[derive(Clone, Debug)]
pub struct Pld {
    /// grid step of the loss
    pub h: f64,
    /// grid index of `pmf[0]` (loss lo·h)
    pub lo: i64,
    /// masses on the grid
    pub pmf: Vec<f64>,
    /// mass at +∞ (upper truncation; counted as +∞ in the upper value)
    pub inf: f64,
    /// mass moved by truncation (below the grid moved up, tail moved to +∞): subtracted in the
    /// lower value
    pub bad: f64,
    /// the part of `inf` that is a genuine atom at +∞ of the mechanism (e.g. δ0 of f_{ε0,δ0})
    pub inf_exact: f64,
}

const GL8_X: [f64; 4] = [
    0.183_434_642_495_649_8,
    0.525_532_409_916_329,
    0.796_666_477_413_626_7,
    0.960_289_856_497_536_3,
];
const GL8_W: [f64; 4] = [
    0.362_683_783_378_362,
    0.313_706_645_877_887_3,
    0.222_381_034_453_374_5,
    0.101_228_536_290_376_3,
];

/// P(u < Z < v), Z ~ N(0,1), u ≤ v, via tails (no cancellation in the tails).
fn norm_mass(u: f64, v: f64) -> f64 {
    if u >= 0.0 {
        gaussian_tail(u) - gaussian_tail(v)
    } else if v <= 0.0 {
        gaussian_tail(-v) - gaussian_tail(-u)
    } else {
        1.0 - gaussian_tail(-u) - gaussian_tail(v)
    }
    .max(0.0)
}

const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// For the cell x ∈ [xl, xr] of N(0,1): (A0, Jlo, Khi) with A0 = ∫φ, Jlo = ∫ expm1(s(x−xl))φ,
/// Khi = ∫ −expm1(s(x−xr))φ (Jlo/Khi = NaN where the endpoint is infinite and unused).
///
/// Where s·(xr − xl) ≤ 1 the integrals are formed by composite 8-point Gauss–Legendre on pieces
/// of width ≤ 0.25/(1 + |x|) (positive integrands, no cancellation; the quadrature error is far
/// below 1e-16 relative on such pieces). Otherwise the cell is wide enough that the closed forms
/// through normal tails, A1 e^{−z} − A0, lose at most a few digits.
fn cell_integrals(xl: f64, xr: f64, s: f64) -> (f64, f64, f64) {
    let w = xr - xl;
    if xl.is_finite() && xr.is_finite() && s * w <= 1.0 {
        let xa = xl.abs().max(xr.abs());
        // here w ≤ 1/s and |x| ≤ s + 9.5 (or w ≤ s + 19 for s < 1): at most a few hundred
        // pieces; the clamp only documents that the conversion is bounded
        let pieces = (w * (1.0 + xa) / 0.25).ceil().clamp(1.0, 1e6) as usize;
        let pw = w / pieces as f64;
        let hw = 0.5 * pw;
        let (mut a0, mut j, mut kk) = (0.0, 0.0, 0.0);
        for pc in 0..pieces {
            let xm = xl + (pc as f64 + 0.5) * pw;
            for i in 0..4 {
                for sg in [-1.0, 1.0] {
                    let x = xm + sg * GL8_X[i] * hw;
                    let f = GL8_W[i] * INV_SQRT_2PI * (-0.5 * x * x).exp();
                    a0 += f;
                    j += f * (s * (x - xl)).exp_m1();
                    kk += f * (-(s * (x - xr)).exp_m1());
                }
            }
        }
        (a0 * hw, j * hw, kk * hw)
    } else {
        let a0 = norm_mass(xl, xr);
        let a1 = norm_mass(xl - s, xr - s);
        // A1 = e^{z_lo}(A0 + Jlo) = e^{z_hi}(A0 − Khi), z = s x − s²/2
        let jl = if xl.is_finite() {
            (a1 * (s * s / 2.0 - s * xl).exp() - a0).max(0.0)
        } else {
            f64::NAN
        };
        let kh = if xr.is_finite() {
            (a0 - a1 * (s * s / 2.0 - s * xr).exp()).max(0.0)
        } else {
            f64::NAN
        };
        (a0, jl, kh)
    }
}

/// Relative margin by which the upper split weight is increased (covers the rounding of the
/// cell integrals; its cost is a relative change of ~1e-12·h in δ).
const SPLIT_MARGIN: f64 = 1e-11;
/// Standard-normal tail radius beyond which mass is truncated (Q(9.5) ≈ 1.05e-21).
const XTAIL: f64 = 9.5;
/// Largest single-step grid (points): 2^21, 16 MiB of masses. Every PLD built here can be
/// composed: the FFT length is at least twice the longest part and at most [`MAX_WINDOW`].
pub const MAX_GRID: usize = 1 << 21;
/// Largest composed window (FFT length): 2^22 points, a few hundred MB of working memory.
pub const MAX_WINDOW: usize = 1 << 22;
/// Largest number of profile samples of [`Pld::from_profile`] (its grid has 2J − 1 points).
pub const MAX_PROFILE: usize = MAX_GRID.div_ceil(2);
/// Largest |grid index| (2^53): exact in f64, and index arithmetic cannot overflow i64.
const MAX_INDEX: f64 = 9_007_199_254_740_992.0;
/// Coarsest loss grid step accepted.
pub const H_MAX: f64 = 0.1;
/// Largest multiplicity of a part in [`compose`] (2^53, exact in f64).
pub const MAX_TIMES: u64 = 1 << 53;

fn check_h(h: f64) -> Result<()> {
    if !(h > 0.0 && h <= H_MAX) {
        return Err(PabiError::domain("h", "in (0, 0.1]", h));
    }
    Ok(())
}

/// Grid indices [klo, khi] = [⌊lmin/h⌋, ⌈lmax/h⌉] if that grid has at most `cap` points and
/// indices within ±2^53; `None` otherwise (also for non-finite bounds). Decided in floating
/// point (exact: ⌊·⌋, ⌈·⌉ and the difference of integers below 2^53) before any conversion.
fn grid_span(lmin: f64, lmax: f64, h: f64, cap: usize) -> Option<(i64, i64)> {
    let a = (lmin / h).floor();
    let b = (lmax / h).ceil();
    let ok = a.is_finite()
        && b.is_finite()
        && a.abs() <= MAX_INDEX
        && b.abs() <= MAX_INDEX
        && b >= a
        && b - a + 1.0 <= cap as f64;
    // converted only once checked
    if ok {
        Some((a as i64, b as i64))
    } else {
        None
    }
}

/// The error for a loss range [lmin, lmax] whose grid at step h exceeds `cap` points: names
/// `h` (with the coarsest step that fits) when some h ≤ 0.1 fits, else the mechanism's own
/// parameter `param` = `value`.
fn grid_error(
    lmin: f64,
    lmax: f64,
    h: f64,
    cap: usize,
    param: &'static str,
    value: f64,
) -> PabiError {
    // (the caps used are MAX_GRID and MAX_GRID − 2, for grids padded by one point each side)
    let need = (lmax - lmin) / h;
    let need = if need.is_finite() {
        format!("about {need:.3e}")
    } else {
        "more points than any f64 counts".to_string()
    };
    if grid_span(lmin, lmax, H_MAX, cap).is_some() {
        let hmin = ((lmax - lmin) / (cap as f64 - 3.0) * 1.001).min(H_MAX);
        PabiError::domain(
            "h",
            format!(
                "large enough for the loss grid to fit its cap of 2^21 points \
                 (this h needs {need}; use h >= {hmin:.3e})"
            ),
            h,
        )
    } else {
        PabiError::domain(
            param,
            format!(
                "such that the loss grid fits its cap of 2^21 points even at the \
                 coarsest h = 0.1 (the loss range [{lmin:.3e}, {lmax:.3e}] does not)"
            ),
            value,
        )
    }
}

/// Loss of the remove direction of the subsampled Gaussian at x (in units of σ, s = 1/σ):
/// ln(1 − q + q e^{z}) = ln(1 + q(e^z − 1)), z = s x − s²/2; `l1q` = ln(1 − q).
///
/// While q·e^z ≤ e^700 the argument q(e^z − 1) is formed directly (for z > 700 as
/// e^{ln q + z} − q): the form z + ln q + ln(1 + e^{ln(1−q) − ln q − z}) cancels where
/// q e^z ≈ 1 (q = 1e-100, z ≈ 230: an absolute error ~1e-14 on a loss ~1e-86, which gave the
/// range the wrong sign and left a cell off the grid). Only the grid's extent depends on it.
fn sg_lrem(q: f64, s: f64, l1q: f64, x: f64) -> f64 {
    let z = s * x - s * s / 2.0;
    if q == 1.0 {
        z
    } else if z < 0.0 {
        (q * z.exp_m1()).ln_1p() // ln(1 + q(e^z − 1))
    } else {
        let lq = q.ln();
        if z + lq < 700.0 {
            let t = if z <= 700.0 {
                q * z.exp_m1()
            } else {
                (lq + z).exp() - q
            };
            t.ln_1p()
        } else {
            z + lq + ((l1q - lq - z).exp()).ln_1p()
        }
    }
}

/// The loss range [lmin, lmax] covered by the grid of [`Pld::subsampled_gaussian`] (the loss
/// at the truncation points x = −9.5 and x = 1/σ + 9.5); non-finite when 1/σ overflows.
fn sg_loss_range(q: f64, sigma: f64, dir: Neighbour) -> (f64, f64) {
    let s = 1.0 / sigma;
    let l1q = (-q).ln_1p();
    let (xmin, xmax) = (-XTAIL, s + XTAIL);
    match dir {
        Neighbour::Remove => (sg_lrem(q, s, l1q, xmin), sg_lrem(q, s, l1q, xmax)),
        Neighbour::Add => (-sg_lrem(q, s, l1q, xmax), -sg_lrem(q, s, l1q, xmin)),
    }
}

impl Pld {
    /// The Poisson-subsampled Gaussian mechanism (sensitivity 1, noise std `sigma`, sampling
    /// probability `q`; q = 1 is the plain Gaussian mechanism), one neighbouring direction.
    pub fn subsampled_gaussian(q: f64, sigma: f64, dir: Neighbour, h: f64) -> Result<Pld> {
        if !(q > 0.0 && q <= 1.0) {
            return Err(PabiError::domain("q", "in (0, 1]", q));
        }
        if !(sigma > 0.0 && sigma.is_finite()) {
            return Err(PabiError::domain("sigma", "> 0 and finite", sigma));
        }
        check_h(h)?;
        // grid size decided before any allocation (no integer conversion of unchecked floats)
        let (lmin, lmax) = sg_loss_range(q, sigma, dir);
        let (klo, khi) = grid_span(lmin, lmax, h, MAX_GRID)
            .ok_or_else(|| grid_error(lmin, lmax, h, MAX_GRID, "sigma", sigma))?;
        let m = (khi - klo + 1) as usize; // <= MAX_GRID
        let s = 1.0 / sigma;
        let l1q = (-q).ln_1p(); // ln(1-q), −∞ for q = 1
                                // inverse of the remove-direction loss: x with lrem(x) = ℓ (−∞ when ℓ ≤ ln(1−q))
        let xinv = |l: f64| -> f64 {
            if q == 1.0 {
                return (l + s * s / 2.0) / s;
            }
            if l <= l1q {
                return f64::NEG_INFINITY;
            }
            // e^z = (e^ℓ − 1 + q)/q
            let z = if l < 0.0 {
                (l.exp_m1() + q).ln() - q.ln()
            } else {
                (l.exp_m1() / q).ln_1p()
            };
            (z + s * s / 2.0) / s
        };
        let (xmin, xmax) = (-XTAIL, s + XTAIL);
        let mut pmf = vec![0.0; m];
        let eh = h.exp_m1(); // e^h − 1
        let emh = -(-h).exp_m1(); // 1 − e^{−h}
                                  // tails outside [xmin, xmax]
        let (below, above) = match dir {
            // P = (1−q)N(0) + qN(s); x > xmax: loss > lmax → +∞; x < xmin: lowest point
            Neighbour::Remove => (
                (1.0 - q) * gaussian_tail(-xmin) + q * gaussian_tail(s - xmin),
                (1.0 - q) * gaussian_tail(xmax) + q * gaussian_tail(xmax - s),
            ),
            // P = N(0); loss decreasing in x: x < xmin → loss > lmax → +∞
            Neighbour::Add => (gaussian_tail(xmax), gaussian_tail(-xmin)),
        };
        // the loss at xmin/xmax lies inside the grid; the cells cover [lmin, lmax] exactly by
        // mapping grid points back to x and clamping to [xmin, xmax].
        for k in klo..khi {
            crate::interrupt::check()?;
            let (a, b) = (k as f64 * h, (k + 1) as f64 * h);
            // x-interval of the cell
            let (xl, xr) = match dir {
                Neighbour::Remove => (xinv(a).max(xmin), xinv(b).min(xmax)),
                Neighbour::Add => (xinv(-b).max(xmin), xinv(-a).min(xmax)),
            };
            if xr.partial_cmp(&xl) != Some(std::cmp::Ordering::Greater) {
                continue;
            }
            // is the cell's loss range exactly [a, b] (both ends interior preimages)?
            let exact_l = match dir {
                Neighbour::Remove => xinv(a) >= xmin,
                Neighbour::Add => xinv(-b) >= xmin,
            };
            let exact_r = match dir {
                Neighbour::Remove => xinv(b) <= xmax,
                Neighbour::Add => xinv(-a) <= xmax,
            };
            let (a0, jl, kh) = cell_integrals(xl, xr, s);
            let zl = s * xl - s * s / 2.0;
            let zr = s * xr - s * s / 2.0;
            let (mut wa, mut wb);
            if exact_l && exact_r && jl.is_finite() && kh.is_finite() {
                match dir {
                    Neighbour::Remove => {
                        wb = q * zl.exp() * jl / emh;
                        wa = q * zr.exp() * kh / eh;
                    }
                    Neighbour::Add => {
                        // e^{a} = 1/(1−q+q e^{zr}), e^{b} = 1/(1−q+q e^{zl})
                        wb = q * zr.exp() * kh * (-a).exp().recip() / emh;
                        wa = q * zl.exp() * jl * (-b).exp().recip() / eh;
                        let _ = (a, b);
                    }
                }
            } else {
                // boundary cell: general split from the cell's P and Q masses
                let a1 = norm_mass(xl - s, xr - s);
                let (p, qm) = match dir {
                    Neighbour::Remove => ((1.0 - q) * a0 + q * a1, a0),
                    Neighbour::Add => (a0, (1.0 - q) * a0 + q * a1),
                };
                if p <= 0.0 {
                    continue;
                }
                let t = ((p * (-a).exp() - qm) / (p * ((-a).exp() - (-b).exp()))).clamp(0.0, 1.0);
                wb = p * t;
                wa = p - wb;
            }
            let dw = wb * SPLIT_MARGIN;
            wb += dw;
            wa = (wa - dw).max(0.0);
            pmf[(k - klo) as usize] += wa;
            pmf[(k + 1 - klo) as usize] += wb;
        }
        // mass below the grid's first cell: its loss is <= lmin, moved up to the grid point >= lmin
        pmf[((lmin / h).ceil() as i64 - klo) as usize] += below;
        Ok(Pld {
            h,
            lo: klo,
            pmf,
            inf: above,
            bad: below + above,
            inf_exact: 0.0,
        }
        .close_mass())
    }

    /// The four-point PLD of an (ε0, δ0)-DP mechanism (SPEC §5.1): +∞ w.p. δ0, ±ε0 w.p.
    /// (1−δ0)·p, (1−δ0)(1−p), p = 1/(1+e^{−ε0}). ±ε0 off the grid are split pessimistically.
    pub fn eps_delta(eps0: f64, delta0: f64, h: f64) -> Result<Pld> {
        check_eps_delta(eps0, delta0)?;
        check_h(h)?;
        // the grid [−ε0/h − 1, ε0/h + 1] of from_atoms, checked here to name ε0 or h
        if grid_span(-eps0, eps0, h, MAX_GRID - 2).is_none() {
            return Err(grid_error(-eps0, eps0, h, MAX_GRID - 2, "eps0", eps0));
        }
        let p = 1.0 / (1.0 + (-eps0).exp());
        Pld::from_atoms(
            h,
            &[eps0, -eps0],
            &[(1.0 - delta0) * p, (1.0 - delta0) * (1.0 - p)],
            delta0,
        )
    }

    /// A PLD from finitely many atoms (losses, masses) and an atom at +∞, each atom split between
    /// its two neighbouring grid points preserving E[e^{−L}] (pessimistic). A loss within 1e-9·h
    /// of a grid point is put on it. The grid spans [min loss − h, max loss + h] and must fit
    /// [`MAX_GRID`] points.
    pub fn from_atoms(h: f64, losses: &[f64], masses: &[f64], inf: f64) -> Result<Pld> {
        check_h(h)?;
        if masses.len() != losses.len() {
            return Err(PabiError::lengths(
                "losses",
                losses.len(),
                "masses",
                masses.len(),
            ));
        }
        if let Some(i) = losses.iter().position(|l| !l.is_finite()) {
            return Err(PabiError::domain("losses", "finite", losses[i]).at(i));
        }
        if let Some(i) = masses.iter().position(|w| !(0.0..=1.0).contains(w)) {
            return Err(PabiError::domain("masses", "in [0, 1]", masses[i]).at(i));
        }
        if !(0.0..=1.0).contains(&inf) {
            return Err(PabiError::domain("inf", "in [0, 1]", inf));
        }
        let (lmin, lmax) = if losses.is_empty() {
            (0.0, 0.0)
        } else {
            (
                losses.iter().copied().fold(f64::INFINITY, f64::min),
                losses.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        };
        let (a, b) = grid_span(lmin, lmax, h, MAX_GRID - 2)
            .ok_or_else(|| grid_error(lmin, lmax, h, MAX_GRID - 2, "losses", lmax - lmin))?;
        let (lo, hi) = (a - 1, b + 1);
        let mut pmf = vec![0.0; (hi - lo + 1) as usize]; // <= MAX_GRID
        for (&l, &w) in losses.iter().zip(masses) {
            let r = l / h;
            let kr = r.round();
            // on the grid up to round-off: put it on the grid point if that is not below it
            if kr >= r && kr - r <= 1e-9 || r == kr {
                pmf[(kr as i64 - lo) as usize] += w;
                continue;
            }
            let k = r.floor();
            let u = l - k * h; // in (0, h)
            let t = ((-u).exp_m1() / (-h).exp_m1()).clamp(0.0, 1.0) * (1.0 + SPLIT_MARGIN);
            let t = t.min(1.0);
            pmf[(k as i64 - lo) as usize] += w * (1.0 - t);
            pmf[(k as i64 + 1 - lo) as usize] += w * t;
        }
        // the +∞ atom is part of the mechanism, not a truncation
        Ok(Pld {
            h,
            lo,
            pmf,
            inf,
            bad: 0.0,
            inf_exact: inf,
        })
    }

    /// The PLD whose privacy profile (for ε ≥ 0) is the convex (in e^ε) hull of the points
    /// (k·h, `delta[k]`), k = 0..J, continued by the constant `delta[J]` (mass at +∞), for a
    /// **symmetric** profile (δ bounds both E_{e^ε}(P‖Q) and E_{e^ε}(Q‖P)). Since the true profile
    /// is convex in e^ε and below the given values, it is below the hull: the PLD dominates every
    /// mechanism with this profile.
    pub fn from_profile(h: f64, delta: &[f64]) -> Result<Pld> {
        check_h(h)?;
        let j = delta.len();
        if j < 2 {
            return Err(PabiError::domain(
                "delta",
                "a profile sampled at >= 2 points",
                j as f64,
            ));
        }
        // the PLD has 2J − 1 points (the profile is reflected): J ≤ 2^20
        if j > MAX_PROFILE {
            return Err(PabiError::domain(
                "delta",
                "a profile of at most 2^20 samples (its PLD has 2J - 1 grid points, capped at \
                 2^21; sample with a coarser h or a smaller eps_max)",
                j as f64,
            ));
        }
        for (i, &d) in delta.iter().enumerate() {
            if !(0.0..=1.0).contains(&d) {
                return Err(PabiError::domain("delta", "in [0, 1] (a privacy profile)", d).at(i));
            }
            if i > 0 && d > delta[i - 1] {
                return Err(PabiError::domain(
                    "delta",
                    "non-increasing in eps (a privacy profile)",
                    d,
                )
                .at(i));
            }
        }
        // lower convex hull of (γ_k, δ_k), γ_k = e^{kh}; work with γ_k − 1 = expm1(kh)
        let g: Vec<f64> = (0..j).map(|k| (k as f64 * h).exp_m1()).collect();
        let mut hull: Vec<usize> = Vec::with_capacity(j);
        for k in 0..j {
            while hull.len() >= 2 {
                let (i1, i2) = (hull[hull.len() - 2], hull[hull.len() - 1]);
                // remove i2 if it lies on or above the segment i1–k
                let lhs = (delta[i2] - delta[i1]) * (g[k] - g[i1]);
                let rhs = (delta[k] - delta[i1]) * (g[i2] - g[i1]);
                if lhs >= rhs {
                    hull.pop();
                } else {
                    break;
                }
            }
            hull.push(k);
        }
        // slopes between consecutive hull points; masses ω_k e^{−kh} = slope jump at γ_k
        let mut w_pos = vec![0.0; j]; // ω_k for k ≥ 1
        let mut slope_prev = f64::NAN;
        let mut s0 = 0.0;
        for w in hull.windows(2) {
            let (i1, i2) = (w[0], w[1]);
            let sl = (delta[i2] - delta[i1]) / (g[i2] - g[i1]);
            if i1 == 0 {
                s0 = sl;
            } else {
                w_pos[i1] = ((sl - slope_prev) * (i1 as f64 * h).exp()).max(0.0);
            }
            slope_prev = sl;
        }
        let last = *hull.last().unwrap_or(&0);
        if last > 0 {
            w_pos[last] = ((0.0 - slope_prev) * (last as f64 * h).exp()).max(0.0);
        }
        let inf = delta[j - 1];
        // mass at 0 from the symmetric reflection δ(γ) = 1 − γ + γ δ(1/γ) for γ < 1
        let w0 = 2.0 * s0 + 1.0 - delta[0];
        if w0 < -1e-12 {
            return Err(PabiError::domain(
                "delta",
                "a valid symmetric privacy profile (slope at eps = 0 too steep for delta(0))",
                delta[0],
            ));
        }
        let mut pmf = vec![0.0; 2 * j - 1];
        let mid = j - 1;
        pmf[mid] = w0.max(0.0);
        let mut total = inf + pmf[mid];
        for k in 1..j {
            let wk = w_pos[k];
            pmf[mid + k] = wk;
            pmf[mid - k] = wk * (-(k as f64) * h).exp();
            total += pmf[mid + k] + pmf[mid - k];
        }
        if total > 1.0 + 1e-9 {
            return Err(PabiError::domain(
                "delta",
                "a valid symmetric privacy profile (implied total mass > 1)",
                total,
            ));
        }
        Ok(Pld {
            h,
            lo: -(mid as i64),
            pmf,
            inf,
            bad: inf,
            inf_exact: 0.0,
        }
        .close_mass())
    }

    /// ln Σ_k ω_k e^{λ ℓ_k} (finite part) for each λ in `lambdas`, by the exp-free recursion
    /// T_k = ω_k + e^{−|λ|h} T_{k±1} from the end where e^{λℓ} is largest (no overflow); a
    /// relative margin of 1e-9 covers the accumulated rounding.
    fn log_mgf(&self, lambdas: &[f64]) -> Vec<f64> {
        let first = self.pmf.iter().position(|&w| w > 0.0);
        let last = self.pmf.iter().rposition(|&w| w > 0.0);
        let (Some(f), Some(l)) = (first, last) else {
            return vec![f64::NEG_INFINITY; lambdas.len()];
        };
        let w = &self.pmf[f..=l];
        let l_top = (self.lo + l as i64) as f64 * self.h;
        let l_bot = (self.lo + f as i64) as f64 * self.h;
        lambdas
            .iter()
            .map(|&lam| {
                let r = (-lam.abs() * self.h).exp();
                let mut t = 0.0;
                if lam > 0.0 {
                    for &x in w.iter() {
                        t = x + r * t;
                    }
                    lam * l_top + t.ln() + 1e-9
                } else {
                    for &x in w.iter().rev() {
                        t = x + r * t;
                    }
                    lam * l_bot + t.ln() + 1e-9
                }
            })
            .collect()
    }

    /// Add the mass missing from the total (round-off of the cell masses) to the +∞ atom.
    fn close_mass(mut self) -> Self {
        // masses below 1e-250 go to +∞ (pessimistic; keeps the FFT out of subnormals)
        let mut moved = 0.0;
        for w in self.pmf.iter_mut() {
            if *w < 1e-250 {
                moved += *w;
                *w = 0.0;
            }
        }
        self.inf += moved;
        self.bad += moved;
        let tot = crate::num::neumaier_sum(self.pmf.iter().copied()) + self.inf;
        let miss = 1.0 - tot;
        if miss > 0.0 {
            self.inf += miss;
            self.bad += miss;
        }
        self
    }
}

// ---------------------------------------------------------------------------------------------
// Composition

/// The composed PLD on a window of the grid, with the terms of its error budget.
#[derive(Clone, Debug)]
pub struct Composition {
    pub h: f64,
    /// grid index of `pmf[0]`
    pub k_lo: i64,
    /// composed finite masses on the window (negative round-off clipped to 0)
    pub pmf: Vec<f64>,
    /// composed mass at +∞: 1 − Π(1 − inf_i)^{T_i}
    pub inf: f64,
    /// Σ T_i·bad_i (truncated mass, for the lower value)
    pub bad: f64,
    /// composed genuine +∞ mass 1 − Π(1 − inf_exact_i)^{T_i} (counted in the lower value)
    pub inf_exact: f64,
    /// Chernoff bound on the finite mass above / below the window
    pub tail_hi: f64,
    pub tail_lo: f64,
    /// estimated FFT round-off on Σ_k pmf_k φ(ℓ_k)
    pub fft_err: f64,
    /// Σ T_i (number of composed steps) — for the lower value's Hoeffding term
    pub steps: f64,
    // suffix sums for fast queries: s0[k] = Σ_{j≥k} pmf_j, s1[k] = Σ_{j≥k} pmf_j e^{ℓ_k − ℓ_j}
    s0: Vec<f64>,
    s1: Vec<f64>,
}

/// Smallest even 2^a·3^b·5^c·7^d ≥ n (FFT-friendly length).
fn next_smooth(n: usize) -> usize {
    let mut best = n.next_power_of_two();
    let mut p7 = 1usize;
    while p7 < best {
        let mut p5 = p7;
        while p5 < best {
            let mut p3 = p5;
            while p3 < best {
                let mut v = p3 * 2;
                while v < n {
                    v *= 2;
                }
                if v < best {
                    best = v;
                }
                p3 *= 3;
            }
            p5 *= 5;
        }
        p7 *= 7;
    }
    best
}

/// Unit round-off of f64.
const U: f64 = f64::EPSILON / 2.0;

/// κ_N: per-bin bound |ŷ_k − y_k| ≤ κ_N·‖x‖₁ of realfft/rustfft's length-N real FFT (forward,
/// or inverse per output point in terms of ‖spectrum‖₁), and the normwise analogue.
///
/// Componentwise version of Higham, *Accuracy and Stability of Numerical Algorithms* (2nd ed.,
/// 2002), §24.1, Thm 24.2: a Cooley–Tukey FFT is a product of sparse stages whose outputs are
/// sums of ≤ r inputs times unit-modulus twiddles; the stage's computed output differs from
/// the exact stage applied to the computed input by ≤ η·Σ|inputs| per output, and since every
/// output of the DFT reaches each input along exactly one path with unit-modulus weights, the
/// entrywise-absolute stage products map |x| to ‖x‖₁. Hence per output |ŷ − y| ≤
/// ((1+η)^L − 1)‖x‖₁ ≤ Lη/(1 − Lη)·‖x‖₁ for L radix-2-equivalent levels. Here η = 32u covers
/// a twiddle error μ ≤ 21u (rustfft: sin/cos of the f64 angle −2π·j/N, |angle| ≤ 2π) plus
/// γ₄(√2 + μ) of the complex multiply-add (Higham's η = μ + γ₄(√2 + μ)); a radix-p butterfly
/// (p = 3, 5, 7: sums of p terms with precomputed constants) is counted as ⌈log₂ p⌉ levels;
/// realfft's real↔half-length-complex packing adds one level and doubles the bound (each
/// output combines two bins of the half-length transform).
fn fft_error_coeff(n: usize) -> f64 {
    let mut m = (n / 2).max(1);
    let mut levels = 0.0;
    for (p, l) in [(2usize, 1.0), (3, 2.0), (5, 3.0), (7, 3.0)] {
        while m % p == 0 {
            m /= p;
            levels += l;
        }
    }
    // any other factor (not produced by next_smooth): count a generic radix as log2(m)+1 levels
    if m > 1 {
        levels += (m as f64).log2().ceil() + 1.0;
    }
    let lam = 2.0 * (levels + 2.0) * 32.0 * U;
    lam / (1.0 - lam)
}

/// Per-bin bound (over ‖x‖₁) of [`TwiddleTable::direct_dft`] over m terms: twiddle as a product
/// of two table entries (each within 11u: sin/cos of an f64 angle |a| ≤ π with 3u relative
/// error), the complex product (√2γ₂), the real×complex product (u), and Neumaier summation
/// (Higham §4.3: ≤ 2u|s| + O(m u²)Σ|terms|; the 2u|s| part is added by the caller as 4u|z|).
fn direct_dft_coeff(m: usize) -> f64 {
    28.0 * U + 4.0 * m as f64 * U * U
}

/// Two-level table of e^{−2πi r/N}: r = r1·B + r0 with B a divisor of N near √N.
struct TwiddleTable {
    n: usize,
    b: usize,
    nb: usize,
    t0: Vec<Complex<f64>>,
    t1: Vec<Complex<f64>>,
}

impl TwiddleTable {
    fn new(n: usize) -> Self {
        let mut b = ((n as f64).sqrt() as usize).max(1);
        while n % b != 0 {
            b -= 1;
        }
        let nb = n / b;
        let w = |r: usize| -> Complex<f64> {
            // symmetric reduction: angle in [−π, π]
            let ri = if 2 * r <= n {
                r as f64
            } else {
                r as f64 - n as f64
            };
            let a = -std::f64::consts::TAU * (ri / n as f64);
            let (s, c) = a.sin_cos();
            Complex::new(c, s)
        };
        let t0 = (0..b).map(w).collect();
        let t1 = (0..nb).map(|r1| w(r1 * b)).collect();
        TwiddleTable { n, b, nb, t0, t1 }
    }

    /// Σ_j x_j e^{−2πi (j0 + j) k / N} with exact index arithmetic and Neumaier summation.
    fn direct_dft(&self, xs: &[f64], j0: i64, k: usize) -> Complex<f64> {
        let n = self.n as i128;
        let r = ((j0 as i128) * (k as i128)).rem_euclid(n) as usize;
        let (mut r1, mut r0) = (r / self.b, r % self.b);
        let step = k % self.n;
        let (s1, s0) = (step / self.b, step % self.b);
        let (mut sr, mut cr, mut si, mut ci) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for &x in xs {
            if x != 0.0 {
                let w = self.t1[r1] * self.t0[r0];
                let (vr, vi) = (x * w.re, x * w.im);
                let t = sr + vr;
                if sr.abs() >= vr.abs() {
                    cr += (sr - t) + vr;
                } else {
                    cr += (vr - t) + sr;
                }
                sr = t;
                let t = si + vi;
                if si.abs() >= vi.abs() {
                    ci += (si - t) + vi;
                } else {
                    ci += (vi - t) + si;
                }
                si = t;
            }
            r0 += s0;
            r1 += s1;
            if r0 >= self.b {
                r0 -= self.b;
                r1 += 1;
            }
            if r1 >= self.nb {
                r1 -= self.nb;
            }
        }
        Complex::new(sr + cr, si + ci)
    }
}

type Plans = (
    std::sync::Arc<dyn realfft::RealToComplex<f64>>,
    std::sync::Arc<dyn realfft::ComplexToReal<f64>>,
);

/// FFT plans of length n; the last two lengths ≤ 2^21 are kept (planning computes O(n)
/// twiddles, a sizeable part of one composition; calibration and the two neighbouring
/// directions often reuse a length). At most ~100 MB stays cached.
fn fft_plans(n: usize) -> Plans {
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<Vec<(usize, Plans)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    if let Some((_, p)) = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(m, _)| *m == n)
    {
        return p.clone();
    }
    let mut planner = RealFftPlanner::<f64>::new();
    let plans: Plans = (planner.plan_fft_forward(n), planner.plan_fft_inverse(n));
    if n <= 1 << 21 {
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        if !c.iter().any(|(m, _)| *m == n) {
            if c.len() >= 2 {
                c.remove(0);
            }
            c.push((n, plans.clone()));
        }
    }
    plans
}

/// Tail tolerance used to choose the window (Chernoff bound on the mass outside it).
pub const DEFAULT_TAIL: f64 = 1e-15;

/// An integer-valued float as a grid index clamped to [lo, hi] (`nan` for NaN): the conversion
/// happens only inside the range, so it neither saturates nor wraps.
fn clamp_index(x: f64, lo: i128, hi: i128, nan: i128) -> i128 {
    if x.is_nan() {
        nan
    } else if x <= lo as f64 {
        lo
    } else if x >= hi as f64 {
        hi
    } else {
        x as i128
    }
}

/// The composed window chosen by [`compose`] before any allocation.
struct Window {
    k_lo: i128,
    k_top: i128,
    sup_lo: i128,
    sup_hi: i128,
    /// (λ, composed log-MGF at +λ) and (λ, at −λ)
    lgrid_hi: Vec<(f64, f64)>,
    lgrid_lo: Vec<(f64, f64)>,
}

impl Window {
    /// Number of grid points of the window (≥ 1; may exceed `usize` range in principle).
    fn width(&self) -> i128 {
        self.k_top - self.k_lo + 1
    }
}

/// Validate `parts` and choose the composed window by Chernoff bounds (cheap: O(Σ len · 32)).
/// All support arithmetic is in i128 with checked operations.
fn window(parts: &[(&Pld, u64)], tail: f64) -> Result<Window> {
    if parts.is_empty() {
        return Err(PabiError::domain("parts", "at least one PLD", 0.0));
    }
    if !(tail > 0.0 && tail < 1e-3) {
        return Err(PabiError::domain("tail", "in (0, 1e-3)", tail));
    }
    let h = parts[0].0.h;
    check_h(h)?;
    for (i, (p, t)) in parts.iter().enumerate() {
        if p.h != h {
            return Err(PabiError::domain("h", "the same grid step for all parts", p.h).at(i));
        }
        if *t < 1 || *t > MAX_TIMES {
            return Err(PabiError::domain("steps", "an integer in [1, 2^53]", *t as f64).at(i));
        }
        // a Pld built by this module satisfies these; its fields are public, so check them
        let len = p.pmf.len();
        let top = p.lo as f64 + len as f64;
        if len == 0 || len > MAX_GRID || (p.lo as f64).abs() > MAX_INDEX || top.abs() > MAX_INDEX {
            return Err(PabiError::domain(
                "parts",
                "PLDs of 1..=2^21 grid points with indices within 2^53",
                len as f64,
            )
            .at(i));
        }
    }
    let overflow = || {
        PabiError::domain(
            "steps",
            "small enough that the composed support indices fit (use fewer compositions)",
            parts.iter().map(|(_, t)| *t as f64).sum::<f64>(),
        )
    };
    // support bounds: Σ T_i·(first/last index of part i), |each term| ≤ 2^53·2^53
    let mut sup_lo: i128 = 0;
    let mut sup_hi: i128 = 0;
    for (p, t) in parts {
        let first = p.pmf.iter().position(|&w| w > 0.0).unwrap_or(0) as i128;
        let last = p.pmf.iter().rposition(|&w| w > 0.0).unwrap_or(0) as i128;
        let t = *t as i128;
        sup_lo = t
            .checked_mul(p.lo as i128 + first)
            .and_then(|v| sup_lo.checked_add(v))
            .ok_or_else(overflow)?;
        sup_hi = t
            .checked_mul(p.lo as i128 + last)
            .and_then(|v| sup_hi.checked_add(v))
            .ok_or_else(overflow)?;
    }
    // Chernoff window
    let ltol = tail.ln();
    let lambdas: Vec<f64> = (0..16)
        .map(|i| 10f64.powf(-2.0 + 4.0 * i as f64 / 15.0))
        .collect();
    let mut neg: Vec<f64> = lambdas.iter().map(|l| -l).collect();
    neg.extend_from_slice(&lambdas);
    let mut tot = vec![0.0; neg.len()];
    for (p, t) in parts {
        for (a, v) in tot.iter_mut().zip(p.log_mgf(&neg)) {
            *a += *t as f64 * v;
        }
    }
    let nl = lambdas.len();
    let mut s_hi = f64::INFINITY;
    let mut s_lo = f64::NEG_INFINITY;
    let mut lgrid_hi = Vec::with_capacity(lambdas.len());
    let mut lgrid_lo = Vec::with_capacity(lambdas.len());
    for (i, &lam) in lambdas.iter().enumerate() {
        let a = tot[nl + i];
        let b = tot[i];
        lgrid_hi.push((lam, a));
        lgrid_lo.push((lam, b));
        s_hi = s_hi.min((a - ltol) / lam);
        s_lo = s_lo.max((ltol - b) / lam);
    }
    // clamped to the support in floating point, then converted (a NaN bound: the support edge)
    let mut k_top = clamp_index((s_hi / h).ceil(), sup_lo, sup_hi, sup_hi);
    let mut k_lo = clamp_index((s_lo / h).floor(), sup_lo, sup_hi, sup_lo);
    if k_top < k_lo {
        k_top = sup_hi;
        k_lo = sup_lo;
    }
    Ok(Window {
        k_lo,
        k_top,
        sup_lo,
        sup_hi,
        lgrid_hi,
        lgrid_lo,
    })
}

/// The error for a composed window wider than [`MAX_WINDOW`] (named `h`: a coarser grid
/// shrinks it in proportion).
fn window_error(width: i128, h: f64) -> PabiError {
    PabiError::domain(
        "h",
        format!(
            "large enough that the composed window fits its cap of 2^22 points (this h needs \
             {width}; use a coarser h or fewer compositions)"
        ),
        h,
    )
}

/// Compose `parts` = [(PLD, multiplicity)] (all on the same grid step) by FFT.
///
/// Sizes are decided before any allocation: the window (≤ [`MAX_WINDOW`] points, else a
/// `DomainError` on `h`), the FFT length n = next 2^a3^b5^c7^d ≥ max(window, 2·longest part,
/// 1024) ≤ 2^22, and window indices within ±2^53.
pub fn compose(parts: &[(&Pld, u64)], tail: f64) -> Result<Composition> {
    let win = window(parts, tail)?;
    let h = parts[0].0.h;
    let wid = win.width();
    if wid > MAX_WINDOW as i128 {
        return Err(window_error(wid, h));
    }
    if (win.k_lo as f64).abs() > MAX_INDEX || (win.k_top as f64).abs() > MAX_INDEX {
        return Err(PabiError::domain(
            "steps",
            "small enough that the composed window's grid indices stay within 2^53 \
             (use fewer compositions or a coarser h)",
            parts.iter().map(|(_, t)| *t as f64).sum::<f64>(),
        ));
    }
    let Window {
        k_lo,
        k_top,
        sup_lo,
        sup_hi,
        lgrid_hi,
        lgrid_lo,
    } = win;
    let width = wid as usize; // ≤ 2^22
    let maxlen = parts.iter().map(|(p, _)| p.pmf.len()).max().unwrap_or(1); // ≤ 2^21
    let n = next_smooth(width.max(2 * maxlen).max(1024));
    if n > MAX_WINDOW {
        // unreachable: next_smooth(m) ≤ m.next_power_of_two() ≤ 2^22 for m ≤ 2^22
        return Err(window_error(n as i128, h));
    }
    // mass beyond the window (tail bounds evaluated at the final window edges)
    let top = k_top as f64 * h;
    let bottom = k_lo as f64 * h;
    let tail_hi = if k_top >= sup_hi {
        0.0
    } else {
        lgrid_hi
            .iter()
            .map(|&(lam, a)| (a - lam * top).exp())
            .fold(1.0, f64::min)
    };
    let tail_lo = if k_lo <= sup_lo {
        0.0
    } else {
        lgrid_lo
            .iter()
            .map(|&(lam, b)| (b + lam * bottom).exp())
            .fold(1.0, f64::min)
    };
    // spectra, with a rigorous per-bin bound B_k ≥ |acc_k − exact_k| (module doc, "FFT
    // round-off"): a forward-FFT bound κ_N·‖x‖₁ per bin, tightened to the direct compensated
    // DFT bound where it matters, propagated through the powering and the products.
    let (fwd, inv) = fft_plans(n);
    let nc = n / 2 + 1;
    let kappa = fft_error_coeff(n);
    let mut acc: Vec<Complex<f64>> = vec![Complex::new(1.0, 0.0); nc];
    let mut accb = vec![0.0f64; nc];
    let mut buf = vec![0.0; n];
    let mut spec = vec![Complex::new(0.0, 0.0); nc];
    let mut ebin = vec![0.0f64; nc];
    let mut inf_keep_log = 0.0;
    let mut infx_keep_log = 0.0;
    let mut bad = 0.0;
    let mut steps = 0.0;
    let tw = TwiddleTable::new(n);
    for (p, t) in parts {
        crate::interrupt::check()?;
        buf.iter_mut().for_each(|v| *v = 0.0);
        let nn = n as i64;
        for (i, &w) in p.pmf.iter().enumerate() {
            let pos = (p.lo + i as i64).rem_euclid(nn) as usize;
            buf[pos] += w;
        }
        // ‖x‖₁ rounded up (all masses ≥ 0; a sub-probability up to round-off)
        let mass = up(crate::num::neumaier_sum(p.pmf.iter().copied()));
        fwd.process(&mut buf, &mut spec)
            .map_err(|e| PabiError::unreachable(format!("FFT failed: {e}")))?;
        let tf = *t as f64;
        let eb_fft = kappa * mass;
        // bins whose FFT error would matter after powering: recompute directly
        let first = p.pmf.iter().position(|&w| w > 0.0).unwrap_or(0);
        let last = p.pmf.iter().rposition(|&w| w > 0.0).unwrap_or(0);
        let m_sup = last + 1 - first.min(last);
        let eb_dir = direct_dft_coeff(m_sup) * mass;
        // T·R^{T−1}·ε_fft > 1e-18 ⇔ R > r_cut (one exp per part instead of one per bin)
        let r_cut = if tf > 1.0 {
            ((-41.4 - (tf * eb_fft).ln()) / (tf - 1.0)).exp()
        } else {
            0.0
        };
        let mut refine: Vec<usize> = Vec::new();
        if tf * eb_fft > 1e-18 && eb_dir < eb_fft {
            for (k, z) in spec.iter().enumerate() {
                let r = z.norm_sqr().sqrt() * (1.0 + 4.0 * U) + eb_fft;
                if r.min(1.0) > r_cut {
                    refine.push(k);
                }
            }
        }
        ebin.iter_mut().for_each(|v| *v = eb_fft);
        if !refine.is_empty() && (refine.len() as f64) * (m_sup as f64) <= 4e7 {
            let xs = &p.pmf[first..first + m_sup];
            let j0 = p.lo + first as i64;
            for &k in &refine {
                let z = tw.direct_dft(xs, j0, k);
                spec[k] = z;
                ebin[k] = eb_dir + 4.0 * U * z.norm_sqr().sqrt() * (1.0 + 4.0 * U);
            }
        }
        // bins with max(|z̃|,|z|) ≤ c_neg have T·R^{T−1}·e ≤ T·c_neg^{T−1}·e_max ≤ 1e-40:
        // use that constant instead of one ln/exp per bin
        let e_max = eb_fft.max(eb_dir + 4.0 * U * (1.0 + eb_fft));
        let c_neg = if tf > 1.0 {
            ((-92.1 - (tf * e_max).ln()) / (tf - 1.0)).exp().min(1.0)
        } else {
            1.0
        };
        let prop_neg = if tf > 1.0 {
            tf * ((tf - 1.0) * c_neg.ln()).exp() * e_max * (1.0 + 1e-9)
        } else {
            e_max
        };
        for (k, (a, z)) in acc.iter_mut().zip(spec.iter()).enumerate() {
            let e = ebin[k];
            let r2 = z.norm_sqr();
            let rt = r2.sqrt() * (1.0 + 4.0 * U); // ≥ |z̃_k|
                                                  // max(|z̃|, |z|) ≤ R; |z| ≤ min(|z̃| + e, 1)
            let big = rt.max((rt + e).min(1.0));
            let prop = if tf <= 1.0 {
                e
            } else if big <= c_neg {
                prop_neg
            } else {
                tf * ((tf - 1.0) * big.ln()).exp() * e
            };
            let lr = 0.5 * tf * r2.ln();
            let (pw, pabs, err) = if r2 == 0.0 || lr < -740.0 {
                // z̃^T ≈ 0 taken as 0: the error is |z^T| ≤ min(|z̃| + e, 1)^T ≤ R·R^{T−1}
                let zb = (rt + e).min(1.0);
                let bound = if tf <= 1.0 {
                    zb
                } else {
                    zb * prop / (tf * e.max(f64::MIN_POSITIVE))
                };
                (Complex::new(0.0, 0.0), 0.0, bound * (1.0 + 1e-9))
            } else {
                let ang = z.im.atan2(z.re);
                let th = tf * ang;
                let mag = lr.exp();
                let (sn, cs) = th.sin_cos();
                let pw = Complex::new(mag * cs, mag * sn);
                // relative error of the polar power vs z̃^T: magnitude (ln of r2 with 3u
                // relative error, times T/2, exp) and phase (atan2 within 2u relative, ×T,
                // sin_cos)
                let rho =
                    (1.5 * tf * U * 1.01 + 2.0 * U * lr.abs() + 4.0 * U * th.abs() + 12.0 * U)
                        * 1.01;
                (
                    pw,
                    mag * (1.0 + 4.0 * U),
                    (rho * mag + prop) * (1.0 + 1e-12),
                )
            };
            // exact t = z^T satisfies |t| ≤ min(|pw| + err, 1)
            let tabs = (pabs + err).min(1.0);
            let aabs = a.norm_sqr().sqrt() * (1.0 + 4.0 * U);
            let prod = *a * pw;
            accb[k] = (3.0 * U * aabs * pabs + aabs * err + accb[k] * tabs) * (1.0 + 1e-12);
            *a = prod;
        }
        inf_keep_log += tf * (-p.inf).ln_1p();
        infx_keep_log += tf * (-p.inf_exact).ln_1p();
        bad += tf * p.bad;
        steps += tf;
    }
    // the DC and Nyquist bins of a real signal are real (dropping the imaginary round-off only
    // moves them closer to the exact values)
    acc[0].im = 0.0;
    acc[nc - 1].im = 0.0;
    // inverse: per point ≤ (Σ_k B_k + κ Σ_k |A_k|)/N over the full (Hermitian) spectrum;
    // in ℓ2 (Parseval) ≤ (‖B‖₂ + κ‖A‖₂)/√N
    let (mut sb1, mut sb2, mut sa1, mut sa2) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (a, &b) in acc.iter().zip(accb.iter()) {
        let an = a.norm_sqr().sqrt() * (1.0 + 4.0 * U);
        sb1 += b;
        sb2 += b * b;
        sa1 += an;
        sa2 += an * an;
    }
    let full = |s: f64| 2.0 * s * (1.0 + 1e-12);
    crate::interrupt::check()?;
    let mut out = vec![0.0; n];
    inv.process(&mut acc, &mut out)
        .map_err(|e| PabiError::unreachable(format!("FFT failed: {e}")))?;
    let scale = 1.0 / n as f64;
    // read the window in grid order (exact values are ≥ 0: clipping negatives only helps)
    let nn = n as i128;
    let mut pmf = vec![0.0; width];
    let mut wmass = 0.0;
    for (i, v) in pmf.iter_mut().enumerate() {
        let pos = (k_lo + i as i128).rem_euclid(nn) as usize;
        let x = out[pos] * scale;
        *v = x.max(0.0);
        wmass += *v;
    }
    let wf = width as f64;
    let nf = n as f64;
    let l1_route = wf / nf * (full(sb1) + kappa * full(sa1));
    let l2_route = (wf / nf).sqrt() * (full(sb2).sqrt() + kappa * full(sa2).sqrt());
    let fft_err = (l1_route.min(l2_route) + 2.0 * U * wmass) * (1.0 + 1e-9);
    // suffix sums
    let mut s0 = vec![0.0; width + 1];
    let mut s1 = vec![0.0; width + 1];
    let emh = (-h).exp();
    let mut c0 = 0.0;
    for i in (0..width).rev() {
        // Kahan on s0
        let y = pmf[i] - c0;
        let t = s0[i + 1] + y;
        c0 = (t - s0[i + 1]) - y;
        s0[i] = t;
        s1[i] = pmf[i] + emh * s1[i + 1];
    }
    Ok(Composition {
        h,
        k_lo: k_lo as i64,
        pmf,
        inf: -inf_keep_log.exp_m1(),
        bad,
        inf_exact: -infx_keep_log.exp_m1() * (1.0 - 1e-12),
        tail_hi,
        tail_lo,
        fft_err,
        steps,
        s0,
        s1,
    })
}

/// (lower, estimate, upper) triple.
pub type Bracket = (f64, f64, f64);

impl Composition {
    fn loss(&self, i: usize) -> f64 {
        (self.k_lo + i as i64) as f64 * self.h
    }

    /// First window index k with ℓ_k > ε (w if none).
    fn first_above(&self, eps: f64) -> usize {
        let w = self.pmf.len();
        let r = eps / self.h - self.k_lo as f64;
        if r < 0.0 {
            0
        } else if r < w as f64 {
            r.floor() as usize + 1 // r in [0, w): no saturation, no overflow
        } else {
            w // also ε = +∞ (and NaN, which the callers reject)
        }
    }

    /// Σ_{ℓ_j > ε} pmf_j (1 − e^{ε − ℓ_j}) (the finite part of δ(ε)).
    pub fn finite_delta(&self, eps: f64) -> f64 {
        if eps.is_nan() {
            return f64::NAN;
        }
        let k = self.first_above(eps);
        if k >= self.pmf.len() {
            return 0.0;
        }
        let v = self.s0[k] - (eps - self.loss(k)).exp() * self.s1[k];
        v.max(0.0)
    }

    /// Bound on the rounding error of [`Self::finite_delta`] at ε: the suffix sums of W
    /// non-negative terms carry ≤ (3W + 10)u relative error (Kahan for s0; for s1 the
    /// recursion s1 = pmf + e^{−h}·s1 accumulates ≤ 2u per step plus the rounding of e^{−h}),
    /// the exponential factor ≤ 2u(|ε| + |ℓ_k| + 2).
    fn query_err(&self, eps: f64) -> f64 {
        let k = self.first_above(eps);
        if k >= self.pmf.len() {
            return 0.0;
        }
        let c = (3.0 * self.pmf.len() as f64 + 10.0) * U
            + 2.0 * U * (eps.abs() + self.loss(k).abs() + 2.0);
        c * (self.s0[k] + self.s1[k]) * (1.0 + 1e-9)
    }

    fn drift(&self) -> f64 {
        self.steps * self.h * self.h / 4.0
    }

    fn hoeffding(&self, eta: f64) -> f64 {
        self.h * (self.steps * (1.0 / eta).ln() / 2.0).sqrt()
    }

    fn add_up(&self) -> f64 {
        // mass below the window only matters for the upper value if it can have positive loss
        let lo_part = if self.k_lo > 0 { self.tail_lo } else { 0.0 };
        self.inf * (1.0 + 1e-10) + self.tail_hi + lo_part + self.fft_err
    }

    fn sub_low(&self) -> f64 {
        self.bad + self.tail_hi + self.tail_lo + self.fft_err
    }

    /// δ(ε) as (lower bound, estimate, upper bound).
    pub fn delta(&self, eps: f64) -> Bracket {
        let d = self.finite_delta(eps);
        let upper = up(d + self.query_err(eps) + self.add_up()).min(1.0);
        let est = (d + self.inf).min(1.0);
        let eta = (1e-3 * d).max(1e-300);
        let c = self.drift() + self.hoeffding(eta);
        let lower = (self.finite_delta(eps + c) * (1.0 - 1e-12) - self.query_err(eps + c)
            + self.inf_exact
            - self.sub_low()
            - eta)
            .max(0.0);
        (lower, est, upper)
    }

    /// Smallest ε ≥ 0 with finite_delta(ε) ≤ target (+∞ if none, 0 if already at ε = 0).
    fn solve(&self, target: f64) -> f64 {
        if target <= 0.0 {
            return f64::INFINITY;
        }
        if self.finite_delta(0.0) <= target {
            return 0.0;
        }
        // D(ℓ_{k−1}) = s0[k] − e^{−h} s1[k]; find the first k with D(ℓ_k) ≤ target
        let w = self.pmf.len();
        let dk = |k: usize| -> f64 {
            // D at ε = ℓ_k: terms j ≥ k+1
            if k + 1 >= w {
                0.0
            } else {
                self.s0[k + 1] - (-self.h).exp() * self.s1[k + 1]
            }
        };
        let (mut lo, mut hi) = (0usize, w - 1);
        if dk(0) <= target {
            // ε below the window start: D is linear-exponential there with all mass above
            let e = (self.s0[0] - target) / self.s1[0];
            return (self.loss(0) + e.ln()).max(0.0);
        }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if dk(mid) <= target {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // ε in [ℓ_lo, ℓ_hi]: D(ε) = s0[hi] − e^{ε − ℓ_hi} s1[hi]
        let e = ((self.s0[hi] - target) / self.s1[hi]).max(f64::MIN_POSITIVE);
        let eps = self.loss(hi) + e.ln();
        eps.clamp(self.loss(lo), self.loss(hi)).max(0.0)
    }

    /// ε(δ) as (lower bound, estimate, upper bound); +∞ where δ cannot be certified.
    pub fn epsilon(&self, delta: f64) -> Bracket {
        let tu = delta - self.add_up();
        let upper = if tu <= 0.0 {
            f64::INFINITY
        } else {
            // solve, then move the target down by the query round-off at the solution (s0 is
            // non-increasing, so the error at the second, larger solution is no larger)
            let e1 = self.solve(tu * (1.0 - 1e-12));
            let e = if e1.is_finite() {
                self.solve((tu - self.query_err(e1)) * (1.0 - 1e-12))
            } else {
                e1
            };
            if e == 0.0 {
                0.0
            } else {
                e + e.abs() * 1e-13 + 1e-13
            }
        };
        let est = self.solve(delta - self.inf);
        let eta = 1e-3 * delta;
        let c = self.drift() + self.hoeffding(eta);
        let tl = (delta + eta + self.sub_low() - self.inf_exact) / (1.0 - 1e-12);
        let tl = tl + self.query_err(self.solve(tl));
        let lower = (self.solve(tl) - c).max(0.0);
        (lower, est, upper)
    }
}

// ---------------------------------------------------------------------------------------------
// DP-SGD accountant

/// Default loss grid step of the DP-SGD accountant.
pub const DPSGD_H: f64 = 1e-4;
/// Finest loss grid step the DP-SGD accountant accepts.
pub const DPSGD_H_MIN: f64 = 1e-6;
/// Largest ε target of [`dpsgd_calibrate_sigma`] (e^100 ≈ 2.7e43: no meaningful guarantee).
pub const CALIBRATE_EPS_MAX: f64 = 100.0;
/// Smallest relative tolerance of [`dpsgd_calibrate_sigma`].
pub const CALIBRATE_RTOL_MIN: f64 = 1e-12;
/// The σ range searched by [`dpsgd_calibrate_sigma`].
const SIGMA_SEARCH_MIN: f64 = 1e-3;
const SIGMA_SEARCH_MAX: f64 = 1e6;

fn check_dpsgd(q: f64, sigma: f64, steps: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&q) {
        return Err(PabiError::domain("q", "in [0, 1]", q));
    }
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(PabiError::domain("sigma", "> 0 and finite", sigma));
    }
    if !(steps >= 1.0 && steps.fract() == 0.0 && steps <= 1e12) {
        return Err(PabiError::domain("steps", "an integer in [1, 1e12]", steps));
    }
    Ok(())
}

fn check_dpsgd_h(h: f64) -> Result<()> {
    if !(DPSGD_H_MIN..=H_MAX).contains(&h) {
        return Err(PabiError::domain("h", "in [1e-6, 0.1]", h));
    }
    Ok(())
}

/// One direction of DP-SGD composed on the finest grid h' = h·2^k (or 0.1) on which both the
/// single-step PLD (≤ [`MAX_GRID`] points) and the composed window (≤ [`MAX_WINDOW`]) fit; a
/// coarser grid is still a valid, slightly looser bound. The single-step grid size is found
/// without allocating; each window miss multiplies h' by the power of two that covers the
/// excess, so there are at most ⌈log2(0.1/1e-6)⌉ + 1 = 18 rounds. If nothing fits at
/// h' = 0.1, the error names `sigma` (σ too small for the caps).
fn dpsgd_direction(q: f64, sigma: f64, steps: f64, dir: Neighbour, h: f64) -> Result<Composition> {
    let t = steps as u64; // an integer in [1, 1e12] (check_dpsgd)
    let (lmin, lmax) = sg_loss_range(q, sigma, dir);
    let mut hh = h;
    for _ in 0..64 {
        if grid_span(lmin, lmax, hh, MAX_GRID).is_none() {
            if hh >= H_MAX {
                return Err(grid_error(lmin, lmax, H_MAX, MAX_GRID, "sigma", sigma));
            }
            hh = (hh * 2.0).min(H_MAX);
            continue;
        }
        let p = Pld::subsampled_gaussian(q, sigma, dir, hh)?;
        let w = window(&[(&p, t)], DEFAULT_TAIL)?.width();
        if w <= MAX_WINDOW as i128 {
            return compose(&[(&p, t)], DEFAULT_TAIL);
        }
        if hh >= H_MAX {
            return Err(PabiError::domain(
                "sigma",
                format!(
                    "large enough that {steps} compositions fit the composed window's cap of \
                     2^22 points even at the coarsest h = 0.1 (it needs {w}; or use fewer steps)"
                ),
                sigma,
            ));
        }
        // the window shrinks about in proportion to h: jump by the power of two covering it
        let f = (w as f64 / MAX_WINDOW as f64).log2().ceil().exp2().max(2.0);
        hh = (hh * f).min(H_MAX);
    }
    Err(PabiError::unreachable(
        "internal: the DP-SGD grid coarsening did not terminate",
    ))
}

/// The two compositions (remove, add) of `steps` Poisson-subsampled Gaussian steps, each on
/// the finest grid h·2^k ≤ 0.1 that fits the size caps (see the module doc, "Resource limits").
pub fn dpsgd_compositions(q: f64, sigma: f64, steps: f64, h: f64) -> Result<Vec<Composition>> {
    check_dpsgd(q, sigma, steps)?;
    check_dpsgd_h(h)?;
    if q == 0.0 {
        return Ok(vec![]);
    }
    let run = |dir: Neighbour| dpsgd_direction(q, sigma, steps, dir, h);
    let (a, b) = match crate::batch::pool() {
        Some(pool) => {
            pool.install(|| rayon::join(|| run(Neighbour::Remove), || run(Neighbour::Add)))
        }
        None => (run(Neighbour::Remove), run(Neighbour::Add)),
    };
    Ok(vec![a?, b?])
}

/// ε(δ) of DP-SGD (add-or-remove-one neighbours, worse direction) as (lower, estimate, upper).
pub fn dpsgd_epsilon(q: f64, sigma: f64, steps: f64, delta: f64, h: f64) -> Result<Bracket> {
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    let comps = dpsgd_compositions(q, sigma, steps, h)?;
    let mut r: Bracket = (0.0, 0.0, 0.0);
    for c in &comps {
        let (l, e, u) = c.epsilon(delta);
        r = (r.0.max(l), r.1.max(e), r.2.max(u));
    }
    Ok(r)
}

/// δ(ε) of DP-SGD as (lower, estimate, upper); ε ∈ [0, +∞].
pub fn dpsgd_delta(q: f64, sigma: f64, steps: f64, eps: f64, h: f64) -> Result<Bracket> {
    if eps.is_nan() || eps < 0.0 {
        return Err(PabiError::domain("eps", ">= 0", eps));
    }
    let comps = dpsgd_compositions(q, sigma, steps, h)?;
    let mut r: Bracket = (0.0, 0.0, 0.0);
    for c in &comps {
        let (l, e, u) = c.delta(eps);
        r = (r.0.max(l), r.1.max(e), r.2.max(u));
    }
    Ok(r)
}

/// Illinois regula falsi on a decreasing g with g(a) > 0 ≥ g(b): returns a bracket (a, b),
/// g(b) ≤ 0 < g(a), and b/a ≤ 1 + rtol. Every third step is a bisection in ln σ unless the
/// log-width has halved since the start of that block of three, so the number of steps is at
/// most 3·⌈log2(ln(b/a)/ln(1 + rtol))⌉ + 3, fixed up front (≤ 129 for b/a ≤ 2 and
/// rtol ≥ 2.5e-13). An error of g is returned as is.
fn illinois(
    g: &dyn Fn(f64) -> Result<f64>,
    mut a: f64,
    mut b: f64,
    mut ga: f64,
    mut gb: f64,
    rtol: f64,
) -> Result<(f64, f64)> {
    let target = rtol.ln_1p();
    let w0 = (b / a).ln();
    let halvings = if w0 > target {
        (w0 / target).log2().ceil().min(200.0)
    } else {
        0.0
    };
    let max_iter = 3 * (halvings as usize) + 3;
    let mut side = 0i32;
    let mut block_w = w0;
    for it in 0..max_iter {
        if b / a <= 1.0 + rtol {
            break;
        }
        let w = (b / a).ln();
        if it % 3 == 0 {
            block_w = w;
        }
        let bisect = it % 3 == 2 && w > 0.5 * block_w;
        let mut m = if !bisect && ga.is_finite() && gb.is_finite() && ga != gb {
            (a * gb - b * ga) / (gb - ga)
        } else {
            (a * b).sqrt()
        };
        // stay strictly inside, at least a quarter-tolerance from the ends
        let lo_m = a * (1.0 + 0.25 * rtol);
        let hi_m = b / (1.0 + 0.25 * rtol);
        if !(m.is_finite()) {
            m = (a * b).sqrt();
        }
        m = m.clamp(lo_m.min(hi_m), hi_m.max(lo_m));
        let gm = g(m)?;
        if gm <= 0.0 {
            b = m;
            gb = gm;
            if side == 1 {
                ga /= 2.0;
            }
            side = 1;
        } else {
            a = m;
            ga = gm;
            if side == -1 {
                gb /= 2.0;
            }
            side = -1;
        }
    }
    Ok((a, b))
}

/// The calibration's answer when the target holds at the search range's floor σ = 1e-3.
fn floor_met(eps: f64) -> PabiError {
    PabiError::domain(
        "eps",
        "small enough that the calibrated sigma is at least 1e-3 (the search range's floor; for \
         this delta, q and steps the target is met for every sigma >= 1e-3)",
        eps,
    )
}

/// Smallest σ (to relative tolerance `rtol`) whose certified upper ε is ≤ `eps`.
/// Brackets on a coarse grid (h = 10·`h`, which only loosens the upper bound), then refines on
/// the fine grid; the returned σ is certified on the fine grid.
///
/// Domains, checked before any work: eps ∈ (0, 100] (beyond, e^ε > 2.7e43 certifies nothing,
/// and the σ such a target calls for can be so small that its PLD exceeds the grid caps),
/// δ ∈ (0, 1), q ∈ (0, 1], steps an integer in [1, 1e12], h ∈ [1e-6, 0.1],
/// rtol ∈ [1e-12, 0.1). The σ search is confined to [1e-3, 1e6]; every loop has a bound fixed
/// up front (bracketing: ≤ 27 halvings or 22 doublings; Illinois: ≤ 129 steps per phase, see
/// [`illinois`]; the fine phase: ≤ 80 steps each way), a few hundred evaluations at most
/// (typically 15–30). An error while evaluating
/// ε(σ) is returned, never read as a value. A σ whose grid or window exceeds the caps ends the
/// search with a `DomainError` on `eps`: reached going down, the target holds for every σ
/// tried (it is looser than any certifiable σ); elsewhere, the target is too loose to
/// certify within the caps.
pub fn dpsgd_calibrate_sigma(
    eps: f64,
    delta: f64,
    q: f64,
    steps: f64,
    h: f64,
    rtol: f64,
) -> Result<f64> {
    if !(eps > 0.0 && eps <= CALIBRATE_EPS_MAX) {
        return Err(PabiError::domain("eps", "in (0, 100]", eps));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    check_dpsgd(q, 1.0, steps)?;
    check_dpsgd_h(h)?;
    if !(CALIBRATE_RTOL_MIN..0.1).contains(&rtol) {
        return Err(PabiError::domain("rtol", "in [1e-12, 0.1)", rtol));
    }
    if q == 0.0 {
        // no privacy loss at q = 0: every sigma meets the target, there is none to calibrate
        return Err(PabiError::domain(
            "q",
            "in (0, 1] (at q = 0 there is no privacy loss and every sigma meets the target)",
            q,
        ));
    }
    // g(σ) = upper ε(σ) − eps on the grid hh; every error is returned. A `sigma` error at a
    // valid σ (the search stays in [1e-3/2, 2e6]) is a grid/window cap: on the way down it
    // means the target holds for every σ tried and smaller ones cannot be certified
    // (`met_down`), elsewhere the target is too loose to certify within the caps (`relabel`).
    let raw =
        |s: f64, hh: f64| -> Result<f64> { Ok(dpsgd_epsilon(q, s, steps, delta, hh)?.2 - eps) };
    let cap_of = |e: &PabiError| -> Option<String> {
        match e {
            PabiError::Domain {
                param: "sigma",
                allowed,
                ..
            } => Some(allowed.to_string()),
            _ => None,
        }
    };
    let relabel = |e: PabiError, s: f64| -> PabiError {
        match cap_of(&e) {
            Some(a) => PabiError::domain(
                "eps",
                format!(
                    "a target the accountant can certify within its size caps (the sigma \
                     search reached sigma = {s:.4e}, and sigma must be {a})"
                ),
                eps,
            ),
            None => e,
        }
    };
    let met_down = |e: PabiError, hi: f64, lo: f64| -> PabiError {
        match cap_of(&e) {
            // the target is too loose for what the accountant can certify: name eps (the
            // message names the coupled q, delta and steps)
            Some(a) => PabiError::domain(
                "eps",
                format!(
                    "small enough that the calibrated sigma can be certified: for this delta, \
                     q and steps the target is met for every sigma >= {hi:.4e} tried, and a \
                     smaller sigma (here {lo:.4e}) cannot be certified within the accountant's \
                     size caps (sigma must be {a})"
                ),
                eps,
            ),
            None => e,
        }
    };
    // coarse phase (h = 10·h, cheap): geometric bracketing, then Illinois to rtol/4
    let hc = (10.0 * h).min(H_MAX);
    let gc = |s: f64| -> Result<f64> { raw(s, hc).map_err(|e| relabel(e, s)) };
    let guess = (q * steps.sqrt() / eps.sqrt()).clamp(0.3, 1e5);
    let (mut lo, mut hi);
    let (mut glo, mut ghi);
    let g0 = gc(guess)?;
    if g0 <= 0.0 {
        hi = guess;
        ghi = g0;
        lo = guess / 2.0;
        glo = raw(lo, hc).map_err(|e| met_down(e, hi, lo))?;
        // lo ≥ 1e-3 after at most log2(1e5/1e-3) < 27 halvings
        while glo <= 0.0 {
            hi = lo;
            ghi = glo;
            lo /= 2.0;
            if lo < SIGMA_SEARCH_MIN {
                return Err(floor_met(eps));
            }
            glo = raw(lo, hc).map_err(|e| met_down(e, hi, lo))?;
        }
    } else {
        lo = guess;
        glo = g0;
        hi = guess * 2.0;
        ghi = gc(hi)?;
        // hi ≤ 1e6 after at most log2(1e6/0.3) < 22 doublings
        while ghi > 0.0 {
            lo = hi;
            glo = ghi;
            hi *= 2.0;
            if hi > SIGMA_SEARCH_MAX {
                return Err(PabiError::domain(
                    "delta",
                    "large enough that the target (eps, delta) is met with sigma <= 1e6 \
                     (the calibration's search range) for this q and steps",
                    delta,
                ));
            }
            ghi = gc(hi)?;
        }
    }
    let (_, hi_c) = illinois(&gc, lo, hi, glo, ghi, 0.25 * rtol)?;
    // fine phase: the fine grid is a little tighter, so the answer is at or just below hi_c;
    // each way, the steps (1 + rtol)^(2^k) multiply σ by ≈ e^{rtol·2^k} until they are capped
    // at 2 (≤ 40 steps, a factor ≤ e^1.1 in all at rtol = 1e-12), then σ leaves [1e-3, 1e6]
    // after ≤ 30 more: 80 steps bound both loops
    let g = |s: f64| -> Result<f64> { raw(s, h).map_err(|e| relabel(e, s)) };
    let mut b = hi_c;
    let mut gb = g(b)?;
    let mut step = 1.0 + rtol;
    for _ in 0..80 {
        if gb <= 0.0 {
            break;
        }
        b *= step;
        step = (step * step).min(2.0);
        if b > SIGMA_SEARCH_MAX {
            break;
        }
        gb = g(b)?;
    }
    if gb > 0.0 {
        return Err(PabiError::unreachable(
            "target not reached for sigma <= 1e6 on the fine grid",
        ));
    }
    let mut a = b / (1.0 + rtol);
    let mut ga = g(a)?;
    if ga > 0.0 {
        return Ok(b);
    }
    step = 1.0 + 2.0 * rtol;
    for _ in 0..80 {
        if ga > 0.0 {
            break;
        }
        b = a;
        gb = ga;
        a /= step;
        step = (step * step).min(2.0);
        if a < SIGMA_SEARCH_MIN {
            return Err(floor_met(eps));
        }
        ga = raw(a, h).map_err(|e| met_down(e, b, a))?;
    }
    if ga <= 0.0 {
        return Err(floor_met(eps));
    }
    let (_, b) = illinois(&g, a, b, ga, gb, rtol)?;
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kov_brute_force() {
        // E = 4 brute force over the four-point PLRV
        let (e0, d0, k, e) = (0.5f64, 1e-3f64, 4.0f64, 0.7f64);
        let p = 1.0 / (1.0 + (-e0).exp());
        let mut s = 0.0;
        for j in 0..=4u32 {
            let c = [1.0, 4.0, 6.0, 4.0, 1.0][j as usize];
            let l = (2.0 * j as f64 - 4.0) * e0;
            if l > e {
                s += c * p.powi(j as i32) * (1.0 - p).powi(4 - j as i32) * (1.0 - (e - l).exp());
            }
        }
        let want = 1.0 - (1.0 - d0).powi(4) + (1.0 - d0).powi(4) * s;
        let got = approx_dp_composition_delta(e0, d0, k, e).unwrap();
        assert!((got / want - 1.0).abs() < 1e-13 && got >= want);
    }

    #[test]
    fn gaussian_bracket_contains_exact() {
        // μ = 0.5 Gaussian, 16-fold: exact θ(1, 2) = 0.509862...
        let p = Pld::subsampled_gaussian(1.0, 2.0, Neighbour::Remove, 1e-3).unwrap();
        let c = compose(&[(&p, 16)], DEFAULT_TAIL).unwrap();
        let (l, e, u) = c.delta(1.0);
        let exact = crate::theta::theta(1.0, 2.0);
        assert!(l <= exact && exact <= u, "{l} {e} {u} {exact}");
        assert!((u - exact) / exact < 1e-5);
    }

    fn param_of<T: std::fmt::Debug>(r: Result<T>) -> &'static str {
        match r {
            Err(PabiError::Domain { param, .. }) => param,
            other => panic!("expected a DomainError, got {other:?}"),
        }
    }

    #[test]
    fn grid_span_never_wraps() {
        assert_eq!(grid_span(-1.0, 1.0, 0.5, 16), Some((-2, 2)));
        assert_eq!(grid_span(0.0, 15.0, 1.0, 16), Some((0, 15)));
        assert_eq!(grid_span(0.0, 16.0, 1.0, 16), None);
        assert_eq!(grid_span(-1.0, 1.0, 5e-324, MAX_GRID), None); // ±inf indices
        assert_eq!(grid_span(f64::NAN, 1.0, 0.1, MAX_GRID), None);
        assert_eq!(grid_span(1e300, 1e300, 0.1, MAX_GRID), None); // one point, index > 2^53
        assert_eq!(grid_span(-1e37, 1e37, 0.1, MAX_GRID), None);
    }

    #[test]
    fn single_step_grids_are_capped_before_allocation() {
        let g = |sigma: f64, h: f64| Pld::subsampled_gaussian(1.0, sigma, Neighbour::Remove, h);
        // (khi − klo + 1) as usize wrapped to 0 here, and the cell loop ran ~2^64 times
        assert_eq!(param_of(g(2.0, 5e-324)), "h");
        assert_eq!(param_of(g(2.0 / 2f64.powi(63), 1e-4)), "sigma");
        assert_eq!(param_of(g(5e-324, 0.1)), "sigma"); // 1/σ = +∞
        let sub = Pld::subsampled_gaussian(0.1, 2.0, Neighbour::Add, 5e-324);
        assert_eq!(param_of(sub), "h");
        // 1.6 TB allocation (abort) before
        assert_eq!(param_of(Pld::eps_delta(1e5, 1e-5, 1e-6)), "h");
        assert_eq!(param_of(Pld::eps_delta(1e6, 1e-5, 0.1)), "eps0");
        assert!(Pld::eps_delta(1e5, 1e-5, 0.0955).is_ok());
        // the suggested h fits
        let Err(PabiError::Domain { allowed, .. }) = g(2.0, 1e-7) else {
            panic!()
        };
        let hmin: f64 = allowed
            .split("use h >= ")
            .nth(1)
            .unwrap()
            .trim_end_matches(')')
            .parse()
            .unwrap();
        assert!(g(2.0, hmin).unwrap().pmf.len() <= MAX_GRID);
        // from_atoms: non-finite losses, mismatched lengths, huge spans
        assert_eq!(
            param_of(Pld::from_atoms(0.1, &[f64::INFINITY], &[1.0], 0.0)),
            "losses"
        );
        assert_eq!(
            param_of(Pld::from_atoms(0.1, &[-1e300, 1e300], &[0.5, 0.5], 0.0)),
            "losses"
        );
        assert!(matches!(
            Pld::from_atoms(0.1, &[1.0], &[], 0.0),
            Err(PabiError::Shape { .. })
        ));
        // from_profile: at most 2^20 samples
        let d = vec![0.0; MAX_PROFILE + 1];
        assert_eq!(param_of(Pld::from_profile(1e-3, &d)), "delta");
        assert_eq!(
            Pld::from_profile(1e-3, &d[..MAX_PROFILE])
                .unwrap()
                .pmf
                .len(),
            MAX_GRID - 1
        );
    }

    #[test]
    fn compose_sizes_checked() {
        let p = Pld::subsampled_gaussian(1.0, 2.0, Neighbour::Remove, 1e-3).unwrap();
        // window of 1e15 compositions: far beyond 2^22 points
        assert_eq!(
            param_of(compose(&[(&p, 1_000_000_000_000_000)], DEFAULT_TAIL)),
            "h"
        );
        assert_eq!(param_of(compose(&[(&p, 1 << 60)], DEFAULT_TAIL)), "steps");
        assert_eq!(param_of(compose(&[(&p, 0)], DEFAULT_TAIL)), "steps");
        // a hand-made Pld (public fields) with indices that would overflow i64
        let bad = Pld {
            h: 1e-3,
            lo: i64::MAX - 1,
            pmf: vec![1.0],
            inf: 0.0,
            bad: 0.0,
            inf_exact: 0.0,
        };
        assert_eq!(param_of(compose(&[(&bad, 1)], DEFAULT_TAIL)), "parts");
        let empty = Pld {
            lo: 0,
            pmf: vec![],
            ..bad.clone()
        };
        assert_eq!(param_of(compose(&[(&empty, 1)], DEFAULT_TAIL)), "parts");
        // far from the origin but within 2^53: indices × multiplicity leave ±2^53
        let far = Pld {
            lo: 1 << 50,
            pmf: vec![0.5, 0.5],
            ..bad.clone()
        };
        assert_eq!(param_of(compose(&[(&far, 1 << 10)], DEFAULT_TAIL)), "steps");
        // a two-point PLD composed 2^20 times: the window fits, the values are binomial
        let two = Pld {
            lo: 0,
            pmf: vec![0.5, 0.5],
            ..bad
        };
        let c = compose(&[(&two, 1 << 20)], DEFAULT_TAIL).unwrap();
        assert!(c.pmf.len() <= MAX_WINDOW);
        let mass: f64 = c.pmf.iter().sum();
        assert!((mass - 1.0).abs() < 1e-9, "{mass}");
    }

    #[test]
    fn delta_at_huge_eps_is_the_inf_mass() {
        let p = Pld::subsampled_gaussian(1.0, 2.0, Neighbour::Remove, 1e-3).unwrap();
        let c = compose(&[(&p, 16)], DEFAULT_TAIL).unwrap();
        for eps in [1e300, f64::INFINITY] {
            // before: (ε/h) as usize saturated, +1 wrapped to 0, and the upper value was 1
            assert_eq!(c.first_above(eps), c.pmf.len());
            let (l, _, u) = c.delta(eps);
            assert_eq!(l, 0.0);
            assert!(u >= c.inf && u < 1e-12, "{u}");
        }
    }

    #[test]
    fn dpsgd_domains_checked_up_front() {
        assert_eq!(param_of(dpsgd_epsilon(0.01, 1.0, 100.0, 1e-5, 5e-324)), "h");
        assert_eq!(param_of(dpsgd_delta(0.01, 1.0, 100.0, 1.0, 0.2)), "h");
        assert_eq!(
            param_of(dpsgd_epsilon(1.0, 1e-3, 1000.0, 1e-5, DPSGD_H)),
            "sigma"
        );
        let cal =
            |eps: f64, h: f64, rtol: f64| dpsgd_calibrate_sigma(eps, 1e-5, 0.01, 100.0, h, rtol);
        for h in [f64::NAN, f64::INFINITY, 0.0, 0.2, 5e-324] {
            assert_eq!(param_of(cal(2.0, h, 1e-4)), "h");
        }
        for rtol in [5e-324, f64::NAN, 0.1] {
            assert_eq!(param_of(cal(2.0, 1e-4, rtol)), "rtol");
        }
        for eps in [1e308, 2f64.powi(63), f64::INFINITY, 0.0, 100.5] {
            assert_eq!(param_of(cal(eps, 1e-4, 1e-4)), "eps");
        }
    }

    #[test]
    fn tiny_q_range_has_the_right_sign() {
        // ln(1 − q + q e^z) for q = 1e-100 at z = s²/2 + 9.5 s: ≈ q e^z, positive
        let (s, q) = (1.0 / 0.3, 1e-100);
        let x = s + XTAIL;
        let z = s * x - s * s / 2.0;
        let v = sg_lrem(q, s, (-q).ln_1p(), x);
        let exact = q * z.exp_m1(); // ln1p of a value ~1e-84
        assert!((v / exact - 1.0).abs() < 1e-13, "{v} {exact}");
        let (l, _, u) = dpsgd_epsilon(1e-100, 0.3, 1.0, 1e-5, DPSGD_H).unwrap();
        assert_eq!((l, u), (0.0, 0.0)); // was (0, +inf)
    }

    #[test]
    fn illinois_steps_bounded() {
        use std::cell::Cell;
        // a decreasing g that defeats regula falsi (flat, then a cliff): the safeguard bisects
        let n = Cell::new(0usize);
        let g = |x: f64| -> Result<f64> {
            n.set(n.get() + 1);
            Ok(if x < 1.7 { 1e-300 } else { -1e300 })
        };
        let rtol = 1e-12;
        let (a, b) = illinois(&g, 1.0, 2.0, g(1.0).unwrap(), g(2.0).unwrap(), rtol).unwrap();
        let bound = 3.0 * ((2f64.ln() / rtol.ln_1p()).log2().ceil()) + 3.0;
        assert!(b / a <= 1.0 + rtol && a < 1.7 && b >= 1.7, "{a} {b}");
        assert!((n.get() as f64) <= bound + 2.0, "{} > {bound}", n.get());
        // an error of g is returned, not read as a value
        let e = |_x: f64| -> Result<f64> { Err(PabiError::domain("h", "x", 0.0)) };
        assert!(illinois(&e, 1.0, 2.0, 1.0, -1.0, 1e-4).is_err());
    }
}
