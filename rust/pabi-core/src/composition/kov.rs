//! Exact (optimal) composition of k copies of an (ε0, δ0)-DP mechanism and the trade-off
//! function f_{ε,δ}.
//!
//! - [`approx_dp_composition_delta`] / [`approx_dp_composition_epsilon`]: δ(ε) of the k-fold
//!   composition of f_{ε0,δ0} and its inverse, from the closed form of Kairouz–Oh–Viswanath
//!   (*The composition theorem for differential privacy*, Sec. 3, optimal composition) written
//!   through the privacy-loss variable: +∞ w.p. 1 − (1−δ0)^k, else (2j − k)ε0 with j ~ Bin(k, p),
//!   p = 1/(1 + e^{−ε0}); the binomial pmf in log space by Loader's saddle-point method.
//! - [`single_point_composed_epsilon`]: the single-point route of multi-epoch composition
//!   (Sordello–Bu–Dong §5).
//! - [`tradeoff_eps_delta`]: f_{ε,δ} (Dong–Roth–Su eq. (5), Prop. 2.5).
//!
//! Derivation and rounding directions: `docs/derivations/composition.md`.

use crate::error::{PabiError, Result};
use crate::num::binom::log_binom_pmf_dev;
use crate::num::logspace::Neumaier;
use crate::num::round::{EPS4, EPS48};
use crate::num::{log1mexp, up};

pub(super) fn check_eps_delta(eps0: f64, delta0: f64) -> Result<()> {
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
            "count",
            "an integer in [1, 1e10] (beyond, compose the PLD of the (eps0, delta0) mechanism)",
            k,
        ))
    }
}

/// δ(ε) of the optimal k-fold composition of an (ε0, δ0)-DP mechanism, i.e. of f_{ε0,δ0}^{⊗k}
/// (Kairouz–Oh–Viswanath Sec. 3), an upper bound within ~1e-13 relative of the exact value.
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
        let lpmf = |j: f64| log_binom_pmf_dev(j, k, p, q, lp, lq, (j - 0.5 * k) - half_t);
        // streaming log-sum-exp with Neumaier compensation
        let (mut m, mut acc) = (f64::NEG_INFINITY, Neumaier::default());
        let add = |lt: f64, m: &mut f64, acc: &mut Neumaier, wmag: &mut f64| {
            if lt > *m {
                let f = (*m - lt).exp();
                acc.s *= f;
                acc.c *= f;
                *wmag *= f;
                *m = lt;
            }
            let v = (lt - *m).exp();
            *wmag += v * (lt.abs() + lmag0);
            acc.add(v);
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
                    add(lb, &mut m, &mut acc, &mut wmag);
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
                add(lt, &mut m, &mut acc, &mut wmag);
                if j > mode + 1.0 && j < k {
                    // the rest: Σ_{i>j} T_i ≤ Σ_{i>j} P_i ≤ P_j·ρ'/(1 − ρ'), ρ' = P_{j+1}/P_j
                    // < 1 past the mode (ratios decrease); stop once that is e^{−60} of the
                    // largest term, and add the bound (the cut had been a heuristic on T_j)
                    let rho = (k - j) * p / ((j + 1.0) * q);
                    if rho < 1.0 {
                        let lr = lpj + (rho / (1.0 - rho)).ln() + 1e-6;
                        if lr < m - 60.0 {
                            if lr > f64::NEG_INFINITY {
                                add(lr, &mut m, &mut acc, &mut wmag);
                            }
                            break;
                        }
                    }
                }
            }
            j += 1.0;
        }
        if acc.s > 0.0 {
            lsum = m + acc.value().ln() + EPS48 * (wmag / acc.s) * (1.0 + 1e-3);
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

/// The single-point route of multi-epoch composition (Sordello–Bu–Dong §5): for each candidate
/// (ε0_i, δ0_i) of the per-epoch profile, the exact E-fold composition of f_{ε0,δ0} (KOV)
/// inverted at `delta`; the minimum over i (every candidate is a valid certificate).
pub fn single_point_composed_epsilon(
    eps0: &[f64],
    delta0: &[f64],
    epochs: f64,
    delta: f64,
) -> Result<f64> {
    PabiError::same_lengths("eps0", eps0.len(), "delta0", delta0.len())?;
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

/// The trade-off function f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}
/// (Dong–Roth–Su eq. (5)), evaluated without forming e^ε (stable for ε up to f64::MAX). Rounded down: a trade-off
/// curve is a lower bound on the type II error, so a smaller value is the conservative side.
pub fn tradeoff_eps_delta(alpha: f64, eps: f64, delta: f64) -> Result<f64> {
    check_eps_delta(eps, delta)
        .map_err(|e| e.renamed(|p| if p == "eps0" { "eps" } else { "delta" }))?;
    if !(0.0..=1.0).contains(&alpha) {
        return Err(PabiError::domain("type1_error", "in [0, 1]", alpha));
    }
    // Error bound (u = 2^-53; std's exp is faithful, < 1 ulp ≤ 2u relative; checked below
    // against 50-digit mpmath in tests/test_hardening_found_rdp_tradeoff.py):
    // p1: r = fl(1 − δ) is exact for δ ≥ ½ (Sterbenz), else within u·r. t = α·e^ε by
    // `alpha_exp`, within 6u·t + 2^-1023 (it was e^{ε + ln α}: the ulp of ln α, |ln α| ≤ 745,
    // is amplified by the exponential to |ln α|·2u relative, 36·2u at α = 2.2e-16, and the
    // margin 8u·(r + t) did not cover it: 6.2e-31 against the exact 2.5e-31). fl(r − t) adds
    // u·(r + t); the margin EPS4·(r + t) = 8u·(r + t) ≥ 2u·r + 7u·t + 2^-1023 (r ≥ 2^-53 when
    // δ < 1; r = 0 makes p1 ≤ 0), so p1 ≤ 1 − δ − α e^ε.
    let r = 1.0 - delta;
    let p1 = if alpha > 0.0 {
        let t = alpha_exp(alpha, eps);
        r - t - EPS4 * (r + t)
    } else {
        r
    };
    // p2: 1 − α − δ = s2 + e2 + e1 exactly, (s1, e1) = two_sum(1, −α), (s2, e2) = two_sum(s1,
    // −δ); the last two additions are within (u + 4u²)·|1 − α − δ| (if δ/2 ≤ s1 ≤ 2δ then
    // e2 = 0 (Sterbenz) and one rounding remains; else |s2| ≥ s1/2 ≥ |e1|/(2u) and
    // |e1 + e2| ≤ 3u|s2|, no cancellation). The former s1 + (e1 − δ) rounded e1 − δ to the
    // grid of δ: an absolute error of ½ulp(δ), 23% of 1 − α − δ = 9.0e-17 at δ = 0.948
    // (1.1e-16 returned). With e^{−ε} (< 1 ulp) and the product (½ ulp): ≤ 4.1u relative, and
    // a subnormal product ≤ 2^-1075 absolute, both covered by `down` (2^-46 − 2^-53 relative,
    // − TINY).
    let (s1, e1) = crate::dd::two_sum(1.0, -alpha);
    let (s2, e2) = crate::dd::two_sum(s1, -delta);
    let p2 = (-eps).exp() * (s2 + (e1 + e2));
    Ok(crate::num::down(p1.max(p2).max(0.0)))
}

/// α·e^ε for α ∈ (0, 1], ε ≥ 0, within 6u + O(u²) relative plus 2^-1023 absolute (+∞ when it
/// overflows, i.e. when it exceeds 1 by far): h = e^{ε/2} (ε/2 exact, h faithful: ≤ 2u, and
/// finite for ε < 1419; beyond, α e^ε ≥ 2^-1074·e^{1419} > 1), then (α·h)·h, two roundings of
/// ≤ u each. α·h ≥ α is normal unless α·h < 2^-1022, which needs h < 2^52: its absolute error
/// ≤ 2^-1075 grows to ≤ 2^-1023 after the second product.
fn alpha_exp(alpha: f64, eps: f64) -> f64 {
    let h = (0.5 * eps).exp();
    (alpha * h) * h
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
}
