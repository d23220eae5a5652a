//! Sampled Gaussian RDP at fractional orders (docs/derivations/rdp.md): the exact series of Mironov, Talwar & Zhang,
//! *Rényi differential privacy of the sampled Gaussian mechanism* (2019), §3.3 (the series of
//! dp-accounting's `_compute_log_a_frac`), rearranged so that A_α − 1 is computed without
//! cancellation, with a proven bound on its truncation and rounding errors, rounded up.
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
//! # Error bound of the series (proven, first order)
//! `series_am1` returns (scale, s, b) with |e^{−scale}(A − 1) − s| ≤ b. The model: the
//! arithmetic operations and √ are correctly rounded (relative error ≤ u = 2^-53); `ln`,
//! `ln_1p`, `exp`, `exp_m1` are accurate to 1 ulp (≤ 2u relative), `erfcx_pos` to 2 ulp
//! (documented, measured 1), `gaussian_tail` to 8 ulp for arguments ≥ 0 (measured ≤ 3.7u on
//! [0, 37.5] against mpmath); no intermediate is subnormal (c ≥ 1e-200 is required, the series returns None
//! below). Every term is e^{ℓ} with a computed ℓ̂ and a bound d ≥ |ℓ̂ − ℓ| obtained by adding,
//! for each operation, its rounding (u·|result|, 2u·|result| for ln/ln_1p) and the propagated
//! errors of its inputs (absolute errors add in sums; relative ones in products):
//! * ln|C(α,i)| = Σ_{k<i} x_k, x_k = ln(|α − k|/(k + 1)), compensated sum:
//!   d ≤ 2.01u·(Σ_k |x̂_k| + i) + 2u·|ln C| (each x_k: ln 2u|x_k|, its argument's two roundings
//!   2u; Ogita–Rump–Oishi 2005, Prop. 4.5 for the sum). Σ|x_k| is accumulated: it exceeds
//!   |ln C| by far for large α (mixed signs), so |ln C| alone would not bound the error.
//! * ln p_i = ln C + (α − i)·l1 + i·l2 (l1, l2 = ln q, ln(1 − q), each 2u relative):
//!   4.01u|(α − i)l1| + 3.01u|i·l2| + u(|sum| + |ln p|).
//! * e_i = c·j(j − 1): lower side j = i, i² − i exact, error u|e|; upper side j = α − i,
//!   computed as c·(α − i)·(α − i − 1), 4.01u|e|. **This was the defect of the earlier
//!   version**: it formed j·j − j, which cancels where j ≈ 1 (i = ⌊α⌋ − 1 with α just above an
//!   integer, e.g. i = 0 at α = 1.001): an error u·j²/(j² − j) ≈ u/(α − ⌊α⌋) in e, so in the
//!   term p_i·expm1(e_i), not covered by the budget (measured 8e-14 relative in the i = 0 term at
//!   α = 1.001, q = 0.6, r = 0.001, 15× its budget; the sum's error was 1.7–5× b for
//!   α = 1.001, q ∈ [0.6, 0.75]).
//! * ln|expm1(e)|: 3.4u + 2u|ℓ| for the evaluation (`log_expm1` / ln(−expm1)) plus the error of
//!   e times d ln|expm1(e)|/de = e^e/|expm1(e)| ≤ (1 + max(e, 0))/|e|.
//! * z0 = lr/(2c) + ½ with lr = ln((1 − q)/q): lr has error 3.84u|lr| (q ∈ (¼, ¾): 1 − 2q exact,
//!   ln_1p of condition ≤ 1.83) or 2u(|ln q| + |ln(1 − q)|) + u|lr|; 2c is exact; so
//!   d(z0) = d(lr)/(2c) + u|lr/(2c)| + u|z0|. The Mills argument t = (i − z0)·√(2c) (or
//!   (i + z0 − α)·√(2c)): d(t) = (d(z0) + u|numerator parts|)·√(2c) + 2u|t|.
//! * ln K = α ln(1 − q) − c z0² − ln √(2π): 3.01u|α l1| + (2c|z0|·d(z0) + 2u·cz0²) + u(|·|).
//! * ln M(τ) = ln √(π/2) + ln erfcx(τ/√2), τ ≥ 0: |d ln M/dτ| = h(τ) − τ ≤ √(2/π) (h the
//!   Gaussian hazard rate, h(τ) − τ decreasing from √(2/π)), so 0.798·d(τ) + 1.6u·τ (the
//!   rounded τ/√2) + 4.7u + 3u|ln M|.
//! * For t < 0 the full term is p·e^{e}·(1 − Q(|t|)): ln(1 − Q) has error
//!   Q/(1 − Q)·(16u + (|t| + 0.8)·d(t)) + 2u|ln(1 − Q)| (|d ln Q/dτ| = h(τ) ≤ τ + 0.8).
//! * Each term enters as v = exp(ℓ̂ − ℓmax) with |v − exact| ≤ v·[(e^{d + u|ℓ̂ − ℓmax|} − 1) +
//!   2u] (the subtraction and exp); the terms and tail sums are added by a compensated sum:
//!   ≤ u|s| + γ²_{n}Σ|v|.
//! * Euler transform of a tail (values b̂_k with errors δ_k as above): the truncated transform
//!   is Σ_k w_k b_k with Σ_m |coefficient of b_k in term m| ≤ Σ_{m≥k} C(m,k)/2^{m+1} = 1, so
//!   the value errors contribute ≤ Σ_k δ_k, also term by term, so clipping the computed ∇^m b_0
//!   at 0 (the exact one is ≥ 0) does not add to it; a rounding error in ∇^l b_j reaches the
//!   terms with total weight 2^{−l} and is ≤ u·∇^l b_j ≤ u·b_j (moment sequence): ≤ u·Σ b_j
//!   (2.01u used); the terms' compensated sum u·sum. The truncation remainder is ≤ the exact
//!   last term ≤ computed last term + these errors (counted twice).
//! * The bound is multiplied by 1.01 for the neglected products of errors (every relative error
//!   above is ≤ 1e-6 where it matters).
//!
//! The final logarithms are directed: scale + ln(s ± b) is moved by 4u(1 + |ln(s ± b)| +
//! |scale + ln(s ± b)|) (ln 1 ulp, two additions), ln A = softplus(·)·(1 + 8u) (its ≤ 4u error).
//! A_α is increasing in c, so `log_a_frac_up` evaluates at c·(1 + 4u) (≥ c/(1 − u)) when c is
//! a rounding of the exact r²/2, and at the double-double c + c_lo (rounded up, ≤ 1 ulp, for
//! the series; both parts in the quadrature's nodes) when the caller has it.
//!
//! Check (`series_error_bound_holds`, tests/golden/rdp_sgm_frac_bound.csv from
//! tools/gen_rdp_frac_bound.py: exact ln(A − 1) by mpmath quadrature at 30 digits, as a
//! double-double): 280 points, 200 of them in the corner α ∈ [1.0005, 1.2], q ∈ [0.5, 0.8],
//! r ∈ [1e-3, 0.1], 40 just above integers 2–6, 40 across the domain: the actual error of the
//! series (no quadrature) is at most 0.31·b (it was up to 5·b at α = 1.001 before the e_i fix,
//! which the test detects: 2.7·b at α = 1.0019, q = 0.69). Where A − 1 ≪ K (q near ½ with
//! small r, or α → 1 with small q and large r) the terms cancel and b/(A − 1) grows like
//! u·K/(A − 1) (2e-7 at q = ½, r = 0.01, α = 1.001): there the quadrature takes over.
//!
//! # Choice of method
//! Both the series (s + b) and the quadrature below are proven upper bounds, so the cheaper is
//! tried first by a cost model measured on the golden grids: the series ≈ 20 µs + 0.45 µs per
//! directly summed index (up to ⌊α⌋ + 2, then while the primary argument is ≤ 0 and the terms
//! have not decayed by e^{−80}: about min(|z0|, 80/|ln((1 − q)/q)|) indices, thousands for
//! q slightly above ½ with small r), the quadrature ≈ 0.36 µs per predicted node (30–500).
//! The quadrature is run first when its predicted cost is lower; otherwise the series' s + b is
//! returned when b moves ln A by at most `SERIES_REL` = 2e-13 (relative), and the quadrature
//! is the fallback. (An earlier version used the quadrature for all α < 1.05 because the
//! series' b was not a bound there, and multiplied b by 4 elsewhere; neither is needed now.)
//!
//! The quadrature used where the series cancels is in `fractional_quadrature.rs`.
//!
//! # Accuracy
//! vs mpmath quadrature (pabi.reference.sampled_gaussian_rdp_quad, 50 digits), as an upper
//! bound always: the 216-point grid (α ∈ [1.01, 256.5], q ∈ [1e-9, 0.99], r ∈ [0.01, 4]) within
//! 1.9e-13 relative, the cancellation corner (tests/golden/rdp_sgm_frac_corner.csv, 435 points:
//! q ∈ [0.25, 0.75], r ∈ [1e-3, 0.1], α ∈ [1.001, 2.99], and α ∈ [1.0001, 1.1] with
//! q ∈ [1e-9, 0.1], r ∈ [0.01, 4]) within 1.9e-13, the 280 points of
//! tests/golden/rdp_sgm_frac_bound.csv within 3.9e-14 (the worst cases are series values whose
//! b moves ln A by nearly `SERIES_REL`). α → 1: β = α − 1 factors out of g exactly, so
//! ln(A)/(α − 1) = log1p(A − 1)/(α − 1) keeps full relative accuracy.

use super::fractional_quadrature::{QuadPlan, MAX_NODES};
use crate::num::logspace::Neumaier;
use crate::num::logspace::{exp_std_flush, log_expm1_std, softplus_std};
use crate::num::{neumaier_sum, TINY};
use crate::tail::gaussian_tail;
use crate::vmath::erfcx_pos;

/// The unit roundoff u = 2^-53.
pub(super) use crate::num::round::U;
/// Number of sequence values used by the Euler transform of each tail.
const EULER_TERMS: usize = 110;
/// A term whose log lies this far below the largest one is negligible (e^-80 ≈ 1.8e-35).
const NEGLIGIBLE: f64 = 80.0;
/// Cap on the directly summed terms beyond ⌊α⌋ (the ceiling rule is used past it).
const MAX_EXTRA_TERMS: usize = 2_000_000;
/// ln √(π/2) and ln √(2π), rounded to nearest (errors ≤ 0.23u and ≤ 0.46u).
const LN_SQRT_PI_OVER_2: f64 = 0.225_791_352_644_727_43;
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;
const FRAC_1_SQRT_2: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// Below this c the terms' relative-error model (no subnormal intermediates) is not relied on.
const MIN_C: f64 = 1e-200;

/// Relative error bound of e^{x̂} when |x̂ − x| ≤ d: e^d − 1.
#[inline(always)]
fn rel_of(d: f64) -> f64 {
    if d <= 1e-3 {
        d * 1.000_6
    } else {
        f64::exp_m1(d) * 1.01
    }
}

/// Running ln|C(α, i)| by the ratio recurrence (compensated), with its sign and error bound.
struct Binom {
    alpha: f64,
    floor: u64,
    i: u64,
    /// the compensated running sum of the logs
    acc: Neumaier,
    /// Σ_k |x̂_k| of the summed logs x_k = ln(|α − k|/(k + 1)).
    abs: f64,
}

impl Binom {
    fn new(alpha: f64) -> Self {
        Binom {
            alpha,
            floor: alpha.floor() as u64,
            i: 0,
            acc: Neumaier::default(),
            abs: 0.0,
        }
    }
    /// (i, ln|C(α,i)|, sign, bound on the absolute error of the log) of the current index.
    #[inline(always)]
    fn get(&self) -> (u64, f64, f64, f64) {
        let s = if self.i <= self.floor + 1 || (self.i - self.floor) % 2 == 1 {
            1.0
        } else {
            -1.0
        };
        let lnc = self.acc.value();
        // each x_k: ≤ 2u|x_k| (ln, 1 ulp) + 2u (the two roundings of its argument); the
        // compensated sum: ≤ u|lnc| + O(i²u²)Σ|x_k| (Ogita–Rump–Oishi 2005, Prop. 4.5)
        let d = 2.01 * U * (self.abs + self.i as f64) + 2.0 * U * lnc.abs();
        (self.i, lnc, s, d)
    }
    #[inline(always)]
    fn advance(&mut self) {
        let i = self.i as f64;
        let x = f64::ln((self.alpha - i).abs() / (i + 1.0));
        self.acc.add(x);
        self.abs += x.abs();
        self.i += 1;
    }
}

/// ln of the Mills ratio M(t) = Q(t)/φ(t) for t ≥ 0: ln(√(π/2)·erfcx(t/√2)).
#[inline(always)]
fn ln_mills_pos(t: f64) -> f64 {
    LN_SQRT_PI_OVER_2 + f64::ln(erfcx_pos(t * FRAC_1_SQRT_2))
}

/// Parameters of one evaluation, with bounds on the absolute errors of z0 and ln K.
struct Setup {
    alpha: f64,
    c: f64,
    /// √(2c) = 1/σ
    s2c: f64,
    z0: f64,
    dz0: f64,
    lq: f64,
    l1q: f64,
    ln_k: f64,
    d_ln_k: f64,
    lower_primary: bool,
}

/// A signed term: value = sign·e^{log}, |log − exact log| ≤ `dlog`.
#[derive(Clone, Copy)]
struct Term {
    sign: f64,
    log: f64,
    dlog: f64,
}

impl Setup {
    fn new(alpha: f64, q: f64, c: f64) -> Self {
        let (lq, l1q) = (f64::ln(q), f64::ln_1p(-q));
        // ln((1 − q)/q) without cancellation near q = ½ (1 − 2q exact there; the condition
        // number of ln_1p on ((1 − 2q)/q) is ≤ 1.83 for q ∈ (¼, ¾)): error ≤ 3.84u|lr| there,
        // ≤ 2u(|lq| + |l1q|) + u|lr| in the other branch
        let (lr, dlr) = if q > 0.25 && q < 0.75 {
            let lr = f64::ln_1p((1.0 - 2.0 * q) / q);
            (lr, 3.84 * U * lr.abs())
        } else {
            let lr = l1q - lq;
            (lr, 2.0 * U * (lq.abs() + l1q.abs()) + U * lr.abs())
        };
        // 2c is exact
        let y = lr / (2.0 * c);
        let z0 = y + 0.5;
        let dz0 = 1.0001 * (dlr / (2.0 * c) + U * y.abs()) + U * z0.abs();
        let cz = c * z0 * z0;
        let dcz = 2.0001 * (c * z0.abs() * dz0 + U * cz);
        let al = alpha * l1q;
        let d1 = al - cz;
        let ln_k = d1 - LN_SQRT_2PI;
        let d_ln_k = 3.01 * U * al.abs() + dcz + U * (d1.abs() + ln_k.abs() + 0.5);
        Setup {
            alpha,
            c,
            s2c: (2.0 * c).sqrt(),
            z0,
            dz0,
            lq,
            l1q,
            ln_k,
            d_ln_k,
            lower_primary: q <= 0.5,
        }
    }

    /// Log-weight ln p_i of a side and the exponent e_i of that side, with error bounds:
    /// (ln p_i, its error, e_i, its error).
    #[inline(always)]
    fn side(&self, lower: bool, i: f64, lnc: f64, dlnc: f64) -> (f64, f64, f64, f64) {
        let a = self.alpha;
        let (l1, l2) = if lower {
            (self.l1q, self.lq)
        } else {
            (self.lq, self.l1q)
        };
        // (α − i)·l1: α − i (≤ u), l1 (2u), product (u); i·l2: l2 (2u), product (u)
        let a1 = (a - i) * l1;
        let a2 = i * l2;
        let v = a1 + a2;
        let lp = lnc + v;
        let dlp = dlnc + 4.01 * U * a1.abs() + 3.01 * U * a2.abs() + U * (v.abs() + lp.abs());
        let (e, de) = if lower {
            // i² − i is exact (i < 2^26)
            let e = self.c * (i * i - i);
            (e, U * e.abs())
        } else {
            // j(j − 1), j = α − i, as (α − i)(α − i − 1): no cancellation at j ≈ 1
            let e = self.c * ((a - i) * (a - (i + 1.0)));
            (e, 4.01 * U * e.abs())
        };
        (lp, dlp, e, de)
    }

    /// Argument of the Mills ratio of a side's term, (i − z0)/σ (lower) or (i + z0 − α)/σ
    /// (upper), with a bound on its absolute error.
    #[inline(always)]
    fn arg(&self, lower: bool, i: f64) -> (f64, f64) {
        let (n, dn) = if lower {
            let n = i - self.z0;
            (n, self.dz0 + U * n.abs())
        } else {
            let n1 = i + self.z0;
            let n = n1 - self.alpha;
            (n, self.dz0 + U * (n1.abs() + n.abs()))
        };
        let t = n * self.s2c;
        (t, 1.0001 * (dn * self.s2c + 2.0 * U * t.abs()))
    }

    /// ln(C(α,i)·K·M(τ)) for τ ≥ 0 given with |τ̂ − τ| ≤ dtau, with its error bound.
    #[inline(always)]
    fn k_mills(&self, lnc: f64, dlnc: f64, tau: f64, dtau: f64) -> (f64, f64) {
        let lm = ln_mills_pos(tau);
        // |d ln M/dτ| = h(τ) − τ ≤ √(2/π) (h the hazard rate), and the same through the
        // rounded τ/√2 (2u); erfcx 2 ulp, ln 1 ulp, the constant, the sum
        let dlm = 0.798 * dtau + 1.6 * U * tau + 4.7 * U + 3.0 * U * lm.abs();
        let a = self.ln_k + lnc;
        let l = a + lm;
        (l, self.d_ln_k + dlnc + dlm + U * (a.abs() + l.abs()))
    }

    /// Term i of tail sequence j with its error bound: the primary side's full terms (j = 0),
    /// its weights p_i (j = 1), the secondary side's full terms (j = 2). One function (not
    /// three closures behind `dyn`) so that it is inlined into the multiversioned series.
    #[inline(always)]
    fn tail_term(&self, j: usize, prim: bool, i: f64, (lnc, dlnc): (f64, f64)) -> (f64, f64) {
        match j {
            0 => self.full_term(prim, i, lnc, dlnc),
            1 => {
                let (lp, dlp, _, _) = self.side(prim, i, lnc, dlnc);
                (lp, dlp)
            }
            _ => self.full_term(!prim, i, lnc, dlnc),
        }
    }

    /// ln|C(α,i)·K·M(t)| of a side's full term (T_i or U_i), with its error bound.
    #[inline(always)]
    fn full_term(&self, lower: bool, i: f64, lnc: f64, dlnc: f64) -> (f64, f64) {
        let (t, dt) = self.arg(lower, i);
        if t >= 0.0 {
            self.k_mills(lnc, dlnc, t, dt)
        } else {
            // p·e^{e}·(1 − Q(|t|)): no cancellation between ln K and t²/2
            let (lp, dlp, e, de) = self.side(lower, i, lnc, dlnc);
            let tau = -t;
            let qt = gaussian_tail(tau);
            let w = f64::ln_1p(-qt);
            // Q: a few ulp (≤ 16u assumed) and |d ln Q/dτ| = h(τ) ≤ τ + √(2/π)
            let relq = 16.0 * U + 1.0001 * (tau + 0.8) * dt;
            let dw = 1.0001 * qt / (1.0 - qt) * relq + 2.0 * U * w.abs() + 1e-300;
            let a = lp + e;
            let l = a + w;
            (l, dlp + de + dw + U * (a.abs() + l.abs()))
        }
    }
}

/// Value and absolute error bound of e^{l − lmax} for a log l with |l − exact| ≤ dl.
#[inline(always)]
fn rel_value(l: f64, dl: f64, lmax: f64) -> (f64, f64) {
    let d = l - lmax;
    let v = exp_std_flush(d);
    // the subtraction (u|d|), exp (1 ulp)
    (v, v * (rel_of(dl + 1.0001 * U * d.abs()) + 2.0002 * U))
}

/// Tail sequence j of the series from index i0 (`Setup::tail_term`), with the logs of the
/// binomial coefficients at i0 + k: a struct rather than a closure so that its evaluation is
/// inlined into the multiversioned series (a closure is compiled without the clone's features).
struct TailSeq<'a> {
    st: &'a Setup,
    j: usize,
    prim: bool,
    i0: u64,
    lnc: &'a [(f64, f64)],
}

impl TailSeq<'_> {
    /// (ln b_k, bound on its error).
    #[inline(always)]
    fn value(&self, k: usize) -> (f64, f64) {
        self.st
            .tail_term(self.j, self.prim, (self.i0 + k as u64) as f64, self.lnc[k])
    }
}

/// Euler transform of Σ_k (−1)^k b_k for a moment sequence b, with b_k = e^{l_k − lmax} given
/// lazily by `seq.value(k)` → (l_k, bound on the error of l_k) for k < `max_terms`. Returns
/// (sum, error bound): the exact value lies in sum ± bound.
#[inline(always)]
fn euler_tail(seq: &TailSeq, lmax: f64, max_terms: usize) -> (f64, f64) {
    let (l0, dl0) = seq.value(0);
    let (b0, e0) = rel_value(l0, dl0, lmax);
    // d[k] = ∇^k b_{m−k} after inserting b_0..b_m
    let mut d: Vec<f64> = Vec::with_capacity(max_terms);
    d.push(b0);
    let (mut verr, mut mass) = (e0, b0);
    let mut pow = 0.5; // 2^{-(m+1)}, exact
                       // compensated sum of the Euler terms (all ≥ 0, so Neumaier's |s| ≥ |term| is s ≥ term)
    let mut acc = Neumaier {
        s: 0.5 * b0,
        c: 0.0,
    };
    let mut rem = 0.5 * b0; // after terms 0..m the remainder is ≤ ∇^{m+1}b_0/2^{m+1} ≤ term m
    for k in 1..max_terms {
        let (l, dl) = seq.value(k);
        let (bk, ek) = rel_value(l, dl, lmax);
        verr += ek;
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
        // the exact ∇^k b_0 is ≥ 0: clipping only moves the computed one towards it
        let term = carry.max(0.0) * pow;
        acc.add(term);
        rem = term;
        if term <= 1e-19 * acc.s {
            break;
        }
    }
    let sum = acc.value();
    // Errors (first order; see the module doc): the truncated transform is Σ_k w_k b_k with
    // Σ_m |coefficient of b_k in term m| ≤ Σ_{m≥k} C(m,k)/2^{m+1} = 1, so the value errors
    // contribute ≤ Σ_k |b̂_k − b_k| (also term by term, clipped or not); a rounding error in
    // ∇^l b_j reaches the terms with total weight 2^{-l} and is ≤ u·∇^l b_j ≤ u·b_j (moment
    // sequence): ≤ u·Σ b_j; the compensated sum of the (positive) terms ≤ u·sum + O(m²u²)·sum.
    // Underflowed (subnormal) values: ≤ 1e-300 absolute in all.
    let round = verr + 2.01 * U * mass + 1.01 * U * sum + 1e-300;
    // remainder: ∇^{m+1}b_0/2^{m+1} ≤ exact term m ≤ computed term m + round
    (sum, 1.0001 * (rem + 2.0 * round))
}

/// A_α − 1 from the series as e^{scale}·(sum ± bound) (the exact value lies in that interval),
/// or None when the direct part would exceed the term cap.
pub(super) struct SeriesValue {
    pub(super) scale: f64,
    pub(super) sum: f64,
    pub(super) bound: f64,
}

simd! {
    /// The series (module doc); multiversioned so that the fused multiply-adds of the Mills
    /// ratio and the Gaussian tail in its terms are single instructions (an exactly rounded
    /// fma either way: the values do not depend on the clone).
    pub(super) fn series_am1(alpha: f64, q: f64, c: f64) -> Option<SeriesValue> {
        if !(c >= MIN_C) {
            return None;
        }
        let st = Setup::new(alpha, q, c);
        let prim = st.lower_primary;
        let floor = alpha.floor() as u64;
        let j0 = floor + 2;
        let mut terms: Vec<Term> = Vec::new();
        let mut lmax = f64::NEG_INFINITY;
        let push = |terms: &mut Vec<Term>, sign: f64, log: f64, dlog: f64, lmax: &mut f64| {
            if log > f64::NEG_INFINITY {
                *lmax = lmax.max(log);
                terms.push(Term { sign, log, dlog });
            }
        };
        let mut b = Binom::new(alpha);
        let mut lncs: Vec<(f64, f64)> = Vec::new();
        loop {
            let (i, lnc, s, dlnc) = b.get();
            let fi = i as f64;
            let (t, dt) = st.arg(prim, fi);
            let (lp, dlp, e, de) = st.side(prim, fi, lnc, dlnc);
            if i >= j0 && (t > 0.0 || lp + e < lmax - NEGLIGIBLE) {
                break;
            }
            if i > floor + MAX_EXTRA_TERMS as u64 {
                return None;
            }
            lncs.push((lnc, dlnc));
            if t <= 0.0 {
                // p_i·expm1(e_i) − C K M(−t)
                if e != 0.0 {
                    let le = if e > 0.0 {
                        log_expm1_std(e)
                    } else {
                        f64::ln(-f64::exp_m1(e))
                    };
                    // computation ≤ 3.4u + 2u|le|; the error of e through d ln|expm1(e)|/de =
                    // e^e/|expm1(e)| ≤ (1 + max(e, 0))/|e|
                    let dle = 3.4 * U + 2.0 * U * le.abs() + 1.0001 * de / e.abs() * (1.0 + e.max(0.0));
                    let l = lp + le;
                    let dl = dlp + dle + U * l.abs();
                    push(&mut terms, s * e.signum(), l, dl, &mut lmax);
                }
                let (l, dl) = st.k_mills(lnc, dlnc, -t, dt);
                push(&mut terms, -s, l, dl, &mut lmax);
            } else {
                // C K M(t) − p_i
                let (l, dl) = st.full_term(prim, fi, lnc, dlnc);
                push(&mut terms, s, l, dl, &mut lmax);
                push(&mut terms, -s, lp, dlp, &mut lmax);
            }
            b.advance();
        }
        // secondary side, direct part
        for (i, &(lnc, dlnc)) in lncs.iter().enumerate() {
            let s = if (i as u64) <= floor + 1 || (i as u64 - floor) % 2 == 1 {
                1.0
            } else {
                -1.0
            };
            let (l, dl) = st.full_term(!prim, i as f64, lnc, dlnc);
            push(&mut terms, s, l, dl, &mut lmax);
        }
        // tails from i0 (alternating, first sign s0): primary full terms (+), weights (−),
        // secondary full terms (+)
        let (i0, _, s0, _) = b.get();
        // ln|C(α, i)| for the tail indices (cheap); the tail terms are evaluated lazily
        let mut lnc_tail = Vec::with_capacity(EULER_TERMS);
        for _ in 0..EULER_TERMS {
            let (_, lnc, _, dlnc) = b.get();
            lnc_tail.push((lnc, dlnc));
            b.advance();
        }
        // the three tail sequences j (`Setup::tail_term`), evaluated lazily
        let seq = |j: usize| TailSeq {
            st: &st,
            j,
            prim,
            i0,
            lnc: &lnc_tail,
        };
        let firsts = [seq(0).value(0), seq(1).value(0), seq(2).value(0)];
        if !lmax.is_finite() {
            lmax = firsts.iter().map(|f| f.0).fold(f64::NEG_INFINITY, f64::max);
            if !lmax.is_finite() {
                return Some(SeriesValue {
                    scale: 0.0,
                    sum: 0.0,
                    bound: 0.0,
                });
            }
        }
        let mut vals: Vec<f64> = Vec::with_capacity(terms.len() + 3);
        let mut err = 0.0;
        for t in &terms {
            let (v, e) = rel_value(t.log, t.dlog, lmax);
            vals.push(t.sign * v);
            err += e;
        }
        for (j, sgn) in [1.0, -1.0, 1.0].into_iter().enumerate() {
            if firsts[j].0 < lmax - NEGLIGIBLE {
                // moment sequence: the alternating tail lies in [0, first term]
                let (v, e) = rel_value(firsts[j].0, firsts[j].1, lmax);
                err += v + e;
                continue;
            }
            // tail = s0·sgn·(sum ± bound), relative to e^{lmax}
            let (sum, bound) = euler_tail(&seq(j), lmax, EULER_TERMS);
            vals.push(s0 * sgn * sum);
            err += bound;
        }
        // compensated sum: ≤ u|s| + γ²_{n−1}·Σ|v| (Ogita–Rump–Oishi 2005, Prop. 4.5)
        let n = vals.len() as f64;
        let s = neumaier_sum(vals.iter().copied());
        let abs_sum: f64 = vals.iter().map(|v| v.abs()).sum();
        let gamma = 1.01 * n * U;
        let round = 1.01 * U * s.abs() + gamma * gamma * abs_sum;
        // 1.01: the neglected second-order products of the (≤ 1e-6 relative) errors above
        let bound = 1.01 * (err + round);
        Some(SeriesValue {
            scale: lmax,
            sum: s,
            bound,
        })
    }
}

/// The series is used when its error bound moves ln A by at most this fraction (the value is
/// then within ~SERIES_REL of the exact one); otherwise the quadrature.
const SERIES_REL: f64 = 2e-13;

/// Cost model of the two methods (µs, measured on the golden grids): the series ≈ 20 + 0.45
/// per directly summed index, the quadrature ≈ 0.36 per predicted node.
const SERIES_COST_BASE: f64 = 20.0;
const SERIES_COST_PER_TERM: f64 = 0.45;
const QUAD_COST_PER_NODE: f64 = 0.36;

/// Predicted number of directly summed indices of the series: up to ⌊α⌋ + 2, then while the
/// primary argument is ≤ 0 (i ≤ z0 on the lower side, i ≤ α − z0 on the upper) and the terms
/// have not decayed by e^{-80} (rate ≈ |ln((1 − q)/q)| per index).
fn series_terms_estimate(alpha: f64, q: f64, c: f64) -> f64 {
    let lr = f64::ln_1p(-q) - f64::ln(q);
    let z0 = lr / (2.0 * c) + 0.5;
    let cross = if q <= 0.5 { z0 } else { alpha - z0 };
    alpha.floor() + 2.0 + cross.min(NEGLIGIBLE / lr.abs()).max(0.0)
}

/// fl(scale + ln x) moved up (`dir` = 1) or down (−1) past the exact scale + ln x: ln is
/// 1 ulp (2u|ln x|), the sum u|l|, the final addition of the margin another u|l|.
#[inline]
fn log_directed(scale: f64, x: f64, dir: f64) -> f64 {
    let lx = f64::ln(x);
    let l = scale + lx;
    l + dir * 4.0 * U * (1.0 + lx.abs() + l.abs())
}

/// Upper bound on ln(A_α) (so (α − 1)ε(α)) for non-integer α > 1, 0 < q < 1, 0 < c < ∞,
/// or None when the series would exceed the term cap and the quadrature is not applicable.
///
/// `c_lo`: `Some(lo)` when c + lo is the exact r²/2 to ~2^-100 relative (a double-double from
/// `half_square_ratio`); `None` when c is a rounding of it (≤ 3u).
pub(super) fn log_a_frac_up(alpha: f64, q: f64, c: f64, c_lo: Option<f64>) -> Option<f64> {
    // A_α is increasing in c: with c a rounding, evaluated at c(1 + 4u) (≥ c/(1 − u)), so the
    // bound also holds for the exact r²/2 of which the callers' c = fl(0.5·r·r) is a rounding.
    // That inflation moved ln A by 4u·c·∂ln A/∂c ≈ 4u·c·α² (1.2e-12 at α = 238.5, z = 3.09):
    // with the double-double c the quadrature evaluates at c + lo + 2e-30·c (above the exact
    // value) and the series at that sum rounded up (≤ 1 ulp).
    let (c, c_lo) = match c_lo {
        Some(lo) => (c, lo + 2e-30 * c),
        None => (c * (1.0 + 4.0 * U), 0.0),
    };
    let plan = QuadPlan::new(alpha, q, c, c_lo);
    let c = {
        let (s, e) = crate::num::dd::two_sum(c, c_lo);
        if e > 0.0 {
            s.next_up()
        } else {
            s
        }
    };
    // the cheaper method first (both are proven bounds): predicted costs in µs, measured
    if let Some(p) = &plan {
        let series_cost =
            SERIES_COST_BASE + SERIES_COST_PER_TERM * series_terms_estimate(alpha, q, c);
        if let Some(i) = p.run(series_cost / QUAD_COST_PER_NODE) {
            if i > 0.0 {
                return Some(log1p_from_log_up(log_directed(0.0, i, 1.0)));
            }
        }
    }
    let series = series_am1(alpha, q, c);
    let (lo, hi) = match &series {
        Some(v) => {
            let b = v.bound;
            if !(v.sum + b > 0.0) {
                return Some(0.0);
            }
            // relative error of ln A = ln(1 + I) caused by the bound b on I: ≤ b/((1 + I) ln(1 + I))
            let la = softplus_std(v.scale + f64::ln(v.sum.max(0.0)));
            let rel_log = if v.sum > 0.0 {
                f64::exp(v.scale + f64::ln(b) - la) / la
            } else {
                f64::INFINITY
            };
            let hi = log_directed(v.scale, v.sum + b, 1.0);
            if rel_log <= SERIES_REL {
                return Some(log1p_from_log_up(hi));
            }
            // the series' interval for A − 1 (lower end ≤ 0 allowed)
            let lo = if v.sum > b {
                log_directed(v.scale, (v.sum - b) * (1.0 - 2.0 * U), -1.0)
            } else {
                f64::NEG_INFINITY
            };
            (lo, hi)
        }
        None => (f64::NEG_INFINITY, f64::INFINITY),
    };
    match plan.and_then(|p| p.run(MAX_NODES as f64)) {
        // the quadrature's proven bound is returned when it is consistent with the series (lies
        // above the series' lower end); otherwise the larger of the two upper ends
        Some(i) if i > 0.0 => {
            let l = log_directed(0.0, i, 1.0);
            Some(log1p_from_log_up(if l >= lo { l } else { l.max(hi) }))
        }
        _ if hi.is_finite() => Some(log1p_from_log_up(hi)),
        _ => None,
    }
}

/// ln(1 + e^{l}) rounded up (l = an upper bound on ln(A − 1)).
#[inline]
fn log1p_from_log_up(l: f64) -> f64 {
    softplus_std(l) * (1.0 + 8.0 * U) + TINY
}
