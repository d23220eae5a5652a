//! Sampled Gaussian RDP at fractional orders: the exact series of Mironov, Talwar & Zhang,
//! *Rényi differential privacy of the sampled Gaussian mechanism* (2019), §3.3 (the series of
//! dp-accounting's `_compute_log_a_frac`), rearranged so that A_α − 1 is computed without
//! cancellation, with a rigorous truncation bound, rounded up.
//!
//! # The series
//! Unit sensitivity, noise σ = 1/r, c = r²/2, μ0 = N(0, σ²), L(x) = e^{(2x−1)c} (likelihood
//! ratio of N(1, σ²) to μ0). A_α = E_{μ0}[(1 − q + qL)^α]; the integrand is split at
//! z0 = ln((1 − q)/q)/(2c) + ½ (where qL = 1 − q) and each side expanded binomially:
//! A_α = Σ_i T_i + Σ_i U_i with
//! T_i = C(α,i)(1−q)^{α−i}q^i e^{c(i²−i)} Φ((z0 − i)/σ),
//! U_i = C(α,i)q^{α−i}(1−q)^i e^{c(j²−j)} Q((z0 − j)/σ), j = α − i.
//! Completing the square gives the uniform form T_i = C(α,i)·K·M((i − z0)/σ),
//! U_i = C(α,i)·K·M((i + z0 − α)/σ), K = (1 − q)^α e^{−c z0²}/√(2π), M = Q/φ the Mills ratio.
//!
//! # Rearrangement (no cancellation in A − 1)
//! The side whose binomial weights p_i sum to 1 is the *primary* side (lower for q ≤ ½,
//! weights p_i = C(α,i)(1−q)^{α−i}q^i; upper for q > ½). With 1 = Σ p_i:
//! A − 1 = Σ_i (Primary_i − p_i) + Σ_i Secondary_i, and Primary_i − p_i is evaluated as
//! p_i·expm1(e_i) − C(α,i)K·M(−t_i) while the primary argument t_i ≤ 0 (this is the integer
//! algorithm's Σ pmf·expm1 plus a correction of size K), as C(α,i)K·M(t_i) − p_i beyond.
//!
//! # Truncation bound
//! For i ≥ ⌊α⌋ + 2 the signs of C(α,i) alternate and |C(α,i)| ∝ Γ(i − α)/Γ(i + 1) is a
//! Hausdorff moment sequence; so are M(t0 + i h) (a Laplace transform in i) and geometric
//! sequences, and so are their products. For a moment sequence b, Σ_k (−1)^k b_k =
//! Σ_m ∇^m b_0 / 2^{m+1} (Euler transform) with ∇^m b_0 ≥ 0 and remainder in
//! [0, ∇^M b_0 / 2^M]: the three tails are summed this way, converging at rate ≥ 2 per term
//! (the plain series decays only like i^{−α−2}), and the remainder is added to the bound.
//!
//! # Error bound
//! Each term's logarithm is computed from parts whose magnitudes are tracked; the final value
//! adds Σ |term|·(error of its log) + the Euler rounding and truncation bounds, so the result
//! is an upper bound. It is also capped by the ceiling rule ε(⌈α⌉) (another upper bound).
//! Accuracy: ≤ 1e-14 relative except where A − 1 ≪ K (q within ~0.2 of ½ and r ≲ 0.05, or α
//! within ~1e-3 of 1), where the series has inherent cancellation of order u·K/(A − 1).

use crate::num::{neumaier_sum, HALF_ULP_ONE, TINY};
use crate::tail::gaussian_tail;
use crate::vmath::erfcx_pos;

const U: f64 = HALF_ULP_ONE;
/// Number of sequence values used by the Euler transform of each tail.
const EULER_TERMS: usize = 110;
/// A term whose log lies this far below the largest one is negligible (e^-80 ≈ 1.8e-35).
const NEGLIGIBLE: f64 = 80.0;
/// Cap on the directly summed terms beyond ⌊α⌋ (the ceiling rule is used past it).
const MAX_EXTRA_TERMS: usize = 2_000_000;
const LN_SQRT_PI_OVER_2: f64 = 0.225_791_352_644_727_43;
const FRAC_1_SQRT_2: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Running ln|C(α, i)| by the ratio recurrence (compensated), with its sign.
struct Binom {
    alpha: f64,
    floor: u64,
    i: u64,
    sum: f64,
    comp: f64,
}

impl Binom {
    fn new(alpha: f64) -> Self {
        Binom {
            alpha,
            floor: alpha.floor() as u64,
            i: 0,
            sum: 0.0,
            comp: 0.0,
        }
    }
    /// (i, ln|C(α,i)|, sign) of the current index.
    fn get(&self) -> (u64, f64, f64) {
        let s = if self.i <= self.floor + 1 || (self.i - self.floor) % 2 == 1 {
            1.0
        } else {
            -1.0
        };
        (self.i, self.sum + self.comp, s)
    }
    fn advance(&mut self) {
        let i = self.i as f64;
        let x = f64::ln((self.alpha - i).abs() / (i + 1.0));
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.comp += (self.sum - t) + x;
        } else {
            self.comp += (x - t) + self.sum;
        }
        self.sum = t;
        self.i += 1;
    }
}

/// ln of the Mills ratio M(t) = Q(t)/φ(t) for t ≥ 0: ln(√(π/2)·erfcx(t/√2)).
#[inline]
fn ln_mills_pos(t: f64) -> f64 {
    LN_SQRT_PI_OVER_2 + f64::ln(erfcx_pos(t * FRAC_1_SQRT_2))
}

/// Parameters of one evaluation.
struct Setup {
    alpha: f64,
    c: f64,
    sigma: f64,
    z0: f64,
    lq: f64,
    l1q: f64,
    ln_k: f64,
    ln_k_scale: f64,
    lower_primary: bool,
}

/// A signed term: value = sign·e^{log}; `rel` bounds the relative error of e^{log}.
#[derive(Clone, Copy)]
struct Term {
    sign: f64,
    log: f64,
    rel: f64,
}

impl Setup {
    /// (ln p_i, scale of its parts) of the side's binomial weight and e_i of that side.
    #[inline]
    fn side(&self, lower: bool, i: f64, lnc: f64) -> (f64, f64, f64) {
        let a = self.alpha;
        let (lp, sc) = if lower {
            let v = (a - i) * self.l1q + i * self.lq;
            (lnc + v, ((a - i) * self.l1q).abs() + (i * self.lq).abs())
        } else {
            let v = (a - i) * self.lq + i * self.l1q;
            (lnc + v, ((a - i) * self.lq).abs() + (i * self.l1q).abs())
        };
        let j = if lower { i } else { a - i };
        let e = self.c * (j * j - j);
        (lp, sc + lnc.abs(), e)
    }

    /// Argument of the Mills ratio of a side's term: (i − z0)/σ (lower), (i + z0 − α)/σ (upper).
    #[inline]
    fn arg(&self, lower: bool, i: f64) -> f64 {
        if lower {
            (i - self.z0) / self.sigma
        } else {
            (i + self.z0 - self.alpha) / self.sigma
        }
    }

    /// ln|C(α,i)·K·M(t)| of a side's full term (T_i or U_i), with its relative error bound.
    fn full_term(&self, lower: bool, i: f64, lnc: f64) -> (f64, f64) {
        let t = self.arg(lower, i);
        let zs = self.z0.abs() / self.sigma + 1.0;
        if t >= 0.0 {
            let lm = ln_mills_pos(t);
            let scale = self.ln_k_scale + lnc.abs() + 3.0 * i + 12.0 + 2.0 * (t + 1.0) * zs;
            (self.ln_k + lnc + lm, 4.0 * U * scale)
        } else {
            // p·e^{e}·(1 − Q(|t|)): no cancellation between ln K and t²/2
            let (lp, sc, e) = self.side(lower, i, lnc);
            let qt = gaussian_tail(-t);
            let scale = sc + e.abs() + 3.0 * i + 12.0 + 2.0 * (1.0 - t) * zs * qt / (1.0 - qt);
            (lp + e + f64::ln_1p(-qt), 4.0 * U * scale)
        }
    }
}

/// Euler transform of Σ_k (−1)^k b_k for a moment sequence b (given by ln b_k): returns
/// (sum, error bound) with sum + [0, bound] ∋ the exact value up to the returned bound.
fn euler_tail(logs: &[f64], rels: &[f64]) -> (f64, f64) {
    let l0 = logs[0];
    let mut d: Vec<f64> = logs.iter().map(|&l| f64::exp(l - l0)).collect();
    let eta = rels.iter().copied().fold(0.0, f64::max);
    let mass: f64 = d.iter().sum();
    let scale = f64::exp(l0);
    let mut sum = 0.0;
    let mut pow = 0.5; // 2^{-(m+1)}
    let n = d.len();
    let mut m = 0;
    while m + 1 < n {
        let term = d[0] * pow;
        sum += term;
        // next level of differences ∇^{m+1}
        for j in 0..(n - m - 1) {
            d[j] -= d[j + 1];
        }
        m += 1;
        pow *= 0.5;
        if d[0].max(0.0) * 2.0 * pow <= 1e-19 * sum {
            break;
        }
    }
    // Remainder of the transform ∈ [0, ∇^m b_0/2^m]. Errors: the truncated transform is
    // Σ_k w_k b_k with |w_k| ≤ Σ_{m≥k} C(m,k)/2^{m+1} = 1, so value errors (relative ≤ η)
    // contribute ≤ η Σ b_k; a rounding error at difference level l reaches the sum with weight
    // ≤ 2^{-l} and is ≤ u·∇^l b_j ≤ u·b_j (moment sequence): ≤ 2u Σ b_k in all.
    let rem = d[0].max(0.0) * 2.0 * pow;
    let round = (eta + 3.0 * U) * mass + 4.0 * U * sum;
    (sum * scale, (rem + round + 4.0 * U * rem) * scale)
}

/// Upper bound on ln(A_α) (so (α − 1)ε(α)) for non-integer α > 1, 0 < q < 1, 0 < c < ∞,
/// or None when the direct part would exceed the term cap.
pub fn log_a_frac_up(alpha: f64, q: f64, c: f64) -> Option<f64> {
    let sigma = 1.0 / (2.0 * c).sqrt();
    // ln((1 − q)/q) without cancellation near q = ½ (1 − 2q exact there)
    let lr = if q > 0.25 && q < 0.75 {
        f64::ln_1p((1.0 - 2.0 * q) / q)
    } else {
        f64::ln_1p(-q) - f64::ln(q)
    };
    let z0 = lr / (2.0 * c) + 0.5;
    let (lq, l1q) = (f64::ln(q), f64::ln_1p(-q));
    let cz = c * z0 * z0;
    let ln_k = alpha * l1q - cz - 0.5 * (2.0 * std::f64::consts::PI).ln();
    let st = Setup {
        alpha,
        c,
        sigma,
        z0,
        lq,
        l1q,
        ln_k,
        ln_k_scale: (alpha * l1q).abs() + 3.0 * cz + 2.0,
        lower_primary: q <= 0.5,
    };
    let prim = st.lower_primary;
    let floor = alpha.floor() as u64;
    let j0 = floor + 2;
    let mut terms: Vec<Term> = Vec::new();
    let mut lmax = f64::NEG_INFINITY;
    let push = |terms: &mut Vec<Term>, sign: f64, log: f64, rel: f64, lmax: &mut f64| {
        if log > f64::NEG_INFINITY {
            *lmax = lmax.max(log);
            terms.push(Term { sign, log, rel });
        }
    };
    let mut b = Binom::new(alpha);
    let mut lncs: Vec<f64> = Vec::new();
    loop {
        let (i, lnc, s) = b.get();
        let fi = i as f64;
        let t = st.arg(prim, fi);
        let (lp, sc, e) = st.side(prim, fi, lnc);
        if i >= j0 && (t > 0.0 || lp + e < lmax - NEGLIGIBLE) {
            break;
        }
        if i > floor + MAX_EXTRA_TERMS as u64 {
            return None;
        }
        lncs.push(lnc);
        let base_rel = 4.0 * U * (sc + 3.0 * fi + 12.0);
        if t <= 0.0 {
            // p_i·expm1(e_i) − C K M(−t)
            if e != 0.0 {
                let le = super::log_expm1(e.abs());
                let le = if e > 0.0 {
                    le
                } else {
                    f64::ln(-f64::exp_m1(e))
                };
                push(&mut terms, s * e.signum(), lp + le, base_rel, &mut lmax);
            }
            let lm = ln_mills_pos(-t);
            let zs = st.z0.abs() / st.sigma + 1.0;
            let rel =
                4.0 * U * (st.ln_k_scale + lnc.abs() + 3.0 * fi + 12.0 + 2.0 * (1.0 - t) * zs);
            push(&mut terms, -s, st.ln_k + lnc + lm, rel, &mut lmax);
        } else {
            // C K M(t) − p_i
            let (lt, rel) = st.full_term(prim, fi, lnc);
            push(&mut terms, s, lt, rel, &mut lmax);
            push(&mut terms, -s, lp, base_rel, &mut lmax);
        }
        b.advance();
    }
    // secondary side, direct part
    for (i, &lnc) in lncs.iter().enumerate() {
        let s = if (i as u64) <= floor + 1 || (i as u64 - floor) % 2 == 1 {
            1.0
        } else {
            -1.0
        };
        let (lt, rel) = st.full_term(!prim, i as f64, lnc);
        push(&mut terms, s, lt, rel, &mut lmax);
    }
    // tails from jstart (alternating, first sign s0): primary full terms (+), weights (−),
    // secondary full terms (+)
    let (_, _, s0) = b.get();
    let mut lt_p = Vec::with_capacity(EULER_TERMS);
    let mut rl_p = Vec::with_capacity(EULER_TERMS);
    let mut lt_w = Vec::with_capacity(EULER_TERMS);
    let mut rl_w = Vec::with_capacity(EULER_TERMS);
    let mut lt_s = Vec::with_capacity(EULER_TERMS);
    let mut rl_s = Vec::with_capacity(EULER_TERMS);
    for _ in 0..EULER_TERMS {
        let (i, lnc, _) = b.get();
        let fi = i as f64;
        let (lt, rel) = st.full_term(prim, fi, lnc);
        lt_p.push(lt);
        rl_p.push(rel);
        let (lp, sc, _) = st.side(prim, fi, lnc);
        lt_w.push(lp);
        rl_w.push(4.0 * U * (sc + 3.0 * fi + 12.0));
        let (lt, rel) = st.full_term(!prim, fi, lnc);
        lt_s.push(lt);
        rl_s.push(rel);
        b.advance();
    }
    if !lmax.is_finite() {
        lmax = [lt_p[0], lt_w[0], lt_s[0]]
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        if !lmax.is_finite() {
            return Some(0.0);
        }
    }
    let mut vals: Vec<f64> = Vec::with_capacity(terms.len() + 3);
    let mut err = 0.0;
    for t in &terms {
        let v = f64::exp(t.log - lmax);
        vals.push(t.sign * v);
        err += v * (t.rel + 2.0 * U);
    }
    let scale = f64::exp(-lmax);
    for (logs, rels, sgn) in [
        (&lt_p, &rl_p, 1.0),
        (&lt_w, &rl_w, -1.0),
        (&lt_s, &rl_s, 1.0),
    ] {
        if logs[0] < lmax - NEGLIGIBLE {
            // moment sequence: the alternating tail is bounded by its first term
            err += f64::exp(logs[0] - lmax);
            continue;
        }
        // shift logs to keep the Euler values in range
        let shifted: Vec<f64> = logs.iter().map(|&l| l - lmax).collect();
        let (sum, bound) = euler_tail(&shifted, rels);
        // tail = s0·sgn·(sum + [0, bound'])
        let dir = s0 * sgn;
        vals.push(dir * sum);
        err += bound;
        let _ = scale;
    }
    let n = vals.len() as f64;
    let s = neumaier_sum(vals.iter().copied());
    let abs_sum: f64 = vals.iter().map(|v| v.abs()).sum();
    let total = s + err + 4.0 * U * (n.log2() + 2.0) * abs_sum;
    if std::env::var("FRAC_DEBUG").is_ok() {
        eprintln!("s={s:e} err={err:e} abs={abs_sum:e} nterms={n} lmax={lmax}");
    }
    if !(total > 0.0) {
        return Some(0.0);
    }
    // ln(A − 1) = lmax + ln(total); ln A = softplus
    let lam1 = lmax + f64::ln(total);
    let la = super::softplus(lam1);
    Some(la * (1.0 + 8.0 * U) + TINY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_known_values() {
        // values from mpmath quadrature of the Rényi divergence (50 digits)
        let cases = [
            (1.5, 0.01, 1.0, 0.00012725374332744983),
            (1.5, 0.1, 1.0, 0.011734592196685236),
            (2.5, 0.001, 1.0, 2.1507424323147326e-06),
            (3.7, 0.7, 0.8, 0.8052321822307577),
            (10.5, 0.01, 0.5, 0.00015315075194924003),
        ];
        for &(a, q, r, want) in &cases {
            let la = log_a_frac_up(a, q, r * r / 2.0).unwrap();
            let e = la / (a - 1.0);
            assert!(e >= want * (1.0 - 1e-15), "{a} {q} {r}: {e} < {want}");
            assert!((e - want) / want < 1e-12, "{a} {q} {r}: {e} vs {want}");
        }
    }
}
