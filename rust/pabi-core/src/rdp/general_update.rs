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
use super::logexp::log_mean_exp_err;
use super::scalar::{frexp, ldexp_once};

use crate::dd::{exp_dd, ln_dd, two_sum, Dd};
use crate::error::{PabiError, Result};
use crate::num::neumaier_sum;
use crate::num::round::{rel_err, EPS2};
use crate::num::TINY;

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
    // Scaled differences w' = (u − v)·2^k with max|w'| ∈ [1/2, 1) (exact: the difference is rounded
    // once, the power of two is exact but for w' below 2^-1022, see `ops`), and
    // z = (Σ_k Σ_{i<i'} w'_ik w'_i'k)/σ'², σ' = σ·2^k = m_σ·2^{e_σ + k}, formed as
    // (Σ/m_σ²)·2^{−2(e_σ + k)}. |w| ~ 1e-255 underflowed w² (an exact 0 where the bound is
    // 1e-510 > 0) and |w| ~ 1e155 overflowed it (inf where the bound is 5e8). The cross-product
    // form ‖Σw‖² − Σ‖w‖² = 2Σ_{i<i'} w_i·w_i' has no cancelling squares: a tuple with one non-zero
    // difference has z = 0 and error 0 exactly (it gave 8e-147 where the bound is 0).
    let mut maxw: f64 = 0.0;
    for bi in 0..b {
        let v = &outer[bi * d..(bi + 1) * d];
        for (t, x) in inner[bi * j * a * d..(bi + 1) * j * a * d]
            .iter()
            .enumerate()
        {
            maxw = maxw.max((x - v[t % d]).abs());
        }
    }
    if maxw == 0.0 {
        return Ok(0.0); // every z is 0: the bound is exactly 0
    }
    let k = -frexp(maxw).1;
    let (k1, k2) = (k / 2, k - k / 2);
    let pow2 = |e: i64| f64::from_bits(((1023 + e) as u64) << 52);
    let (sc1, sc2) = (pow2(k1), pow2(k2));
    let (ms, es) = frexp(sigma);
    let ms2 = ms * ms; // to nearest (½ ulp: inside c)
    let ez = -2 * (es + k);
    let mut nonzero = false; // some z or its error bound is not an exact 0
    let mut per_b = Vec::with_capacity(b);
    let mut err_sum = 0.0; // Σ_b of the error bounds of ln mean_j e^{z_j}
    let mut z = vec![0.0; j];
    let mut sw = vec![0.0; d];
    let mut sa = vec![0.0; d];
    let mut zk = vec![0.0; d];
    let mut mk = vec![0.0; d];
    // per k, Σ_i w_i·(Σ_{i'<i} w_i') has ≤ 2α roundings (the prefix sums, the products and
    // their sum) relative to Σ_i |w_i|·Σ_{i'<i}|w_i'|, the sum over k d more, the difference,
    // the division and the scaling a few: c = 2α + d + 6 units. A product below 2^-1000 (one
    // of its factors below ~2^-500: subnormal scaled differences or prefix sums) may lose
    // 2^-1074 absolutely, and a scaled difference below 1e-300 α·2^-1075 in each product:
    // then (α²d + 3αd + d + 4)·2^-1074 more (`ops`).
    let c = rel_err((2 * a + d + 6) as f64);
    let (af, df) = (a as f64, d as f64);
    let ops = (af * af * df + 3.0 * af * df + df + 4.0) * 5e-324;
    for bi in 0..b {
        let v = &outer[bi * d..(bi + 1) * d];
        let mut zerr: f64 = 0.0;
        for (ji, zj) in z.iter_mut().enumerate() {
            sw.iter_mut().for_each(|x| *x = 0.0);
            sa.iter_mut().for_each(|x| *x = 0.0);
            zk.iter_mut().for_each(|x| *x = 0.0);
            mk.iter_mut().for_each(|x| *x = 0.0);
            let mut tiny = false;
            for i in 0..a {
                let off = ((bi * j + ji) * a + i) * d;
                for kk in 0..d {
                    let diff = inner[off + kk] - v[kk];
                    let w = diff * sc1 * sc2;
                    // a scaled difference below 1e-300 may have been rounded (or flushed) by
                    // the scaling: ≤ 2^-1075, times |prefix| ≤ α
                    tiny |= w.abs() < 1e-300 && diff != 0.0;
                    let pr = w * sw[kk];
                    let m = w.abs() * sa[kk]; // ≥ |pr|; sa = 0 iff every earlier w' is 0
                    tiny |= m < 1e-300 && w != 0.0 && sa[kk] != 0.0;
                    zk[kk] += pr;
                    mk[kk] += m;
                    sw[kk] += w;
                    sa[kk] += w.abs();
                }
            }
            let zs: f64 = zk.iter().sum();
            let mag: f64 = mk.iter().sum();
            *zj = ldexp_signed(zs / ms2, ez);
            let e = c * mag + if tiny { ops } else { 0.0 };
            nonzero |= zs != 0.0 || e != 0.0;
            zerr = zerr.max(ldexp_signed(e / ms2, ez));
        }
        if !(zerr.is_finite() && z.iter().all(|x| x.is_finite())) {
            // z beyond the double range (|w|/σ beyond ~1e154): no finite bound is certified
            return Ok(f64::INFINITY);
        }
        // log-mean-exp is 1-Lipschitz in the max norm of z, plus its own rounding
        let (l, lerr) = log_mean_exp_err(&z);
        err_sum += zerr + lerr;
        per_b.push(l);
    }
    if !nonzero {
        // every product w_i·w_i' was an exact 0 (no rounding, no underflow): so is the bound
        return Ok(0.0);
    }
    let m = neumaier_sum(per_b.iter().copied()) / b as f64;
    let v = m / (alpha - 1) as f64;
    // the mean's own rounding (Neumaier: ~2 ulp of Σ|L_b|) and the division
    let sum_abs: f64 = per_b.iter().map(|x| x.abs()).sum();
    let err = (err_sum + EPS2 * sum_abs) / (b as f64 * (alpha - 1) as f64);
    // + TINY: the scaled z, their errors and the mean may have underflowed (rounded to nearest
    // within the subnormals); maxw > 0 here
    let res = v + err + EPS2 * v.abs() + TINY;
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

/// x·2^e with one rounding (x finite; 0 stays 0; +-inf beyond the range).
fn ldexp_signed(x: f64, e: i64) -> f64 {
    if x == 0.0 {
        return x;
    }
    let (m, k) = frexp(x.abs());
    let r = ldexp_once(m, e + k);
    if x < 0.0 {
        -r
    } else {
        r
    }
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
