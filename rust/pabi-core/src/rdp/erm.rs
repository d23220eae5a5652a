//! ERM with output perturbation and averaging: Chen, Lee & Kifer, *Rényi differentially
//! private ERM for smooth objectives* (AISTATS 2019, supplement): the contraction of a
//! gradient step (Lemma 2), the multi-epoch sensitivity (Prop. 2), averaged RDP (Prop. 3) and
//! the mixture bound (Lemma 3). Derivations: docs/derivations/rdp.md.

use super::checks::{check_sensitivities, count, index_in, nonneg, pos, rdp_order};
use super::logexp::{log_mean_exp, log_weighted_sum_exp};
use super::scalar::{prod_div, up_pos};
use crate::dd::{two_prod, Dd};
use crate::error::{PabiError, Result};
use crate::num::neumaier_sum;
use crate::num::round::up_signed;
use crate::num::round::{exp_prod_up, one_minus_exp_prod, rel_dn, rel_up, EPS3};

/// Mixture bound (001 Lemma 3): D_α(M(D)‖M(D')) ≤ (1/(α − 1))·ln Σ_j q_j e^{(α−1)ε_j(α)}
/// for a mixture with weights q_j (summing to 1) of mechanisms with RDP ε_j.
pub fn mixture_rdp_bound(alpha: f64, weights: &[f64], eps: &[f64]) -> Result<f64> {
    rdp_order(alpha)?;
    if weights.is_empty() {
        return Err(PabiError::Shape {
            message: "weights must be non-empty".into(),
        });
    }
    crate::batch::check_len(weights.len(), &[("rdp", eps.len())])?;
    crate::batch::check(weights, "weights", "in [0, 1]", |x| {
        (0.0..=1.0).contains(&x)
    })?;
    crate::batch::check(eps, "rdp", ">= 0 (not NaN)", |x| x >= 0.0)?;
    let tot = neumaier_sum(weights.iter().copied());
    if (tot - 1.0).abs() > 1e-9 {
        return Err(PabiError::domain("weights", "summing to 1", tot));
    }
    let t = alpha - 1.0;
    let e_max = eps.iter().copied().fold(0.0, f64::max);
    if t * e_max <= MIXTURE_FIRST_ORDER {
        return Ok(mixture_first_order(alpha, weights, eps));
    }
    // (a product t·ε_j that lands below the normal range is taken one subnormal step up: its
    // rounding is absolute there, and the bound grows with each x_j)
    let xs: Vec<f64> = eps
        .iter()
        .map(|&e| {
            let x = t * e;
            if x < f64::MIN_POSITIVE && e > 0.0 {
                x.next_up()
            } else {
                x
            }
        })
        .collect();
    let ls = log_weighted_sum_exp(weights, &xs);
    // ln Σ q_j e^{t ε_j} ≥ 0 up to the weight rounding; keep it ≥ 0
    Ok(up_signed(ls.max(0.0) / t))
}

/// Where every x_j = (α − 1)·ε_j is at most this, [`mixture_rdp_bound`] is taken to first
/// order ([`mixture_first_order`]).
const MIXTURE_FIRST_ORDER: f64 = 8.673_617_379_884_035e-19; // 2^-60

/// (1/t)·ln Σ_j q_j e^{t ε_j}, t = α − 1, for t·ε_j ≤ 2^-60, rounded up, without forming the tiny products
/// t·ε_j (subnormal near α = 1 with small ε_j: the former path lost up to all their digits,
/// 1e-300 came out as 0.99999999176e-300 at α = 1 + 2^-52 and 1e-308 as 0) or the sum of the
/// weights to a double (weights whose exact sum is 1 + 1e-33 gave 0 where the exact value is
/// 1e-33/t). With u = (W − 1) + Σ q_j (e^{tε_j} − 1), W = Σ q_j: ln(1 + u) ≤ u and
/// (e^x − 1)/x ≤ 1 + x ≤ 1 + 2^-60 for 0 ≤ x ≤ 2^-60, so
/// value ≤ (W − 1)/t + (1 + 2^-60)·Σ q_j ε_j. W − 1 is the exact sum rounded up
/// ([`exact_sum_up`]); Σ q_j ε_j is a Neumaier sum of products rounded up, moved up by 2^-51
/// relative (its error, with the 2^-60) and one step; a negative total (weights summing below 1)
/// is 0, as before.
fn mixture_first_order(alpha: f64, weights: &[f64], eps: &[f64]) -> f64 {
    use crate::num::round::{add_dn, add_up, div_dn, div_up, exact_sum_up, mul_up};
    let w_m1 = exact_sum_up(weights.iter().copied().chain(std::iter::once(-1.0)));
    // (W − 1)/t rounded up, with t = α − 1 rounded the way that raises the quotient (exact for
    // α ≤ 2 by Sterbenz; rounded for larger α)
    let a = if w_m1 >= 0.0 {
        div_up(w_m1, add_dn(alpha, -1.0))
    } else {
        -div_dn(-w_m1, add_up(alpha, -1.0))
    };
    let b = neumaier_sum(weights.iter().zip(eps).map(|(&q, &e)| mul_up(q, e)));
    // (Σ q_j ε_j = 0 stays 0: every ε_j = 0 gives the exact ln(W)/t, no next_up of 0)
    let b = if b > 0.0 {
        (b + b * 4.440_892_098_500_626e-16).next_up() // 2^-51
    } else {
        0.0
    };
    add_up(a, b).max(0.0)
}

/// 1 − ρ = min{ημ, 2 − ηL} as an exact double-double (the products' FMA residuals, the
/// difference by two_sum); 2 − ηL loses everything to cancellation in doubles when ηL ≈ 2.
/// Domain 0 < μ ≤ L, 0 < η < 2/L.
fn contraction_gap_dd(eta: f64, mu: f64, smooth: f64) -> Result<Dd> {
    pos("strong_convexity", mu)?;
    if !(smooth >= mu && smooth.is_finite()) {
        return Err(PabiError::domain(
            "smoothness",
            ">= strong_convexity and finite",
            smooth,
        ));
    }
    // η·L < 2 decided exactly: η·L = p2 + e2 (FMA residual); the rounded product alone
    // rejected an η·L a hair below 2 that rounds to 2.0
    let (p2, e2) = two_prod(eta, smooth);
    if !(eta > 0.0 && (p2 < 2.0 || (p2 == 2.0 && e2 < 0.0))) {
        return Err(PabiError::domain("lr", "in (0, 2/smoothness)", eta));
    }
    let (p1, e1) = two_prod(eta, mu);
    let g1 = Dd::new(p1, e1);
    let g2 = Dd::from_f64(2.0) - Dd::new(p2, e2);
    Ok(if (g1 - g2).hi <= 0.0 { g1 } else { g2 })
}

/// (ρ, 1 − ρ) of a gradient step: ρ = max{|1 − ημ|, |1 − ηL|}, 1 − ρ = min{ημ, 2 − ηL}
/// (from the exact double-double gap: ρ rounded up, 1 − ρ down, by two ulp). Domain
/// 0 < μ ≤ L, 0 < η < 2/L.
pub fn gd_contraction_rho(eta: f64, mu: f64, smooth: f64) -> Result<(f64, f64)> {
    let g = contraction_gap_dd(eta, mu, smooth)?;
    let rho = (Dd::from_f64(1.0) - g).to_f64().next_up().next_up();
    let gap = g.to_f64().next_down().next_down();
    Ok((rho.min(1.0), gap.max(0.0)))
}

/// Multi-epoch sensitivity (001 Prop. 2, eq. (7)): ρ^{m−j}·(2ηR/|B|)·(1 − ρ^{km})/(1 − ρ^m);
/// `epochs = None` gives the k → ∞ limit.
///
/// ln ρ = log1p(−(1 − ρ)) from the exact gap (head by log1p, tail to first order), bracketed
/// by 3 ulp; every power ρ^x = e^{x ln ρ} and 1 − ρ^x = −expm1(x ln ρ) takes the end of the
/// bracket that raises the result (ρ^{m−j} and 1 − ρ^m from above / below with the larger ρ,
/// 1 − ρ^{km} from above with the smaller) and a relative margin (|x ln ρ| + 3)·2ε_m for the
/// rounding of the product x·ln ρ (amplified by |x ln ρ|) and of exp/expm1. A uniform margin
/// on 1 − ρ instead cost 1e-11 relative at ρ^378.
#[allow(clippy::too_many_arguments)]
pub fn sensitivity_multi_epoch(
    eta: f64,
    mu: f64,
    smooth: f64,
    grad_bound: f64,
    batch_size: f64,
    m: u64,
    j: u64,
    epochs: Option<u64>,
) -> Result<f64> {
    let g = contraction_gap_dd(eta, mu, smooth)?;
    nonneg("max_grad_norm", grad_bound)?;
    pos("batch_size", batch_size)?;
    count("batches_per_epoch", m)?;
    index_in("batch_index", j, m, || {
        format!("an integer in 1..=batches_per_epoch (batches_per_epoch = {m} >= 1)")
    })?;
    let l = if g.hi < 0.5 {
        (-g.hi).ln_1p() - g.lo / (1.0 - g.hi)
    } else {
        let r = Dd::from_f64(1.0) - g; // ρ ≤ 1/2, exact
        if r.hi > 0.0 {
            r.hi.ln() + r.lo / r.hi
        } else {
            f64::NEG_INFINITY // ρ = 0 (ημ = ηL = 1)
        }
    };
    let (l_up, l_dn) = if l.is_finite() {
        (rel_up(l, EPS3), rel_dn(l, EPS3)) // ln ρ ∈ [l_dn, l_up] (both ≤ 0)
    } else {
        (l, l)
    };
    // e^y, −expm1(y) at y = x·ln ρ with the relative margin of `exp_prod_up`; exact at x = 0
    // and y = −∞
    let pow_up = |x: f64| match x * l_up {
        _ if x == 0.0 => 1.0,
        y if y == f64::NEG_INFINITY => 0.0,
        y => exp_prod_up(y),
    };
    let one_minus_up = |x: f64| one_minus_exp_prod(x * l_dn, 1.0);
    let one_minus_dn = |x: f64| one_minus_exp_prod(x * l_up, -1.0);
    let num = match epochs {
        // k·m as a double (the u64 product overflows for k·m ≥ 2^64)
        Some(k) => one_minus_up(k as f64 * m as f64).min(1.0),
        None => 1.0,
    };
    // (1 − ρ^{km})/(1 − ρ^m) = Σ_{i<k} ρ^{mi} ≤ k: when the gap underflows (ημ ~ 1e-400) both
    // sides are 0 and the quotient was 0/0 = NaN; k is the bound there (k → ∞: +inf)
    let den = one_minus_dn(m as f64);
    let ratio = match epochs {
        Some(k) if den > 0.0 => (num / den).min(k as f64),
        Some(k) => k as f64,
        None => 1.0 / den,
    };
    // (every partial product normal: the former up_signed(mul0(...)) bits; else in scaled
    // mantissas, rounded up once: the subnormal results were truncated, 5.7448057e-315 for an
    // exact 5.74480576e-315 and 0 for 1.47e-331)
    let x = (m - j) as f64;
    Ok(super::epochs::contraction_sensitivity_up(
        x,
        l_up,
        pow_up(x),
        eta,
        grad_bound,
        batch_size,
        ratio,
    ))
}

/// Averaged RDP (001 Prop. 3): (1/(α − 1))·ln mean_j exp(α(α − 1)Δ_j²/(2σ²)), stable
/// (log1p(mean expm1) form when small, log-mean-exp otherwise; α → 1 limit mean Δ²/(2σ²)).
pub fn averaged_rdp(alpha: f64, sigma: f64, sens: &[f64]) -> Result<f64> {
    rdp_order(alpha)?;
    pos("noise_scale", sigma)?;
    check_sensitivities(sens)?;
    let t = alpha - 1.0;
    // α/2·(Δ/σ)²: Δ²/(2σ²) was 0/0 = NaN for Δ = 0 once σ² underflowed
    let ys: Vec<f64> = sens
        .iter()
        .map(|&d| {
            let x = d / sigma;
            0.5 * alpha * x * x
        })
        .collect();
    let ymax = ys.iter().copied().fold(0.0, f64::max);
    let v = if t * ymax < 700.0 {
        let m = neumaier_sum(ys.iter().map(|&y| (t * y).exp_m1())) / ys.len() as f64;
        m.ln_1p() / t
    } else {
        let xs: Vec<f64> = ys.iter().map(|&y| t * y).collect();
        log_mean_exp(&xs) / t
    };
    if v < AVERAGED_TINY && sens.iter().any(|&d| d > 0.0) {
        if let Some(b) = averaged_rdp_tiny(alpha, sigma, sens) {
            // positive (some Δ > 0): a mean rounded to 0 becomes the smallest bound `TINY`
            return Ok(up_pos(up_signed(b), true));
        }
    }
    Ok(up_signed(up_signed(v)))
}

/// Below this value [`averaged_rdp`]'s closed form may have lost its relative accuracy to
/// underflow: (Δ/σ)² rounded into (or below) the subnormal range, whose absolute error,
/// divided by α − 1 < 1, exceeded the final margin (α = 1.001, σ = 1, Δ = 1e-160 gave
/// 4.98e-321 below the exact 5.005e-321; Δ = 1e-170 gave 0 for the exact 1e-340).
const AVERAGED_TINY: f64 = 1e-280;

/// An upper bound of the averaged RDP for tiny values, by scaling: with y_j = α/2·(Δ_j/σ)²
/// and t = α − 1, ln mean e^{t y} ≤ mean expm1(t y) ≤ mean(t y (1 + 2 t y)) for t·y ≤ 1
/// (expm1(z) ≤ z e^z ≤ z(1 + 2z) for 0 ≤ z ≤ 1), so the divergence is ≤ mean(y)·(1 + 2t·max y).
/// Each y_j by [`prod_div`] (exact scalings, no intermediate underflow: a few relative
/// roundings and one final absolute ≤ 2^-1075), summed (sums of subnormals are exact), divided
/// by n and scaled (two more roundings ≤ 2^-1075 each below the normal range): the absolute
/// error ≤ 3·2^-1075 is below the `TINY` = 8·2^-1075 of the caller's `up_signed` (or `up_pos`
/// for a mean rounded to 0: the exact value is then < 2^-1073 < `TINY`), the relative
/// one (≤ ~20 ulp) below its 2^-46. `None` when t·max y > 1e-3 (the closed form is then far
/// from underflow).
fn averaged_rdp_tiny(alpha: f64, sigma: f64, sens: &[f64]) -> Option<f64> {
    let t = alpha - 1.0;
    let ys: Vec<f64> = sens
        .iter()
        .map(|&d| prod_div(&[0.5, alpha, d, d], &[sigma, sigma]))
        .collect();
    let ymax = ys.iter().copied().fold(0.0, f64::max);
    if !(t * ymax <= 1e-3) {
        return None;
    }
    let mean = neumaier_sum(ys.iter().copied()) / ys.len() as f64;
    Some(mean * (1.0 + 2.0 * t * ymax))
}

#[cfg(test)]
mod tests {
    use super::gd_contraction_rho;

    /// η·L = 2 − 3.13e-17 exactly rounds to 2.0: rejected by the rounded product, now accepted
    /// with 1 − ρ = 2 − ηL = −fma residual (3.1309930192723376e-17, exact), rounded down, and ρ
    /// rounded up to 1; the next η (ηL > 2 exactly) is rejected.
    #[test]
    fn gd_contraction_lr_smoothness_rounding_to_two() {
        let (eta, l) = (25.314_042_171_316_576, 0.079_007_532_122_475_74);
        assert_eq!(eta * l, 2.0);
        let (rho, gap) = gd_contraction_rho(eta, l, l).unwrap();
        let exact = 3.130_993_019_272_337_6e-17;
        assert!(
            rho == 1.0 && gap <= exact && gap / exact > 1.0 - 1e-15,
            "{rho} {gap:e}"
        );
        let mut e2 = eta.next_up();
        while e2.mul_add(l, -2.0) <= 0.0 {
            e2 = e2.next_up();
        }
        assert!(gd_contraction_rho(e2, l, l).is_err());
        assert!(gd_contraction_rho(e2.next_down(), l, l).is_ok());
    }
}
