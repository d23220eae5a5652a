//! E_γ(P‖Q) of two given finite mixtures of one-dimensional Gaussians, certified by adaptive
//! cells (derivation: docs/derivations/theta.md#gaussian-mixtures).
//!
//! E_γ(P‖Q) = ∫ (p − γq)_+ dx, γ = e^ε. The line is cut into [L, R] (38 standard deviations
//! beyond every component of P: the P-mass outside is below 2·Q(38) < 2^-1040) and cells. On a
//! cell C = [a, b] each component density φ_i is unimodal, so its largest value is at the point
//! of C nearest to μ_i and its smallest at the farther end; summing these per-component
//! extremes (in log space, every operation directed) bounds p and q over C. A cell is
//! *positive* when min p ≥ γ·max q (then ∫_C (p − γq)_+ = P(C) − γQ(C), computed from the
//! Gaussian tail Q with directed arguments), *negative* when max p ≤ γ·min q (it contributes 0),
//! and otherwise *uncertain*, contributing between 0 and (b − a)·(max p − γ·min q)_+. The
//! uncertain cell with the largest such bound is bisected until the uncertain total is at most
//! 2^-43 of the certified lower bound plus 2^-1000, or the cell budget is spent (the result is
//! then still an upper bound, only wider). Since p − γq is analytic it vanishes on no interval
//! unless P = Q and γ = 1 (checked first, answer 0), so the uncertain cells shrink to
//! neighbourhoods of its finitely many roots, where the bound is O(width²).
//!
//! Returned: the upper end (certified positive part rounded up, uncertain bounds, the tail
//! bound) and the lower end (the certified positive part rounded down) of a bracket of the
//! exact value for the given doubles. Its width is at most 2^-43·E + 1e-301 (the refinement
//! target) plus the rounding of the certified part, P(A) − γQ(A) on the positive set A with
//! each Gaussian-tail value moved by 2^-48 (arguments as double-doubles): since
//! γQ(A) ≤ P(A) ≤ 1 there, at most 2^-46·P(A) ≤ 1.4e-14 — relative 1e-12 unless p and γq nearly
//! cancel on A (a condition number, E ≪ P(A), whence the absolute floor). Where the log-ratio
//! ln p − ln γq crosses 0 with a slope far below the log-densities' own slopes (nearly
//! proportional tails) many cells stay uncertain and the budget may end the refinement first:
//! the bound stays safe, only wider (the lower end, returned with `bracket`, shows by how much).
//!
//! Before the cells (module `signed`, `divergence_mixture_signed.rs`): components with the same
//! (μ, s) in P and Q are merged into one signed coefficient w_P − γw_Q (bracketed, double-
//! double), and the cells run on its positive and negative parts with γ = 1, so identical parts
//! cancel exactly (two N(0, 1) mixtures with weights 3e-13 apart: 7.6e-5 → 8.2e-14, exact
//! plus 1e-13); one component each with equal weights and deviations is w·θ_{e^ε}(|Δμ|/s) from
//! the double-double θ (a shift of 1e-38: 7.5e-5 → 3.99e-39, +3.9e-15). Mixtures that agree
//! to ~1e-15 without sharing components (tiny shifts of several components) stay loose.

use crate::error::{PabiError, Result};
use crate::interrupt;
use crate::num::consts::LN_2PI;
use crate::num::round::{
    add_dn, add_up, div_dn, div_up, exp_dn, exp_up, ln_dn, ln_up, mul_dn, mul_up, rel_dn, rel_up,
    EPS2, TINY,
};
use crate::tail::gaussian_tail;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[path = "divergence_mixture_signed.rs"]
mod signed;

/// Largest number of components of one mixture.
pub const MAX_COMPONENTS: usize = 1 << 16;
/// Largest number of cells of one evaluation (per ε).
pub const MAX_CELLS: usize = 1 << 16;
/// Largest total work (components·cells·len(ε)), checked before any allocation.
pub const MAX_MIXTURE_WORK: u128 = 1 << 40;
/// Largest |mean| and the range of a standard deviation.
pub const MAX_MEAN: f64 = 1e100;
const MIN_STD: f64 = 1e-100;
/// |Σ w − 1| allowed for each mixture's weights.
pub const WEIGHT_SUM_TOL: f64 = 1e-12;
/// Standard deviations of margin around P's components: Q(38) ≈ 2.9e-316.
const TAIL_SIGMAS: f64 = 38.0;
/// Bound on the P-mass outside [L, R]: 2^-1040 ≈ 8.8e-314 ≥ 2·(1 + 1e-12)·Q(38).
const TAIL_MASS: f64 = 8.0e-314;
/// Target of the uncertain total: relative to the certified part, and absolute.
const TOL_REL: f64 = 1.0 / 8_796_093_022_208.0; // 2^-43
const TOL_ABS: f64 = 9.3e-302; // ≈ 2^-1000
const INITIAL_CELLS: usize = 32;

/// One component: ln(w/(s√(2π))) bracketed, the weight bracketed (`w_dn` ≤ w ≤ `w_up`: equal
/// for a given weight, apart for a signed mixture's coefficient), mean and standard deviation.
#[derive(Clone, Copy)]
struct Comp {
    c_up: f64,
    c_dn: f64,
    w_up: f64,
    w_dn: f64,
    mu: f64,
    s: f64,
}

impl Comp {
    /// The component of weight in [w_dn, w_up] (0 ≤ w_dn ≤ w_up), mean μ, deviation s.
    fn new(w_dn: f64, w_up: f64, mu: f64, s: f64) -> Comp {
        // ½ln(2π) bracketed: the constant is correctly rounded, 2ε relative covers its ½ ulp
        let half_ln_2pi_up = rel_up(0.5 * LN_2PI, EPS2);
        let half_ln_2pi_dn = rel_dn(0.5 * LN_2PI, EPS2);
        Comp {
            c_up: add_up(add_up(ln_up(w_up), -ln_dn(s)), -half_ln_2pi_dn),
            c_dn: add_dn(add_dn(ln_dn(w_dn), -ln_up(s)), -half_ln_2pi_up),
            w_up,
            w_dn,
            mu,
            s,
        }
    }
}

/// A mixture given by its weights, means and standard deviations (validated by [`check_mixture`]).
#[derive(Clone, Copy)]
pub struct Mixture<'a> {
    pub weights: &'a [f64],
    pub means: &'a [f64],
    pub stds: &'a [f64],
}

fn check_mixture(m: &Mixture<'_>, names: [&'static str; 3]) -> Result<()> {
    let k = m.weights.len();
    PabiError::same_lengths(names[0], k, names[1], m.means.len())?;
    PabiError::same_lengths(names[0], k, names[2], m.stds.len())?;
    if k == 0 || k > MAX_COMPONENTS {
        return Err(PabiError::domain(
            names[0],
            "a non-empty array of at most 2^16 component weights",
            k as f64,
        ));
    }
    if let Some(i) = m.weights.iter().position(|w| !(0.0..=1.0).contains(w)) {
        return Err(PabiError::domain(names[0], "weights in [0, 1] (not NaN)", m.weights[i]).at(i));
    }
    if let Some(i) = m
        .means
        .iter()
        .position(|x| x.is_nan() || x.abs() > MAX_MEAN)
    {
        return Err(
            PabiError::domain(names[1], "finite means with |mean| <= 1e100", m.means[i]).at(i),
        );
    }
    if let Some(i) = m
        .stds
        .iter()
        .position(|s| !(MIN_STD..=MAX_MEAN).contains(s))
    {
        return Err(PabiError::domain(
            names[2],
            "standard deviations in [1e-100, 1e100] (positive, not NaN)",
            m.stds[i],
        )
        .at(i));
    }
    let sum: f64 = m.weights.iter().sum();
    if sum.is_nan() || (sum - 1.0).abs() > WEIGHT_SUM_TOL {
        return Err(PabiError::domain(
            names[0],
            "weights summing to 1 (within 1e-12)",
            sum,
        ));
    }
    Ok(())
}

fn components(m: &Mixture<'_>) -> Vec<Comp> {
    (0..m.weights.len())
        .filter(|&i| m.weights[i] > 0.0)
        .map(|i| {
            let w = m.weights[i];
            Comp::new(w, w, m.means[i], m.stds[i])
        })
        .collect()
}

/// Canonical form (sorted (μ, s), equal components merged) for the P = Q test.
fn canonical(c: &[Comp]) -> Vec<(f64, f64, f64)> {
    let mut v: Vec<(f64, f64, f64)> = c.iter().map(|c| (c.mu, c.s, c.w_up)).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut out: Vec<(f64, f64, f64)> = Vec::with_capacity(v.len());
    for (mu, s, w) in v {
        match out.last_mut() {
            Some(l) if l.0 == mu && l.1 == s => l.2 += w,
            _ => out.push((mu, s, w)),
        }
    }
    out
}

/// ln of the largest (`max` = true, rounded up) or smallest (rounded down) value of the
/// mixture density on [a, b].
fn log_density_bound(c: &[Comp], a: f64, b: f64, max: bool, terms: &mut Vec<f64>) -> f64 {
    terms.clear();
    for k in c {
        let t = if max {
            // distance from μ to [a, b], rounded down
            let d = if k.mu < a {
                add_dn(a, -k.mu)
            } else if k.mu > b {
                add_dn(k.mu, -b)
            } else {
                0.0
            };
            let z = div_dn(d, k.s).min(1e150);
            add_up(k.c_up, -(0.5 * mul_dn(z, z)))
        } else {
            let d = add_up(k.mu, -a).abs().max(add_up(b, -k.mu).abs());
            let d = d.max(add_dn(k.mu, -a).abs()).max(add_dn(b, -k.mu).abs());
            let z = div_up(d, k.s);
            if z > 1e150 {
                f64::NEG_INFINITY
            } else {
                add_dn(k.c_dn, -(0.5 * mul_up(z, z)))
            }
        };
        terms.push(t);
    }
    let m = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    // the sums need no margin: each term is rounded in the sum's direction (exp_up / exp_dn
    // of a directed difference) and so is each addition (add_up / add_dn)
    if max {
        let mut s = 0.0;
        for &t in terms.iter() {
            s = add_up(s, exp_up(add_up(t, -m)));
        }
        add_up(m, ln_up(s))
    } else {
        let mut s = 0.0;
        for &t in terms.iter() {
            s = add_dn(s, exp_dn(add_dn(t, -m)));
        }
        add_dn(m, ln_dn(s))
    }
}

/// Relative margin of the Gaussian tail values: 2^-48, twice the error bound of
/// [`gaussian_tail`] (8 ulp for arguments ≥ 0, measured ≤ 3.7u against mpmath; the error
/// model of rdp::fractional), covering also the first-order correction for the low part of
/// the argument below (its neglected second-order term is ≤ (t·t_lo)² ≲ 2^-80 relative) and
/// the roundings of the product; for t < 0 the value 1 − Q(|t|) ≥ ½ is within a few ulp.
const Q_MARGIN: f64 = 1.0 / 281_474_976_710_656.0;
/// 1/√(2π).
const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// t = (x − μ)/s as a double-double (hi, lo): x − μ exactly by TwoSum, the quotient's
/// remainder exactly by fma. Without it the argument's rounding (2u|t|) would move Q(t) by
/// ≈ 2u·t² relative (1.6e-13 at t = 38), amplified by the cancellation in P(A) − γQ(A).
fn z_dd(x: f64, mu: f64, s: f64) -> (f64, f64) {
    let (dh, dl) = crate::dd::two_sum(x, -mu);
    let th = dh / s;
    let r = (-th).mul_add(s, dh);
    (th, (r + dl) / s)
}

/// Q(t_hi + t_lo) for t_hi ≥ 0, moved up (`up`) or down by [`Q_MARGIN`]: Q(t_hi) − φ(t_hi)·t_lo
/// (first order; |t_lo| ≤ u|t_hi|).
fn q_dir(t: (f64, f64), up: bool) -> f64 {
    let (th, tl) = t;
    let q = gaussian_tail(th);
    let phi = if th < 40.0 {
        INV_SQRT_2PI * (-0.5 * th * th).exp()
    } else {
        0.0
    };
    let v = (q - phi * tl).max(0.0);
    if up {
        (rel_up(v, Q_MARGIN) + TINY).min(1.0)
    } else {
        rel_dn(v, Q_MARGIN).max(0.0)
    }
}

fn neg(t: (f64, f64)) -> (f64, f64) {
    (-t.0, -t.1)
}

/// Φ(t_b) − Φ(t_a) for t_a ≤ t_b (double-double arguments), rounded up (`up`) or down; in the
/// tail form of the side the interval lies on (no cancellation against 1).
fn normal_mass(ta: (f64, f64), tb: (f64, f64), up: bool) -> f64 {
    let v = if ta.0 >= 0.0 {
        if up {
            add_up(q_dir(ta, true), -q_dir(tb, false))
        } else {
            add_dn(q_dir(ta, false), -q_dir(tb, true))
        }
    } else if tb.0 <= 0.0 {
        if up {
            add_up(q_dir(neg(tb), true), -q_dir(neg(ta), false))
        } else {
            add_dn(q_dir(neg(tb), false), -q_dir(neg(ta), true))
        }
    } else if up {
        add_up(add_up(1.0, -q_dir(neg(ta), false)), -q_dir(tb, false))
    } else {
        add_dn(add_dn(1.0, -q_dir(neg(ta), true)), -q_dir(tb, true))
    };
    v.clamp(0.0, 1.0)
}

/// The mixture's mass of [a, b], rounded up or down.
fn mixture_mass(c: &[Comp], a: f64, b: f64, up: bool) -> f64 {
    let mut s = 0.0;
    for k in c {
        let m = normal_mass(z_dd(a, k.mu, k.s), z_dd(b, k.mu, k.s), up);
        s = if up {
            add_up(s, mul_up(k.w_up, m))
        } else {
            add_dn(s, mul_dn(k.w_dn, m))
        };
    }
    s
}

#[derive(Clone, Copy, PartialEq)]
struct Cell {
    ub: f64,
    a: f64,
    b: f64,
}
impl Eq for Cell {}
impl PartialOrd for Cell {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cell {
    fn cmp(&self, o: &Self) -> Ordering {
        self.ub.total_cmp(&o.ub)
    }
}

/// The positive cells (merged into intervals at the end, so that the masses telescope: a
/// per-cell Φ difference would carry an error relative to Φ, not to the cell's mass) and a
/// rounded-to-nearest estimate of their P − γQ (for the stopping rule only).
struct Positive {
    cells: Vec<(f64, f64)>,
    estimate: f64,
}

/// γ·x rounded up or down, x ≥ 0 (γ = e^ε; through logarithms beyond ε = 709).
fn gamma_times(eps: f64, x: f64, up: bool) -> f64 {
    if x == 0.0 || eps == 0.0 {
        return x; // γ = 1 exactly
    }
    if eps <= 709.0 {
        if up {
            mul_up(exp_up(eps), x)
        } else {
            mul_dn(exp_dn(eps), x)
        }
    } else if up {
        exp_up(add_up(eps, ln_up(x)))
    } else {
        exp_dn(add_dn(eps, ln_dn(x)))
    }
}

struct Eval<'c> {
    p: &'c [Comp],
    q: &'c [Comp],
    eps: f64,
    terms: Vec<f64>,
}

impl Eval<'_> {
    /// Classify [a, b]: `None` when certified (the sums updated), else the uncertain bound.
    fn cell(&mut self, a: f64, b: f64, pos: &mut Positive) -> Option<f64> {
        let lp_max = log_density_bound(self.p, a, b, true, &mut self.terms);
        let lq_min = log_density_bound(self.q, a, b, false, &mut self.terms);
        // y ≤ ln(γ min q / max p)
        let y = add_dn(add_dn(self.eps, lq_min), -lp_max);
        if y >= 0.0 || lp_max == f64::NEG_INFINITY {
            return None; // negative cell
        }
        let lp_min = log_density_bound(self.p, a, b, false, &mut self.terms);
        let lq_max = log_density_bound(self.q, a, b, true, &mut self.terms);
        if lp_min > f64::NEG_INFINITY && lp_min >= add_up(self.eps, lq_max) {
            let pm = mixture_mass(self.p, a, b, false);
            let qm = mixture_mass(self.q, a, b, true);
            pos.estimate += (pm - gamma_times(self.eps, qm, true)).max(0.0);
            pos.cells.push((a, b));
            return None;
        }
        // (b − a)·max p·(1 − e^y), 1 − e^y = −expm1(y) rounded up (expm1 faithful)
        let f = (-y.exp_m1()).next_up().next_up().min(1.0);
        Some(mul_up(mul_up(add_up(b, -a), exp_up(lp_max)), f))
    }
}

/// Bracket [lower, upper] of E_{e^ε}(P‖Q) for one ε ≥ 0 (validated mixtures).
fn bracket_one(
    p: &[Comp],
    q: &[Comp],
    eps: f64,
    heap: &mut BinaryHeap<Cell>,
    pos: &mut Positive,
) -> Result<(f64, f64)> {
    if eps == f64::INFINITY {
        return Ok((0.0, 0.0)); // q > 0 everywhere: P(q = 0) = 0
    }
    let lo = p
        .iter()
        .map(|k| add_dn(k.mu, -mul_up(TAIL_SIGMAS, k.s)))
        .fold(f64::INFINITY, f64::min);
    let hi = p
        .iter()
        .map(|k| add_up(k.mu, mul_up(TAIL_SIGMAS, k.s)))
        .fold(f64::NEG_INFINITY, f64::max);
    let mut ev = Eval {
        p,
        q,
        eps,
        terms: Vec::with_capacity(p.len().max(q.len())),
    };
    heap.clear();
    pos.cells.clear();
    pos.estimate = 0.0;
    let mut frozen = 0.0f64;
    let mut gap = TAIL_MASS;
    let width = (hi - lo) / INITIAL_CELLS as f64;
    let mut a = lo;
    for i in 1..=INITIAL_CELLS {
        let b = if i == INITIAL_CELLS {
            hi
        } else {
            lo + width * i as f64
        };
        if let Some(ub) = ev.cell(a, b, pos) {
            gap += ub;
            heap.push(Cell { ub, a, b });
        }
        a = b;
    }
    let mut cells = INITIAL_CELLS;
    let mut since_exact = 0usize;
    loop {
        let target = TOL_REL * pos.estimate + TOL_ABS;
        if gap <= target || since_exact >= 256 {
            // recompute exactly (the running total drifts); stop if it holds
            gap = heap
                .iter()
                .fold(add_up(TAIL_MASS, frozen), |s, c| add_up(s, c.ub));
            since_exact = 0;
            if gap <= target {
                break;
            }
        }
        if cells + 2 > MAX_CELLS {
            break;
        }
        let Some(c) = heap.pop() else { break };
        gap -= c.ub;
        let mid = c.a + 0.5 * (c.b - c.a);
        if !(mid > c.a && mid < c.b) {
            frozen = add_up(frozen, c.ub);
            gap += c.ub;
            continue;
        }
        for (x, y) in [(c.a, mid), (mid, c.b)] {
            if let Some(ub) = ev.cell(x, y, pos) {
                gap += ub;
                heap.push(Cell { ub, a: x, b: y });
            }
        }
        cells += 1;
        since_exact += 1;
        if cells % 1024 == 0 {
            interrupt::check()?;
        }
    }
    let uncertain = heap
        .iter()
        .fold(add_up(TAIL_MASS, frozen), |s, c| add_up(s, c.ub));
    // merge adjacent positive cells into intervals, then the masses of each interval
    pos.cells.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut p_up, mut p_dn, mut q_up, mut q_dn) = (0.0, 0.0, 0.0, 0.0);
    let mut i = 0;
    while i < pos.cells.len() {
        let (a, mut b) = pos.cells[i];
        i += 1;
        while i < pos.cells.len() && pos.cells[i].0 == b {
            b = pos.cells[i].1;
            i += 1;
        }
        p_up = add_up(p_up, mixture_mass(p, a, b, true));
        p_dn = add_dn(p_dn, mixture_mass(p, a, b, false));
        q_up = add_up(q_up, mixture_mass(q, a, b, true));
        q_dn = add_dn(q_dn, mixture_mass(q, a, b, false));
    }
    let cert_up = add_up(p_up.min(1.0), -gamma_times(eps, q_dn, false)).max(0.0);
    let cert_dn = add_dn(p_dn, -gamma_times(eps, q_up, true)).max(0.0);
    Ok((cert_dn, add_up(cert_up, uncertain)))
}

/// E_{e^ε}(P‖Q) of two Gaussian mixtures for each ε of `eps`: the upper end of a certified
/// bracket into `upper` (never below the exact value for the given doubles) and, if given, the
/// lower end into `lower`. Each mixture: weights in [0, 1] summing to 1 within 1e-12, finite
/// means (|μ| ≤ 1e100), standard deviations in [1e-100, 1e100].
pub fn mixture_hockey_stick(
    p: Mixture<'_>,
    q: Mixture<'_>,
    eps: &[f64],
    upper: &mut [f64],
    mut lower: Option<&mut [f64]>,
) -> Result<()> {
    check_mixture(&p, ["p_weights", "p_means", "p_stds"])?;
    check_mixture(&q, ["q_weights", "q_means", "q_stds"])?;
    PabiError::same_lengths("eps", eps.len(), "out", upper.len())?;
    if let Some(l) = lower.as_deref() {
        PabiError::same_lengths("eps", eps.len(), "lower", l.len())?;
    }
    if let Some(i) = eps.iter().position(|&e| e.is_nan() || e < 0.0) {
        return Err(PabiError::domain("eps", ">= 0 and not NaN (+inf allowed)", eps[i]).at(i));
    }
    let work = (p.weights.len() + q.weights.len()) as u128 * MAX_CELLS as u128 * eps.len() as u128;
    if work > MAX_MIXTURE_WORK {
        return Err(PabiError::domain(
            "eps",
            "short enough that (components of P and Q) * 2^16 cells * len(eps) <= 2^40",
            eps.len() as f64,
        ));
    }
    let pc = components(&p);
    let qc = components(&q);
    if canonical(&pc) == canonical(&qc) {
        // E_γ(P‖P) = 0 for every γ ≥ 1: no cells, no working buffers
        upper.fill(0.0);
        if let Some(lw) = lower {
            lw.fill(0.0);
        }
        return Ok(());
    }
    let mut heap = BinaryHeap::with_capacity(MAX_CELLS + 2);
    let mut pos = Positive {
        cells: Vec::with_capacity(MAX_CELLS + 2),
        estimate: 0.0,
    };
    for (i, &e) in eps.iter().enumerate() {
        interrupt::check()?;
        // the cancellation-free forms first (module `signed`), else the cells on (P, Q, ε)
        let (l, u) = if let Some(b) = signed::theta_pair(&pc, &qc, e) {
            b
        } else if let Some((pp, qq)) = signed::signed_parts(&pc, &qc, e) {
            if pp.is_empty() {
                (0.0, 0.0) // p − γq = −q' ≤ 0 everywhere
            } else {
                bracket_one(&pp, &qq, 0.0, &mut heap, &mut pos)?
            }
        } else {
            bracket_one(&pc, &qc, e, &mut heap, &mut pos)?
        };
        upper[i] = u;
        if let Some(lw) = lower.as_deref_mut() {
            lw[i] = l;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(p: (&[f64], &[f64], &[f64]), q: (&[f64], &[f64], &[f64]), eps: f64) -> (f64, f64) {
        let (mut u, mut l) = ([0.0], [0.0]);
        mixture_hockey_stick(
            Mixture {
                weights: p.0,
                means: p.1,
                stds: p.2,
            },
            Mixture {
                weights: q.0,
                means: q.1,
                stds: q.2,
            },
            &[eps],
            &mut u,
            Some(&mut l),
        )
        .unwrap();
        (l[0], u[0])
    }

    #[test]
    fn single_gaussians_match_theta() {
        for (mu, eps) in [(1.0, 0.0), (1.0, 1.0), (0.5, 0.3), (3.0, 2.0), (1.0, 8.0)] {
            let (l, u) = one((&[1.0], &[mu], &[1.0]), (&[1.0], &[0.0], &[1.0]), eps);
            let th = crate::theta::theta(eps, mu);
            assert!(l <= u && u - l <= 1e-12 * u + 1e-300, "{mu} {eps} {l} {u}");
            assert!((u - th).abs() <= 2e-12 * th, "{mu} {eps} {u} {th}");
        }
    }

    #[test]
    fn identical_and_infinite() {
        let (l, u) = one(
            (&[0.5, 0.5], &[0.0, 1.0], &[1.0, 2.0]),
            (&[0.5, 0.5], &[1.0, 0.0], &[2.0, 1.0]),
            0.0,
        );
        assert_eq!((l, u), (0.0, 0.0));
        let (l, u) = one(
            (&[1.0], &[1.0], &[1.0]),
            (&[1.0], &[0.0], &[1.0]),
            f64::INFINITY,
        );
        assert_eq!((l, u), (0.0, 0.0));
        // huge eps: a wider P has mass far out where q is negligible
        let (l, u) = one((&[1.0], &[0.0], &[2.0]), (&[1.0], &[0.0], &[1.0]), 800.0);
        assert!(l <= u && u.is_finite() && u > 0.0, "{l} {u}");
    }

    /// P = Q (components in another order, one split in two): 0 at every ε, both ends, without
    /// the cells (returned before the working buffers are reserved).
    #[test]
    fn identical_mixtures_every_eps() {
        let eps = [0.0, 0.5, 30.0, 800.0, f64::INFINITY];
        let (mut u, mut l) = ([1.0; 5], [1.0; 5]);
        mixture_hockey_stick(
            Mixture {
                weights: &[0.25, 0.25, 0.5],
                means: &[2.0, 2.0, -1.0],
                stds: &[0.5, 0.5, 3.0],
            },
            Mixture {
                weights: &[0.5, 0.5],
                means: &[-1.0, 2.0],
                stds: &[3.0, 0.5],
            },
            &eps,
            &mut u,
            Some(&mut l),
        )
        .unwrap();
        assert_eq!((u, l), ([0.0; 5], [0.0; 5]));
    }

    #[test]
    fn validation_names_the_argument() {
        let mut u = [0.0];
        let ok: (&[f64], &[f64], &[f64]) = (&[1.0], &[0.0], &[1.0]);
        for (p, param) in [
            (
                (&[0.5, 0.6][..], &[0.0, 1.0][..], &[1.0, 1.0][..]),
                "p_weights",
            ),
            ((&[1.0][..], &[f64::NAN][..], &[1.0][..]), "p_means"),
            (
                (&[0.5, 0.5][..], &[0.0, 1.0][..], &[1.0, -1.0][..]),
                "p_stds",
            ),
        ] {
            let r = mixture_hockey_stick(
                Mixture {
                    weights: p.0,
                    means: p.1,
                    stds: p.2,
                },
                Mixture {
                    weights: ok.0,
                    means: ok.1,
                    stds: ok.2,
                },
                &[0.0],
                &mut u,
                None,
            );
            match r {
                Err(PabiError::Domain { param: got, .. }) => assert_eq!(got, param),
                other => panic!("{other:?}"),
            }
        }
    }
}
