//! Trapezoidal quadrature of A_α − 1 for the fractional-order sampled Gaussian RDP, used where
//! the series of `fractional.rs` cancels (docs/derivations/rdp.md).
//!
//! With Y = L − 1 (E[Y] = 0): A − 1 = E_{μ0}[g(qY)], g(y) = (1 + y)^α − 1 − αy, and with
//! β = α − 1, ℓ = ln(1 + y): g(y) = β·[(1 + y)ℓ − y] + (1 + y)·[e^{βℓ} − 1 − βℓ], a sum of two
//! non-negative terms for every y > −1 and α > 1 ((1 + y)ℓ − y is convex with a double zero at
//! y = 0, and e^w − 1 − w ≥ 0), each computed without cancellation (a series in y/(2 + y),
//! resp. in βℓ, near 0). So every node value has a small relative error, tracked per node (condition
//! numbers of y ↦ g and of the weight included), and the sum of non-negative values keeps it.
//!
//! In x (μ0 = N(0, 1/(2c)), weight w(x) = √(c/π)e^{−cx²}, L = e^{c(2x−1)}) the trapezoidal rule
//! T_h = h Σ_k f(kh) on the whole line is used, h with 8 significant bits so the nodes are exact:
//! * Discretisation (proven): f is analytic in the strip |Im x| < π/(2c) (1 + y leaves the cut
//!   (−∞, 0] only there) and ∫|f(x + ib)|dx ≤ e^{cb²}(A + 1 + 2αq) (|(1 + y)^α| = |1 + y|^α ≤
//!   (1 − q + qL(Re x))^α, |y| ≤ q(L + 1)). Trefethen & Weideman (SIAM Rev. 2014, Thm 5.1):
//!   |T_h − I| ≤ 2M/(e^{2πa/h} − 1) for a < π/(2c); with A = 1 + I this gives the explicit
//!   bound k(2 + 2αq + I_max), k = 2e^{ca²}/(e^{2πa/h} − 1). h is chosen (and halved if
//!   needed) so that this is ≤ 1e-16·T_h; it is added.
//! * Truncation of the sum (proven): by Taylor, g(y) ≤ C(α,2)·y²·max(1, (1 + ξ)^{α−2}); for
//!   x ≤ 0 the remaining nodes sum to ≤ C(α,2)q²ρ[h·w(X) + Q(|X|√(2c))], ρ = max(1,(1−q)^{α−2}),
//!   and for x ≥ X ≥ κ = max(α, 2) to ≤ C(α,2)q²e^{cκ(κ−1)}[h·w(X − κ) + Q((X − κ)√(2c))]; the
//!   sweeps stop when these are ≤ 1e-19 of the running sum, and they are added.
//! * Rounding: per-node relative error bounds (from ≤ 1-ulp exp/expm1/ln_1p, the condition
//!   numbers of each step) and the compensated sum's 2u are added.
//!
//! The result is therefore an upper bound on A − 1 under the assumption that the libm functions
//! (exp, exp_m1, ln_1p, ln) are accurate to 1 ulp. As a fallback after the series, if it falls
//! below the series' lower end s − b (never observed) the larger of the two upper ends is
//! returned. Cost: 30–500 nodes (more for large r, where the strip is narrow); the quadrature
//! is skipped when it would need > 20000 nodes.
//!

use crate::num::dd::{ln_dd, log1p_dd, two_sum, Dd};
use crate::num::log_add_exp;
use crate::num::logspace::Neumaier;
use crate::num::round::U;
use crate::tail::{gaussian_tail, log_gaussian_tail};

/// h(y) = (1 + y)·ln(1 + y) − y ≥ 0 for y > −1, with a bound on its relative error.
#[inline]
pub(super) fn h_plogp(y: f64, l1p: f64) -> (f64, f64) {
    if y.abs() <= 0.5 {
        // s = y/(2 + y): ln(1 + y) = 2 atanh(s), 1 + y = (1 + s)/(1 − s), y = 2s/(1 − s), so
        // h = 2s²·[1 + s(1 + s)·P(s²)]/(1 − s), P(t) = Σ_{k≥1} t^{k−1}/(2k + 1); |s| ≤ ⅓,
        // s² ≤ 1/9: 18 terms leave < 1e-18 relative.
        let s = y / (2.0 + y);
        let t = s * s;
        let mut p = 0.0;
        let mut k = 18;
        while k >= 1 {
            p = p * t + 1.0 / (2 * k + 1) as f64;
            k -= 1;
        }
        let v = 2.0 * t * (1.0 + s * (1.0 + s) * p) / (1.0 - s);
        // s: 2 roundings (rel. 2U, doubled in s²), P and the bracket a few U (s(1+s)P ≥ −0.1)
        (v, 16.0 * U)
    } else {
        let a = (1.0 + y) * l1p;
        let v = a - y;
        // ln_1p ≤ 1 ulp, three roundings on a, one on the difference
        (v, U * (6.0 * a.abs() + 2.0 * y.abs() + v.abs()) / v)
    }
}

/// 1/(k + 2)! for k = 0..16.
const INV_FACT_FROM_2: [f64; 17] = {
    let mut t = [0.0; 17];
    let mut f = 2.0;
    let mut k = 0;
    while k < 17 {
        t[k] = 1.0 / f;
        f *= (k + 3) as f64;
        k += 1;
    }
    t
};

/// E1(w) = e^w − 1 − w ≥ 0, with a bound on its relative error (for the exact argument).
#[inline]
pub(super) fn expm1_minus_x(w: f64) -> (f64, f64) {
    if w.abs() <= 0.5 {
        // w²·Σ_{k≥0} w^k/(k + 2)!: 16 terms leave < 1e-20 relative
        let mut p = 0.0;
        for &f in INV_FACT_FROM_2.iter().rev() {
            p = p * w + f;
        }
        (w * w * p, 6.0 * U)
    } else {
        let e = f64::exp_m1(w);
        let v = e - w;
        (v, U * (3.0 * e.abs() + w.abs() + v.abs()) / v)
    }
}

/// Upper bound on A_α − 1 = E_{μ0}[g(q(L − 1))], g(y) = (1 + y)^α − 1 − αy ≥ 0, by the
/// trapezoidal rule on the whole line with a rigorous error bound (see the module doc), or
/// None when it is not applicable (overflow, too many nodes).
#[cfg(test)]
pub(super) fn am1_quadrature_up(alpha: f64, q: f64, c: f64) -> Option<f64> {
    QuadPlan::new(alpha, q, c, 0.0)?.run(MAX_NODES as f64)
}

/// The step and tail parameters of the trapezoidal rule for one (α, q, c), and the predicted
/// number of nodes.
#[derive(Clone, Copy)]
pub(super) struct QuadPlan {
    alpha: f64,
    beta: f64,
    q: f64,
    c: f64,
    h: f64,
    norm: f64,
    sqrt2c: f64,
    cq2: f64,
    rho: f64,
    kappa: f64,
    ln_up_tail: f64,
    a_max: f64,
    /// predicted extent of the sweeps divided by h
    nodes: f64,
    /// ln q and ln((1 − q)/q) as double-doubles (~2^-100 relative), for the nodes where
    /// (1 + y)^α dominates (`trapezoid`)
    lq: Dd,
    lr: Dd,
    /// the low part of c (c + c_lo is evaluated)
    c_lo: f64,
}

impl QuadPlan {
    /// At c + c_lo (c_lo a small correction, |c_lo| ≤ 4u·c): the nodes use both parts (the step,
    /// the tail and discretisation bounds c alone: their relative changes ~u·cX² are far
    /// below their margins, the tails being ≤ 1e-19 of the sum and the total bound ×1.001).
    pub(super) fn new(alpha: f64, q: f64, c: f64, c_lo: f64) -> Option<QuadPlan> {
        let beta = alpha - 1.0; // exact
        if !(beta > 0.0 && q > 0.0 && q < 1.0 && c > 0.0 && c.is_finite()) {
            return None;
        }
        let c2 = 0.5 * alpha * beta * (1.0 + 4.0 * U);
        let kappa = alpha.max(2.0);
        // (1 + ξ)^{α−2} on ξ ∈ (−q, 0)
        let rho = if alpha < 2.0 {
            f64::exp((alpha - 2.0) * f64::ln_1p(-q)) * (1.0 + 8.0 * U)
        } else {
            1.0
        };
        let ln_up_tail = c * kappa * (kappa - 1.0); // e^{cκ(κ−1)}: the upper tail's tilt
                                                    // density of μ0 = N(0, 1/(2c)) at 0, times √(1 + c_lo/c) to first order (the
                                                    // remainder ≤ (c_lo/c)²/8 ~ 1e-31)
        let norm = (c / std::f64::consts::PI).sqrt() * (1.0 + 0.5 * c_lo / c);
        let sqrt2c = (2.0 * c).sqrt();
        let cq2 = c2 * q * q;
        // the strip of analyticity of the integrand in x: |Im x| < π/(2c)
        let a_max = 0.98 * std::f64::consts::FRAC_PI_2 / c;
        // leading-order size of A − 1, only used to choose the step (checked afterwards)
        let est = (cq2 * f64::exp_m1(2.0 * c).min(1e300)).max(1e-300);
        let target = (f64::ln(2.0 * (2.0 + 2.0 * alpha * q) / est)
            + 20.0 * std::f64::consts::LN_10)
            .max(40.0);
        let mut h = {
            let h_free = std::f64::consts::PI / (c * target).sqrt();
            if std::f64::consts::PI / (c * h_free) <= a_max {
                h_free
            } else {
                2.0 * std::f64::consts::PI * a_max / (target + c * a_max * a_max)
            }
        };
        // 8 significant bits: the nodes k·h are exact
        let e = h.log2().floor();
        h = (h * f64::exp2(7.0 - e)).floor() * f64::exp2(e - 7.0);
        // predicted extent of the sweeps (where the tail bounds reach 1e-19 of the estimate)
        let ln_rel = (f64::ln(cq2 / est) + 44.0).max(0.0);
        let x_hi = kappa + ((ln_up_tail + ln_rel) / c).sqrt();
        let x_lo = ((f64::ln(rho) + ln_rel) / c).sqrt();
        Some(QuadPlan {
            alpha,
            beta,
            q,
            c,
            h,
            norm,
            sqrt2c,
            cq2,
            rho,
            kappa,
            ln_up_tail,
            a_max,
            nodes: (x_hi + x_lo) / h,
            c_lo,
            lq: ln_dd(Dd::from_f64(q)),
            lr: log1p_dd(Dd::from_f64(-q)) - ln_dd(Dd::from_f64(q)),
        })
    }

    /// The quadrature's upper bound on A − 1, or None (not applicable, or more than
    /// `max_nodes` nodes predicted).
    pub(super) fn run(&self, max_nodes: f64) -> Option<f64> {
        let QuadPlan {
            alpha,
            q,
            c,
            mut h,
            a_max,
            nodes,
            ..
        } = *self;
        if !(nodes < max_nodes) {
            return None;
        }
        for _attempt in 0..4 {
            let (sum, err, _) = trapezoid(self, h)?;
            if !(sum > 0.0) {
                return None;
            }
            // |T − I| ≤ 2M/(e^{2πa/h} − 1), M = e^{c a²}(A + 1 + 2αq) (Trefethen–Weideman 2014,
            // Thm 5.1), with A = 1 + I: I ≤ (T + k(2 + 2αq))/(1 − k), k = 2e^{ca²}/(e^{2πa/h} − 1)
            let a = (std::f64::consts::PI / (c * h)).min(a_max);
            let expo = 2.0 * std::f64::consts::PI * a / h;
            let k = 2.0 * f64::exp(c * a * a - expo) / (-f64::exp_m1(-expo)) * (1.0 + 16.0 * U);
            let t_up = sum + err;
            if k < 1e-3 {
                let i_max = (t_up + k * (2.0 + 2.0 * alpha * q)) / (1.0 - k);
                let disc = k * (2.0 + 2.0 * alpha * q + i_max);
                if disc <= 1e-16 * sum {
                    return Some((t_up + disc) * (1.0 + 4.0 * U));
                }
            }
            h *= 0.5;
        }
        None
    }
}

/// Maximum number of nodes of one trapezoidal sum.
pub(super) const MAX_NODES: usize = 20_000;

/// The trapezoidal sum h·Σ_k f(kh) of f(x) = w(x)·g(q·expm1(c(2x − 1))), w the density of
/// N(0, 1/(2c)), truncated where the rigorous tail bounds are negligible: (sum, bound on
/// |sum − infinite sum| including rounding, number of nodes).
fn trapezoid(plan: &QuadPlan, h: f64) -> Option<(f64, f64, usize)> {
    let QuadPlan {
        alpha,
        beta,
        q,
        c,
        norm,
        sqrt2c,
        cq2,
        rho,
        kappa,
        ln_up_tail,
        lq,
        lr,
        c_lo,
        ..
    } = *plan;
    let node = |x: f64| -> Option<(f64, f64)> {
        // t = c(2x − 1) as t + t_lo (2x − 1 by TwoSum, the product's fma residual): the rounding
        // of t had entered y = q·expm1(t) as u·t relative and g ≈ (1 + y)^α as α·u·t, and the
        // rounding of c·x² the weight as u·cx² (x² is exact: x = k·h, k < 2^15, h 8 bits):
        // with α ≈ 238 the bound was ~5e-12 relative (α·2u·t + 3u·w + 2u·cx² at t ≈ 25,
        // w ≈ cx² ≈ 3000).
        let (d, d_lo) = two_sum(2.0 * x, -1.0);
        let t = c * d;
        let t_lo = c.mul_add(d, -t) + c * d_lo + c_lo * d;
        let xx = x * x;
        let cx2 = c * xx;
        let cx2_lo = c.mul_add(xx, -cx2) + c_lo * xx;
        // Where z = (1 − q)e^{−t}/q ≤ 1 and w = β ln(1 + y) ≥ 45: f = h·norm·e^{α l − cx²}
        // (1 − (1 + w)e^{−w}) + β·h(y)·w(x), with l = ln(1 + y) = ln q + t + ln_1p(z) and
        // the exponent α l − cx² formed as a double-double (|α l|, cx² ~ 3000 cancel to
        // ~−20 at α ≈ 238): f̂ = h·norm·e^{E_hi}(1 + E_lo) is above the first part, and the
        // dropped (1 + w)e^{−w} and β·h(y)·w(x) ≤ w e^{−w}·f are ≤ (1 + 2w)e^{−w} f. Error of
        // l: ln_1p 2u·ln_1p(z), z's 4.1u (exp, 1 + lo, product) times z/(1 + z) ≤ ½, the
        // double-double parts ~1e-28(|ln q| + t); of f: α·dl + exp 2u + norm 3u + 5 products
        // or sums + 1 + E_lo.
        let ar = lr - Dd::new(t, t_lo);
        if ar.hi <= 0.0 {
            let z = f64::exp(ar.hi) * (1.0 + ar.lo);
            let lz = f64::ln_1p(z);
            let l = (lq + Dd::new(t, t_lo)).add_f(lz);
            let w = beta * l.hi;
            if w >= 45.0 {
                let e = l.mul_f(alpha) - Dd::new(cx2, cx2_lo);
                let f = h * norm * f64::exp(e.hi) * (1.0 + e.lo);
                if !f.is_finite() {
                    return None;
                }
                let dl = 2.0 * U * lz
                    + 4.2 * U * z
                    + 1e-28 * (lq.hi.abs() + lr.hi.abs() + t.abs() + 1.0);
                let rel = alpha * dl
                    + 1e-28 * (alpha * l.hi.abs() + cx2)
                    + 12.0 * U
                    + (1.0 + 2.0 * w) * f64::exp(-w) * 1.01;
                return Some((f, f * rel * 1.0001));
            }
        }
        let em = f64::exp_m1(t);
        let em = em + (1.0 + em) * t_lo;
        let y = q * em;
        let l = f64::ln_1p(y);
        let (hv, rh) = h_plogp(y, l);
        let w = beta * l;
        let (e1, re1) = expm1_minus_x(w);
        let g = beta * hv + (1.0 + y) * e1;
        if !g.is_finite() {
            return None;
        }
        if g == 0.0 {
            return Some((0.0, 0.0));
        }
        // error of w = β·ln(1 + y) (3U) through E1: d ln E1/d ln w = w·(w + E1)/E1
        let sens_w = if e1 > 0.0 {
            (w * (w + e1) / e1).abs()
        } else {
            2.0
        };
        let re1 = re1 + 3.0 * U * sens_w + 2.0 * U;
        let rg = (rh + U).max(re1) + U;
        // error of y (expm1 ≤ 1 ulp, the t_lo correction and its sum, the product; t's own
        // rounding is corrected to O(u²t)) through g: d ln g/d ln y = y·g'(y)/g,
        // g' = α·expm1(w) = α(w + E1)
        let dy = U * 5.0 + 1e-30 * t * t;
        let sens_y = (y * alpha * (w + e1) / g).abs();
        let rg = rg + sens_y * dy;
        // weight: exp of −(cx² + its fma residual) (exp 1 ulp, 1 − residual, product; the
        // residual's square ≤ u²cx²·cx² is covered by 1e-30·cx2²), norm (3U)
        let wt = norm * (f64::exp(-cx2) * (1.0 - cx2_lo));
        let rw = U * 8.0 + 1e-30 * cx2 * cx2;
        let f = h * wt * g;
        Some((f, f * (rg + rw + 3.0 * U)))
    };
    let (mut acc, mut err, mut n) = (Neumaier::default(), 0.0_f64, 0_usize);
    const TAIL: f64 = 1e-19;
    // upper sweep x = 0, h, 2h, ...: beyond X ≥ κ the remaining nodes sum to at most
    // C2 q² e^{cκ(κ−1)}·[h·w(X − κ) + Q((X − κ)√(2c))]
    let tail_hi;
    let ln_c_tail = f64::ln(cq2) + ln_up_tail;
    let mut k = 0_u64;
    loop {
        let x = k as f64 * h;
        let (f, e) = node(x)?;
        acc.add(f);
        err += e;
        n += 1;
        let xn = x + h;
        if xn >= kappa {
            let z = xn - kappa;
            let dens = f64::ln(h * norm) - c * z * z;
            let thr = f64::ln(TAIL * acc.value());
            // the bound is ≥ its density part (ln(e^a + e^b) ≥ a): while that part alone lies
            // above the threshold the sweep goes on without evaluating the Gaussian tail (most
            // nodes past κ; the margin covers the rounding of the log-sum), so the node where
            // it stops and the bound added there are the same as when every node evaluated it
            if ln_c_tail + dens > thr + 1e-9 * (1.0 + thr.abs()) {
                if n > MAX_NODES {
                    return None;
                }
                k += 1;
                continue;
            }
            let lb = ln_c_tail + log_add_exp(dens, log_gaussian_tail(z * sqrt2c));
            if lb <= thr {
                let b = f64::exp(lb) * (1.0 + 16.0 * U);
                tail_hi = b;
                break;
            }
        }
        if n > MAX_NODES {
            return None;
        }
        k += 1;
    }
    // lower sweep x = −h, −2h, ...: beyond X ≤ 0 (there y ∈ (−q, 0)) the remaining nodes sum to
    // at most C2 q² ρ·[h·w(X) + Q(|X|√(2c))]
    let tail_lo;
    let mut k = 1_u64;
    loop {
        let x = -(k as f64) * h;
        let (f, e) = node(x)?;
        acc.add(f);
        err += e;
        n += 1;
        let xn = x - h;
        let dens = h * norm * f64::exp(-c * xn * xn);
        let thr = TAIL * acc.value();
        // as above: the bound is ≥ its density part (every factor and the tail ≥ 0, rounding
        // monotone), so while that part exceeds the threshold the tail is not evaluated
        let b = if cq2 * rho * dens > thr {
            f64::INFINITY
        } else {
            cq2 * rho * (dens + gaussian_tail(-xn * sqrt2c))
        };
        if b <= thr {
            tail_lo = b;
            break;
        }
        if n > MAX_NODES {
            return None;
        }
        k += 1;
    }
    let sum = acc.value();
    let nf = n as f64;
    // compensated summation of non-negative terms: ≤ 2U·sum + n²U²·sum
    let round = (2.0 * U + nf * nf * U * U) * sum;
    let bound = (err + round + tail_hi + tail_lo) * (1.0 + 1e-3);
    Some((sum, bound, n))
}
