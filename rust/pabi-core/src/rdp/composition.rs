//! Composition of RDP bounds: the generic Hölder composition from per-step divergence samples
//! (Thudi et al., *Gradients look alike*, USENIX Security 2024, Thm 3.3, soft-max form), the
//! upward sum of per-step terms, and the additive composition of RDP curves (Mironov 2017,
//! Prop. 1). Derivations: docs/derivations/rdp.md.

use super::checks::{check_alpha, check_p};
use super::holder::{holder_log_rho, holder_order, holder_order_at, order_map_overflow, OrderMap};
use super::logexp::{log_mean_exp, log_weighted_sum_exp};

use crate::error::{PabiError, Result};
use crate::num::neumaier_sum;
use crate::num::round::up_order;

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
            row.iter()
                .enumerate()
                .filter(|(k, _)| wrow.is_none_or(|w| w[*k] > 0.0))
                .map(|(_, &d)| d)
                .fold(0.0, f64::max)
        } else {
            let t = p * (beta - 1.0);
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
