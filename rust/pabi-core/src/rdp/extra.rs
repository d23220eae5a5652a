//! Scalar Rényi/approximate-DP helpers around DP-SGD (SPEC_rdp §2.1–2.4, §2.10, §2.12, §3;
//! SPEC_pabi §6): the classical Gaussian mechanism (with its validity flag), amplification by
//! sampling, per-instance (ε, δ) via L_p norms (Thudi et al. Cor. 3.1), general update rules
//! (Thm 3.6, translation-invariant form), the weak triangle inequality and the unlearning
//! keep-rule (corrected coefficient), last-iterate RDP of cyclic DP-SGD (Kong–Ribero), and the
//! ERM output-perturbation quantities (paper 001).

// `!(x > 0.0)`-style checks are deliberate: they also reject NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::dd::{two_prod, Dd};
use crate::error::{PabiError, Result};
use crate::num::{neumaier_sum, INFLATE, TINY};

#[inline(always)]
fn up(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else if v > 0.0 {
        v * (1.0 + INFLATE) + TINY
    } else {
        v * (1.0 - INFLATE) + TINY
    }
}

/// [`up`] of a value known to be positive (`positive`): an underflowed 0 becomes the smallest
/// positive bound, not an exact 0 below the exact value.
fn up_pos(v: f64, positive: bool) -> f64 {
    if v == 0.0 && positive {
        TINY
    } else {
        up(v)
    }
}

/// a·b where an exact zero factor wins over an overflowed one (0·inf is 0 here, not NaN: the
/// infinite factor stands for a finite number too large for a double).
#[inline]
fn mul0(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        a * b
    }
}

/// Π num / Π den for non-negative factors (den > 0), without NaN, spurious overflow or
/// spurious underflow: 0 if a numerator factor is 0, +inf if one is +inf; otherwise the product
/// of the factors' mantissas with their binary exponents summed apart (exact scalings), so the
/// result carries the ≤ 16 roundings of the plain product (covered by the callers' [`up`]) and,
/// below the normal range, one final rounding (covered by the [`TINY`] of `up`). The closed
/// forms αT(λC/σ)² and kin overflowed to inf·0 = NaN, or underflowed to 0, in their
/// intermediates for extreme but valid inputs (α = 1e300 with C = 0, σ = 1e-170).
fn prod_div(num: &[f64], den: &[f64]) -> f64 {
    if num.contains(&0.0) {
        return 0.0;
    }
    if num.iter().any(|x| x.is_infinite()) {
        return f64::INFINITY;
    }
    if den.iter().any(|x| x.is_infinite()) {
        return 0.0; // (callers pass finite divisors; their own factors, never a product)
    }
    let (mut p, mut e) = (1.0f64, 0i64);
    for (&x, inv) in num
        .iter()
        .map(|x| (x, false))
        .chain(den.iter().map(|x| (x, true)))
    {
        let (m, k) = frexp(x);
        if inv {
            p /= m;
            e -= k;
        } else {
            p *= m;
            e += k;
        }
        let (pm, pk) = frexp(p); // keep p in [1/2, 1): no intermediate over- or underflow
        p = pm;
        e += pk;
    }
    // p·2^e: exact steps of 2^±1000 while p stays normal, one final (possibly subnormal) rounding
    while e > 1000 {
        p *= f64::from_bits(((1023 + 1000) as u64) << 52);
        e -= 1000;
        if p.is_infinite() {
            return p;
        }
    }
    while e < -1000 {
        if p < 1e-300 {
            break;
        }
        p *= f64::from_bits(((1023 - 1000) as u64) << 52);
        e += 1000;
    }
    p * 2f64.powi(e.clamp(-1100, 1100) as i32)
}

/// (m, k) with x = m·2^k and m ∈ [1/2, 1), for finite x > 0 (subnormals included).
fn frexp(x: f64) -> (f64, i64) {
    let (x, shift) = if x < f64::MIN_POSITIVE {
        (x * 18_446_744_073_709_551_616.0, -64) // × 2^64: normal
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let be = ((bits >> 52) & 0x7ff) as i64;
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, be - 1022 + shift)
}

fn pos(name: &'static str, v: f64) -> Result<()> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain(name, "> 0 and finite", v))
    }
}

fn nonneg(name: &'static str, v: f64) -> Result<()> {
    if v >= 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain(name, ">= 0 and finite", v))
    }
}

fn unit_open(name: &'static str, v: f64) -> Result<()> {
    if v > 0.0 && v < 1.0 {
        Ok(())
    } else {
        Err(PabiError::domain(name, "in (0, 1)", v))
    }
}

fn order(v: f64) -> Result<()> {
    if v > 1.0 && v.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain("alpha", "> 1 and finite", v))
    }
}

// ---------------------------------------------------------------------------------------------
// §2.1–2.4 classical Gaussian mechanism, amplification, Cor. 3.1

/// C_{δ,σ} = √(2 ln(1.25/δ))/σ (Dwork–Roth; Thudi et al. footnote 3), rounded up.
pub fn gaussian_dp_constant(delta: f64, sigma: f64) -> Result<f64> {
    unit_open("delta", delta)?;
    pos("sigma", sigma)?;
    // ln 1.25 − ln δ: 1.25/δ overflows for δ < 7e-309
    Ok(up((2.0 * (1.25f64.ln() - delta.ln())).sqrt() / sigma))
}

/// ε = C_{δ,σ}·Δ and whether it is a valid guarantee (ε ≤ 1, Dwork–Roth Thm A.1).
pub fn gaussian_mechanism_epsilon(delta: f64, sigma: f64, sens: f64) -> Result<(f64, bool)> {
    nonneg("sensitivity", sens)?;
    let e = up_pos(mul0(gaussian_dp_constant(delta, sigma)?, sens), sens > 0.0);
    Ok((e, e <= 1.0))
}

/// ln(1 − q + q e^x) (amplification by sampling), stable for tiny q·x and huge x.
#[inline]
pub(crate) fn amplify(x: f64, q: f64) -> f64 {
    if q == 0.0 {
        0.0
    } else if x <= 700.0 {
        (q * x.exp_m1()).ln_1p()
    } else {
        x + (q + (1.0 - q) * (-x).exp()).ln()
    }
}

/// (ε', δ') = (ln(1 + q(e^ε − 1)), qδ) for Poisson sampling with rate q.
pub fn amplify_by_sampling(eps: f64, delta: f64, q: f64) -> Result<(f64, f64)> {
    nonneg("eps", eps)?;
    if !(0.0..=1.0).contains(&delta) {
        return Err(PabiError::domain("delta", "in [0, 1]", delta));
    }
    if !(0.0..=1.0).contains(&q) {
        return Err(PabiError::domain("q", "in [0, 1]", q));
    }
    Ok((
        up_pos(amplify(eps, q), eps > 0.0 && q > 0.0),
        up_pos(q * delta, q > 0.0 && delta > 0.0),
    ))
}

/// Per-instance (ε', δ'') from the L_p norm of the sensitivity distribution (Thudi et al.
/// Cor. 3.1, stable form §2.4): K = ln mean_k e^{p C Δ_k}, η = (ln q + K − ln δ')/(p − 1),
/// ε' = ln(1 − q + q e^η), δ'' = qδ + δ'. `sens` are samples of Δ(X_B) over batches.
/// Valid only where every per-batch C_{δ,σ}Δ ≤ 1 (the returned flag).
pub fn lp_per_instance_eps_delta(
    q: f64,
    p: f64,
    delta: f64,
    delta_prime: f64,
    sigma: f64,
    sens: &[f64],
) -> Result<(f64, f64, bool)> {
    if !(q > 0.0 && q <= 1.0) {
        return Err(PabiError::domain("q", "in (0, 1]", q));
    }
    if !(p > 1.0 && p.is_finite()) {
        return Err(PabiError::domain("p", "> 1 and finite", p));
    }
    unit_open("delta_prime", delta_prime)?;
    check_sensitivities(sens)?;
    let c = gaussian_dp_constant(delta, sigma)?;
    let xs: Vec<f64> = sens.iter().map(|&d| mul0(p * c, d)).collect();
    let k = super::log_mean_exp(&xs);
    let (lq, ldp) = (q.ln(), delta_prime.ln());
    let eta = (lq + k - ldp) / (p - 1.0);
    let eta = eta + INFLATE * (eta.abs() + (lq.abs() + k.abs() + ldp.abs()) / (p - 1.0));
    let smax = sens.iter().copied().fold(0.0, f64::max);
    Ok((
        up(amplify(eta, q)),
        up(q * delta + delta_prime),
        mul0(c, smax) <= 1.0,
    ))
}

// ---------------------------------------------------------------------------------------------
// §2.10 general update rules (Thm 3.6), §2.12 weak triangle / keep rule

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
        return Err(PabiError::domain("alpha", "an integer >= 2", alpha as f64));
    }
    pos("sigma", sigma)?;
    // the exponents are differences of squared norms divided by 2σ²: 2σ² must be a positive
    // normal double (σ = 5e-324 gave 0/0 = NaN)
    let s2 = 2.0 * sigma * sigma;
    if !(s2 >= f64::MIN_POSITIVE && s2.is_finite()) {
        return Err(PabiError::domain(
            "sigma",
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
                "outer must have shape (B, d) and inner (B, J, alpha, d) with B, J, d >= 1; got \
                 {} and {} values for B={b}, J={j}, alpha={a}, d={d}",
                outer.len(),
                inner.len()
            ),
        });
    }
    crate::batch::check(outer, "outer", "finite", f64::is_finite)?;
    crate::batch::check(inner, "inner", "finite", f64::is_finite)?;
    let mut per_b = Vec::with_capacity(b);
    let mut err_sum = 0.0; // Σ_b of the error bounds of ln mean_j e^{z_j}
    let mut z = vec![0.0; j];
    let mut sw = vec![0.0; d];
    let mut sa = vec![0.0; d];
    // z = (‖Σ w‖² − Σ‖w‖²)/(2σ²) cancels; its rounding error is ≤ c·ε_m·(Σ_k(Σ_i|w_ik|)² + Σ‖w‖²)/(2σ²)
    // with c = 2α + d + 4 (differences, the α-term sums, squares and the d-term sums)
    let c = (2 * a + d + 4) as f64 * f64::EPSILON;
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
        let l = super::log_mean_exp(&z);
        // log-mean-exp is 1-Lipschitz in the max norm of z; its own rounding ≤ 4 ulp of |l|
        // plus a few ulp of max z on the shifted path
        let zmax = z.iter().fold(0.0f64, |m, &x| m.max(x.abs()));
        err_sum += zerr + 4.0 * f64::EPSILON * (l.abs() + zmax);
        per_b.push(l);
    }
    let m = neumaier_sum(per_b.iter().copied()) / b as f64;
    let v = m / (alpha - 1) as f64;
    // the mean's own rounding (Neumaier: ~2 ulp of Σ|L_b|) and the division
    let sum_abs: f64 = per_b.iter().map(|x| x.abs()).sum();
    let err = (err_sum + 2.0 * f64::EPSILON * sum_abs) / (b as f64 * (alpha - 1) as f64);
    let res = v + err + 2.0 * f64::EPSILON * v.abs();
    // sums of values near the overflow threshold: +inf, never NaN
    Ok(if res.is_nan() { f64::INFINITY } else { res })
}

/// Weak triangle inequality (Mironov Prop. 11, Hölder-p form):
/// D_α(P‖R) ≤ (α − 1/p)/(α − 1)·D_{pα}(P‖Q) + D_{g_p(α)}(Q‖R).
pub fn weak_triangle_bound(alpha: f64, p: f64, d_pa: f64, d_gpa: f64) -> Result<f64> {
    order(alpha)?;
    if !(p > 1.0) {
        return Err(PabiError::domain("p", "> 1", p));
    }
    nonneg("d_p_alpha", d_pa)?;
    nonneg("d_g_alpha", d_gpa)?;
    Ok(up((alpha - 1.0 / p) / (alpha - 1.0) * d_pa + d_gpa))
}

/// Unlearning keep-rule (Thudi et al. §5.4, NPIU): keep iff
/// c(α)·D_{2α}(prev‖A(D^{t−1})) + D_{2α−1}(A(D^{t−1})‖A(D^t)) ≤ β with the corrected
/// c(α) = (α − ½)/(α − 1) (Mironov Cor. 4, p = 2). `as_published` uses the printed
/// (α − 1)/(α − 2): undefined at α = 2, negative and UNSOUND for α ∈ (1, 2) (erratum T8).
pub fn unlearning_keep(
    alpha: f64,
    beta: f64,
    d_2a_prev: f64,
    d_2a1_step: f64,
    as_published: bool,
) -> Result<bool> {
    order(alpha)?;
    nonneg("beta", beta)?;
    nonneg("d_2alpha_prev", d_2a_prev)?;
    nonneg("d_2alpha_minus_1_step", d_2a1_step)?;
    let c = if as_published {
        if alpha == 2.0 {
            return Err(PabiError::domain(
                "alpha",
                "!= 2 (the published coefficient (alpha-1)/(alpha-2) is undefined)",
                alpha,
            ));
        }
        (alpha - 1.0) / (alpha - 2.0)
    } else {
        (alpha - 0.5) / (alpha - 1.0)
    };
    let lhs = c * d_2a_prev + d_2a1_step;
    Ok(lhs * (1.0 + INFLATE) + TINY <= beta)
}

// ---------------------------------------------------------------------------------------------
// §2.8–2.9 choosing p (Fact 3.4, corrected) and the Monte-Carlo sample size (Fact 3.5)

/// Smallest p with g_p^{n−1}(α) ≤ K·α (corrected Fact 3.4; K = `cap_factor` > 1, the paper
/// uses 2): p_min = 1/(−expm1(−c)), c = ln((Kα − 1)/(α − 1))/(n − 1); 1 for n = 1.
/// p = 3n always satisfies K = 2 (order ≤ 1 + 1.5(α − 1)); "p = O(n)" as printed is wrong:
/// p = Ω(n) is what is needed (erratum T4).
pub fn holder_min_p(n: u64, alpha: f64, cap_factor: f64) -> Result<f64> {
    order(alpha)?;
    if n == 0 {
        return Err(PabiError::domain("n", "an integer >= 1", 0.0));
    }
    if !(cap_factor > 1.0 && cap_factor.is_finite()) {
        return Err(PabiError::domain(
            "cap_factor",
            "> 1 and finite",
            cap_factor,
        ));
    }
    if n == 1 {
        return Ok(1.0);
    }
    // ln((Kα − 1)/(α − 1)) = log1p((K − 1)α/(α − 1)), K − 1 exact: the rounded ratio lost
    // log10(1/(K − 1)) digits (K = 1.0001: 2.6e-13 below the exact p)
    let c = ((cap_factor - 1.0) * alpha / (alpha - 1.0)).ln_1p() / (n - 1) as f64;
    Ok(up(1.0 / -(-c).exp_m1()))
}

/// Fact 3.5 variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleSizeVariant {
    /// Two-sided Hoeffding with range R − 1, R = e^{3(2α−1)ε'} (default).
    Corrected,
    /// What the printed proof's tail gives (sign of the exponent flipped w.r.t. the statement).
    ProofConsistent,
    /// The statement as printed (wrong sign: absurdly small sample sizes; erratum T5).
    AsPublished,
}

/// ln of the number l of training runs of Fact 3.5 (per-step Monte-Carlo estimate within
/// c·e^{3(α−1)ε} with probability ≥ 1 − J). Corrected:
/// ln l = ln ln(2/J) + 2 ln expm1(3(2α−1)ε') − ln 2 − 2 ln c − 6(α−1)ε.
pub fn hoeffding_sample_size_ln(
    alpha: f64,
    eps: f64,
    eps_prime: f64,
    c: f64,
    j: f64,
    variant: SampleSizeVariant,
) -> Result<f64> {
    order(alpha)?;
    nonneg("eps", eps)?;
    pos("eps_prime", eps_prime)?;
    pos("c", c)?;
    unit_open("J", j)?;
    let a = 6.0 * (alpha - 1.0) * eps;
    let b = 3.0 * (2.0 * alpha - 1.0) * eps_prime;
    // ln l is a sum of these exponents: each must be a finite double (ln l itself would be
    // ±inf − inf = NaN otherwise)
    if !a.is_finite() {
        return Err(PabiError::domain(
            "eps",
            "such that 6(alpha - 1)*eps is finite",
            eps,
        ));
    }
    if !b.is_finite() {
        return Err(PabiError::domain(
            "eps_prime",
            "such that 3(2 alpha - 1)*eps_prime is finite",
            eps_prime,
        ));
    }
    let base = (-j.ln()).ln() - 2.0 * c.ln();
    let terms = match variant {
        SampleSizeVariant::AsPublished => [base, a, -b, 0.0, 0.0],
        SampleSizeVariant::ProofConsistent => [base, b, -a, 0.0, 0.0],
        SampleSizeVariant::Corrected => [
            // ln(2/J) = ln 2 − ln J: 2/J overflows for J < 1.1e-308 (J = 5e-324 gave NaN)
            (std::f64::consts::LN_2 - j.ln()).ln(),
            2.0 * super::log_expm1(b),
            -std::f64::consts::LN_2,
            -2.0 * c.ln(),
            -a,
        ],
    };
    // a larger sample size is the safe side: moved up by 8 ulp of the terms' magnitude
    let v = neumaier_sum(terms);
    let mag: f64 = terms.iter().map(|x| x.abs()).sum();
    Ok(v + 8.0 * f64::EPSILON * mag)
}

// ---------------------------------------------------------------------------------------------
// §3 last iterate of cyclic DP-SGD (Kong–Ribero)

/// Below this |s·u| θ_L(s) is 1/s to 1e-200 relative (see [`theta_u`]).
const TINY_SU: f64 = 1e-200;

/// θ_L(s) from u = ln L² (s ≥ 0 real; θ(0) = 0): 1/s at u = 0,
/// expm1(−u)/expm1(−su) for u > 0, e^{(s−1)u} expm1(u)/expm1(su) for u < 0.
fn theta_u(u: f64, s: f64) -> f64 {
    if s == 0.0 {
        0.0
    } else if u == 0.0 || (s * u).abs() < TINY_SU {
        // θ = (1/s)(1 + (s − 1)u/2 + O(u²)): within 1e-200 relative of 1/s here (a subnormal u
        // made the quotient of two subnormal expm1 values wrong by up to 25%, either way)
        1.0 / s
    } else if u == f64::NEG_INFINITY {
        if s <= 1.0 {
            1.0
        } else {
            0.0
        }
    } else if u > 0.0 {
        (-u).exp_m1() / (-s * u).exp_m1()
    } else {
        ((s - 1.0) * u).exp() * u.exp_m1() / (s * u).exp_m1()
    }
}

/// ln θ_L(s) from u = ln L² (s ≥ 1; no underflow): ln(1/s) at u = 0,
/// ln(expm1(−u)/expm1(−su)) for u > 0, (s − 1)u + ln(expm1(u)/expm1(su)) for u < 0.
fn ln_theta_u(u: f64, s: f64) -> f64 {
    if u == 0.0 || (s * u).abs() < TINY_SU {
        -s.ln()
    } else if u == f64::NEG_INFINITY {
        if s <= 1.0 {
            0.0
        } else {
            f64::NEG_INFINITY
        }
    } else if u > 0.0 {
        ((-u).exp_m1() / (-s * u).exp_m1()).ln()
    } else {
        (s - 1.0) * u + (u.exp_m1() / (s * u).exp_m1()).ln()
    }
}

/// u = ln L² from κ = L² − 1 ≥ −1: log1p(κ) (to nearest; −∞ at κ = −1).
pub fn lip_u_from_kappa(kappa: f64) -> Result<f64> {
    if !(kappa >= -1.0 && kappa.is_finite()) {
        return Err(PabiError::domain("kappa", ">= -1 and finite", kappa));
    }
    Ok(if kappa == -1.0 {
        f64::NEG_INFINITY
    } else {
        kappa.ln_1p()
    })
}

/// u = ln L² from L ≥ 0, rounded up by 2 ulp (a larger L is always sound: an L-Lipschitz step
/// is L'-Lipschitz for L' ≥ L): 2·log1p(L − 1) for L ∈ [1/2, 2] (L − 1 exact, full relative
/// accuracy near 1), 2·ln L elsewhere (full accuracy for small L, which κ = L² − 1 ≈ −1 loses:
/// its ulp is 1e-16/L² of L²); −∞ at L = 0.
pub fn lip_u_from_l(l: f64) -> Result<f64> {
    nonneg("L", l)?;
    if l == 0.0 {
        return Ok(f64::NEG_INFINITY);
    }
    let u = if (0.5..=2.0).contains(&l) {
        2.0 * (l - 1.0).ln_1p()
    } else {
        2.0 * l.ln()
    };
    Ok(u + 2.0 * f64::EPSILON * u.abs())
}

/// θ_L(s) = L^{2(s−1)}/Σ_{j<s} L^{2j} with L² = 1 + κ (κ ≥ −1), rounded up.
pub fn theta_l_kappa(kappa: f64, s: f64) -> Result<f64> {
    theta_l_u(lip_u_from_kappa(kappa)?, s)
}

/// θ_L(s) from u = ln L² (−∞ for L = 0), rounded up.
pub fn theta_l_u(u: f64, s: f64) -> Result<f64> {
    if u.is_nan() || u == f64::INFINITY {
        return Err(PabiError::domain("L", "finite (ln L^2 < inf)", u));
    }
    if !(s == 0.0 || s >= 1.0) || !s.is_finite() {
        return Err(PabiError::domain("s", "0 or >= 1 (finite)", s));
    }
    let v = theta_u(u, s);
    if s == 0.0 || v == 1.0 || u == f64::NEG_INFINITY {
        return Ok(v); // exact cases: s = 0, s = 1, L = 0 (an underflowed θ > 0 is rounded up below)
    }
    // L < 1 is conditioned like e^{(s−1)u} (relative error ~ |(s−1)u|·2^-53): widen by it
    let widen = if u < 0.0 {
        INFLATE + 4.0 * crate::num::HALF_ULP_ONE * ((s - 1.0) * u).abs()
    } else {
        INFLATE
    };
    Ok((v * (1.0 + widen) + TINY).min(1.0))
}

/// Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ) (bracket of Kong–Ribero (7), (21), (27)).
/// `u` = ln L² ([`lip_u_from_l`], [`lip_u_from_kappa`]).
pub fn cyclic_theta_sum(u: f64, t: u64, ell: u64) -> Result<f64> {
    if ell == 0 {
        return Err(PabiError::domain("ell", "an integer >= 1", 0.0));
    }
    let e = (t / ell) as f64;
    let r = (t % ell) as f64;
    Ok(up(e * theta_l_u(u, ell as f64)? + theta_l_u(u, r)?))
}

/// Lipschitz model of the clipped gradient step x − λ·mean clip(∇f_i(x)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LipschitzModel {
    /// 1 + λ max(m, M): proven with clipping (clipping is nonexpansive). Default.
    Triangle,
    /// eq. (12): √(1 + 2λm(1 + m/(M + m))), valid for the UNCLIPPED step; as published for the
    /// clipped step it is unproven and false in dimension ≥ 2 (finding K1).
    AsPublished,
}

/// κ = L_λ² − 1 for the chosen model (m = weak-convexity, M = smoothness constants).
///
/// Domain (Kong–Ribero Prop. 3.4 and every theorem using L_λ: Thms 4.4, 4.5, Cor. C.2, C.3;
/// the Lipschitz bound of the gradient step): λ ∈ (0, 1/(2(m + M))], m, M ≥ 0 finite; any
/// λ > 0 when m = M = 0. The limit is the double fl(½/fl(m + M)) (= fl(1/(2(m + M))) without the overflow of 2(m + M)), the same
/// number a caller computes for λ̄ = 1/(2(m + M)), so that value is accepted. Beyond it the
/// Lipschitz constant is not established and the result would not be one: a domain error
/// naming `lam` and the limit.
pub fn l_lambda_kappa(lam: f64, m: f64, big_m: f64, model: LipschitzModel) -> Result<f64> {
    pos("lam", lam)?;
    nonneg("m", m)?;
    nonneg("M", big_m)?;
    let s = m + big_m;
    if s > 0.0 {
        let lam_max = 0.5 / s;
        if lam > lam_max {
            return Err(PabiError::domain(
                "lam",
                format!(
                    "<= 1/(2(m + M)) = {lam_max} (m = {m}, M = {big_m}), the step-size \
                     condition of the theorems"
                ),
                lam,
            ));
        }
    }
    Ok(match model {
        LipschitzModel::Triangle => {
            let x = lam * m.max(big_m);
            up(x * (2.0 + x))
        }
        LipschitzModel::AsPublished => {
            if m == 0.0 {
                0.0
            } else {
                up(2.0 * lam * m * (1.0 + m / (big_m + m)))
            }
        }
    })
}

/// κ = L_λ² − 1 for the bounds that assume the step size λ ≤ 1/(2(m + M)) (Kong–Ribero
/// Thms 4.4, 4.5 and Cor. C.3): [`l_lambda_kappa`], which checks that condition itself.
pub fn smooth_step_kappa(lam: f64, m: f64, big_m: f64, model: LipschitzModel) -> Result<f64> {
    l_lambda_kappa(lam, m, big_m, model)
}

/// Thm 4.3 (no curvature assumption): 8αT(λC/σ)².
pub fn last_iterate_rdp_general(
    alpha: f64,
    lam: f64,
    clip: f64,
    sigma: f64,
    t: u64,
) -> Result<f64> {
    order(alpha)?;
    pos("lam", lam)?;
    nonneg("clip", clip)?;
    pos("sigma", sigma)?;
    // T = 0 steps: 0 (not 0·inf when λC/σ overflows); an underflowed positive product is not 0
    let v = prod_div(
        &[8.0, alpha, t as f64, lam, lam, clip, clip],
        &[sigma, sigma],
    );
    Ok(up_pos(v, t > 0 && clip > 0.0))
}

/// Kong–Ribero Prop. 2.2(b) with the exact residual sum of its proof (SPEC_rdp §3.6(b) [X]):
/// τ = 0, drift ζ ≥ 0 and shift s̄ ≥ 0 at the first step of each of the ⌈T/ℓ⌉ cycles; the
/// residuals a_t = ζ + s_t keep the shift at 0 for any L, so
/// D_α(Y_T‖Y'_T) − D_α(Y_0‖Y'_0) ≤ α/(2σ²)[Tζ² + ⌈T/ℓ⌉(2ζs̄ + s̄²)].
/// For ζ = s̄ this is αζ²(T + 3⌈T/ℓ⌉)/(2σ²) ≤ 2αT(ζ/σ)², the printed eq. (8).
pub fn shifted_drift_bound(
    alpha: f64,
    sigma: f64,
    zeta: f64,
    sbar: f64,
    t: u64,
    ell: u64,
) -> Result<f64> {
    order(alpha)?;
    pos("sigma", sigma)?;
    nonneg("zeta", zeta)?;
    nonneg("sbar", sbar)?;
    if t == 0 {
        return Err(PabiError::domain("T", "an integer >= 1", 0.0));
    }
    if ell == 0 || ell > t {
        return Err(PabiError::domain(
            "ell",
            format!("an integer in 1..=T (T = {t})"),
            ell as f64,
        ));
    }
    let occ = t.div_ceil(ell) as f64;
    // in units of σ: α/(2σ²) overflowed for tiny σ and met a zero body (inf·0 = NaN)
    let v = prod_div(&[0.5, alpha, t as f64, zeta, zeta], &[sigma, sigma])
        + prod_div(&[0.5, alpha, occ, sbar, 2.0 * zeta + sbar], &[sigma, sigma]);
    Ok(up_pos(up(v), zeta > 0.0 || sbar > 0.0))
}

/// Kong–Ribero Prop. 2.2(b) as printed, eq. (8): 2αT(ζ/σ)² (τ = 0, ζ = s̄, any L).
pub fn shifted_drift_bound_published(alpha: f64, sigma: f64, zeta: f64, t: u64) -> Result<f64> {
    order(alpha)?;
    pos("sigma", sigma)?;
    nonneg("zeta", zeta)?;
    if t == 0 {
        return Err(PabiError::domain("T", "an integer >= 1", 0.0));
    }
    let v = prod_div(&[2.0, alpha, t as f64, zeta, zeta], &[sigma, sigma]);
    Ok(up_pos(v, zeta > 0.0))
}

/// Validation shared by the cyclic last-iterate bounds: α > 1, λ > 0, C ≥ 0, σ > 0, b ≥ 1 and
/// T ≥ ℓ ≥ 1.
fn check_cyclic(
    alpha: f64,
    lam: f64,
    clip: f64,
    sigma: f64,
    t: u64,
    b: u64,
    ell: u64,
) -> Result<()> {
    order(alpha)?;
    pos("lam", lam)?;
    nonneg("clip", clip)?;
    pos("sigma", sigma)?;
    if b == 0 {
        return Err(PabiError::domain("b", "an integer >= 1", 0.0));
    }
    check_t_ell(t, ell)
}

/// T ≥ ℓ ≥ 1, each error naming the parameter at fault.
fn check_t_ell(t: u64, ell: u64) -> Result<()> {
    if ell == 0 {
        return Err(PabiError::domain("ell", "an integer >= 1", 0.0));
    }
    if t < ell {
        return Err(PabiError::domain(
            "T",
            format!("an integer >= ell (ell = {ell})"),
            t as f64,
        ));
    }
    Ok(())
}

/// The first index t* of the record in a cycle of length ℓ: 1 ≤ t* ≤ ℓ.
fn check_t_star(ts: u64, ell: u64) -> Result<()> {
    if ts == 0 || ts > ell {
        return Err(PabiError::domain(
            "t_star",
            format!("an integer in 1..={ell}"),
            ts as f64,
        ));
    }
    Ok(())
}

/// Thm 4.3 with the exact residual sum (SPEC_rdp §3.8 [X]): ζ = 2λC (Prop. 3.4(a)),
/// s̄ = 2λC/b (Lemma 4.2), correctly indexed T_eff = T − t* + 1 steps (finding K3):
/// (2αλ²C²/σ²)[T_eff + ⌈T_eff/ℓ⌉(2/b + 1/b²)]; without t* the maximum (t* = 1, T_eff = T).
/// Never above the printed 8αT(λC/σ)².
#[allow(clippy::too_many_arguments)]
pub fn last_iterate_rdp_general_exact(
    alpha: f64,
    lam: f64,
    clip: f64,
    sigma: f64,
    t: u64,
    b: u64,
    ell: u64,
    t_star: Option<u64>,
) -> Result<f64> {
    check_cyclic(alpha, lam, clip, sigma, t, b, ell)?;
    let teff = match t_star {
        Some(ts) => {
            check_t_star(ts, ell)?;
            t - ts + 1
        }
        None => t,
    };
    let bf = b as f64;
    let occ = teff.div_ceil(ell) as f64;
    let bracket = teff as f64 + occ * (2.0 / bf + 1.0 / (bf * bf));
    let v = prod_div(
        &[2.0, alpha, lam, lam, clip, clip, up(bracket)],
        &[sigma, sigma],
    );
    Ok(up_pos(up(v), clip > 0.0))
}

/// κ = L² − 1 from L ≥ 0 as (L − 1)(L + 1), to nearest (L − 1 is exact near 1, so κ keeps its
/// relative accuracy there); −1 at L = 0. Only for [`theta_min_steps`] (L > 1, where this is a
/// few ulp and its `up` covers it; a threshold on steps is *decreasing* in L, so L must not be
/// rounded up for it). The θ_L family takes u = ln L² instead ([`lip_u_from_l`]): κ ≈ −1 loses
/// the relative accuracy of L² for small L.
pub fn kappa_from_l(l: f64) -> Result<f64> {
    nonneg("L", l)?;
    let k = (l - 1.0) * (l + 1.0);
    if !k.is_finite() {
        return Err(PabiError::domain(
            "L",
            "<= 1.34e154 (L^2 - 1 must be a finite double)",
            l,
        ));
    }
    Ok(k)
}

/// Thm 4.4 (bounded domain of diameter d_h): α/(2σ²)(L d_h + 2λC/b)², L = √(1 + κ).
pub fn last_iterate_rdp_bounded(
    alpha: f64,
    kappa: f64,
    d_h: f64,
    lam: f64,
    clip: f64,
    b: u64,
    sigma: f64,
) -> Result<f64> {
    order(alpha)?;
    nonneg("kappa", kappa)?;
    nonneg("d_h", d_h)?;
    pos("lam", lam)?;
    nonneg("clip", clip)?;
    pos("sigma", sigma)?;
    if b == 0 {
        return Err(PabiError::domain("b", "an integer >= 1", 0.0));
    }
    let x = (1.0 + kappa).sqrt() * d_h + 2.0 * lam * clip / b as f64;
    // (x/σ)², not x²/σ²: σ² underflows (α/(2σ²)·0 was inf·0 = NaN)
    Ok(up_pos(
        prod_div(&[0.5, alpha, x, x], &[sigma, sigma]),
        x > 0.0,
    ))
}

/// Thm 4.5 (weakly convex, smooth; cyclic batches). Corrected (default, findings K3/K4):
/// with t* known, 2α(λC/(bσ))²Φ_L(T − t* + 1, ℓ); otherwise the maximum over t* ∈ [1, ℓ],
/// 2α(λC/(bσ))²·(Eθ_L(ℓ) + 1) if T mod ℓ ≥ 1, else ((E − 1)θ_L(ℓ) + 1).
/// `as_published`: eq. (21), 4α(λC/(bσ))²Φ_L(T, ℓ) — smaller than the correctly indexed
/// bound in some settings (not certified).
#[allow(clippy::too_many_arguments)]
pub fn last_iterate_rdp_cyclic(
    alpha: f64,
    kappa: f64,
    lam: f64,
    clip: f64,
    b: u64,
    sigma: f64,
    t: u64,
    ell: u64,
    t_star: Option<u64>,
    as_published: bool,
) -> Result<f64> {
    check_cyclic(alpha, lam, clip, sigma, t, b, ell)?;
    let u = lip_u_from_kappa(kappa)?;
    let bf = b as f64;
    // α(λC/(bσ))²·factor without inf·0 or spurious under/overflow
    let unit = |factor: f64| {
        prod_div(
            &[alpha, lam, lam, clip, clip, factor],
            &[bf, bf, sigma, sigma],
        )
    };
    if as_published {
        let phi = cyclic_theta_sum(u, t, ell)?;
        return Ok(up_pos(unit(4.0 * phi), clip > 0.0 && phi > 0.0));
    }
    let phi = match t_star {
        Some(ts) => {
            check_t_star(ts, ell)?;
            cyclic_theta_sum(u, t - ts + 1, ell)?
        }
        None => {
            let e = (t / ell) as f64;
            let th = theta_l_u(u, ell as f64)?;
            if t % ell >= 1 {
                up(e * th + 1.0)
            } else {
                up((e - 1.0) * th + 1.0)
            }
        }
    };
    Ok(up_pos(unit(2.0 * phi), clip > 0.0 && phi > 0.0))
}

/// Prop. 2.2(a): α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}]; `u` = ln L².
#[allow(clippy::too_many_arguments)]
pub fn shifted_cycle_bound(
    alpha: f64,
    sigma: f64,
    u: f64,
    tau: f64,
    sbar: f64,
    t: u64,
    ell: u64,
) -> Result<f64> {
    order(alpha)?;
    pos("sigma", sigma)?;
    nonneg("tau", tau)?;
    nonneg("sbar", sbar)?;
    check_t_ell(t, ell)?;
    let th = theta_l_u(u, ell as f64)?;
    let l = (0.5 * u).exp() * (1.0 + 2.0 * f64::EPSILON); // L rounded up
    let e = (t / ell) as f64;
    let rem = theta_l_u(u, (t % ell) as f64)?;
    let a = mul0(l, tau) + sbar;
    // α/(2σ²) overflowed for tiny σ and met a zero bracket (inf·0 = NaN): see prod_div
    let v = prod_div(&[0.5, alpha, a, a, th], &[sigma, sigma])
        + prod_div(
            &[0.5, alpha, sbar, sbar, (e - 1.0) * th + rem],
            &[sigma, sigma],
        );
    // an underflowed product of positive factors (θ_L(ℓ) ~ 1e-1047 for L = 0.3, ℓ = 1000) is
    // not an exact 0: the smallest positive bound instead
    let positive = (a > 0.0 && th > 0.0) || (sbar > 0.0 && (e - 1.0) * th + rem > 0.0);
    Ok(up_pos(v, positive))
}

/// Optimal residuals of the App. B QP: a_t = (Lτ + s)θ_L(T)L^{1−t}, t = 1..T; `u` = ln L².
///
/// Domain: 1 ≤ T ≤ [`super::MAX_LEN`] (checked before the length-T vector is allocated),
/// τ, s ≥ 0 finite, u < +inf. L = 0 (u = −∞) is the limit of the formula,
/// θ_L(T)L^{1−t} = L^{2T−1−t}/Σ_{j<T} L^{2j}: a_1 = s for T = 1, every a_t = 0 for T ≥ 2.
pub fn optimal_residuals(u: f64, t: u64, tau: f64, s: f64) -> Result<Vec<f64>> {
    nonneg("tau", tau)?;
    nonneg("s", s)?;
    if t == 0 || t > super::MAX_LEN {
        return Err(PabiError::domain(
            "T",
            format!("an integer in 1..={} (2^26)", super::MAX_LEN),
            t as f64,
        ));
    }
    theta_l_u(u, t as f64)?; // (domain checks of u)
    if u == f64::NEG_INFINITY {
        let mut out = vec![0.0; t as usize];
        if t == 1 {
            out[0] = s;
        }
        return Ok(out);
    }
    // in log space: θ_L(T) underflows for L < 1 over long cycles while L^{1−t} overflows
    // (a_600 at L = 0.5 came out 4e-143 instead of 4e-181); ln(Lτ + s) as a log-sum (Lτ
    // overflows for large L while a_t, t ≥ 2, is finite)
    let ln_lts = crate::num::log_add_exp(0.5 * u + tau.ln(), s.ln());
    let la = ln_lts + ln_theta_u(u, t as f64);
    Ok((1..=t)
        .map(|i| (la + (1.0 - i as f64) * u / 2.0).exp())
        .collect())
}

/// Cor. C.2 calibration: (λ̄, ℓ̄, σ̄) = (1/(2(M + ρ)), ln 2/log1p(ρλ̄), noise level). The
/// corrected σ̄ = (2Cλ̄/b)·√(α/ε·(1 + 4ρE/(M + ρ))) certifies ε; the printed
/// (Cλ̄/(2b))·√((1 + 4ρE/(M + ρ))/(αε)) only certifies 16α²ε (finding K11).
#[allow(clippy::too_many_arguments)]
pub fn cyclic_calibration(
    alpha: f64,
    eps: f64,
    rho: f64,
    big_m: f64,
    clip: f64,
    b: u64,
    epochs: u64,
    as_published: bool,
) -> Result<(f64, f64, f64)> {
    order(alpha)?;
    pos("eps", eps)?;
    pos("rho", rho)?;
    nonneg("M", big_m)?;
    pos("clip", clip)?;
    if b == 0 {
        return Err(PabiError::domain("b", "an integer >= 1", 0.0));
    }
    // λ̄ = 1/(2(M + ρ)) must be a positive normal double: M + ρ ≤ 2^1021 (ρ = 1e308 gave
    // 2(M + ρ) = inf, λ̄ = 0, ℓ̄ = inf and σ̄ = NaN)
    let sum = big_m + rho;
    if !(sum <= MAX_M_PLUS_RHO) {
        let (param, v) = if rho >= big_m {
            ("rho", rho)
        } else {
            ("M", big_m)
        };
        return Err(PabiError::domain(
            param,
            "such that M + rho <= 2^1021 (lambda = 1/(2(M + rho)) a normal double)",
            v,
        ));
    }
    let lam = 0.5 / sum;
    let rl = rho * lam; // in (0, 1/2]
    let ell = std::f64::consts::LN_2 / rl.ln_1p();
    if !(rl >= f64::MIN_POSITIVE && ell.is_finite()) {
        return Err(PabiError::domain(
            "rho",
            "large enough relative to M that rho/(2(M + rho)) is a normal double (ell finite)",
            rho,
        ));
    }
    // f = 1 + 4E·ρ/(M + ρ) ≤ 1 + 4E (the product 4ρE overflowed first)
    let f = 1.0 + 4.0 * epochs as f64 * (rho / sum);
    // square roots taken separately: α/ε and αε over- or underflow before σ̄ does
    let s = if as_published {
        clip * lam / (2.0 * b as f64) * (f.sqrt() / (alpha.sqrt() * eps.sqrt()))
    } else {
        up(2.0 * clip * lam / b as f64 * (alpha.sqrt() * f.sqrt() / eps.sqrt()))
    };
    if !s.is_finite() {
        return Err(PabiError::domain(
            "eps",
            "large enough (for this clip, lam, b and alpha) that the noise level sigma is a \
             finite double",
            eps,
        ));
    }
    if !(s > 0.0) {
        return Err(PabiError::domain(
            "clip",
            "large enough that the noise level sigma does not underflow to 0",
            clip,
        ));
    }
    Ok((lam, up(ell), s))
}

/// Largest M + ρ accepted by [`cyclic_calibration`]: λ̄ = 1/(2(M + ρ)) stays a normal double.
const MAX_M_PLUS_RHO: f64 = 2.247_116_418_577_895e307; // 2^1021

/// Lemma C.1 (Kong–Ribero): for L > 1 and ξ > 1, θ_L(s) ≤ ξ(1 − L^{−2}) once
/// s ≥ s_min = −log1p(−1/ξ)/log1p(κ) (stable form; use ⌈s_min⌉ for integer steps).
pub fn theta_min_steps(kappa: f64, xi: f64) -> Result<f64> {
    if !(kappa > 0.0 && kappa.is_finite()) {
        return Err(PabiError::domain("kappa", "> 0 (L > 1) and finite", kappa));
    }
    if !(xi > 1.0 && xi.is_finite()) {
        return Err(PabiError::domain("xi", "> 1 and finite", xi));
    }
    // ln(ξ/(ξ − 1)) = log1p(1/(ξ − 1)) with ξ − 1 exact (ξ < 2^53): −log1p(−1/ξ) lost
    // 1e-16/(ξ − 1) absolute to the rounding of 1/ξ (below the exact threshold for ξ − 1 < 1e-4)
    Ok(up((1.0 / (xi - 1.0)).ln_1p() / kappa.ln_1p()))
}

/// [`theta_min_steps`] from L itself (L > 1 finite; errors name `L`): ln L² = 2 log1p(L − 1)
/// up to L = 2 (L − 1 exact), 2 ln L beyond, to nearest (the threshold decreases in L, so L is
/// not rounded up; the final rounding up covers the few ulp). κ = L² − 1 overflowed for
/// L > 1.34e154 and the error then named `kappa`, which the caller never passed.
pub fn theta_min_steps_l(l: f64, xi: f64) -> Result<f64> {
    if !(l > 1.0 && l.is_finite()) {
        return Err(PabiError::domain("L", "> 1 and finite", l));
    }
    if !(xi > 1.0 && xi.is_finite()) {
        return Err(PabiError::domain("xi", "> 1 and finite", xi));
    }
    let u = if l <= 2.0 {
        2.0 * (l - 1.0).ln_1p()
    } else {
        2.0 * l.ln()
    };
    Ok(up((1.0 / (xi - 1.0)).ln_1p() / u))
}

/// Cor. C.3 (Kong–Ribero): for λ ≤ min{1/√E, 1/(2(m + M))},
/// D_α ≤ 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)] (independent of E and λ; caveat K1 applies to L_λ).
pub fn last_iterate_rdp_small_step(
    alpha: f64,
    kappa: f64,
    clip: f64,
    b: u64,
    sigma: f64,
    ell: u64,
) -> Result<f64> {
    order(alpha)?;
    nonneg("clip", clip)?;
    pos("sigma", sigma)?;
    if b == 0 {
        return Err(PabiError::domain("b", "an integer >= 1", 0.0));
    }
    if ell == 0 {
        return Err(PabiError::domain("ell", "an integer >= 1", 0.0));
    }
    let bf = b as f64;
    let f = up(1.0 + theta_l_kappa(kappa, ell as f64)?);
    Ok(up_pos(
        prod_div(&[4.0, alpha, clip, clip, f], &[bf, bf, sigma, sigma]),
        clip > 0.0,
    ))
}

/// Mixture bound (001 Lemma 3): D_α(M(D)‖M(D')) ≤ (1/(α − 1))·ln Σ_j q_j e^{(α−1)ε_j(α)}
/// for a mixture with weights q_j (summing to 1) of mechanisms with RDP ε_j.
pub fn mixture_rdp_bound(alpha: f64, weights: &[f64], eps: &[f64]) -> Result<f64> {
    order(alpha)?;
    if weights.is_empty() {
        return Err(PabiError::Shape {
            message: "weights must be non-empty".into(),
        });
    }
    crate::batch::check_len(weights.len(), &[("eps", eps.len())])?;
    crate::batch::check(weights, "weights", "in [0, 1]", |x| {
        (0.0..=1.0).contains(&x)
    })?;
    crate::batch::check(eps, "eps", ">= 0 (not NaN)", |x| x >= 0.0)?;
    let tot = neumaier_sum(weights.iter().copied());
    if (tot - 1.0).abs() > 1e-9 {
        return Err(PabiError::domain("weights", "summing to 1", tot));
    }
    let t = alpha - 1.0;
    let xs: Vec<f64> = eps.iter().map(|&e| t * e).collect();
    let ls = super::log_weighted_sum_exp(weights, &xs);
    // ln Σ q_j e^{t ε_j} ≥ 0 up to the weight rounding; keep it ≥ 0
    Ok(up(ls.max(0.0) / t))
}

// ---------------------------------------------------------------------------------------------
// SPEC_pabi §6: ERM with output perturbation (paper 001)

/// 1 − ρ = min{ημ, 2 − ηL} as an exact double-double (the products' FMA residuals, the
/// difference by two_sum); 2 − ηL loses everything to cancellation in doubles when ηL ≈ 2.
/// Domain 0 < μ ≤ L, 0 < η < 2/L.
fn contraction_gap_dd(eta: f64, mu: f64, smooth: f64) -> Result<Dd> {
    pos("mu", mu)?;
    if !(smooth >= mu && smooth.is_finite()) {
        return Err(PabiError::domain("smoothness", ">= mu and finite", smooth));
    }
    if !(eta > 0.0 && eta * smooth < 2.0) {
        return Err(PabiError::domain("eta", "in (0, 2/smoothness)", eta));
    }
    let (p1, e1) = two_prod(eta, mu);
    let (p2, e2) = two_prod(eta, smooth);
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
    nonneg("grad_bound", grad_bound)?;
    pos("batch_size", batch_size)?;
    if m == 0 {
        return Err(PabiError::domain("m", "an integer >= 1", 0.0));
    }
    if j == 0 || j > m {
        return Err(PabiError::domain(
            "j",
            format!("an integer in 1..=m (m = {m} >= 1)"),
            j as f64,
        ));
    }
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
        let lerr = 3.0 * f64::EPSILON * l.abs();
        (l + lerr, l - lerr) // ln ρ ∈ [l_dn, l_up] (both ≤ 0)
    } else {
        (l, l)
    };
    // e^y, −expm1(y) at y = x·ln ρ with the relative margin; exact at x = 0 and y = −∞
    let margin = |y: f64| (y.abs() + 3.0) * 2.0 * f64::EPSILON;
    let pow_up = |x: f64| match x * l_up {
        _ if x == 0.0 => 1.0,
        y if y == f64::NEG_INFINITY => 0.0,
        y => y.exp() * (1.0 + margin(y)),
    };
    let one_minus = |x: f64, l: f64, sign: f64| match x * l {
        y if y == f64::NEG_INFINITY => 1.0,
        y => -y.exp_m1() * (1.0 + sign * margin(y)),
    };
    let one_minus_up = |x: f64| one_minus(x, l_dn, 1.0);
    let one_minus_dn = |x: f64| one_minus(x, l_up, -1.0);
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
    let v = mul0(
        pow_up((m - j) as f64) * 2.0 * eta * grad_bound / batch_size,
        ratio,
    );
    Ok(up(v))
}

/// Sensitivity samples: non-empty, finite, non-negative (first bad index reported).
fn check_sensitivities(sens: &[f64]) -> Result<()> {
    if sens.is_empty() {
        return Err(PabiError::Shape {
            message: "sensitivities must be non-empty".into(),
        });
    }
    crate::batch::check(sens, "sensitivities", ">= 0 and finite", |x| {
        x >= 0.0 && x.is_finite()
    })
}

/// Averaged RDP (001 Prop. 3): (1/(α − 1))·ln mean_j exp(α(α − 1)Δ_j²/(2σ²)), stable
/// (log1p(mean expm1) form when small, log-mean-exp otherwise; α → 1 limit mean Δ²/(2σ²)).
pub fn averaged_rdp(alpha: f64, sigma: f64, sens: &[f64]) -> Result<f64> {
    if !(alpha > 1.0 && alpha.is_finite()) {
        return Err(PabiError::domain("alpha", "> 1 and finite", alpha));
    }
    pos("sigma", sigma)?;
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
        super::log_mean_exp(&xs) / t
    };
    Ok(up(up(v)))
}

/// Gaussian mechanism RDP α Δ²/(2σ²) (Mironov; 001 Prop. 3 proof).
pub fn gaussian_mech_rdp(alpha: f64, sens: f64, sigma: f64) -> Result<f64> {
    order(alpha)?;
    nonneg("sensitivity", sens)?;
    pos("sigma", sigma)?;
    // Δ²/(2σ²) was 0/0 = NaN for Δ = 0 and tiny σ
    let v = prod_div(&[0.5, alpha, sens, sens], &[sigma, sigma]);
    Ok(up_pos(v, sens > 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_basics() {
        assert!((theta_l_kappa(0.0, 7.0).unwrap() * 7.0 - 1.0).abs() < 1e-12);
        assert_eq!(theta_l_kappa(0.3, 1.0).unwrap(), 1.0);
        // L^2 = 2: theta(3) = 4/(1+2+4)
        assert!((theta_l_kappa(1.0, 3.0).unwrap() / (4.0 / 7.0) - 1.0).abs() < 1e-12);
        // L^2 = 1/2: theta(3) = 0.25/(1+0.5+0.25)
        assert!((theta_l_kappa(-0.5, 3.0).unwrap() / (0.25 / 1.75) - 1.0).abs() < 1e-12);
        assert_eq!(theta_l_kappa(-1.0, 3.0).unwrap(), 0.0);
    }

    fn param_of(e: PabiError) -> &'static str {
        match e {
            PabiError::Domain { param, .. } => param,
            other => panic!("not a domain error: {other:?}"),
        }
    }

    #[test]
    fn optimal_residuals_cap_and_l_zero() {
        let u12 = lip_u_from_l(1.2).unwrap();
        for t in [super::super::MAX_LEN + 1, 1_000_000_000_000, u64::MAX, 0] {
            assert_eq!(
                param_of(optimal_residuals(u12, t, 0.1, 1.0).unwrap_err()),
                "T"
            );
        }
        let z = lip_u_from_l(0.0).unwrap();
        assert_eq!(optimal_residuals(z, 5, 1.0, 1.0).unwrap(), vec![0.0; 5]);
        assert_eq!(optimal_residuals(z, 1, 1.0, 2.0).unwrap(), vec![2.0]);
        let r = optimal_residuals(u12, 3, 0.0, 0.0).unwrap();
        assert_eq!(r, vec![0.0; 3]);
    }

    #[test]
    fn no_nan_from_overflow() {
        let e = cyclic_calibration(8.0, 1.0, 1e308, 2.0, 1.0, 10, 5, false).unwrap_err();
        assert_eq!(param_of(e), "rho");
        let v = hoeffding_sample_size_ln(8.0, 1.0, 2.0, 0.1, 5e-324, SampleSizeVariant::Corrected)
            .unwrap();
        assert!(v.is_finite() && v > 148.0);
        let e = general_update_rdp(3, 5e-324, &[0.0], &[1.0; 3], 1, 1, 1).unwrap_err();
        assert_eq!(param_of(e), "sigma");
        let e = general_update_rdp(1 << 62, 1.0, &[0.0], &[0.0; 4], 1, 4, 1).unwrap_err();
        assert!(matches!(e, PabiError::Shape { .. }));
        assert_eq!(gaussian_mech_rdp(2.0, 0.0, 1e-170).unwrap(), 0.0);
        assert_eq!(averaged_rdp(2.0, 1e-170, &[0.0, 0.0]).unwrap(), 0.0);
        assert_eq!(
            shifted_drift_bound(2.0, 1e-170, 0.0, 0.0, 10, 5).unwrap(),
            0.0
        );
        let v = sensitivity_multi_epoch(1e-200, 1e-200, 1e-200, 1.0, 1.0, 2, 1, Some(3)).unwrap();
        assert!(v.is_finite() && v >= 6e-200);
        assert!(gaussian_dp_constant(5e-324, 1.0).unwrap().is_finite());
    }

    #[test]
    fn prod_div_extremes() {
        assert_eq!(prod_div(&[1e300, 1e300, 0.0], &[1e-300]), 0.0);
        assert_eq!(prod_div(&[1e300, f64::INFINITY], &[2.0]), f64::INFINITY);
        assert_eq!(prod_div(&[2.0, 3.0], &[4.0]), 1.5);
        // through overflowing / underflowing partial products, to a few ulp
        let v = prod_div(&[1e300, 1e300, 1e-300], &[1e300]);
        assert!((v - 1.0).abs() < 1e-15, "{v}");
        let v = prod_div(&[1e-200, 1e-200, 1e300], &[1.0]);
        assert!((v / 1e-100 - 1.0).abs() < 1e-15, "{v}");
        let v = prod_div(&[1e-200, 1e-200], &[1e200, 1e200]);
        assert_eq!(v, 0.0); // exact 1e-800: below the subnormals
        let v = prod_div(&[5e-324, 1e300], &[1e300]);
        assert_eq!(v, 5e-324);
        assert_eq!(prod_div(&[1e300, 1e300], &[1e-300]), f64::INFINITY);
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(5e-324), (0.5, -1073));
    }

    #[test]
    fn step_condition_and_names() {
        assert_eq!(
            param_of(l_lambda_kappa(1.0, 1.0, 2.0, LipschitzModel::Triangle).unwrap_err()),
            "lam"
        );
        // the double 1/(2(m + M)) itself is accepted
        assert!(l_lambda_kappa(1.0 / 6.0, 1.0, 2.0, LipschitzModel::AsPublished).is_ok());
        assert!(l_lambda_kappa(0.1, 1.0, 4.0, LipschitzModel::Triangle).is_ok());
        assert!(l_lambda_kappa(1e6, 0.0, 0.0, LipschitzModel::Triangle).is_ok());
        assert_eq!(param_of(theta_min_steps_l(1.0, 2.0).unwrap_err()), "L");
        let v = theta_min_steps_l(1e200, 2.0).unwrap();
        let exact = std::f64::consts::LN_2 / (2.0 * 1e200f64.ln());
        assert!(v >= exact && v < exact * (1.0 + 1e-13));
        let e = sensitivity_multi_epoch(0.5, 1.0, 1.0, 1.0, 0.0, 1, 1, None).unwrap_err();
        assert_eq!(param_of(e), "batch_size");
        assert_eq!(
            param_of(last_iterate_rdp_small_step(2.0, 0.0, 1.0, 1, 1.0, 0).unwrap_err()),
            "ell"
        );
        assert_eq!(
            param_of(shifted_cycle_bound(2.0, 1.0, 0.0, 0.0, 1.0, 10, 0).unwrap_err()),
            "ell"
        );
    }

    #[test]
    fn calibration_k11() {
        // printed sigma certifies 16 alpha^2 eps (C28)
        let (alpha, eps, rho, mm, c, b, e) = (8.0, 1.0, 0.5, 2.0, 1.0, 10, 5);
        let (lam, _, sp) = cyclic_calibration(alpha, eps, rho, mm, c, b, e, true).unwrap();
        let (_, _, sc) = cyclic_calibration(alpha, eps, rho, mm, c, b, e, false).unwrap();
        let f = 1.0 + 4.0 * rho * e as f64 / (mm + rho);
        let cert = |s: f64| 4.0 * alpha * (lam * c / (b as f64 * s)).powi(2) * f;
        assert!((cert(sp) / (16.0 * alpha * alpha * eps) - 1.0).abs() < 1e-12);
        assert!(cert(sc) <= eps && cert(sc) > eps * (1.0 - 1e-12));
    }
}
