//! The Hölder order map of the per-instance composition and how to choose its parameters.
//!
//! Thudi et al., *Gradients look alike* (USENIX Security 2024): the orders
//! β_i = g_p^i(α) of Thm 3.3 / Thm A.2 with the corrected map g_p(α) = (pα − 1)/(p − 1)
//! (docs/errata.md#r-t1), their exact integer ceilings, the smallest admissible p
//! (Fact 3.4, corrected: docs/errata.md#r-t4) and the Monte-Carlo sample size (Fact 3.5,
//! docs/errata.md#r-t5). Derivations: docs/derivations/rdp.md.

use super::checks::{check_alpha, check_p, count, gt1, nonneg, pos, unit_open};
use super::sampled_gaussian::ceil_order;

use crate::dd::Dd;
use crate::error::{PabiError, Result};
use crate::num::logspace::log_expm1_std;
use crate::num::neumaier_sum;
use crate::num::round::{exp_up, up_signed};
use crate::num::round::{rel_err, EPS8};

/// Which order map to use in the Hölder composition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderMap {
    /// g_p(α) = (pα − 1)/(p − 1), from the proof of Thm 3.3 / Thm A.2 (default).
    Corrected,
    /// g_p(α) = pα/(p − 1) − 1/p as printed in the statement of Thm 3.3 (docs/errata.md#r-t1): larger
    /// orders, so a valid but looser bound; kept for reproducing the paper.
    AsPublished,
}

/// Largest number of entries of an array a function of this module allocates from a size the
/// caller chooses (`n` of [`holder_orders`], `T` of [`super::extra::optimal_residuals`]): 2^26
/// (64 Mi entries, 512 MiB of doubles). A larger size is a domain error naming the parameter,
/// raised before anything is allocated (10^12 entries would abort the process).
pub const MAX_LEN: u64 = 1 << 26;

/// The orders β_i = g_p^i(α) and Hölder coefficients κ_i, i = 0..n−1 (see [`holder_order`]),
/// validated: α > 1 and p > 1 finite, n ≤ [`MAX_LEN`]. Orders beyond the double range are +inf.
pub fn holder_orders(alpha: f64, p: f64, n: u64, map: OrderMap) -> Result<(Vec<f64>, Vec<f64>)> {
    check_alpha(alpha, f64::MAX)?;
    check_p(p)?;
    if n > MAX_LEN {
        return Err(PabiError::domain(
            "steps",
            format!("an integer in 0..={MAX_LEN} (2^26)"),
            n as f64,
        ));
    }
    let lrho = holder_log_rho(p);
    Ok((0..n)
        .map(|i| holder_order_at(alpha, p, lrho, i, map))
        .unzip())
}

/// β_i = g_p^i(α) and the Hölder coefficient κ_i multiplying (1/t_i)·ln E e^{t_i D},
/// t_i = p(β_i − 1). Corrected map: β_i = 1 + (α − 1)ρ^i, κ_i = 1 (ρ = p/(p − 1)).
/// Printed map: fixed point a* = (p − 1)/p, β_i = a* + (α − a*)ρ^i and
/// κ_i = ((p−1)/p)^i (β_i − 1)/(α − 1) = 1 + (1 − ρ^{−i})/(p(α − 1)).
pub(super) fn holder_order(alpha: f64, p: f64, i: u64, map: OrderMap) -> (f64, f64) {
    holder_order_at(alpha, p, holder_log_rho(p), i, map)
}

/// ln ρ = ln(1 + 1/(p − 1)) of the order map (x = i·ln ρ): computed once per p by every loop over
/// the steps ([`holder_orders`], the Hölder composition, the per-instance passes: with
/// [`holder_order_at`], [`holder_order_up`], [`holder_ceil_order_of`]); [`holder_order`] forms
/// the same double for a single step.
#[inline]
pub(super) fn holder_log_rho(p: f64) -> f64 {
    f64::ln_1p(1.0 / (p - 1.0))
}

/// [`holder_order`] with ln ρ = [`holder_log_rho`]`(p)` given: the same operations, so the same
/// bits.
#[inline]
pub(super) fn holder_order_at(alpha: f64, p: f64, lrho: f64, i: u64, map: OrderMap) -> (f64, f64) {
    let x = i as f64 * lrho;
    match map {
        OrderMap::Corrected => (1.0 + mul_exp(alpha - 1.0, x), 1.0),
        OrderMap::AsPublished => {
            let astar = (p - 1.0) / p;
            let beta = astar + mul_exp(alpha - astar, x);
            let kappa = 1.0 - f64::exp_m1(-x) / (p * (alpha - 1.0));
            (beta, kappa)
        }
    }
}

/// c·e^x for c > 0 without the intermediate overflow of e^x (x > 709.78: β_1039 at α = 1 + 1e-10,
/// p = 2 is 5.8e302 but e^x was inf): above x = 709 as ((c·a)·a)·a, a = e^{x/3} (each partial
/// product ≤ the result, so none over- or underflows spuriously). The split adds ≤ (|x| + 4)ε
/// relative (x/3 rounded, two exps and two products more), within the doubled margin of
/// [`beta_err`]. Below 709 the plain product (the same bits as before).
#[inline]
fn mul_exp(c: f64, x: f64) -> f64 {
    if x <= 709.0 {
        c * f64::exp(x)
    } else {
        let a = f64::exp(x / 3.0);
        c * a * a * a
    }
}

/// β_i of [`holder_order`] rounded **up**: never below the exact order for the given doubles α,
/// p (the error bound of [`holder_ceil_order_of`] added, then one more step), so that the sampled
/// Gaussian RDP at it (non-decreasing in the order) and t_i = p(β_i − 1) (the term
/// (1/t)·ln E e^{tD} is non-decreasing in t) bound the exact term from above. β_0 = α exactly.
/// ln ρ = [`holder_log_rho`]`(p)` is given (formed once per call by the loop over the steps).
pub(super) fn holder_order_up(alpha: f64, p: f64, lrho: f64, i: u64, map: OrderMap) -> f64 {
    if i == 0 {
        return alpha;
    }
    let (beta, _) = holder_order_at(alpha, p, lrho, i, map);
    (beta + beta_err(beta, lrho, i)).next_up()
}

/// A bound on |β_i − exact β_i| for the double β_i of [`holder_order_at`]: relative
/// (3|x| + 4)·ε_m in its varying part, x = i·ln ρ (the quotient, log1p, product with i, exp and
/// the final multiply-add), doubled ([`holder_order_up`], [`holder_ceil_order_of`]).
#[inline]
fn beta_err(beta: f64, lrho: f64, i: u64) -> f64 {
    let x = i as f64 * lrho;
    rel_err(2.0 * (3.0 * x.abs() + 4.0)) * beta.abs()
}

/// [`holder_ceil_order_of`] with β_i computed here (the tests' entry point).
#[cfg(test)]
pub(super) fn holder_ceil_order(alpha: f64, p: f64, i: u64, map: OrderMap) -> u64 {
    let lrho = holder_log_rho(p);
    let (beta, _) = holder_order_at(alpha, p, lrho, i, map);
    holder_ceil_order_of(alpha, p, lrho, i, map, beta)
}

/// ⌈β_i⌉ (at least 2) of the exact order β_i of [`holder_order`] for the given doubles α, p, from
/// ln ρ = [`holder_log_rho`]`(p)` and the double β_i = [`holder_order_at`]`(α, p, ln ρ, i, map).0`
/// that the caller has already computed (the per-step loop of the per-instance composition
/// needs both).
///
/// The double β_i carries a relative error ≤ (3|x| + 4)·ε_m in its varying part, x = i·ln ρ
/// (the quotient, log1p, product with i, exp and the final multiply-add), so an integer within
/// that distance of it would make ⌈·⌉ a coin toss: β_i = 4 + 3e-16 computed as 4.0 gave order 4
/// where the bound needs 5. There β_i is recomputed in double-double (ρ^i by binary powering,
/// relative error < 1e-28) and the integer decided from that; within 1e-25 of an integer k
/// (mathematically on it, as β_1 = 1 + 1.5·(4/3) = 3 at α = 2.5, p = 4) β_i is compared with k
/// exactly in integers where they fit in 128 bits, and otherwise the higher order is taken,
/// which is sound because D_α is non-decreasing in α. β_0 = α exactly (both maps).
pub(super) fn holder_ceil_order_of(
    alpha: f64,
    p: f64,
    lrho: f64,
    i: u64,
    map: OrderMap,
    beta: f64,
) -> u64 {
    if i == 0 {
        return ceil_order(alpha);
    }
    let err = beta_err(beta, lrho, i);
    if (beta - err).ceil() == (beta + err).ceil() {
        return ceil_order(beta);
    }
    // ρ^i in double-double: ρ = p/(p − 1) (p − 1 exact for p ≥ 2, and for p ∈ (1, 2) by
    // Sterbenz), binary powering
    let rho = Dd::from_f64(p) / Dd::from_f64(p - 1.0);
    let (mut acc, mut base, mut e) = (Dd::from_f64(1.0), rho, i);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * base;
        }
        base = base.sqr();
        e >>= 1;
    }
    let b = match map {
        // 1 + (α − 1)ρ^i (α − 1 exact for α ∈ (1, 2^53))
        OrderMap::Corrected => acc.mul_f(alpha - 1.0).add_f(1.0),
        OrderMap::AsPublished => {
            let astar = Dd::from_f64(p - 1.0) / Dd::from_f64(p);
            (Dd::from_f64(alpha) - astar) * acc + astar
        }
    };
    let k = b.hi.round();
    let d = (b - Dd::from_f64(k)).to_f64();
    // |b − k| ≤ 1/2: ⌈b⌉ = k + 1 above k, k below; within 1e-25 of k (on it, as for α = 2.5,
    // p = 4: β_1 = 3) the exact comparison decides, and where it cannot, k + 1
    let order = if d.abs() <= 1e-25 * k.abs() {
        match holder_order_cmp_exact(alpha, p, i, k, map) {
            Some(std::cmp::Ordering::Greater) | None => k + 1.0,
            Some(_) => k,
        }
    } else if d > 0.0 {
        k + 1.0
    } else {
        k
    };
    (order as u64).max(2)
}

/// A non-negative dyadic rational m·2^e with a u128 mantissa: exact products and differences,
/// `None` when a mantissa would overflow (for [`holder_ceil_order_of`]'s exact tie-break).
#[derive(Clone, Copy)]
struct Dyadic {
    m: u128,
    e: i32,
}

impl Dyadic {
    /// A finite non-negative double, exactly (trailing zero bits moved into the exponent).
    fn of(x: f64) -> Option<Dyadic> {
        if !(x >= 0.0 && x.is_finite()) {
            return None;
        }
        if x == 0.0 {
            return Some(Dyadic { m: 0, e: 0 });
        }
        let bits = x.to_bits();
        let be = ((bits >> 52) & 0x7ff) as i32;
        let frac = (bits & ((1u64 << 52) - 1)) as u128;
        let (m, e) = if be == 0 {
            (frac, -1074)
        } else {
            (frac | (1u128 << 52), be - 1075)
        };
        let tz = m.trailing_zeros() as i32;
        Some(Dyadic {
            m: m >> tz,
            e: e + tz,
        })
    }
    fn mul(self, o: Dyadic) -> Option<Dyadic> {
        Some(Dyadic {
            m: self.m.checked_mul(o.m)?,
            e: self.e + o.e,
        })
    }
    fn pow(self, i: u64) -> Option<Dyadic> {
        let mut acc = Dyadic { m: 1, e: 0 };
        for _ in 0..i {
            acc = acc.mul(self)?;
        }
        Some(acc)
    }
    /// Both mantissas on the smaller exponent.
    fn align(self, o: Dyadic) -> Option<(u128, u128)> {
        let e = self.e.min(o.e);
        let sh = |d: Dyadic| -> Option<u128> {
            let s = (d.e - e) as u32;
            if d.m == 0 {
                Some(0)
            } else if s >= 128 || d.m.leading_zeros() < s {
                None
            } else {
                Some(d.m << s)
            }
        };
        Some((sh(self)?, sh(o)?))
    }
    fn sub(self, o: Dyadic) -> Option<Dyadic> {
        let (a, b) = self.align(o)?;
        Some(Dyadic {
            m: a.checked_sub(b)?,
            e: self.e.min(o.e),
        })
    }
    fn cmp(self, o: Dyadic) -> Option<std::cmp::Ordering> {
        let (a, b) = self.align(o)?;
        Some(a.cmp(&b))
    }
}

/// β_i compared with the integer k exactly, where it fits in 128-bit mantissas: corrected
/// (α − 1)p^i against (k − 1)(p − 1)^i; printed map (αp − (p − 1))p^i against
/// (kp − (p − 1))(p − 1)^i (both sides of β_i vs k multiplied by p(p − 1)^i > 0).
fn holder_order_cmp_exact(
    alpha: f64,
    p: f64,
    i: u64,
    k: f64,
    map: OrderMap,
) -> Option<std::cmp::Ordering> {
    if i > 128 {
        return None; // p^i cannot fit unless p is a power of two; not worth it
    }
    let (dp, dq) = (Dyadic::of(p)?, Dyadic::of(p - 1.0)?);
    let (da, dk) = (Dyadic::of(alpha)?, Dyadic::of(k)?);
    let one = Dyadic { m: 1, e: 0 };
    let (lhs, rhs) = match map {
        OrderMap::Corrected => (da.sub(one)?, dk.sub(one)?),
        OrderMap::AsPublished => (da.mul(dp)?.sub(dq)?, dk.mul(dp)?.sub(dq)?),
    };
    lhs.mul(dp.pow(i)?)?.cmp(rhs.mul(dq.pow(i)?)?)
}

/// The domain error of an order map β_0 = α < β_1 < … that leaves its range (β above `cap` or
/// p(β − 1) infinite): a property of (α, p), named α when α alone is out of range, else p.
pub(super) fn order_map_overflow(
    alpha: f64,
    p: f64,
    steps: usize,
    beta_max: f64,
    cap: f64,
) -> PabiError {
    let (param, value) = if alpha <= cap && (p * (alpha - 1.0)).is_finite() {
        ("holder_exponent", p)
    } else {
        ("order", alpha)
    };
    PabiError::domain(
        param,
        format!(
            "such that the order map stays below {cap:e} with p*(beta - 1) finite (beta_{} = \
             {beta_max:e} at alpha = {alpha}, p = {p}, {steps} steps; p = 3*steps keeps every \
             order below 1 + 1.5(alpha - 1))",
            steps.saturating_sub(1)
        ),
        value,
    )
}

/// Smallest p with g_p^{n−1}(α) ≤ K·α (corrected Fact 3.4; K = `cap_factor` > 1, the paper
/// uses 2): p_min = 1/(−expm1(−c)), c = ln((Kα − 1)/(α − 1))/(n − 1); 1 for n = 1.
/// p = 3n always satisfies K = 2 (order ≤ 1 + 1.5(α − 1)); "p = O(n)" as printed is wrong:
/// p = Ω(n) is what is needed (docs/errata.md#r-t4).
pub fn holder_min_exponent(n: u64, alpha: f64, cap_factor: f64) -> Result<f64> {
    check_alpha(alpha, f64::MAX)?;
    count("steps", n)?;
    gt1("cap_factor", cap_factor)?;
    if n == 1 {
        return Ok(1.0);
    }
    // ln((Kα − 1)/(α − 1)) = log1p((K − 1)α/(α − 1)), K − 1 exact: the rounded ratio lost
    // log10(1/(K − 1)) digits (K = 1.0001: 2.6e-13 below the exact p)
    let c = ((cap_factor - 1.0) * alpha / (alpha - 1.0)).ln_1p() / (n - 1) as f64;
    Ok(up_signed(1.0 / -(-c).exp_m1()))
}

/// Fact 3.5 variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleSizeVariant {
    /// Two-sided Hoeffding with range R − 1, R = e^{3(2α−1)ε'} (default).
    Corrected,
    /// What the printed proof's tail gives (sign of the exponent flipped w.r.t. the statement).
    ProofConsistent,
    /// The statement as printed (wrong sign: absurdly small sample sizes; docs/errata.md#r-t5).
    AsPublished,
}

/// The number l of training runs of Fact 3.5 (per-step Monte-Carlo estimate within
/// c·e^{3(α−1)ε} with probability ≥ 1 − J), or with `log` its logarithm. Corrected:
/// ln l = ln ln(2/J) + 2 ln expm1(3(2α−1)ε') − ln 2 − 2 ln c − 6(α−1)ε, rounded up; l itself is
/// ⌈e^{ln l}⌉ with the exponential rounded up, so never below the exact count; +inf where l
/// exceeds the double range (ln l > 709.78, common for large orders: use the log form there).
#[allow(clippy::too_many_arguments)]
pub fn hoeffding_sample_size(
    alpha: f64,
    eps: f64,
    eps_prime: f64,
    c: f64,
    j: f64,
    variant: SampleSizeVariant,
    log: bool,
) -> Result<f64> {
    check_alpha(alpha, f64::MAX)?;
    nonneg("rdp", eps)?;
    pos("rdp_bound", eps_prime)?;
    pos("tolerance", c)?;
    unit_open("failure_prob", j)?;
    let a = 6.0 * (alpha - 1.0) * eps;
    let b = 3.0 * (2.0 * alpha - 1.0) * eps_prime;
    // ln l is a sum of these exponents: each must be a finite double (ln l itself would be
    // ±inf − inf = NaN otherwise)
    if !a.is_finite() {
        return Err(PabiError::domain(
            "rdp",
            "such that 6(order - 1)*rdp is finite",
            eps,
        ));
    }
    if !b.is_finite() {
        return Err(PabiError::domain(
            "rdp_bound",
            "such that 3(2 order - 1)*rdp_bound is finite",
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
            2.0 * log_expm1_std(b),
            -std::f64::consts::LN_2,
            -2.0 * c.ln(),
            -a,
        ],
    };
    // a larger sample size is the safe side: moved up by 8 ulp of the terms' magnitude
    let v = neumaier_sum(terms);
    let mag: f64 = terms.iter().map(|x| x.abs()).sum();
    let ln_l = v + EPS8 * mag;
    Ok(if log { ln_l } else { exp_up(ln_l).ceil() })
}
