//! RDP of general (translation-invariant) update rules from sampled update tuples: Thudi et
//! al., *Gradients look alike* (USENIX Security 2024), Thm 3.6, with a bound on the rounding of
//! the cancelling exponent. Derivation: docs/derivations/rdp.md.

use super::checks::pos;
use super::logexp::log_mean_exp;

use crate::error::{PabiError, Result};
use crate::num::neumaier_sum;
use crate::num::round::{rel_err, EPS2, EPS4};

/// Thm 3.6 bound on D_α(M(X')‖M(X)), translation-invariant form:
/// (1/(α − 1))·mean_b ln mean_j exp[(‖Σ_i w_i‖² − Σ_i ‖w_i‖²)/(2σ²)], w_i = U(T_i) − U(V_b).
/// `outer` is B × d (U(V_b), batches of the second argument's dataset X), `inner` is
/// B × J × α × d (α-tuples of updates from the FIRST argument's dataset X').
pub fn general_update_rdp(
    alpha: u64,
    sigma: f64,
    outer: &[f64],
    inner: &[f64],
    b: usize,
    j: usize,
    d: usize,
) -> Result<f64> {
    if alpha < 2 {
        return Err(PabiError::domain("order", "an integer >= 2", alpha as f64));
    }
    pos("noise_scale", sigma)?;
    // the exponents are differences of squared norms divided by 2σ²: 2σ² must be a positive
    // normal double (σ = 5e-324 gave 0/0 = NaN)
    let s2 = 2.0 * sigma * sigma;
    if !(s2 >= f64::MIN_POSITIVE && s2.is_finite()) {
        return Err(PabiError::domain(
            "noise_scale",
            "> 0 with 2*sigma^2 a finite normal double (about 1.1e-154 to 9.5e153)",
            sigma,
        ));
    }
    let a = usize::try_from(alpha).unwrap_or(usize::MAX);
    let inner_len = [j, a, d].iter().try_fold(b, |acc, &x| acc.checked_mul(x));
    if b == 0
        || j == 0
        || d == 0
        || b.checked_mul(d) != Some(outer.len())
        || inner_len != Some(inner.len())
    {
        return Err(PabiError::Shape {
            message: format!(
                "updates_second must have shape (B, d) and updates_first (B, J, order, d) with \
                 B, J, d >= 1; got \
                 {} and {} values for B={b}, J={j}, order={a}, d={d}",
                outer.len(),
                inner.len()
            ),
        });
    }
    crate::batch::check(outer, "updates_second", "finite", f64::is_finite)?;
    crate::batch::check(inner, "updates_first", "finite", f64::is_finite)?;
    let mut per_b = Vec::with_capacity(b);
    let mut err_sum = 0.0; // Σ_b of the error bounds of ln mean_j e^{z_j}
    let mut z = vec![0.0; j];
    let mut sw = vec![0.0; d];
    let mut sa = vec![0.0; d];
    // z = (‖Σ w‖² − Σ‖w‖²)/(2σ²) cancels; its rounding error is ≤ c·ε_m·(Σ_k(Σ_i|w_ik|)² + Σ‖w‖²)/(2σ²)
    // with c = 2α + d + 4 (differences, the α-term sums, squares and the d-term sums)
    let c = rel_err((2 * a + d + 4) as f64);
    for bi in 0..b {
        let v = &outer[bi * d..(bi + 1) * d];
        let mut zerr: f64 = 0.0;
        for (ji, zj) in z.iter_mut().enumerate() {
            sw.iter_mut().for_each(|x| *x = 0.0);
            sa.iter_mut().for_each(|x| *x = 0.0);
            let mut sq = 0.0;
            for i in 0..a {
                let off = ((bi * j + ji) * a + i) * d;
                for k in 0..d {
                    let w = inner[off + k] - v[k];
                    sw[k] += w;
                    sa[k] += w.abs();
                    sq += w * w;
                }
            }
            let tot: f64 = sw.iter().map(|x| x * x).sum();
            let mag: f64 = sa.iter().map(|x| x * x).sum::<f64>() + sq;
            *zj = (tot - sq) / s2;
            zerr = zerr.max(c * mag / s2);
        }
        if !(zerr.is_finite() && z.iter().all(|x| x.is_finite())) {
            // the squared norms overflowed (|w|/σ beyond ~1e154): no finite bound is certified
            return Ok(f64::INFINITY);
        }
        let l = log_mean_exp(&z);
        // log-mean-exp is 1-Lipschitz in the max norm of z; its own rounding ≤ 4 ulp of |l|
        // plus a few ulp of max z on the shifted path
        let zmax = z.iter().fold(0.0f64, |m, &x| m.max(x.abs()));
        err_sum += zerr + EPS4 * (l.abs() + zmax);
        per_b.push(l);
    }
    let m = neumaier_sum(per_b.iter().copied()) / b as f64;
    let v = m / (alpha - 1) as f64;
    // the mean's own rounding (Neumaier: ~2 ulp of Σ|L_b|) and the division
    let sum_abs: f64 = per_b.iter().map(|x| x.abs()).sum();
    let err = (err_sum + EPS2 * sum_abs) / (b as f64 * (alpha - 1) as f64);
    let res = v + err + EPS2 * v.abs();
    // sums of values near the overflow threshold: +inf, never NaN
    Ok(if res.is_nan() { f64::INFINITY } else { res })
}
