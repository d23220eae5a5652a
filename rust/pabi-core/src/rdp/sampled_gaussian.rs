//! Sampled Gaussian RDP at integer orders and the dispatch to fractional orders.
//!
//! Thudi et al., *Gradients look alike* (USENIX Security 2024), Thm 3.2 (data-independent
//! for r = clip/σ, per-instance for r = Δ/σ); Mironov–Talwar–Zhang 2019 §3.3 for fractional
//! orders (`fractional.rs`). Derivation and error analysis: docs/derivations/rdp.md.
//!
//! For integer α ≥ 2 and c = r²/2 (r = Δ/σ):
//! (α − 1)·ε(α) = ln A_α, A_α − 1 = Σ_{k=2..α} pmf_{Bin(α,q)}(k)·expm1(c k(k − 1)) ≥ 0
//! (no cancellation). Two evaluation paths share one table of binomial log-pmf values per
//! (α, q) (`crate::num::binom::log_binom_pmf_int`, Loader's form):
//! * **direct** (α ≤ 64, c α(α − 1) ≤ 600, every e^{k ln q + (α − k) ln(1 − q)} normal; pmf_k
//!   from the exact C(α, k) and that exponent as a double-double): expm1(c k(k−1)) by the
//!   positive recurrences G_k = G_{k−1} + m(1 + G_{k−1}), F_{k+1} = F_k + G_k + F_k G_k with
//!   m = expm1(2c) and a running error bound (≤ 300u, else term by term with expm1), then
//!   log1p(Σ pmf_k F_k) rounded up by its proven bound;
//! * **log** (otherwise): softplus_std(logsumexp_k[ln pmf_k + ln expm1(c k(k − 1))]).
//!
//! Fractional α: [`Fractional::Exact`] (default of the batch API) evaluates the exact series
//! (cancellation-free A − 1, Euler-transformed tails, a proven bound on truncation and rounding
//! errors that is added; where a cost model prefers it, a trapezoidal quadrature with proven
//! error bounds), capped by the ceiling rule; [`Fractional::Ceil`] uses ε(⌈α⌉) (D_α is
//! non-decreasing in α; Thudi et al. §3.2; α ∈ (1, 2] uses order 2).
//! Integer orders are rounded up by their proven bounds (a few 1e-14 at most; the former
//! extra margin 2^-46·(1 + log2 α) is gone), fractional ones by the series' or quadrature's.

use super::checks::{check_alpha, check_q};
use super::fractional;
use crate::driver::at;
use crate::error::{PabiError, Result};
use crate::num::dd::{ln_dd, log1p_dd, Dd, LN2_DD};
use crate::num::logspace::{exp_std_flush, log_expm1_std, softplus_std};
use crate::num::round::up_order;
use crate::num::{neumaier_sum, HALF_ULP_ONE, TINY};

/// Largest order accepted by the sampled-Gaussian RDP (cost and memory are O(α)).
pub const MAX_ORDER: f64 = 1.0e7;

const FAST_MAX_ORDER: u64 = 64;
const FAST_MAX_EXPONENT: f64 = 600.0;

/// Per-(order, q) table of the binomial terms k = 2..=order of Thm 3.2.
#[derive(Debug, Clone)]
pub(super) struct SgmTable {
    pub(super) order: u64,
    pub(super) q: f64,
    pub(super) pmf: Vec<f64>,
    pub(super) direct: bool,
    /// For the log path: ln q as a double-double, ln(1 − q) as one, and
    /// ln C(order, k) for k = 2..=order as (ln of the mantissa in [1, 2^32), binary exponent)
    pub(super) lq_dd: Dd,
    pub(super) l1q_dd: Dd,
    pub(super) ln_choose: Vec<(f64, f64, f64)>,
}

impl SgmTable {
    /// Table for integer `order` ≥ 2 and 0 ≤ q ≤ 1 (pre-validated).
    pub fn new(order: u64, q: f64) -> Self {
        let interior = q > 0.0 && q < 1.0;
        let (mut lq_dd, mut l1q_dd, mut ln_choose) = (Dd::default(), Dd::default(), Vec::new());
        if interior {
            lq_dd = ln_dd(Dd::from_f64(q));
            l1q_dd = log1p_dd(Dd::from_f64(-q));
            ln_choose = ln_choose_table(order);
        }
        // pmf_k = C(n, k)·e^{E_k}, E_k = k ln q + (n − k) ln(1 − q) as a double-double (ln q,
        // ln(1 − q) to ~2^-100: |E_k error| ≤ 1e-27·700), C(n, k) < 2^62 exact in u128 and
        // rounded once (u): pmf_k = fl(C)·exp(E_hi)·(1 + E_lo) is within 6.01u relative
        // (exp 1 ulp = 2u, the three roundings of 1 + E_lo and the two products). The former
        // exp(ln pmf) had an error 2u·|ln pmf| (up to 1.5e-13 at ln pmf = −690), which put
        // sampled_gaussian_rdp(22, 2.0263293496114372e-11, z = 0.6547427595121699) 2.2e-14
        // below the exact value. Direct only where every e^{E_hi} is normal.
        let mut pmf = Vec::new();
        let mut direct = interior && order <= FAST_MAX_ORDER;
        if direct {
            let mut ck: u128 = order as u128 * (order as u128 - 1) / 2; // C(n, 2)
            for k in 2..=order {
                let e = lq_dd.mul_f(k as f64) + l1q_dd.mul_f((order - k) as f64);
                if !(e.hi > -700.0) {
                    direct = false;
                    break;
                }
                pmf.push(ck as f64 * f64::exp(e.hi) * (1.0 + e.lo));
                ck = ck * (order - k) as u128 / (k + 1) as u128; // exact: C(n, k + 1)
            }
            if !direct {
                pmf.clear();
            }
        }
        SgmTable {
            order,
            q,
            pmf,
            direct,
            lq_dd,
            l1q_dd,
            ln_choose,
        }
    }

    /// Whether the direct (linear-scale) path applies at c.
    #[inline]
    pub fn direct_ok(&self, c: f64) -> bool {
        let a = self.order as f64;
        self.direct && c * a * (a - 1.0) <= FAST_MAX_EXPONENT
    }

    /// An upper bound on (α − 1)·ε(α) = ln A_α at c = r²/2 (for c + c_lo, c_lo the low part
    /// of a double-double c), within (α + 16)u relative on the direct path, a few 1e-15 (the
    /// per-term bound) on the log path.
    #[inline]
    pub fn log_a(&self, c: f64) -> f64 {
        self.log_a_dd(c, 0.0)
    }

    /// [`Self::log_a`] at c + c_lo.
    pub fn log_a_dd(&self, c: f64, c_lo: f64) -> f64 {
        let a = self.order as f64;
        if self.q == 0.0 || c == 0.0 {
            return 0.0;
        }
        if self.q == 1.0 {
            return a * (a - 1.0) * c;
        }
        if c.is_infinite() {
            return f64::INFINITY;
        }
        if self.direct_ok(c) {
            if let Some(l) = self.log_a_recurrence(c, c_lo) {
                return l;
            }
            return self.log_a_expm1(c, c_lo);
        }
        // log path
        self.log_a_precise(c, c_lo)
    }

    /// The direct path by the recurrences G_k = G_{k−1} + m(1 + G_{k−1}) (G_k = expm1(2ck)),
    /// F_{k+1} = F_k + G_k + F_k G_k (F_k = expm1(c k(k − 1))), m = expm1(2c), with a running
    /// bound: λ_G, λ_F ≥ |ln(1 + Ĝ_k) − ln(1 + G_k)|, |ln(1 + F̂_k) − ln(1 + F_k)|. m is within
    /// δm = 2u (1 ulp) + 2|c_lo|(1 + m)/m (the dropped low part of c) relative, so 1 + m within
    /// δm·μ, μ = m/(1 + m); a G step rounds 1 + G, the product and the sum: ≤ 2uμ + u·Ĝ/(1 + Ĝ)
    /// in ln(1 + G); an F step (three positive roundings) ≤ 3u·F̂/(1 + F̂) in ln(1 + F), and
    /// adds λ_G (x/(1 + x) ≤ min(1, x)). Then |F̂ − F| ≤ (1 + F̂)λ_F(1 + λ_F) and
    /// Σ pmf_k F̂_k is within err = Σ pmf_k(1 + F̂_k)λ_F·1.01 + (6.01u pmf + u product +
    /// (n − 1)u sum)·acc; ln_1p (1 ulp, condition ≤ 1) then ×(1 + η + 4u), η = err/acc. The
    /// bound grows like k²u where G ≥ 1 (1.1e-12 at α = 64, x = 600, where the former margin
    /// 1e-13 was not proven): None when η > 300u (`log_a_expm1` then).
    #[inline]
    fn log_a_recurrence(&self, c: f64, c_lo: f64) -> Option<f64> {
        let u = HALF_ULP_ONE;
        let m = f64::exp_m1(2.0 * c);
        if !(m > 1e-290) {
            return None;
        }
        let mu = m / (1.0 + m);
        let dm = 2.01 * u + 2.02 * c_lo.abs() * (1.0 + m) / m;
        let step = (dm + 2.0 * u) * mu;
        let n = self.pmf.len() as f64;
        // λ_F at the last order is ≥ Σ_j j·step ≈ n²·step/2: where that alone exceeds the
        // budget (large α and c) the term-by-term path is taken at once (a choice of path only)
        if 0.5 * n * n * step > 300.0 * u {
            return None;
        }
        let (mut g, mut f) = (m, m);
        let (mut lg, mut lf) = (dm * mu, dm * mu);
        let (mut acc, mut err) = (0.0, 0.0);
        for &pk in &self.pmf {
            acc += pk * f;
            err += pk * (1.0 + f) * lf;
            g += m * (1.0 + g);
            lg += step + u * g.min(1.0);
            f += g + f * g;
            lf += lg + 3.0 * u * f.min(1.0);
        }
        let eta = 1.011 * err / acc + (n + 6.1) * u;
        if !(acc > 1e-290 && eta <= 300.0 * u) {
            return None;
        }
        Some(f64::ln_1p(acc) * (1.0 + eta + 4.0 * u))
    }

    /// The direct path term by term: F_k = expm1(x_k), x_k = (c + c_lo)·k(k − 1) = x̂ + x_lo
    /// (x̂ = fl(c·k(k − 1)); x_lo = (c_h·k(k − 1) − x̂) + c_r·k(k − 1) + c_lo·k(k − 1) with
    /// c = c_h + c_r, c_h the top 41 bits: c_h·k(k − 1) is exact (k(k − 1) < 2^12), its
    /// difference to x̂ exact (Sterbenz), c_r·k(k − 1) exact; the sums and c_lo's product
    /// round x_lo by ≤ 3u|x_lo| ≤ 12u²x), evaluated as F̂ + (1 + F̂)·x_lo (e^{x_lo} − 1 − x_lo
    /// ≤ x_lo² ≤ 16u²x², x ≤ 600): ≤ 3.01u relative (expm1 1 ulp, the final sum; the
    /// correction's roundings are O(u²x)). Σ pmf_k F_k: pmf 6.01u, product u, the sum of
    /// n = α − 1 positive terms (n − 1)u: acc within (n + 9.1)u; ln_1p 1 ulp and its condition
    /// acc/((1 + acc) ln(1 + acc)) ≤ 1: ln A within (n + 11.2)u, so ×(1 + (n + 14)u)
    /// (rounded to nearest) is above it. Subnormal terms (c < ~1e-290): ≤ 2^-1074 absolute
    /// each, n·1e-323 added.
    fn log_a_expm1(&self, c: f64, c_lo: f64) -> f64 {
        let c_h = f64::from_bits(c.to_bits() & !0xfff_u64);
        let c_r = c - c_h;
        let mut acc = 0.0;
        for (i, &pk) in self.pmf.iter().enumerate() {
            let kk = ((i + 2) * (i + 1)) as f64; // k(k − 1), exact
            let x = c * kk;
            let x_lo = (c_h * kk - x) + c_r * kk + c_lo * kk;
            let f = f64::exp_m1(x);
            acc += pk * (f + (1.0 + f) * x_lo);
        }
        let n = self.pmf.len() as f64;
        f64::ln_1p(acc) * (1.0 + (n + 14.0) * HALF_ULP_ONE) + n * 1e-323
    }

    /// The log path with each term's logarithm t_k = ln pmf_k + ln expm1(x_k), x_k = c k(k − 1),
    /// formed without the cancellation of its large parts: k ln q + x_k is ~±1200 at α = 90,
    /// q = 1.6e-6 where t_k ≈ −1.7, and their ulps (each rounded alone, to nearest, plus the
    /// rounding of c) had made ln A up to 3.4e-13 relative low, beyond the 1.1e-13 margin of
    /// `up_order` (sampled_gaussian_rdp(90, 1.56e-6, z = 1.83) was 2.3e-13 below the exact value).
    /// Here k ln q + (α − k) ln(1 − q) + ln C(α, k) + x_k is summed as a double-double (ln q,
    /// ln(1 − q) to ~2^-100, x_k = (c + c_lo)·k(k − 1) exactly to ~2^-104), so each t_k is
    /// within ε_k = 3u·|ln m_k| (ln of C's mantissa m_k, ≤ 1 ulp, and its lo part) + 4u(|g_k| + 1) (g_k =
    /// ln(1 − e^{−x}) or ln expm1(x) for x ≤ ln 2) + u|t_k| + 2^-89(|t_k| + |ln C| + k|ln q| + α|ln(1−q)| + x_k) + 1e-29·α of its
    /// exact value; the log-sum-exp adds ≤ 3u + 1.01u|t_k − m| per term and 2u(|ln s| + 1) + u|L|.
    /// ln Σ e^{t_k + η_k} ≤ ln Σ e^{t_k} + Σ w_k η_k (1 + η) (weights w_k = e^{t_k}/Σ): L is moved
    /// up by the weighted bound (×1.001); softplus's ≤ 5u by ×(1 + 7u) below, and the division
    /// by α − 1 by the caller's `div_up_rel` (no `up_order` margin on this path any more).
    fn log_a_precise(&self, c: f64, c_lo: f64) -> f64 {
        let u = HALF_ULP_ONE;
        let n = self.order as f64;
        let mut mx = f64::NEG_INFINITY;
        let mut terms: Vec<(f64, f64)> = Vec::with_capacity(self.ln_choose.len());
        for (i, &(lm, e2, lmag)) in self.ln_choose.iter().enumerate() {
            let k = (i + 2) as f64;
            let kk = k * (k - 1.0); // exact (< 2^53)
            let x = Dd::new(c, c_lo).mul_f(kk);
            let (g, big) = if x.hi > std::f64::consts::LN_2 {
                (f64::ln_1p(-f64::exp(-x.hi)), true)
            } else {
                (log_expm1_std(x.hi), false)
            };
            let mut t = self.lq_dd.mul_f(k) + self.l1q_dd.mul_f(n - k) + LN2_DD.mul_f(e2);
            t = t.add_f(lm);
            if big {
                t = t + x;
            }
            let tk = t.add_f(g).to_f64();
            if tk == f64::NEG_INFINITY || tk.is_nan() {
                continue;
            }
            let err = 3.0 * u * lm.abs()
                + 4.0 * u * (g.abs() + 1.0)
                + u * tk.abs()
                + 1e-27
                    * (tk.abs() + lmag + k * self.lq_dd.hi.abs() + n * self.l1q_dd.hi.abs() + x.hi)
                + 1e-29 * n;
            mx = mx.max(tk);
            terms.push((tk, err));
        }
        if !mx.is_finite() {
            return 0.0;
        }
        let mut wsum = 0.0;
        let s = neumaier_sum(terms.iter().map(|&(t, err)| {
            let w = exp_std_flush(t - mx);
            wsum += w * (err + 3.0 * u + 1.01 * u * (t - mx).abs());
            w
        }));
        let ls = f64::ln(s);
        let l = mx + ls;
        let margin = (wsum / s) * 1.001 + 2.0 * u * (ls.abs() + 1.0) + 2.0 * u * l.abs();
        // softplus: ≤ 5u relative (exp 1 ulp through ln_1p of condition ≤ 1, ln_1p 1 ulp, the
        // sum for y > 0); ×(1 + 7u) rounded to nearest is ≥ ×(1 + 5.9u)
        softplus_std(l + margin) * (1.0 + 7.0 * u)
    }

    /// ε(α) rounded up.
    #[inline]
    pub fn rdp(&self, c: f64) -> f64 {
        self.rdp_dd(c, 0.0)
    }

    /// [`Self::rdp`] at the double-double c + c_lo (|c_lo| ≤ ½ulp(c)).
    pub fn rdp_dd(&self, c: f64, c_lo: f64) -> f64 {
        let a = self.order as f64;
        let v = if self.q == 1.0 && c.is_finite() {
            // exact α c, rounded up
            up_order(a * c, 2.0)
        } else if c.is_finite() && self.q > 0.0 {
            // never above the unsampled value α·c rounded up (the q = 1 branch), which is an
            // upper bound for every q (subsampling does not increase D_α): exactly
            // non-decreasing into q = 1 (at α = 3, r = 1 the margin up_order(·, α) made
            // q = 0.9999999999999999 give 1.5000000000000546 > 1.5000000000000426 at q = 1)
            // log_a_dd is an upper bound: the division (u) and ×(1 + 3u) (u) leave it one
            // (1 − u)²(1 + 3u) ≥ 1; the former margin up_order(·, α) (2^-46·(1 + log2 α),
            // 1e-13 at α = 128) came on top of the log path's proven per-term bound
            div_up_rel(self.log_a_dd(c, c_lo), a - 1.0).min(up_order(a * c, 2.0))
        } else {
            div_up_rel(self.log_a(c), a - 1.0)
        };
        if v == 0.0 && self.q > 0.0 && c > 0.0 {
            TINY // underflowed (q = 1e-200: ε ~ 1e-400), not an exact 0
        } else {
            v
        }
    }
}

/// l/d rounded up for an upper bound l ≥ 0 and d ≥ 1 (a few subnormal ulps added for tiny
/// l); an exact 0 stays 0.
#[inline]
fn div_up_rel(l: f64, d: f64) -> f64 {
    if l == 0.0 {
        0.0
    } else {
        l / d * (1.0 + 3.0 * HALF_ULP_ONE) + TINY
    }
}

/// ln C(n, k) for k = 2..=n as (ln m, e, |ln C| bound): C = m·2^e with m in [1, 2^32) from
/// the double-double recurrence C(n, j + 1) = C(n, j)·(n − j)/(j + 1) (relative error ~n·2^-104;
/// rescaled by exact powers of two), ln m to ≤ 1 ulp, and the lo part folded in as lo/hi.
fn ln_choose_table(n: u64) -> Vec<(f64, f64, f64)> {
    let mut out = vec![(0.0, 0.0, 0.0); (n - 1) as usize];
    let (mut cj, mut e) = (Dd::from_f64(1.0), 0i64);
    let nf = n as f64;
    // j = n − k from 0 to n − 2
    for j in 0..=(n - 2) {
        let lm = f64::ln(cj.hi) + cj.lo / cj.hi;
        out[(n - 2 - j) as usize] = (lm, e as f64, lm.abs() + (e as f64).abs());
        let jf = j as f64;
        cj = cj.mul_f(nf - jf).div_f(jf + 1.0);
        while cj.hi >= 4_294_967_296.0 {
            cj = cj.ldexp(-32);
            e += 32;
        }
        while cj.hi < 1.0 {
            cj = cj.ldexp(32);
            e -= 32;
        }
    }
    out
}

/// The integer order used for a real order α > 1: ⌈α⌉, at least 2.
#[inline]
pub(super) fn ceil_order(alpha: f64) -> u64 {
    alpha.ceil().max(2.0) as u64
}

/// How a fractional order is handled by the sampled Gaussian RDP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fractional {
    /// The exact divergence at α (Mironov–Talwar–Zhang series), never above ε(⌈α⌉).
    Exact,
    /// ε(⌈α⌉) (valid since D_α is non-decreasing in α; looser).
    Ceil,
}

/// Sampled Gaussian RDP at order α for c = r²/2 (pre-validated inputs): integer orders by the
/// binomial sum, fractional ones by `mode`.
#[cfg(test)]
pub(super) fn sgm_rdp_value(alpha: f64, q: f64, c: f64, mode: Fractional, table: &SgmTable) -> f64 {
    sgm_rdp_value_inner(alpha, q, (c, 0.0, false), mode, table, None)
}

/// c = r²/2 for r = s/σ as a double-double (hi, lo): r = s/σ and its square to ~2^-104 (the
/// rounded 0.5·r·r carried up to 3u relative, ~1200·3u in ln A at α = 90, z = 1.83).
#[inline]
/// The high part is the former c = 0.5·fl(s/σ)² (unchanged, used by the fractional orders);
/// the low part is the double-double value minus it (exact by two_sum; up to 3u·c).
/// The flag: whether hi + lo is the double-double value (false: c0 alone, a rounding).
fn half_square_ratio(s: f64, sigma: f64) -> (f64, f64, bool) {
    let r = s / sigma;
    let c0 = 0.5 * r * r;
    if !(c0.is_finite() && c0 > 1e-280 && c0 < 1e280) {
        return (c0, 0.0, false);
    }
    let c = Dd::from_f64(s).div_f(sigma).sqr().mul_f(0.5);
    let (hi, e) = crate::num::dd::two_sum(c.hi, -c0);
    (c0, hi + (e + c.lo), true)
}

/// [`sgm_rdp_value`] with the table of the order ⌊α⌋ (used by the fractional path's lower
/// clamp) given by a caller that evaluates many c at one α; `None` builds it when needed.
pub(super) fn sgm_rdp_value_floor(
    alpha: f64,
    q: f64,
    c: f64,
    mode: Fractional,
    table: &SgmTable,
    floor_table: Option<&SgmTable>,
) -> f64 {
    sgm_rdp_value_inner(alpha, q, (c, 0.0, false), mode, table, floor_table)
}

/// [`sgm_rdp_value_floor`] at the double-double c = (hi, lo) (integer orders use both parts).
fn sgm_rdp_value_inner(
    alpha: f64,
    q: f64,
    (c, c_lo, dd): (f64, f64, bool),
    mode: Fractional,
    table: &SgmTable,
    floor_table: Option<&SgmTable>,
) -> f64 {
    let ceil = table.rdp_dd(c, c_lo);
    if mode == Fractional::Exact && q == 1.0 && c.is_finite() && alpha != alpha.floor() {
        // no sampling: the Gaussian mechanism's D_α = α·c at every real order (it was the
        // ceiling rule's ⌈α⌉·c, 60% above at α = 1.25), rounded up as the integer orders
        return up_order(alpha * c, 2.0).min(ceil);
    }
    if mode == Fractional::Ceil
        || alpha == alpha.floor()
        || q == 0.0
        || q == 1.0
        || c == 0.0
        || !c.is_finite()
        || ceil == 0.0
    {
        return ceil;
    }
    let v = match fractional::log_a_frac_up(alpha, q, c, dd.then_some(c_lo)) {
        Some(la) => (la / (alpha - 1.0) * (1.0 + 4.0 * HALF_ULP_ONE) + TINY).min(ceil),
        None => ceil,
    };
    // never above the q = 1 value (as for the integer orders)
    let v = v.min(up_order(alpha * c, 2.0));
    // Exactly non-decreasing across the integer orders: the fractional value lies between the
    // integer ones, ε(⌊α⌋) ≤ ε(α) ≤ ε(⌈α⌉) (D_α is non-decreasing in α), so clamping it to the
    // integer bounds keeps it an upper bound and no larger than the ceiling rule. The two paths
    // carry different margins (2.7e-14 vs 7e-15 at α = 2, q = ½, r = 1):
    // sampled_gaussian_rdp(2.0, 0.5, 1.0) = 0.35737401950879866 was above the value at the next
    // order 2.0000000000000004, 0.35737401950879166.
    // The clamp takes c as the integer path does (hi and lo parts), so that the value at the
    // next double above an integer order n is never below the one at n: with c alone
    // (c_lo dropped) sampled_gaussian_rdp(46.0, 0.92650306242204, 1/0.3712641731578402) was
    // 166.78562060365087 at α = 46 and 166.78562060365084 at the next double.
    let lo = alpha.floor();
    if lo >= 2.0 {
        let floor_rdp = match floor_table {
            Some(t) if t.order == lo as u64 && t.q == q => t.rdp_dd(c, c_lo),
            _ => SgmTable::new(lo as u64, q).rdp_dd(c, c_lo),
        };
        v.max(floor_rdp)
    } else {
        v
    }
}

/// Sampled Gaussian RDP at c = r²/2 for one (α, q, r), validated; fractional α by `mode`.
pub fn sampled_gaussian_rdp_at(alpha: f64, q: f64, r: f64, mode: Fractional) -> Result<f64> {
    check_alpha(alpha, MAX_ORDER)?;
    check_q(q)?;
    if !(r >= 0.0) {
        return Err(PabiError::domain("r", ">= 0 (not NaN)", r));
    }
    let t = SgmTable::new(ceil_order(alpha), q);
    Ok(sgm_rdp_value_inner(
        alpha,
        q,
        half_square_ratio(r, 1.0),
        mode,
        &t,
        None,
    ))
}

/// Sampled Gaussian RDP ε(⌈α⌉) at c = r²/2 for one (α, q, r), validated (ceiling rule).
pub fn sampled_gaussian_rdp(alpha: f64, q: f64, r: f64) -> Result<f64> {
    sampled_gaussian_rdp_at(alpha, q, r, Fractional::Ceil)
}

/// Batch version over arrays as long as `out` or of length 1 (a broadcast value, read in place;
/// orders, q, sensitivity, sigma): r = sens/σ. Consecutive elements with the same (⌈α⌉, q)
/// share one binomial table.
pub fn sampled_gaussian_rdp_batch(
    alpha: &[f64],
    q: &[f64],
    sens: &[f64],
    sigma: &[f64],
    mode: Fractional,
    out: &mut [f64],
) -> Result<()> {
    let n = out.len();
    crate::batch::check_len(
        n,
        &[
            ("order", alpha.len()),
            ("sample_rate", q.len()),
            ("sensitivity", sens.len()),
            ("noise_scale", sigma.len()),
        ],
    )?;
    crate::batch::check(alpha, "order", "> 1 and <= 1e7 (not NaN)", |a| {
        a > 1.0 && a <= MAX_ORDER
    })?;
    crate::batch::check(q, "sample_rate", "in [0, 1]", |x| (0.0..=1.0).contains(&x))?;
    crate::batch::check(sens, "sensitivity", ">= 0 (not NaN)", |x| x >= 0.0)?;
    // σ = +inf with an infinite sensitivity made r = inf/inf = NaN, read as ε = 0
    crate::batch::check(sigma, "noise_scale", "> 0 and finite", |x| {
        x > 0.0 && x.is_finite()
    })?;
    let kernel = |a: &[f64], qq: &[f64], s: &[f64], sg: &[f64], o: &mut [f64]| {
        let mut cache: Option<SgmTable> = None;
        // an input of length 1 is a broadcast value (`driver::at`), read in place
        for (i, oi) in o.iter_mut().enumerate() {
            let (ai, qi) = (at(a, i), at(qq, i));
            let order = ceil_order(ai);
            let reuse = matches!(&cache, Some(t) if t.order == order && t.q == qi);
            if !reuse {
                cache = Some(SgmTable::new(order, qi));
            }
            let cc = half_square_ratio(at(s, i), at(sg, i));
            *oi = cache
                .as_ref()
                .map_or(0.0, |t| sgm_rdp_value_inner(ai, qi, cc, mode, t, None));
        }
    };
    let frac_work = if mode == Fractional::Exact {
        300.0
    } else {
        0.0
    };
    let work: f64 = alpha
        .iter()
        .map(|&a| a.min(1e6) + if a != a.floor() { frac_work } else { 0.0 })
        .sum::<f64>()
        * if alpha.len() == 1 { n as f64 } else { 1.0 };
    // parallel (chunks of n/(4·threads): the rows are independent, the chunking only splits
    // the work) when the estimated work is large, on the calling thread otherwise
    let par_min = if n > 1 && work > 2e5 { 2 } else { usize::MAX };
    let chunk = (n / (4 * crate::driver::num_threads())).max(1);
    crate::driver::blocks(
        [alpha, q, sens, sigma],
        out,
        par_min,
        chunk,
        |[a, qq, s, sg], o| kernel(a, qq, s, sg, o),
        |(), ()| (),
    )?;
    Ok(())
}
