//! Conversions: an RDP curve → (ε, δ) (Mironov 2017 Prop. 3; Balle et al. 2020 /
//! Canonne–Kamath–Steinke 2020 Prop. 12, with the KL / total-variation rule), both directions
//! certified and mutually consistent to the last ulp; and a privacy profile δ(ε) → RDP
//! (the integral bound derived in docs/derivations/rdp.md).

use super::checks::{check_alpha, gt1};
use super::conversion_prob::exp_prob_up;
use crate::error::{PabiError, Result};
use crate::num::logspace::{log1mexp_std, log_add_exp_std, log_expm1_std, softplus_std};
use crate::num::round::up_order;
use crate::num::HALF_ULP_ONE;

/// RDP → (ε, δ) conversion rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// Mironov 2017 Prop. 3: ε = ε_R + ln(1/δ)/(α − 1).
    Classical,
    /// Balle et al. 2020 / Canonne–Kamath–Steinke 2020 Prop. 12:
    /// ε = ε_R + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), plus the KL/total-variation rule
    /// (δ ≥ √(1 − e^{−ε_R}) ⇒ ε = 0) used by current accountants.
    Tight,
}

fn check_curve(orders: &[f64], rdp: &[f64]) -> Result<()> {
    if orders.is_empty() {
        return Err(PabiError::Shape {
            message: "orders must be non-empty".into(),
        });
    }
    crate::batch::check_len(orders.len(), &[("rdp", rdp.len())])?;
    crate::batch::check(orders, "orders", "> 1 and finite", |a| {
        a > 1.0 && a.is_finite()
    })?;
    crate::batch::check(rdp, "rdp", ">= 0 (not NaN; +inf allowed)", |x| x >= 0.0)?;
    Ok(())
}

/// One order of an RDP curve prepared for the conversions: everything that does not depend on
/// ε, with the direction that raises δ.
#[derive(Clone, Copy)]
struct ConvOrder {
    r: f64,
    /// bounds of α − 1 (exact below 2^53)
    am1_dn: f64,
    am1_up: f64,
    /// upper bound of ln(1 − 1/α) (< 0)
    c_up: f64,
    /// lower bound of ln α (> 0)
    lna_dn: f64,
    /// upper bound of ln √(1 − e^{−r}) (the KL / total-variation rule; ≤ 0)
    kl_up: f64,
}

impl ConvOrder {
    fn new(a: f64, r: f64) -> Self {
        let am1 = a - 1.0; // exact for a < 2^53 (Sterbenz below 2)
        let (am1_dn, am1_up) = if a < 9_007_199_254_740_992.0 {
            (am1, am1)
        } else {
            (am1.next_down(), am1.next_up())
        };
        // ln(1 − 1/α): ln(α − 1) − ln α below 2 (α − 1 exact; 1/α would lose 1/(α − 1) ulps),
        // log1p(−1/α) from 2 on (1/α ≤ ½: the rounding of 1/α costs ≤ 2 ulp of the result)
        let (c, c_err) = if a < 2.0 {
            let c = f64::ln(am1) - f64::ln(a);
            (c, 4.0 * HALF_ULP_ONE * (c.abs() + 2.0 * f64::ln(a) + 1.0))
        } else {
            let c = f64::ln_1p(-1.0 / a);
            (c, 8.0 * HALF_ULP_ONE * c.abs())
        };
        let kl = 0.5 * log1mexp_std(-r); // relative error a few ulp (Mächler's two branches)
        ConvOrder {
            r,
            am1_dn,
            am1_up,
            c_up: (c + c_err).min(0.0),
            lna_dn: f64::ln(a) * (1.0 - 4.0 * HALF_ULP_ONE),
            kl_up: if kl == f64::NEG_INFINITY {
                kl
            } else {
                (kl * (1.0 - 16.0 * HALF_ULP_ONE)).min(0.0)
            },
        }
    }

    /// y·(α − 1) rounded up, non-decreasing in y.
    #[inline]
    fn times_am1(&self, y: f64) -> f64 {
        if y >= 0.0 {
            (y * self.am1_up).next_up()
        } else {
            (y * self.am1_dn).next_up()
        }
    }

    /// Upper bound of δ(ε) at this order, a non-increasing function of ε by construction: every
    /// operation is one rounding to nearest followed by `f64::next_up` (an upper bound of the
    /// exact result, non-decreasing in the rounded one; each monotone), the constants
    /// are rounded in the direction that raises δ, and e^x is [`exp_prob_up`] (≥ e^x,
    /// non-decreasing in x, ≤ 1: the least double above e^x on [−0.287, 0], std's exp one
    /// double up below).
    /// A zero RDP value means D_α = 0, i.e. equal distributions: δ = 0 at every ε ≥ 0.
    fn delta(&self, eps: f64, rule: Conversion) -> f64 {
        if self.r == 0.0 {
            return 0.0;
        }
        let x = (self.r - eps).next_up();
        let ld = match rule {
            Conversion::Classical => self.times_am1(x),
            Conversion::Tight => {
                let cks = (self.times_am1((x + self.c_up).next_up()) - self.lna_dn).next_up();
                cks.min(self.kl_up)
            }
        };
        // e^{ld} rounded up to (almost always) the least double above it near δ = 1, where
        // each double of looseness costs ~100 % of 1 − δ (the inversion's ε paid it through
        // dε/dδ: 1.5e-5 relative at δ = 1 − 3.6e-12 with exp_up_1ulp); exp_up_1ulp below ¾
        exp_prob_up(ld)
    }

    /// The smallest double ε ≥ 0 with [`ConvOrder::delta`](ε) ≤ δ (+inf if none): by
    /// construction δ(ε(δ)) ≤ δ, and the (ε, δ) pair is certified because `delta` is an upper
    /// bound of the exact conversion. The closed form gives the starting point; a bracket is
    /// grown around it in units in the last place and bisected on the bit patterns
    /// (non-negative doubles are ordered like their bits).
    fn epsilon(&self, delta: f64, rule: Conversion) -> f64 {
        if self.delta(0.0, rule) <= delta {
            return 0.0;
        }
        if self.delta(f64::MAX, rule) > delta {
            return f64::INFINITY;
        }
        let ld = f64::ln(delta);
        let am1 = self.am1_up;
        let guess = match rule {
            Conversion::Classical => self.r - ld / am1,
            Conversion::Tight => self.r + self.c_up - (ld + self.lna_dn) / am1,
        };
        let guess = if guess.is_finite() {
            guess.clamp(0.0, f64::MAX)
        } else {
            f64::MAX
        };
        let ok = |bits: u64| self.delta(f64::from_bits(bits), rule) <= delta;
        let (zero, max) = (0u64, f64::MAX.to_bits());
        let g = guess.to_bits();
        // hi: δ(hi) ≤ delta; lo: δ(lo) > delta (δ(0) > delta is known)
        let (mut lo, mut hi);
        if ok(g) {
            hi = g;
            let mut step = 4u64;
            lo = hi.saturating_sub(step);
            while lo > zero && ok(lo) {
                hi = lo;
                step = step.saturating_mul(8);
                lo = lo.saturating_sub(step);
            }
        } else {
            lo = g;
            let mut step = 4u64;
            hi = lo.saturating_add(step).min(max);
            while !ok(hi) {
                lo = hi;
                step = step.saturating_mul(8);
                hi = hi.saturating_add(step).min(max);
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if ok(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        f64::from_bits(hi)
    }
}

/// (the smallest value of `f` over the prepared orders, the first order attaining it);
/// (+inf, orders[0]) if every value is +inf. The scalar conversions prepare each order as they
/// go, the array ones once for every target: the same values, so the same bits.
fn min_over_orders(
    orders: &[f64],
    convs: impl Iterator<Item = ConvOrder>,
    f: impl Fn(&ConvOrder) -> f64,
) -> (f64, f64) {
    let mut best = (f64::INFINITY, orders[0]);
    for (&a, c) in orders.iter().zip(convs) {
        let v = f(&c);
        if v < best.0 {
            best = (v, a);
        }
    }
    best
}

/// Each order of a (checked) curve prepared for the conversions, in order.
fn prepare<'a>(orders: &'a [f64], rdp: &'a [f64]) -> impl Iterator<Item = ConvOrder> + 'a {
    orders.iter().zip(rdp).map(|(&a, &r)| ConvOrder::new(a, r))
}

/// [`rdp_to_dp_delta`] on a checked curve (its orders prepared by `convs`) and a checked ε.
fn delta_at(
    orders: &[f64],
    convs: impl Iterator<Item = ConvOrder>,
    eps: f64,
    rule: Conversion,
) -> (f64, f64) {
    if eps == f64::INFINITY {
        // δ(∞) = 0 at any order with a finite RDP value (e^{(α−1)(ε_R − ε)} → 0); with none, 1
        return match orders.iter().zip(convs).find(|(_, c)| c.r.is_finite()) {
            Some((&a, _)) => (0.0, a),
            None => (1.0, orders[0]),
        };
    }
    let best = min_over_orders(orders, convs, |o| o.delta(eps, rule));
    (best.0.min(1.0), best.1)
}

/// The domain of a conversion's ε (scalar or array): ≥ 0, +inf allowed (NaN fails).
const EPS_RANGE: &str = ">= 0 (+inf allowed)";
fn eps_ok(x: f64) -> bool {
    x >= 0.0
}
/// The domain of a conversion's δ: (0, 1).
const DELTA_RANGE: &str = "in (0, 1)";
fn delta_ok(x: f64) -> bool {
    x > 0.0 && x < 1.0
}

/// min over the orders of the (ε, δ) conversion; returns (ε, optimal order).
///
/// ε is the smallest double with [`rdp_to_dp_delta`](ε) ≤ δ, so the two conversions agree
/// exactly: δ(ε(δ)) ≤ δ, ε(δ) is non-increasing in δ, and a zero RDP value at some order (the
/// distributions are equal) gives ε = 0 for every δ. +inf RDP values (no guarantee at that
/// order) are allowed and never chosen unless every order is +inf (then ε = +inf).
pub fn rdp_to_dp_epsilon(
    orders: &[f64],
    rdp: &[f64],
    delta: f64,
    rule: Conversion,
) -> Result<(f64, f64)> {
    check_curve(orders, rdp)?;
    if !delta_ok(delta) {
        return Err(PabiError::domain("delta", DELTA_RANGE, delta));
    }
    Ok(min_over_orders(orders, prepare(orders, rdp), |o| {
        o.epsilon(delta, rule)
    }))
}

/// min over the orders of δ(ε); returns (δ, optimal order). δ is capped at 1.
///
/// Each order's value is computed by one chain of monotone, upward-rounded operations, so δ is
/// non-increasing in ε down to the last ulp (see [`rdp_to_dp_epsilon`] for the consistency of
/// the two conversions). A zero RDP value at some order means equal distributions: δ = 0.
pub fn rdp_to_dp_delta(
    orders: &[f64],
    rdp: &[f64],
    eps: f64,
    rule: Conversion,
) -> Result<(f64, f64)> {
    check_curve(orders, rdp)?;
    if !eps_ok(eps) {
        return Err(PabiError::domain("eps", EPS_RANGE, eps));
    }
    Ok(delta_at(orders, prepare(orders, rdp), eps, rule))
}

/// The work of one target of the array conversions is one pass over the orders (δ) or one
/// search per order (ε): they run in parallel (on the shared pool, crate::driver) from this
/// many order-evaluations, in chunks of [`ARRAY_CHUNK`] targets; the values do not depend on it.
const ARRAY_PAR_WORK: usize = 1 << 14;
const ARRAY_CHUNK: usize = 16;

/// One curve, many targets: `(out[0][i], out[1][i]) = f(targets[i])` for the prepared orders,
/// the targets checked (`check`, the first bad index) and the lengths before any is computed.
fn many(
    orders: &[f64],
    rdp: &[f64],
    targets: &[f64],
    out: [&mut [f64]; 2],
    check: impl FnOnce(&[f64]) -> Result<()>,
    f: impl Fn(&[ConvOrder], f64) -> (f64, f64) + Sync,
) -> Result<()> {
    check_curve(orders, rdp)?;
    let n = targets.len();
    if let Some(o) = out.iter().find(|o| o.len() != n) {
        return Err(PabiError::Shape {
            message: format!("an output has length {}, expected {n}", o.len()),
        });
    }
    check(targets)?;
    let convs: Vec<ConvOrder> = prepare(orders, rdp).collect();
    let par_min = (ARRAY_PAR_WORK / orders.len()).max(2 * ARRAY_CHUNK);
    crate::driver::for_chunks(out, par_min, ARRAY_CHUNK, |start, [v, o]| {
        for j in 0..v.len() {
            (v[j], o[j]) = f(&convs, targets[start + j]);
        }
        Ok(())
    })
}

/// [`rdp_to_dp_delta`] at every ε of `eps` for one curve: `deltas[i]`, `best_orders[i]` are
/// bit-identical to the scalar call at `eps[i]` (each order prepared once for all ε). The
/// curve, then `eps` (>= 0, +inf allowed; the first bad index) are checked before any work.
pub fn rdp_to_dp_delta_many(
    orders: &[f64],
    rdp: &[f64],
    eps: &[f64],
    rule: Conversion,
    deltas: &mut [f64],
    best_orders: &mut [f64],
) -> Result<()> {
    many(
        orders,
        rdp,
        eps,
        [deltas, best_orders],
        |e| crate::batch::check(e, "eps", EPS_RANGE, eps_ok),
        |convs, e| delta_at(orders, convs.iter().copied(), e, rule),
    )
}

/// [`rdp_to_dp_epsilon`] at every δ of `delta` for one curve: `epsilons[i]`, `best_orders[i]`
/// are bit-identical to the scalar call at `delta[i]`. The curve, then `delta` (in (0, 1);
/// the first bad index) are checked before any work.
pub fn rdp_to_dp_epsilon_many(
    orders: &[f64],
    rdp: &[f64],
    delta: &[f64],
    rule: Conversion,
    epsilons: &mut [f64],
    best_orders: &mut [f64],
) -> Result<()> {
    many(
        orders,
        rdp,
        delta,
        [epsilons, best_orders],
        |d| crate::batch::check(d, "delta", DELTA_RANGE, delta_ok),
        |convs, d| min_over_orders(orders, convs.iter().copied(), |o| o.epsilon(d, rule)),
    )
}

/// [`rdp_to_dp_epsilon`] of many curves over the same `orders`: curve j is row j of `rdp`
/// (flat, row-major, `k = orders.len()` values a row) at `delta[j]`, its ε into `epsilons[j]`
/// (bit-identical to the single-curve call). A lock-step calibration tests every running
/// search's curve in one call. The shapes are checked before any work; the rows run in
/// parallel for long inputs; the error is the first failing row's (its index within the row).
pub fn rdp_to_dp_epsilon_rows(
    orders: &[f64],
    rdp: &[f64],
    delta: &[f64],
    rule: Conversion,
    epsilons: &mut [f64],
) -> Result<()> {
    let k = orders.len();
    if k == 0 || rdp.len() != k.saturating_mul(delta.len()) || epsilons.len() != delta.len() {
        return Err(PabiError::Shape {
            message: format!(
                "{} RDP values and {} outputs for {} curves of {k} orders",
                rdp.len(),
                epsilons.len(),
                delta.len()
            ),
        });
    }
    let par_min = (ARRAY_PAR_WORK / k).max(2 * ARRAY_CHUNK);
    crate::driver::for_chunks([epsilons], par_min, ARRAY_CHUNK, |start, [o]| {
        for (j, e) in o.iter_mut().enumerate() {
            let row = &rdp[(start + j) * k..(start + j + 1) * k];
            *e = rdp_to_dp_epsilon(orders, row, delta[start + j], rule)?.0;
        }
        Ok(())
    })
}

/// RDP at order α from a symmetric privacy profile given on a grid (derived in
/// docs/derivations/rdp.md):
/// e^{(α−1)D_α} ≤ 1 + α(α−1)∫_0^∞ (e^{(α−1)ε} + e^{−αε}) δ(ε) dε, with the certified upper
/// quadrature δ(ε) ≤ δ(ε_j) on [ε_j, ε_{j+1}] (profiles are non-increasing) and the weights
/// integrated exactly. Requires eps_grid[0] = 0, strictly increasing, δ non-increasing in
/// [0, 1], and δ = 0 at the last grid point (beyond it the profile is taken as 0).
pub fn profile_to_rdp(alpha: f64, eps: &[f64], delta: &[f64]) -> Result<f64> {
    check_alpha(alpha, f64::MAX)?;
    check_profile_grid(eps, delta)?;
    Ok(profile_to_rdp_checked(alpha, eps, delta))
}

/// [`profile_to_rdp`] at every order of `orders` (`out[i]` at `orders[i]`), bit-identical to
/// the scalar call per order: the grid is checked once (as there), then the orders (`orders`
/// > 1 and finite, the first bad index) before any is computed.
pub fn profile_to_rdp_curve(
    orders: &[f64],
    eps: &[f64],
    delta: &[f64],
    out: &mut [f64],
) -> Result<()> {
    crate::batch::check_len(orders.len(), &[("out", out.len())])?;
    check_profile_grid(eps, delta)?;
    for (i, &a) in orders.iter().enumerate() {
        gt1("orders", a).map_err(|e| e.at(i))?;
    }
    for (o, &a) in out.iter_mut().zip(orders) {
        *o = profile_to_rdp_checked(a, eps, delta);
    }
    Ok(())
}

/// The checks of [`profile_to_rdp`] on its grid (see there).
fn check_profile_grid(eps: &[f64], delta: &[f64]) -> Result<()> {
    let n = eps.len();
    if n < 2 {
        return Err(PabiError::Shape {
            message: "the eps grid must have at least 2 points".into(),
        });
    }
    crate::batch::check_len(n, &[("delta_grid", delta.len())])?;
    if eps[0] != 0.0 {
        return Err(PabiError::domain("eps_grid", "starting at 0", eps[0]).at(0));
    }
    for i in 1..n {
        if !(eps[i] > eps[i - 1] && eps[i].is_finite()) {
            return Err(
                PabiError::domain("eps_grid", "strictly increasing and finite", eps[i]).at(i),
            );
        }
    }
    crate::batch::check(delta, "delta_grid", "in [0, 1]", |x| {
        (0.0..=1.0).contains(&x)
    })?;
    for i in 1..n {
        if delta[i] > delta[i - 1] {
            return Err(PabiError::domain(
                "delta_grid",
                "non-increasing (a privacy profile)",
                delta[i],
            )
            .at(i));
        }
    }
    if delta[n - 1] != 0.0 {
        return Err(PabiError::domain(
            "delta_grid",
            "0 at the last grid point (the profile beyond the grid is unknown; extend the grid)",
            delta[n - 1],
        )
        .at(n - 1));
    }
    Ok(())
}

/// [`profile_to_rdp`] on checked arguments.
fn profile_to_rdp_checked(alpha: f64, eps: &[f64], delta: &[f64]) -> f64 {
    let n = eps.len();
    let am1 = alpha - 1.0;
    let mut logs = Vec::with_capacity(n);
    for j in 0..n - 1 {
        if delta[j] == 0.0 {
            continue;
        }
        // the cell [ε_j, ε_j + h] with h rounded up covers [ε_j, ε_{j+1}] (a larger cell only
        // adds a positive integrand)
        let (e0, h) = (eps[j], (eps[j + 1] - eps[j]).next_up());
        // ln ∫_0^h e^{(α−1)t} dt = ln(expm1(x)/(α − 1)), x = (α − 1)h; below 1e-4 (where x may
        // underflow and log_expm1_std(x) would be −inf, and ln x − ln(α − 1) cancels near α = 1)
        // ln h + x/2 + x²/24, an upper bound (ln(expm1(x)/x) = x/2 + x²/24 − x⁴/2880 + ...,
        // alternating with decreasing terms: the omitted ≤ 4e-20). The former ln h + x was x/2
        // too large: 4.6e-9 relative in the RDP at α − 1 = 4e-10 with a cell of 20 (and with a
        // cell of 1e-9 at α = 10 through the ln h of the second integral).
        let x1 = am1 * h;
        let i1 = am1 * e0
            + if x1 < 1e-4 {
                f64::ln(h) + x1 * (0.5 + x1 / 24.0)
            } else {
                log_expm1_std(x1) - f64::ln(am1)
            };
        // ln ∫_0^h e^{−αt} dt = ln((1 − e^{−y})/α), y = αh; below 1e-4 ln h − y/2 + y²/24,
        // an upper bound (ln((1 − e^{−y})/y) is the series above at x = −y)
        let y = alpha * h;
        let i2 = -alpha * e0
            + if y < 1e-4 {
                f64::ln(h) - y * (0.5 - y / 24.0)
            } else {
                log1mexp_std(-y) - f64::ln(alpha)
            };
        logs.push(f64::ln(delta[j]) + log_add_exp_std(i1, i2));
    }
    if logs.is_empty() {
        return 0.0;
    }
    let ls = crate::num::log_sum_exp(&logs);
    // ln(α(α − 1)) as a sum of logs: the product overflows for α > 1.3e154
    let x = f64::ln(alpha) + f64::ln(am1) + ls;
    let v = if x < -36.0 {
        // ln(1 + e^x)/(α − 1) ≤ e^x/(α − 1) = α·e^{ls} (relative slack e^x/2 < 1e-16): e^x
        // itself may be subnormal (α − 1 = 2^-52 and a 1e-300 integral lost 1e-8 relative)
        f64::exp(f64::ln(alpha) + ls)
    } else {
        softplus_std(x) / am1
    };
    up_order(v, 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_is_the_scalar_call_per_order() {
        let h = 0.05;
        let eps: Vec<f64> = (0..401).map(|k| k as f64 * h).collect();
        let mut delta: Vec<f64> = eps.iter().map(|&e| (-e * e / 2.0).exp() * 0.5).collect();
        *delta.last_mut().unwrap() = 0.0;
        let orders = [1.05, 1.5, 2.0, 7.3, 64.0, 1e3];
        let mut out = [0.0; 6];
        profile_to_rdp_curve(&orders, &eps, &delta, &mut out).unwrap();
        for (&a, &o) in orders.iter().zip(&out) {
            assert_eq!(
                o.to_bits(),
                profile_to_rdp(a, &eps, &delta).unwrap().to_bits()
            );
        }
        let err = profile_to_rdp_curve(&[2.0, 1.0], &eps, &delta, &mut [0.0; 2]);
        match err {
            Err(PabiError::Domain {
                param: "orders",
                index: Some(1),
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn array_conversions_are_the_scalar_calls() {
        // a curve with a zero-free mix of finite and +inf values; enough targets (4000 over 5
        // orders) to take the parallel path, plus the ends (0, +inf, a subnormal δ)
        let orders = [1.25, 2.0, 8.0, 64.0, 1024.0];
        let rdp = [0.01, 0.05, f64::INFINITY, 1.7, 30.0];
        let mut eps: Vec<f64> = (0..4000).map(|k| k as f64 * 0.004).collect();
        eps.extend([f64::INFINITY, f64::MAX, 5e-324]);
        let mut delta: Vec<f64> = (1..4000).map(|k| (-(k as f64) * 0.01).exp()).collect();
        delta.extend([5e-324, 1.0f64.next_down(), 0.5]);
        for rule in [Conversion::Tight, Conversion::Classical] {
            let (mut d, mut o) = (vec![0.0; eps.len()], vec![0.0; eps.len()]);
            rdp_to_dp_delta_many(&orders, &rdp, &eps, rule, &mut d, &mut o).unwrap();
            for (i, &e) in eps.iter().enumerate() {
                let (ds, os) = rdp_to_dp_delta(&orders, &rdp, e, rule).unwrap();
                assert_eq!(
                    (d[i].to_bits(), o[i].to_bits()),
                    (ds.to_bits(), os.to_bits()),
                    "{e}"
                );
            }
            let (mut e, mut o) = (vec![0.0; delta.len()], vec![0.0; delta.len()]);
            rdp_to_dp_epsilon_many(&orders, &rdp, &delta, rule, &mut e, &mut o).unwrap();
            for (i, &dl) in delta.iter().enumerate() {
                let (es, os) = rdp_to_dp_epsilon(&orders, &rdp, dl, rule).unwrap();
                assert_eq!(
                    (e[i].to_bits(), o[i].to_bits()),
                    (es.to_bits(), os.to_bits()),
                    "{dl}"
                );
            }
        }
        // every order +inf: δ(∞) = 1 at the first order, as the scalar call
        let (mut d, mut o) = ([0.0], [0.0]);
        rdp_to_dp_delta_many(
            &[2.0, 3.0],
            &[f64::INFINITY; 2],
            &[f64::INFINITY],
            Conversion::Tight,
            &mut d,
            &mut o,
        )
        .unwrap();
        assert_eq!((d[0], o[0]), (1.0, 2.0));
    }

    #[test]
    fn array_conversions_check_everything_first() {
        let (mut a, mut b) = ([7.0; 3], [7.0; 3]);
        let tight = Conversion::Tight;
        let bad_eps = rdp_to_dp_delta_many(
            &[2.0],
            &[0.1],
            &[0.5, -1.0, f64::NAN],
            tight,
            &mut a,
            &mut b,
        );
        assert!(
            matches!(
                bad_eps,
                Err(PabiError::Domain {
                    param: "eps",
                    index: Some(1),
                    ..
                })
            ),
            "{bad_eps:?}"
        );
        let bad_delta =
            rdp_to_dp_epsilon_many(&[2.0], &[0.1], &[0.5, 0.1, 1.0], tight, &mut a, &mut b);
        assert!(
            matches!(
                bad_delta,
                Err(PabiError::Domain {
                    param: "delta",
                    index: Some(2),
                    ..
                })
            ),
            "{bad_delta:?}"
        );
        // the curve is checked before the targets; nothing was written
        let bad_curve =
            rdp_to_dp_delta_many(&[2.0, 0.5], &[0.1, 0.1], &[-1.0; 3], tight, &mut a, &mut b);
        assert!(matches!(
            bad_curve,
            Err(PabiError::Domain {
                param: "orders",
                index: Some(1),
                ..
            })
        ));
        assert_eq!((a, b), ([7.0; 3], [7.0; 3]));
        let short = rdp_to_dp_delta_many(&[2.0], &[0.1], &[0.5; 3], tight, &mut a, &mut b[..2]);
        assert!(matches!(short, Err(PabiError::Shape { .. })));
        // no targets: nothing to do
        assert!(rdp_to_dp_epsilon_many(&[2.0], &[0.1], &[], tight, &mut [], &mut []).is_ok());
    }

    #[test]
    fn conversion_exp_is_above_the_exact_value_and_below_the_former_margin() {
        // exp_up_1ulp against the former local e^x·(1 + 2^-51), next_up: never above it (a
        // tighter upper bound; the same bits where exp underflows to 0), and above e^x (exp_dd)
        use crate::dd::{exp_dd, Dd};
        use crate::num::round::exp_up_1ulp;
        let former = |x: f64| (f64::exp(x) * (1.0 + 4.0 * HALF_ULP_ONE)).next_up();
        let mut x = -745.5;
        while x < 0.0 {
            let v = exp_up_1ulp(x);
            assert!(v <= former(x), "{x}");
            if x.exp() == 0.0 {
                assert_eq!(v, former(x)); // an underflow: both the smallest subnormal
            }
            // (exp_dd is accurate where e^x is normal)
            if x > -708.0 {
                assert!((Dd::from_f64(v) - exp_dd(Dd::from_f64(x))).hi >= 0.0, "{x}");
            }
            x += 0.377;
        }
    }
}
