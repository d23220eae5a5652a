//! Log-space primitives of the RDP module (softplus, ln expm1, log-mean-exp, weighted
//! log-sum-exp, log-add-exp, ln(1 − e^x)) and [`up_order`], the order-dependent upward rounding
//! of an RDP value. Local copies: the crate-wide versions live in `crate::num`; the error
//! analysis of each is in its doc comment.

use crate::num::{neumaier_sum, INFLATE, TINY};

/// ln(1 + e^y) without overflow or cancellation.
#[inline(always)]
pub(super) fn softplus(y: f64) -> f64 {
    if y == f64::NEG_INFINITY {
        0.0
    } else if y > 0.0 {
        y + f64::ln_1p(f64::exp(-y))
    } else {
        f64::ln_1p(f64::exp(y))
    }
}

/// ln(e^x − 1) for x ≥ 0 (−inf at 0).
#[inline(always)]
pub(super) fn log_expm1(x: f64) -> f64 {
    if x <= 0.0 {
        f64::NEG_INFINITY
    } else if x > std::f64::consts::LN_2 {
        x + f64::ln_1p(-f64::exp(-x))
    } else {
        f64::ln(f64::exp_m1(x))
    }
}

/// Below this maximum argument [`log_mean_exp`] uses log1p(mean expm1): Σ expm1(x) stays
/// finite for up to 1e40 terms.
pub(super) const LME_DIRECT_MAX: f64 = 600.0;

/// ln mean_k e^{x_k} (−inf for an empty slice).
///
/// The shifted form m + ln(mean e^{x−m}), m = max x, cancels when the result is far below m
/// (few large x among many small ones: x = t·D with t·D ≪ 1 lost 1e-11 relative in the
/// per-instance composition). For m ≤ [`LME_DIRECT_MAX`] the result is log1p(mean expm1(x)):
/// for x ≥ 0 a sum of non-negative terms, a few ulp. Beyond, the result is ≥ m − ln(len),
/// so the shifted form is well conditioned.
pub(super) fn log_mean_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    if m <= LME_DIRECT_MAX {
        return f64::ln_1p(neumaier_sum(xs.iter().map(|&x| f64::exp_m1(x))) / xs.len() as f64);
    }
    let s = neumaier_sum(xs.iter().map(|&x| f64::exp(x - m)));
    m + f64::ln(s / xs.len() as f64)
}

/// ln Σ_k w_k e^{x_k} for weights w_k ≥ 0 (Σ w ≈ 1) and x_k ≥ 0, as [`log_mean_exp`] does the
/// mean: log1p((Σ w − 1) + Σ w_k expm1(x_k)) while max x ≤ [`LME_DIRECT_MAX`] (the shifted
/// form m + ln Σ w e^{x−m} cancels when the result is far below m: the mixture bound at
/// (α − 1)ε = 1e-4 came out 1.4e-13 below the exact value), the shifted form beyond. Zero
/// weights are skipped.
pub(super) fn log_weighted_sum_exp(w: &[f64], xs: &[f64]) -> f64 {
    let pairs = || w.iter().zip(xs).filter(|(&wk, _)| wk > 0.0);
    let m = pairs().map(|(_, &x)| x).fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    if m <= LME_DIRECT_MAX {
        let wsum_m1 = neumaier_sum(pairs().map(|(&wk, _)| wk).chain(std::iter::once(-1.0)));
        let s = neumaier_sum(
            pairs()
                .map(|(&wk, &x)| wk * f64::exp_m1(x))
                .chain(std::iter::once(wsum_m1)),
        );
        return f64::ln_1p(s);
    }
    m + f64::ln(neumaier_sum(pairs().map(|(&wk, &x)| wk * f64::exp(x - m))))
}

/// ln(e^a + e^b) without overflow (std math: this module runs in scalar loops).
#[inline(always)]
pub(super) fn log_add_exp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m.is_infinite() {
        return m; // ±inf (inf − inf made ln(e^inf + e^inf) NaN)
    }
    m + f64::ln_1p(f64::exp(-(a - b).abs()))
}

/// ln(1 − e^x) for x ≤ 0 (Mächler).
#[inline(always)]
pub(super) fn log1mexp(x: f64) -> f64 {
    if x > -std::f64::consts::LN_2 {
        f64::ln(-f64::exp_m1(x))
    } else {
        f64::ln_1p(-f64::exp(x))
    }
}

/// Round an RDP value up: relative INFLATE·(1 + log2 α) (the error of the O(α) sum grows
/// slowly with α), plus a few subnormal ulps.
#[inline(always)]
pub(super) fn up_order(v: f64, order: f64) -> f64 {
    if v == 0.0 {
        return 0.0; // exact zeros (q = 0, r = 0) stay exact
    }
    v * (1.0 + INFLATE * (1.0 + order.log2().max(0.0))) + TINY
}
