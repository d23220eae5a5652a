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
//! Accuracy (vs mpmath quadrature, 216 points, α ∈ [1.01, 256.5], q ∈ [1e-9, 0.99],
//! r ∈ [0.01, 4]): ≤ 4e-13 relative for α ≥ 1.25 away from the cancellation regime, 1.6e-12
//! at α = 1.1; where A − 1 ≪ K (q within ~0.25 of ½ with r ≲ 0.1, or α → 1) the series has
//! inherent cancellation of order u·K/(A − 1) (up to 1.3e-7 at q = ½, r = 0.01, α = 1.01).

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

/// A lazily evaluated tail sequence: k ↦ (ln b_k, relative error of b_k).
type LazyTerm<'a> = dyn Fn(usize) -> (f64, f64) + 'a;

/// Euler transform of Σ_k (−1)^k b_k for a moment sequence b, with b_k = e^{l_k} given lazily
/// by `value(k)` → (l_k, relative error of e^{l_k}) for k < `max_terms`; l is relative to the
/// caller's scale. Returns (sum, error bound): the exact value lies in sum ± bound.
fn euler_tail(value: impl Fn(usize) -> (f64, f64), max_terms: usize) -> (f64, f64) {
    let (l0, r0) = value(0);
    let scale = f64::exp(l0);
    // d[k] = ∇^k b_{m−k} after inserting b_0..b_m (values relative to b_0)
    let mut d: Vec<f64> = Vec::with_capacity(max_terms);
    d.push(1.0);
    let (mut eta, mut mass) = (r0, 1.0);
    let mut pow = 0.5; // 2^{-(m+1)}
    let mut sum = 0.5; // Euler term m = 0: ∇^0 b_0 / 2
    let mut rem = 0.5; // after terms 0..m the remainder is ≤ ∇^{m+1}b_0/2^{m+1} ≤ term m
    for k in 1..max_terms {
        let (l, r) = value(k);
        let bk = f64::exp(l - l0);
        eta = eta.max(r);
        mass += bk;
        // insert b_k: d'[0] = b_k, d'[j] = d[j−1] − d'[j−1]; then d'[k] = ∇^k b_0
        let mut carry = bk;
        for dj in d.iter_mut() {
            let old = *dj;
            *dj = carry;
            carry = old - carry;
        }
        d.push(carry);
        pow *= 0.5;
        let term = carry.max(0.0) * pow;
        sum += term;
        rem = term;
        if term <= 1e-19 * sum {
            break;
        }
    }
    // The remainder of the transform lies in [0, rem] (∇^{m+1} b_0 ≤ ∇^m b_0 for a moment
    // sequence). Errors: the truncated transform is Σ_k w_k b_k with |w_k| ≤
    // Σ_{m≥k} C(m,k)/2^{m+1} = 1, so value errors (relative ≤ η) contribute ≤ η Σ b_k; a
    // rounding error at difference level l reaches the sum with weight ≤ 2^{-l} and is
    // ≤ u·∇^l b_j ≤ u·b_j (moment sequence): ≤ 2u Σ b_k in all.
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
    // ln|C(α, i)| for the tail indices (cheap); the tail terms are evaluated lazily
    let mut lnc_tail = Vec::with_capacity(EULER_TERMS);
    let i0 = b.get().0;
    for _ in 0..EULER_TERMS {
        lnc_tail.push(b.get().1);
        b.advance();
    }
    let fi = |k: usize| (i0 + k as u64) as f64;
    let prim_full = |k: usize| st.full_term(prim, fi(k), lnc_tail[k]);
    let weight = |k: usize| {
        let (lp, sc, _) = st.side(prim, fi(k), lnc_tail[k]);
        (lp, 4.0 * U * (sc + 3.0 * fi(k) + 12.0))
    };
    let sec_full = |k: usize| st.full_term(!prim, fi(k), lnc_tail[k]);
    let firsts = [prim_full(0).0, weight(0).0, sec_full(0).0];
    if !lmax.is_finite() {
        lmax = firsts.iter().copied().fold(f64::NEG_INFINITY, f64::max);
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
    let seqs: [(&LazyTerm, f64); 3] = [(&prim_full, 1.0), (&weight, -1.0), (&sec_full, 1.0)];
    for (j, (seq, sgn)) in seqs.iter().enumerate() {
        if firsts[j] < lmax - NEGLIGIBLE {
            // moment sequence: the alternating tail is bounded by its first term
            err += f64::exp(firsts[j] - lmax);
            continue;
        }
        // values relative to e^{lmax}; tail = s0·sgn·(sum ± bound)
        let (sum, bound) = euler_tail(
            |k| {
                let (l, r) = seq(k);
                (l - lmax, r)
            },
            EULER_TERMS,
        );
        vals.push(s0 * sgn * sum);
        err += bound;
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
    use crate::rdp::{ceil_order, sgm_rdp_value, Fractional, SgmTable};

    /// Golden points at fractional orders (tools/gen_rdp_golden.py --frac: mpmath quadrature
    /// of the Rényi divergence, 50 digits): every value an upper bound, and within 1e-12 away
    /// from the documented cancellation regime.
    #[test]
    fn fractional_golden() {
        let data = include_str!("../../tests/golden/rdp_sgm_frac.csv");
        let (mut n, mut worst) = (0, 0.0_f64);
        for line in data.lines().skip(1) {
            let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            let (a, q, r, exact) = (f[0], f[1], f[2], f[3]);
            let t = SgmTable::new(ceil_order(a), q);
            let v = sgm_rdp_value(a, q, 0.5 * r * r, Fractional::Exact, &t);
            assert!(v >= exact * (1.0 - 1e-19), "below exact at {line}: {v}");
            let hard = ((q - 0.5).abs() < 0.25 && r <= 0.1) || a < 1.15;
            if !hard && exact > 0.0 {
                worst = worst.max((v - exact) / exact);
            }
            n += 1;
        }
        assert!(n >= 200 && worst < 1e-12, "{n} points, worst {worst:e}");
    }

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
