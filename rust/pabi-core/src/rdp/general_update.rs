//! RDP of general (translation-invariant) update rules from sampled update tuples: Thudi et
//! al., *Gradients look alike* (USENIX Security 2024), Thm 3.6, with a bound on the rounding of
//! the cancelling exponent. Derivation: docs/derivations/rdp.md.
//!
//! Two passes. The double pass bounds every rounding (the exponents z, the per-batch
//! log-mean-exp L_b, their mean) and adds the bound. Where that margin exceeds 2^-45 of the
//! result, the per-batch terms cancel in the mean (mixed signs: the condition number
//! max|L_b|/|mean| of doubles, e.g. L = (1, −0.999) left 1.7e-11 relative), and the bound is
//! recomputed in double-double ([`precise`]): the differences w = u − v exactly (TwoSum), the
//! squared norms and L_b to ~2^-100 of their magnitudes, the mean of the L_b in double-double;
//! the result is then within a few ulp of the exact value.

use super::checks::pos;
use super::logexp::log_mean_exp;

use crate::dd::{exp_dd, ln_dd, two_sum, Dd};
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
    if res.is_nan() {
        // sums of values near the overflow threshold: +inf, never NaN
        return Ok(f64::INFINITY);
    }
    if res - v > PRECISE_BELOW * v.abs() {
        let u = Updates {
            outer,
            inner,
            b,
            j,
            a,
            d,
        };
        if let Some(p) = precise(alpha, sigma, &u) {
            return Ok(p.min(res));
        }
    }
    Ok(res)
}

/// The update tuples of one call: `outer` B × d, `inner` B × J × α × d (α = `a`).
#[derive(Clone, Copy)]
struct Updates<'a> {
    outer: &'a [f64],
    inner: &'a [f64],
    b: usize,
    j: usize,
    a: usize,
    d: usize,
}

/// The double pass's margin above which [`precise`] recomputes the bound (relative).
const PRECISE_BELOW: f64 = 1.0 / 35_184_372_088_832.0; // 2^-45

/// Error bound per double-double operation, relative to the magnitude of its operands: the
/// operations are accurate to ~2^-104 (sums, products) and ~2^-100 (exp, ln); 2^-96 leaves a
/// factor 16 for what the chains of a few operations add.
const DD_OP: f64 = 1.0 / 79_228_162_514_264_337_593_543_950_336.0; // 2^-96

/// The Thm 3.6 bound in double-double, rounded up, or `None` where a magnitude leaves the
/// range in which double-double keeps its precision (the double pass's value then stands).
///
/// Error bound, with c = 2α + d + 4 operations per exponent as in the double pass and
/// mag = Σ_k(Σ_i|w_ik|)² + Σ‖w‖² (divided by 2σ²): z to c·2^-96·mag plus c·2^-1070 for the
/// double-double low parts that underflow; L_b = z_max + ln(mean e^{z − z_max}) is 1-Lipschitz
/// in z, and its own error is 2^-96·(4 + |z_max| + |ln mean|) (the exponentials, their sum, the
/// logarithm; J·2^-104 for the sum of the J exponentials); the terms with z − z_max < −700 are
/// dropped and bounded by J·e^-700 each batch. The mean of the L_b: (1 + B/256)·2^-96·Σ|L_b|.
/// The double-double result plus the bound is rounded to a double and moved up one ulp (the
/// rounding to nearest of that sum).
fn precise(alpha: u64, sigma: f64, u: &Updates<'_>) -> Option<f64> {
    let Updates {
        outer,
        inner,
        b,
        j,
        a,
        d,
    } = *u;
    let s2 = Dd::from_f64(sigma).sqr().ldexp(1);
    if !(s2.hi >= 1e-290 && s2.hi <= 1e290) {
        return None;
    }
    let c = (2 * a + d + 4) as f64;
    // operations whose double-double low part may underflow (≤ 2^-1074 each) per exponent
    let ops = (3 * a * d + 2 * d + 4) as f64;
    let mut total = Dd::default();
    let (mut err, mut sum_abs) = (0.0f64, 0.0f64);
    let mut z = vec![Dd::default(); j];
    let mut sw = vec![Dd::default(); d];
    for bi in 0..b {
        let v = &outer[bi * d..(bi + 1) * d];
        let mut zerr: f64 = 0.0;
        for (ji, zj) in z.iter_mut().enumerate() {
            sw.iter_mut().for_each(|x| *x = Dd::default());
            let mut sq = Dd::default();
            let mut sa = 0.0f64;
            for k in 0..d {
                let mut abs_k = 0.0f64;
                for i in 0..a {
                    let (h, l) = two_sum(inner[((bi * j + ji) * a + i) * d + k], -v[k]);
                    let w = Dd::new(h, l);
                    if !(h.abs() <= 1e145) {
                        return None;
                    }
                    sw[k] = sw[k] + w;
                    sq = sq + w.sqr();
                    abs_k += h.abs();
                }
                sa += abs_k * abs_k;
            }
            let mut tot = Dd::default();
            for x in &sw {
                tot = tot + x.sqr();
            }
            let mag = sa + sq.hi.abs();
            *zj = (tot - sq) / s2;
            zerr = zerr.max(c * DD_OP * 2.0 * mag / s2.hi + ops * 1e-322 / s2.hi);
        }
        let zmax = z.iter().map(|x| x.hi).fold(f64::NEG_INFINITY, f64::max);
        if !(zmax.abs() <= 1e300 && z.iter().all(|x| x.hi >= -1e300)) {
            return None;
        }
        let zm = Dd::from_f64(zmax);
        let mut s = Dd::default();
        for x in &z {
            let t = *x - zm;
            if t.hi > -700.0 {
                s = s + exp_dd(t);
            }
        }
        let lm = ln_dd(s.div_f(j as f64));
        let l = zm + lm;
        // the sum of J exponentials: 2^-104 of the running sum per addition
        let sum_err = j as f64 / 256.0;
        err += zerr + DD_OP * (4.0 + sum_err + zmax.abs() + lm.hi.abs()) + j as f64 * 1e-304;
        sum_abs += l.hi.abs();
        total = total + l;
    }
    let den = (b as f64) * (alpha - 1) as f64;
    let v = total.div_f(den);
    // the mean's B additions: 2^-104 of the running sum each
    let e = (err + DD_OP * (1.0 + b as f64 / 256.0) * sum_abs) / den + DD_OP * v.hi.abs();
    let r = (v.hi + (v.lo + e)).next_up();
    r.is_finite().then_some(r)
}
