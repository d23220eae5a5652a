//! Composition of RDP bounds: the generic Hölder composition from per-step divergence samples
//! (Thudi et al., *Gradients look alike*, USENIX Security 2024, Thm 3.3, soft-max form), the
//! upward sum of per-step terms, and the additive composition of RDP curves (Mironov 2017,
//! Prop. 1). Derivations: docs/derivations/rdp.md.

use super::checks::{check_alpha, check_p};
use super::holder::{holder_log_rho, holder_order, holder_order_at, order_map_overflow, OrderMap};
use super::logexp::{log_mean_exp, log_weighted_sum_exp};

use crate::error::{PabiError, Result};
use crate::num::neumaier_sum;
use crate::num::round::{up_order, INFLATE, TINY};

use super::scalar::prod_div;

/// Generic Hölder composition (002 Thm 3.3, soft-max form) from per-step divergence samples.
///
/// `div` is row-major (steps × samples): row j (0-based) holds samples (or support points, with
/// `weights`) of D_{β_{n−1−j}}(X_{j+1}‖Y_{j+1}) at the states x_j of the FIRST argument's chain;
/// the caller evaluates them at the orders of [`holder_order`] (or any larger order). With
/// `weights` (same shape, each row a probability vector) the expectations are exact; otherwise
/// plug-in means. Step 1 uses the maximum over its samples (with positive weight).
/// Returns the n per-step terms in chain order.
pub fn holder_composition_terms(
    alpha: f64,
    p: f64,
    div: &[f64],
    weights: Option<&[f64]>,
    steps: usize,
    samples: usize,
    map: OrderMap,
) -> Result<Vec<f64>> {
    check_alpha(alpha, f64::MAX)?;
    check_p(p)?;
    if steps == 0 || samples == 0 || steps.checked_mul(samples) != Some(div.len()) {
        return Err(PabiError::Shape {
            message: format!(
                "divergences must be a non-empty (steps, samples) array; got {} values for \
                 ({steps}, {samples})",
                div.len()
            ),
        });
    }
    crate::batch::check(div, "divergences", ">= 0 (not NaN; +inf allowed)", |x| {
        x >= 0.0
    })?;
    if let Some(w) = weights {
        if w.len() != div.len() {
            return Err(PabiError::Shape {
                message: "weights must have the shape of divergences".into(),
            });
        }
        crate::batch::check(w, "weights", "in [0, 1]", |x| (0.0..=1.0).contains(&x))?;
        for r in 0..steps {
            let tot = neumaier_sum(w[r * samples..(r + 1) * samples].iter().copied());
            if (tot - 1.0).abs() > 1e-9 {
                return Err(PabiError::domain("weights", "rows summing to 1", tot).at(r * samples));
            }
        }
    }
    let n = steps as u64;
    // the largest order, β_{n−1}: t = p(β − 1) must be finite for every term
    let (beta_max, _) = holder_order(alpha, p, n - 1, map);
    if !(p * (beta_max - 1.0)).is_finite() {
        return Err(order_map_overflow(alpha, p, steps, beta_max, f64::INFINITY));
    }
    let mut terms = vec![0.0; steps];
    let lrho = holder_log_rho(p); // once, not per step (the same double)
    for i in 0..n {
        let (beta, kappa) = holder_order_at(alpha, p, lrho, i, map);
        let row_idx = (n - 1 - i) as usize;
        let row = &div[row_idx * samples..(row_idx + 1) * samples];
        let wrow = weights.map(|w| &w[row_idx * samples..(row_idx + 1) * samples]);
        let v = if i == n - 1 {
            let dmax = row
                .iter()
                .enumerate()
                .filter(|(k, _)| wrow.is_none_or(|w| w[*k] > 0.0))
                .map(|(_, &d)| d)
                .fold(0.0, f64::max);
            if dmax > 0.0 && kappa * dmax < SCALED_BELOW {
                terms[row_idx] = term_up_scaled(&[kappa, dmax], &[]);
                continue;
            }
            dmax
        } else {
            let t = p * (beta - 1.0);
            if let Some(term) = tiny_row_term(kappa, t, row, wrow) {
                terms[row_idx] = term;
                continue;
            }
            let l = match wrow {
                None => {
                    let xs: Vec<f64> = row.iter().map(|&d| t * d).collect();
                    log_mean_exp(&xs)
                }
                Some(w) => {
                    let xs: Vec<f64> = row.iter().map(|&d| t * d).collect();
                    log_weighted_sum_exp(w, &xs)
                }
            };
            l / t
        };
        terms[row_idx] = up_order(kappa * v, 2.0);
    }
    Ok(terms)
}

/// Below this value (2^-1000) of t·max D (or of κ·max D for the first step) a term is formed
/// by [`tiny_row_term`] / [`term_up_scaled`]: t·D near the subnormal range carried absolute
/// roundings of 2^-1075 that the division by t (and κ) amplified past the `TINY` of
/// `up_order` (t = 0.0042, D = 8.5e-318: 5.9e-5 relative below the exact value).
const SCALED_BELOW: f64 = 9.332_636_185_032_189e-302;
/// 2^600 and 2^-600 (exact powers of two).
const SCALE: f64 = 4.149_515_568_880_993e180;
const UNSCALE: f64 = 2.409_919_865_102_884e-181;

/// `up_order(Π num / Π den, 2)` for non-negative factors, with no intermediate underflow: the
/// mantissas multiplied apart from the exponents ([`prod_div`]: a few relative roundings, then
/// one final rounding ≤ 2^-1075 below the normal range), the relative margin 2^-45 (with the
/// `up_order` constant 1 + 2·`INFLATE`) applied in the mantissa, where it is not rounded away
/// as it is on a subnormal value, and `TINY` (≥ 8·2^-1075) for the final rounding. A zero
/// numerator gives an exact 0, as `up_order` does.
fn term_up_scaled(num: &[f64], den: &[f64]) -> f64 {
    const C: f64 = 1.0 + 2.0 * INFLATE + 2.0 * f64::EPSILON;
    let mut all = num.to_vec();
    all.push(C);
    let v = prod_div(&all, den);
    if num.contains(&0.0) {
        return 0.0;
    }
    v + TINY
}

/// The term κ·(1/t)·ln E[e^{tD}] of a row whose t·max D < 2^-1000, or `None` (the ordinary
/// path) when it is larger or, with weights, when they do not sum to 1 exactly.
///
/// Bound: with x = tD ∈ [0, 2^-1000], ln E e^x ≤ E(e^x − 1) ≤ E[x(1 + x)] (e^x − 1 ≤ x + x²
/// for x ≤ 1; ln(1 + s) ≤ s), so the term is ≤ κ·E[D]·(1 + t·max D), and ≥ κ·E[D] (Jensen):
/// the factor 1 + t·max D < 1 + 2^-1000 is within the 2^-45 margin of [`term_up_scaled`].
/// E[D] = Σ w_k (D_k·2^600) (or Σ D_k·2^600 / n): exact scalings (D_k ≤ 2^-1000/t ≤ 2^-948
/// as t ≥ p(α − 1) ≥ 2^-52), non-negative terms summed with a few ulp, and the scale 2^-600
/// handed to [`term_up_scaled`] as a factor (no rounding before the final one). With weights
/// the identity ln Σ w e^x ≤ Σ w (e^x − 1) needs Σ w = 1: tested exactly ([`sums_to_one`]).
fn tiny_row_term(kappa: f64, t: f64, row: &[f64], wrow: Option<&[f64]>) -> Option<f64> {
    let dmax = row.iter().copied().fold(0.0, f64::max);
    if !(t * dmax < SCALED_BELOW) || dmax == 0.0 {
        return None; // (an all-zero row: the ordinary path, exact)
    }
    let s = match wrow {
        None => neumaier_sum(row.iter().map(|&d| d * SCALE)),
        Some(w) if sums_to_one(w) => {
            neumaier_sum(w.iter().zip(row).map(|(&wk, &d)| wk * (d * SCALE)))
        }
        Some(_) => return None,
    };
    let den = match wrow {
        None => row.len() as f64,
        Some(_) => 1.0,
    };
    Some(term_up_scaled(&[kappa, s, UNSCALE], &[den]))
}

/// Σ w = 1 exactly (the sign of the exact sum of w and −1).
fn sums_to_one(w: &[f64]) -> bool {
    crate::num::round::exact_sum_sign(w.iter().copied().chain(std::iter::once(-1.0))) == 0
}

/// Sum of the per-step terms, rounded up (+inf if a term is +inf or the sum overflows; NaN
/// only from a NaN term, which the functions producing the terms never return).
pub fn sum_terms_up(terms: &[f64]) -> f64 {
    if terms.iter().any(|x| x.is_infinite()) {
        return f64::INFINITY; // a divergent expectation: the bound is +inf
    }
    let s = neumaier_sum(terms.iter().copied());
    if s.is_nan() && !terms.iter().any(|x| x.is_nan()) {
        return f64::INFINITY; // finite terms whose sum overflowed (the compensation gave NaN)
    }
    up_order(s, 2.0)
}

/// Composition of RDP curves: out[j] = Σ_k curves[k][j] (`curves` row-major k × m), rounded up.
///
/// +inf is a legitimate RDP value ("no guarantee at this order"): a column holding one
/// composes to +inf. NaN and negative values are domain errors (first flat index).
pub fn rdp_compose(curves: &[f64], k: usize, m: usize, out: &mut [f64]) -> Result<()> {
    if k.checked_mul(m) != Some(curves.len()) || out.len() != m {
        return Err(PabiError::Shape {
            message: format!("rdp must have shape (k, m) = ({k}, {m})"),
        });
    }
    crate::batch::check(curves, "rdp", ">= 0 (not NaN; +inf allowed)", |x| x >= 0.0)?;
    for (j, o) in out.iter_mut().enumerate() {
        let col = || (0..k).map(|i| curves[i * m + j]);
        *o = if col().any(f64::is_infinite) {
            f64::INFINITY
        } else {
            // a sum of finite values may still overflow (the compensation then turns it into
            // NaN): +inf, the correct upper bound
            let s = neumaier_sum(col());
            if s.is_nan() {
                f64::INFINITY
            } else {
                up_order(s, 2.0)
            }
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σ of the terms rounded up, as `pabi.holder_composition_bound` forms it.
    fn bound(
        alpha: f64,
        p: f64,
        div: &[f64],
        w: Option<&[f64]>,
        steps: usize,
        map: OrderMap,
    ) -> f64 {
        let t = holder_composition_terms(alpha, p, div, w, steps, div.len() / steps, map).unwrap();
        sum_terms_up(&t)
    }

    /// Subnormal divergences (bug hunt): t·D near the subnormal range lost its digits before
    /// the division by t. Exact values by `pabi.reference.holder_composition_bound` at dps 50
    /// (confirmed at 80); before: 8.555226e-318 for the first (−5.9e-5 relative, 103 subnormal
    /// steps below). Now ≥ the exact value and within 20 subnormal steps (`TINY` per term and
    /// once more for the sum).
    #[test]
    #[allow(clippy::type_complexity, clippy::excessive_precision)]
    fn holder_composition_subnormal_divergences() {
        let s = 5e-324;
        let c = OrderMap::Corrected;
        let cases: [(f64, f64, &[f64], Option<&[f64]>, usize, OrderMap, f64); 4] = [
            (
                1.001_718_642_924_464_7,
                2.415_269_252_801_854_4,
                &[1.9975e-320, 8.53576e-318],
                None,
                2,
                c,
                8.555_734_789_032_866e-318,
            ),
            (
                1.001,
                2.0,
                &[1e-320, 3e-321, 8e-318, 2e-319],
                Some(&[0.25, 0.75, 0.25, 0.75]),
                2,
                c,
                2.159_998_186_068_658e-318,
            ),
            (
                1.3,
                1.7,
                &[1e-320, 1e-319, 4e-318],
                None,
                3,
                c,
                4.109_998_710_028_953e-318,
            ),
            (
                1.3,
                1.7,
                &[1e-320, 1e-319, 4e-318],
                None,
                3,
                OrderMap::AsPublished,
                4.241_620_828_377_172e-318,
            ),
        ];
        for (a, p, d, w, n, map, exact) in cases {
            let v = bound(a, p, d, w, n, map);
            assert!(
                v >= exact && v <= exact + 20.0 * s,
                "{a} {p}: {}",
                (v - exact) / s
            );
        }
        // all-zero rows stay exactly 0
        assert_eq!(bound(1.5, 2.0, &[0.0, 0.0], None, 2, c), 0.0);
    }

    #[test]
    fn holder_sums_to_one_is_exact() {
        assert!(sums_to_one(&[0.25, 0.75]));
        assert!(sums_to_one(&[0.5, 0.25, 0.125, 0.125]));
        assert!(!sums_to_one(&[0.1, 0.2, 0.7])); // 1 − 2^-53·… in binary
        assert!(!sums_to_one(&[0.5, 0.5, 5e-324]));
        assert!(sums_to_one(&[
            1.0 - f64::EPSILON / 2.0,
            f64::EPSILON / 4.0,
            f64::EPSILON / 4.0
        ]));
    }
}
