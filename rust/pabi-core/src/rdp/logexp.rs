//! Log-mean-exp primitives of the RDP module: the (weighted) ln-mean of exponentials, with
//! the error analysis in each doc comment. The other log-space primitives (softplus,
//! ln expm1, log-add-exp, ln(1 − e^x): the `_std` forms) and the order-dependent upward
//! rounding `up_order` live in `crate::num::{logspace, round}`.

use crate::num::neumaier_sum;
use crate::num::round::{EPS2, EPS4, EPS8};

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
        return lme_direct(xs);
    }
    lme_shifted(xs, m)
}

/// (ln mean_j e^{z_j}, a bound on its rounding error) for finite z. `log_mean_exp`'s
/// log1p(mean expm1(z)) is exact only for z ≥ 0: for z = (−15.3, −18.1) its argument is
/// −1 + 1.2e-7 and the result lost 3.4e-11 relative, below the bound this pass added (the
/// result came out 3e-12 below the exact value).
///
/// * min z ≥ −1, max z ≤ 600: log1p(S/J), S = Σ expm1(z_j) (Neumaier). S/J carries
///   ≤ (ε + 2u)A + u|S/J| ≤ 2εA, A = Σ|expm1 z|/J; log1p's slope is 1/mean e^z ≤ e: ≤ 6εA, plus
///   its own ulp: error ≤ 8εA + 2ε|l|.
/// * otherwise m + ln(Σ e^{z_j − m}/J), m = max z: term j carries ε + u|z_j − m| of itself,
///   ≤ ε·e^{z−m} + u/e absolutely, the sum (≥ 1) 2u more: relative ≤ 2ε + Ju; ln and the sum
///   with m ≤ 2ε(|l| + |m|): error ≤ 4ε(2 + J) + 2ε(|l| + |m|).
pub(super) fn log_mean_exp_err(z: &[f64]) -> (f64, f64) {
    let jf = z.len() as f64;
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mn = z.iter().copied().fold(f64::INFINITY, f64::min);
    if m <= LME_DIRECT_MAX && mn >= -1.0 {
        let a = z.iter().map(|&x| x.exp_m1().abs()).sum::<f64>() / jf;
        let l = lme_direct(z);
        (l, EPS8 * a + EPS2 * l.abs())
    } else {
        let l = lme_shifted(z, m);
        (l, EPS4 * (2.0 + jf) + EPS2 * (l.abs() + m.abs()))
    }
}

/// log1p(mean expm1(x)): [`log_mean_exp`]'s form below [`LME_DIRECT_MAX`].
fn lme_direct(xs: &[f64]) -> f64 {
    f64::ln_1p(neumaier_sum(xs.iter().map(|&x| f64::exp_m1(x))) / xs.len() as f64)
}

/// m + ln(mean e^{x − m}), m = max x: [`log_mean_exp`]'s form beyond [`LME_DIRECT_MAX`].
fn lme_shifted(xs: &[f64], m: f64) -> f64 {
    m + f64::ln(neumaier_sum(xs.iter().map(|&x| f64::exp(x - m))) / xs.len() as f64)
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
