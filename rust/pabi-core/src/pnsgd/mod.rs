//! Privacy amplification by iteration for projected noisy SGD (PNSGD): the (ε, δ) bounds for a
//! record processed at a fixed position, under shuffling and under random stopping; their
//! inverses (ε for a target δ, the smallest noise for a target (ε, δ)); and the RDP-based
//! comparison bound of Asoodeh–Diaz–Calmon Proposition 1. SPEC_pabi.md §1.6–§3.5, §8.2, §9.
//!
//! # Formulas
//! With noise scale s (Gaussian standard deviation σ, or Laplace scale v, d = 1), Lipschitz
//! constant L, learning rate η, diameter D of the constraint set and M the contraction factor of
//! a gradient step ([`crate::gd::step_contraction`]):
//!
//! * r_A = 2L/s, r_B = M·D/(η·s); A = h(ε, r_A), B = h(ε, r_B), h = θ (Gaussian, 003 eq. (4)) or
//!   the Laplace divergence max(0, 1 − e^{(ε−r)/2}) (003 eq. (5): A = (1 − e^{ε/2 − L/v})_+,
//!   B = (1 − e^{ε/2 − M(b−a)/(2ηv)})_+).
//! * fixed order, record i (003 Thm 1 = 000 Thms 3, 4): δ_i = A·B^{n−i}.
//! * shuffled (003 Thm 2): δ = A(1 − B^n)/(n(1 − B)) = A·G(1 − B, n).
//! * random stop, refined (003 §1): δ_i = A(1 − B^{n−i+1})/(n(1 − B)) = A·(m/n)·G(1 − B, m),
//!   m = n − i + 1; its maximum over i (i = 1) is the shuffled value exactly (SPEC §9 T12).
//! * random stop as published (000 eq. (16)): A/(n(1 − B)), clamped to 1 (often vacuous).
//! * RDP comparison (000 Prop. 1, SPEC §3.5): c_i = (2L²/σ²)·x(1−x)^{k}/(1 − (1−x)^{k+1}),
//!   x = 1 − M², k = n − i; δ_B = exp(−(ε − c_i)²/(4c_i)) for ε > c_i, else 1.
//!
//! # Numerics
//! 1 − B is never formed by subtraction: u = 1 − B comes from the engine's complement (rounded
//! down), ln B = log1p(−u) when u ≤ 7/8 and ln of θ (rounded up) otherwise, and
//! B^k = exp(k·ln B) with the product k·ln B kept exact (fma residual) (SPEC §8.2, check C08).
//! The geometric sums use [`geometric_average`]. Radii are rounded up (θ increases with r,
//! [`Radii`]), M is rounded up (within 2 ulp of the double-double M of [`step_contraction`]), and every δ is moved outward by [`crate::num::INFLATE`]: each
//! returned δ is an upper bound of the formula evaluated at the exact (double) inputs.
//!
//! Accuracy of the fixed order: δ = A·B^k has condition number |k·ln B| with respect to the
//! relative error of ln B. The engine's ln B (outward rounding of 1 − θ by 2^-49, r_B rounded up
//! to a double — a relative error of ≈ (r²/4)·ulp in 1 − B, more with M < 1 rounded up — and the
//! log1p) gives δ within ≈ 1.5e-14 + 3.6e-15·|k·ln B| (up to 2e-10 at |k·ln B| ≈ 270 measured
//! on main before the precise path). So where |k·ln B|·w > 20 (w = 1 + r_B²/64 Gaussian,
//! 1 + r_B/32 Laplace: the sensitivity to the radius' rounding) a precise path recomputes ln B
//! from the inputs (`precise_lb`): r_B = M·D/(η·s) with M = sqrt(1 − x) in double-double,
//! ln θ(ε, r_B) (or the Laplace ln(1 − e^{(ε−r)/2})) in double-double by [`crate::theta_dd`]
//! (~30 digits, with a run-time error estimate), moved up by that estimate plus 2^-55 relative;
//! then k·ln B = t_hi + t_lo and δ = A·e^{t_hi}(1 + t_lo) rounded up (ln δ: ln A + t summed
//! exactly, rounded up), and the smaller of the fast and precise values (both upper bounds) is
//! returned. A (linear in δ) stays the engine's. Measured against the 50-digit reference
//! (tests/test_pnsgd_fixed_precise.py; B near 1 with n − i up to 1e15 and B ∈ [1e-3, ½], both
//! noises, convex and strongly convex): relative error ≤ 5e-14 for every |k·ln B| up to ~708
//! (δ normal), ≤ 2.1e-13 below the threshold; ln δ within 2.3e-13 absolute (≈ 2 ulp) at
//! conditions up to 1e12. Subnormal δ (|k·ln B| up to 745) is an upper bound within 6 subnormal
//! ulps. The precise path costs a few µs per lane (once per call when ε and the radii are
//! scalars); the fast path below the threshold is bitwise unchanged. The inversions evaluate it
//! only near their decision (`meets`). Other orders: ≤ 1e-12 (geometric sums are well
//! conditioned).
//!
//! # Speed
//! Array arguments are processed in blocks of [`theta::BLOCK`] lanes: the Gaussian factors by
//! the engine's block kernels (bitwise equal to the scalar path), the order's formula in a loop
//! per order; what does not vary (M, the radii numerators, the radii, the factors) is computed
//! once; long arrays are split across the thread pool.

use multiversion::multiversion;
use rayon::prelude::*;

use std::sync::OnceLock;

use crate::batch::{check, pool};
use crate::dd::{two_prod, two_sum, Dd};
use crate::error::{PabiError, Result};
use crate::gd::{step_contraction, Radii, StepContraction};
use crate::num::{geometric_average, up, TINY};
use crate::theta;
use crate::theta_dd;
use crate::vmath;

/// Relative outward shift applied to logarithms computed to ≤ 2 ulp (4 ulp).
const LOG_REL: f64 = 4.0 / 9_007_199_254_740_992.0;
/// 2^-53.
const HALF_ULP: f64 = 1.0 / 9_007_199_254_740_992.0;
/// n and index must be below 2^53 so that n − i is exact in f64.
pub const N_MAX: f64 = 9_007_199_254_740_992.0;
/// Arrays at least this long are split across the thread pool (δ evaluation).
const PAR_DELTA: usize = 1 << 14;
/// Inversions cost ~100 evaluations per element: parallelize from this length.
const PAR_SOLVE: usize = 64;

/// The noise added to the gradient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noise {
    /// N(0, σ² I_d); `sigma` is the standard deviation σ.
    Gaussian,
    /// Lap(0, v) in d = 1; `sigma` is the scale v, `diameter` = b − a.
    Laplace,
}

/// How the records are ordered / the output chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Records in index order, output w_n; δ for record `index` (required).
    Fixed,
    /// One uniformly random permutation (003 Thm 2); `index` must not be given.
    Shuffled,
    /// Output w_T, T uniform on 1..n (refined form, 003 §1); `index` None = worst case over i.
    RandomStop,
    /// 000 eq. (16), A/(n(1 − B)) clamped to 1 (looser; often vacuous). `index` is ignored.
    RandomStopAsPublished,
}

impl Noise {
    pub fn parse(s: &str) -> Result<Noise> {
        match s {
            "gaussian" => Ok(Noise::Gaussian),
            "laplace" => Ok(Noise::Laplace),
            _ => Err(PabiError::unreachable(format!(
                "noise must be 'gaussian' or 'laplace', got {s:?}"
            ))),
        }
    }
}

impl Order {
    /// `order` in {"fixed", "shuffled", "random_stop"}, `variant` in {"refined", "as_published"}
    /// (the variant only applies to "random_stop").
    pub fn parse(order: &str, variant: &str) -> Result<Order> {
        let o = match order {
            "fixed" => Order::Fixed,
            "shuffled" => Order::Shuffled,
            "random_stop" => Order::RandomStop,
            _ => {
                return Err(PabiError::unreachable(format!(
                    "order must be 'fixed', 'shuffled' or 'random_stop', got {order:?}"
                )))
            }
        };
        match (o, variant) {
            (_, "refined") => Ok(o),
            (Order::RandomStop, "as_published") => Ok(Order::RandomStopAsPublished),
            (_, "as_published") => Err(PabiError::unreachable(format!(
                "variant='as_published' only applies to order='random_stop', got order={order:?}"
            ))),
            _ => Err(PabiError::unreachable(format!(
                "variant must be 'refined' or 'as_published', got {variant:?}"
            ))),
        }
    }
}

/// Broadcast arguments of the PNSGD bounds: every slice has length 1 (the same value for every
/// element, stride 0) or the output length.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    pub noise: Noise,
    pub order: Order,
    /// Gaussian noise std σ or Laplace scale v (> 0). Ignored by [`calibrate_sigma`].
    pub sigma: &'a [f64],
    pub lipschitz: &'a [f64],
    pub lr: &'a [f64],
    pub diameter: &'a [f64],
    pub n: &'a [f64],
    pub index: Option<&'a [f64]>,
    pub smoothness: Option<&'a [f64]>,
    pub strong_convexity: &'a [f64],
}

#[inline(always)]
fn at(s: &[f64], j: usize) -> f64 {
    if s.len() == 1 {
        s[0]
    } else {
        s[j]
    }
}

/// ln of a value in (0, 1] computed to a few ulp, moved up (towards 0).
#[inline(always)]
fn log_up(v: f64) -> f64 {
    v * (1.0 - LOG_REL)
}

fn is_count(x: f64) -> bool {
    // the cast is exact below 2^53 (and cheaper than `fract`, a libm call without SSE4.1)
    (1.0..N_MAX).contains(&x) && (x as u64) as f64 == x
}

/// Check lengths (1 or `len`) and the per-argument domains.
fn check_params(p: &Params, len: usize, need_sigma: bool) -> Result<()> {
    let mut lens: Vec<(&'static str, usize)> = vec![
        ("lipschitz", p.lipschitz.len()),
        ("lr", p.lr.len()),
        ("diameter", p.diameter.len()),
        ("n", p.n.len()),
        ("strong_convexity", p.strong_convexity.len()),
    ];
    if need_sigma {
        lens.push(("sigma", p.sigma.len()));
    }
    if let Some(i) = p.index {
        lens.push(("index", i.len()));
    }
    if let Some(b) = p.smoothness {
        lens.push(("smoothness", b.len()));
    }
    check_broadcast(len, &lens)?;
    if need_sigma {
        check(p.sigma, "sigma", "finite and > 0", |x| {
            x > 0.0 && x.is_finite()
        })?;
    }
    check(p.lipschitz, "lipschitz", "finite and >= 0", |x| {
        x >= 0.0 && x.is_finite()
    })?;
    check(p.lr, "lr", "finite and > 0", |x| x > 0.0 && x.is_finite())?;
    check(p.diameter, "diameter", "finite and >= 0", |x| {
        x >= 0.0 && x.is_finite()
    })?;
    check(p.n, "n", "an integer in [1, 2^53)", is_count)?;
    if let Some(b) = p.smoothness {
        check(b, "smoothness", "finite and > 0", |x| {
            x > 0.0 && x.is_finite()
        })?;
    }
    check(
        p.strong_convexity,
        "strong_convexity",
        "finite and >= 0",
        |x| x >= 0.0 && x.is_finite(),
    )?;
    match (p.order, p.index) {
        (Order::Fixed, None) => return Err(PabiError::unreachable(
            "index is required with order='fixed' (the 1-based position of the differing record)",
        )),
        (Order::Shuffled, Some(_)) => {
            return Err(PabiError::unreachable(
                "index must not be given with order='shuffled' (the bound is uniform in the index)",
            ))
        }
        _ => {}
    }
    if let Some(ix) = p.index {
        check(ix, "index", "an integer in 1..=n", is_count)?;
        let m = ix.len().max(p.n.len());
        for j in 0..m {
            let (i, n) = (at(ix, j), at(p.n, j));
            if i > n {
                return Err(PabiError::domain(
                    "index",
                    format!("an integer in 1..=n (n = {n})"),
                    i,
                )
                .at(j));
            }
        }
    }
    Ok(())
}

fn check_broadcast(len: usize, lens: &[(&'static str, usize)]) -> Result<()> {
    for &(name, m) in lens {
        if m != 1 && m != len {
            return Err(PabiError::Shape {
                message: format!("{name} has length {m}, expected 1 or {len}"),
            });
        }
    }
    Ok(())
}

/// The contraction factor M (rounded up, within 2 ulp: [`step_contraction`]) for element j.
#[inline]
fn contraction(p: &Params, j: usize) -> Result<f64> {
    let lr = at(p.lr, j);
    let beta = p.smoothness.map(|b| at(b, j));
    let c = step_contraction(lr, beta, at(p.strong_convexity, j)).map_err(|e| e.at(j))?;
    Ok(c.m)
}

/// One element's problem data, independent of ε and σ.
#[derive(Debug, Clone, Copy)]
struct Elem {
    noise: Noise,
    order: Order,
    /// 2L and M·D/η (rounded up): the numerators of the radii.
    rad: Radii,
    n: f64,
    /// index (1-based); 1 for the worst case of the random stop.
    i: f64,
    /// The inputs of r_B, for the precise path of the fixed order.
    geo: Geo,
}

// ---------------------------------------------------------------------------------------------
// The precise path of the fixed order (module doc, "Accuracy of the fixed order")

/// The precise path is taken where |k·ln B|·w exceeds this, w ≥ 1 the sensitivity weight of
/// [`wants_precise`]; below it the fast path's error is ≲ 3e-13 relative.
const PRECISE_T: f64 = 20.0;
/// Relative outward margin on the double-double ln B for what its error estimate does not model
/// (2^-55 ≈ 2.8e-17: δ moves by ≤ 2.1e-14 relative at |k·ln B| = 745).
const LB_MARGIN: f64 = 2.775_557_561_562_891_4e-17;

/// The inputs of the radius r_B = M·D/(η·s), M = sqrt(1 − 2ηβρ/(β + ρ)) (β = 0: no smoothness
/// given, M = 1), for the precise path (which carries r_B as a double-double).
#[derive(Debug, Clone, Copy, Default)]
struct Geo {
    lr: f64,
    beta: f64,
    rho: f64,
    diam: f64,
}

impl Geo {
    fn at(p: &Params, j: usize) -> Geo {
        Geo {
            lr: at(p.lr, j),
            beta: p.smoothness.map_or(0.0, |b| at(b, j)),
            rho: at(p.strong_convexity, j),
            diam: at(p.diameter, j),
        }
    }

    /// M·D/η as a double-double (relative error ~1e-31): 1 − x = (β + ρ − 2ηβρ)/(β + ρ) with
    /// the numerator in double-double (the formula of [`step_contraction`], validated there),
    /// M its double-double square root. `None` where M = 0 (B = 0: no precise path needed).
    fn mdl_dd(&self) -> Option<Dd> {
        let m = if self.beta == 0.0 || self.rho == 0.0 {
            Dd::from_f64(1.0)
        } else {
            let (p, pe) = two_prod(2.0 * self.lr, self.beta);
            let q = Dd::new(p, pe).mul_f(self.rho);
            let (sh, sl) = two_sum(self.beta, self.rho);
            let s = Dd::new(sh, sl);
            let num = s - q;
            if num.hi.is_nan() || num.hi <= 0.0 {
                return None;
            }
            (num / s).sqrt()
        };
        Some(m.mul_f(self.diam).div_f(self.lr))
    }
}

/// Does the fixed-order lane with t = k·ln B (fast), radius r_B and A take the precise path?
/// The fast ln B has a relative error ≈ 3e-15 + (the rounding of r_B, ≤ 6 ulp) × d ln|ln B|/d ln r,
/// the latter ≈ r²/4 (Gaussian, B near 1) or r/2 (Laplace): the weight w = 1 + r²/64 or
/// 1 + r/32 keeps the fast path's error below ~3e-13.
#[inline(always)]
fn wants_precise(noise: Noise, t: f64, rb: f64, a: f64) -> bool {
    let w = match noise {
        Noise::Gaussian => 1.0 + rb * rb * (1.0 / 64.0),
        Noise::Laplace => 1.0 + rb * (1.0 / 32.0),
    };
    t.abs() * w > PRECISE_T && t.is_finite() && a > 0.0
}

/// ln B rounded up (towards 0) as a double-double, from the inputs: r_B = (M·D/η)/s in
/// double-double, ln B by [`theta_dd`], moved up by its error estimate and [`LB_MARGIN`].
/// `None` where the double-double formulas do not apply (the caller keeps the fast value).
#[inline(never)]
fn precise_lb(noise: Noise, g: &Geo, eps: f64, s: f64) -> Option<Dd> {
    let r = g.mdl_dd()?.div_f(s);
    if !(r.hi >= 1e-300 && r.hi.is_finite()) {
        return None;
    }
    let (l, err) = match noise {
        Noise::Gaussian => theta_dd::ln_theta_dd(eps, r)?,
        Noise::Laplace => theta_dd::ln_laplace_theta_dd(eps, r)?,
    };
    let v = l.add_f(err + l.hi.abs() * LB_MARGIN);
    if v.hi < 0.0 && v.hi.is_finite() {
        Some(v)
    } else {
        None
    }
}

/// A·B^k from the double-double ln B (rounded up): k·ln B = t_hi + t_lo exactly to ~1e-31,
/// δ = A·e^{t_hi}·(1 + t_lo) rounded up.
#[inline(never)]
fn value_fixed_precise(a: f64, lb: Dd, k: f64) -> f64 {
    let t = lb.mul_f(k);
    if t.hi < -746.0 {
        return TINY;
    }
    up(a * vmath::exp(t.hi) * (1.0 + t.lo)).min(a).min(1.0)
}

/// ln A + k·ln B from the double-double ln B (rounded up): the sum is formed exactly
/// (two_sum) and rounded up to a double.
#[inline(never)]
fn log_fixed_precise(la: f64, lb: Dd, k: f64) -> f64 {
    let t = lb.mul_f(k);
    if !t.hi.is_finite() {
        return -f64::MAX;
    }
    let (s, e) = two_sum(la, t.hi);
    let lo = e + t.lo;
    let v = s + lo;
    let res = (s - v) + lo; // exact: v + res = s + lo
    let v = if res > 0.0 && v < 0.0 {
        f64::from_bits(v.to_bits() - 1) // the next double towards 0
    } else {
        v
    };
    v.min(la).min(0.0)
}

impl Elem {
    /// (r_A, r_B) = (2L/s, M·D/(η s)), rounded up.
    #[inline(always)]
    fn radii(&self, s: f64) -> (f64, f64) {
        self.rad.at(s)
    }
}

/// Where u = 1 − B ≤ this, ln B = log1p(−u) (1 − u is exact for u ≥ ½): its absolute error
/// from the complement's rounding, u·2^-49/B, is below the 2^-46 of ln θ while B ≥ 1/8.
const U_LOG1P: f64 = 0.875;

/// The θ-type factors of one element at one ε: A (rounded up), ln A (rounded up; log mode
/// only), u = 1 − B (rounded down, never formed by subtraction) and ln B (rounded up; fixed
/// order only).
#[derive(Debug, Clone, Copy, Default)]
struct Fac {
    a: f64,
    la: f64,
    u: f64,
    lb: f64,
}

/// ln θ from θ (rounded up, a few ulp), moved up by 2 ulp; NaN (fallback marker) where
/// θ ≤ 1e-300.
#[inline(always)]
fn ln_of_theta(th: f64) -> f64 {
    let l = vmath::ln(th);
    if th > 1e-300 {
        l - 2.0 * f64::EPSILON * l
    } else {
        f64::NAN
    }
}

/// ln B for a Gaussian B = θ(ε, r_B) from u = 1 − B (the engine's complement, rounded down),
/// rounded up: log1p(−u) while u ≤ 7/8 (1 − u exact for u ≥ ½; the absolute error from the
/// complement's rounding, u·2^-49/B, stays below the 2^-46 of θ), else ln of θ (rounded up), and the engine's ln θ where θ ≤ 1e-300.
#[inline(always)]
fn log_b_gauss(u: f64, eps: f64, rb: f64) -> f64 {
    if u <= U_LOG1P {
        log_up(vmath::log1p(-u))
    } else {
        let l = ln_of_theta(theta::theta(eps, rb));
        if l.is_nan() {
            theta::log_theta(eps, rb)
        } else {
            l
        }
    }
}

/// [`log_b_gauss`] over a block (bitwise equal per lane), given u = 1 − B of every lane: the
/// lanes with u > 7/8 are gathered through the engine's θ block kernel.
#[inline(always)]
pub(crate) fn log_b_gauss_block(u: &[f64], eps: &[f64], rb: &[f64], out: &mut [f64]) {
    const B: usize = theta::BLOCK;
    let n = out.len().min(u.len()).min(B);
    let mut idx = [0usize; B + 1]; // (branch-free compaction writes one past the group)
    let mut nb = 0;
    for j in 0..n {
        out[j] = log_up(vmath::log1p(-u[j]));
        idx[nb] = j;
        nb += (u[j] > U_LOG1P) as usize;
    }
    if nb == 0 {
        return;
    }
    let (mut gx, mut gr, mut gv) = ([1.0; B], [1.0; B], [0.0; B]);
    for t in 0..nb {
        gx[t] = eps[idx[t]];
        gr[t] = rb[idx[t]];
    }
    theta::theta_block(&gx[..nb], &gr[..nb], &mut gv[..nb]);
    for t in 0..nb {
        let j = idx[t];
        let l = ln_of_theta(gv[t]);
        out[j] = if l.is_nan() {
            theta::log_theta(eps[j], rb[j])
        } else {
            l
        };
    }
}

/// ln A (rounded up) from A = θ (the engine's θ, rounded up) of every lane: ln of the value
/// (its error, θ's 2^-46 relative, enters δ once), the engine's ln θ where θ ≤ 1e-300.
#[inline(always)]
pub(crate) fn log_a_gauss_block(a: &[f64], eps: &[f64], ra: &[f64], out: &mut [f64]) {
    let n = out.len().min(a.len());
    let mut any = false;
    for j in 0..n {
        out[j] = ln_of_theta(a[j]);
        any |= out[j].is_nan();
    }
    if any {
        for j in 0..n {
            if out[j].is_nan() {
                out[j] = theta::log_theta(eps[j], ra[j]);
            }
        }
    }
}

/// The factors needed by (`order`, `log`) for one element (scalar engine calls).
#[inline(always)]
fn factors_one(noise: Noise, order: Order, log: bool, eps: f64, ra: f64, rb: f64) -> Fac {
    let fixed = order == Order::Fixed;
    match noise {
        Noise::Gaussian => {
            let u = theta::theta_complement(eps, rb);
            Fac {
                a: theta::theta(eps, ra),
                la: if log { theta::log_theta(eps, ra) } else { 0.0 },
                u,
                lb: if fixed { log_b_gauss(u, eps, rb) } else { 0.0 },
            }
        }
        Noise::Laplace => {
            let a = theta::laplace_theta(eps, ra);
            Fac {
                a,
                la: if log { log_up(vmath::ln(a)) } else { 0.0 },
                u: theta::laplace_theta_complement(eps, rb),
                lb: if fixed {
                    theta::log_laplace_theta(eps, rb)
                } else {
                    0.0
                },
            }
        }
    }
}

/// Structure-of-arrays factors of one block of lanes.
struct Facs {
    a: [f64; theta::BLOCK],
    la: [f64; theta::BLOCK],
    u: [f64; theta::BLOCK],
    lb: [f64; theta::BLOCK],
}

impl Facs {
    #[inline(always)]
    fn get(&self, t: usize) -> Fac {
        Fac {
            a: self.a[t],
            la: self.la[t],
            u: self.u[t],
            lb: self.lb[t],
        }
    }
}

/// [`factors_one`] over a block of at most [`theta::BLOCK`] lanes: the Gaussian factors by the
/// engine's block kernels (bitwise equal to the scalar calls, vectorized), the Laplace factors
/// lane by lane (closed forms).
#[inline(always)]
fn factors_block(noise: Noise, order: Order, log: bool, x: &[f64], ra: &[f64], rb: &[f64]) -> Facs {
    let n = x.len();
    let z = [0.0; theta::BLOCK];
    let mut f = Facs {
        a: z,
        la: z,
        u: z,
        lb: z,
    };
    match noise {
        Noise::Gaussian => {
            theta::theta_block(x, ra, &mut f.a[..n]);
            if log {
                theta::log_theta_block(x, ra, &mut f.la[..n]);
            }
            theta::theta_complement_block(x, rb, &mut f.u[..n]);
            if order == Order::Fixed {
                log_b_gauss_block(&f.u[..n], x, rb, &mut f.lb[..n]);
            }
        }
        Noise::Laplace => {
            for t in 0..n {
                let g = factors_one(noise, order, log, x[t], ra[t], rb[t]);
                f.a[t] = g.a;
                f.la[t] = g.la;
                f.u[t] = g.u;
                f.lb[t] = g.lb;
            }
        }
    }
    f
}

/// Fixed order, k = n − i: A·B^k (rounded up, ≤ A).
#[inline(always)]
fn value_fixed(a: f64, lb: f64, k: f64) -> f64 {
    // B^k = exp(k·ln B) with k·ln B = t + err exactly (fma residual): no rounding of the
    // exponent, whose absolute error would be a relative error of δ.
    let t = k * lb;
    let err = k.mul_add(lb, -t);
    let v = if t < -746.0 {
        TINY // exp underflows: up(0) without arithmetic on subnormals
    } else {
        up(a * vmath::exp(t) * (1.0 + err))
    };
    let v = v.min(a).min(1.0);
    if k == 0.0 {
        a
    } else if a == 0.0 || lb == f64::NEG_INFINITY {
        0.0 // A = 0 or B = 0 exactly
    } else {
        v
    }
}

/// Shuffled (m = n, scale = 1) and random stop (m = n − i + 1, scale = m/n): A·scale·G(u, m)
/// (rounded up, ≤ A).
#[inline(always)]
fn value_geometric(a: f64, u: f64, m: f64, scale: f64) -> f64 {
    let v = up(a * scale * geometric_average(u, m)).min(a).min(1.0);
    if a == 0.0 {
        0.0
    } else {
        v
    }
}

/// Random stop as published (000 eq. (16)): A/(n·u) clamped to 1.
#[inline(always)]
fn value_published(a: f64, u: f64, n: f64) -> f64 {
    if a == 0.0 {
        0.0
    } else if u == 0.0 {
        1.0
    } else {
        up(a / (n * u)).min(1.0)
    }
}

/// δ from the factors (value, upper bound, in [0, 1]).
#[inline(always)]
fn finish_value(e: &Elem, f: &Fac) -> f64 {
    match e.order {
        Order::Fixed => value_fixed(f.a, f.lb, e.n - e.i),
        Order::Shuffled => value_geometric(f.a, f.u, e.n, 1.0),
        Order::RandomStop => {
            let m = e.n - e.i + 1.0;
            value_geometric(f.a, f.u, m, m / e.n)
        }
        Order::RandomStopAsPublished => value_published(f.a, f.u, e.n),
    }
}

/// ln δ from the factors (upper bound, ≤ 0, −∞ when δ = 0).
#[inline(always)]
fn finish_log(e: &Elem, f: &Fac) -> f64 {
    if f.a == 0.0 {
        return f64::NEG_INFINITY;
    }
    let la = f.la;
    // (value, scale): scale bounds the magnitude of the summed terms.
    let (v, scale) = match e.order {
        Order::Fixed => {
            let k = e.n - e.i;
            if k == 0.0 {
                return la;
            }
            if f.lb == f64::NEG_INFINITY {
                return f64::NEG_INFINITY;
            }
            let t = k * f.lb;
            if t == f64::NEG_INFINITY {
                return -f64::MAX; // k·ln B overflows: an upper bound of ln δ
            }
            let err = k.mul_add(f.lb, -t);
            ((la + t) + err, la.abs() + t.abs())
        }
        Order::Shuffled => {
            let lg = vmath::ln(geometric_average(f.u, e.n));
            (la + lg, la.abs() + lg.abs() + 1.0)
        }
        Order::RandomStop => {
            let m = e.n - e.i + 1.0;
            let lg = vmath::ln((m / e.n) * geometric_average(f.u, m));
            (la + lg, la.abs() + lg.abs() + 1.0)
        }
        Order::RandomStopAsPublished => {
            if f.u == 0.0 {
                return 0.0;
            }
            let (ln_n, ln_u) = (vmath::ln(e.n), vmath::ln(f.u));
            (la - ln_n - ln_u, la.abs() + ln_n + ln_u.abs())
        }
    };
    if v == f64::NEG_INFINITY {
        return v;
    }
    let v = (v + LOG_REL * scale).min(0.0);
    if e.order == Order::RandomStopAsPublished {
        v
    } else {
        v.min(la) // every bound but eq. (16) is ≤ A exactly
    }
}

/// The precise fixed-order value (or log) of one element, where its condition number asks for
/// it (`None` elsewhere, and where the double-double formulas do not apply).
#[inline(always)]
fn precise_fixed(e: &Elem, f: &Fac, eps: f64, s: f64, rb: f64, log: bool) -> Option<f64> {
    if e.order != Order::Fixed {
        return None;
    }
    let k = e.n - e.i;
    if !wants_precise(e.noise, k * f.lb, rb, f.a) {
        return None;
    }
    let lb = precise_lb(e.noise, &e.geo, eps, s)?;
    Some(if log {
        log_fixed_precise(f.la, lb, k)
    } else {
        value_fixed_precise(f.a, lb, k)
    })
}

/// δ for one element at noise scale s (value, upper bound, in [0, 1]): the scalar form of the
/// block kernel (tests check they agree bitwise; [`meets`] is its short-circuiting user).
#[cfg(test)]
fn delta_value(e: &Elem, eps: f64, s: f64, ra: f64, rb: f64) -> f64 {
    let f = factors_one(e.noise, e.order, false, eps, ra, rb);
    let v = finish_value(e, &f);
    precise_fixed(e, &f, eps, s, rb, false).map_or(v, |w| v.min(w))
}

/// ln δ for one element at noise scale s (upper bound, ≤ 0, −∞ when δ = 0).
#[cfg(test)]
fn delta_log(e: &Elem, eps: f64, s: f64, ra: f64, rb: f64) -> f64 {
    let f = factors_one(e.noise, e.order, true, eps, ra, rb);
    let v = finish_log(e, &f);
    precise_fixed(e, &f, eps, s, rb, true).map_or(v, |w| v.min(w))
}

/// Run the chunk kernel `k(j0, out_chunk)` over `out` (in parallel for long arrays); the
/// error of the smallest failing chunk is returned.
pub(crate) fn drive(
    out: &mut [f64],
    par_min: usize,
    k: impl Fn(usize, &mut [f64]) -> Result<()> + Sync,
) -> Result<()> {
    let ch = if par_min < 1024 { 1 } else { 1 << 11 };
    match pool() {
        Some(p) if out.len() >= par_min => {
            let res: Vec<Result<()>> = p.install(|| {
                out.par_chunks_mut(ch)
                    .enumerate()
                    .map(|(c, o)| crate::interrupt::check().and_then(|_| k(c * ch, o)))
                    .collect()
            });
            res.into_iter().collect()
        }
        _ => k(0, out),
    }
}

macro_rules! simd {
    ($($item:item)*) => {
        $(
            #[multiversion(targets(
                "x86_64+avx512f+avx512vl+avx512dq+avx2+fma",
                "x86_64+avx2+fma",
                "aarch64+neon"
            ))]
            $item
        )*
    };
}

/// `dst[t] = src[lo + t]` (or the broadcast scalar) for the lanes of a block.
#[inline(always)]
fn lanes(dst: &mut [f64], src: &[f64], lo: usize) {
    if src.len() == 1 {
        dst.fill(src[0]);
    } else {
        dst.copy_from_slice(&src[lo..lo + dst.len()]);
    }
}

/// δ (or ln δ) for the lanes `lo..lo + o.len()`: per-lane data, the factors of the block by
/// the engine's block kernels (or `fac_once` when they do not vary), then the order's formula
/// in a loop per order (so that it vectorizes).
#[inline(always)]
fn delta_block(
    prep: &Prepared,
    eps: &[f64],
    fac_once: Option<Fac>,
    lb_once: &OnceLock<Option<Dd>>,
    log: bool,
    lo: usize,
    o: &mut [f64],
) -> Result<()> {
    const B: usize = theta::BLOCK;
    let nl = o.len();
    let p = &prep.p;
    let (mut n, mut ix) = ([1.0; B], [1.0; B]);
    lanes(&mut n[..nl], p.n, lo);
    if let Some(i) = p.index {
        lanes(&mut ix[..nl], i, lo);
    }
    let mut rb = [0.0; B];
    let f = match fac_once {
        Some(f) => {
            if let Some((_, b)) = prep.r_once {
                rb = [b; B];
            }
            Facs {
                a: [f.a; B],
                la: [f.la; B],
                u: [f.u; B],
                lb: [f.lb; B],
            }
        }
        None => {
            let (mut x, mut ra) = ([0.0; B], [0.0; B]);
            lanes(&mut x[..nl], eps, lo);
            match (prep.r_once, prep.rad_once) {
                (Some((a, b)), _) => {
                    ra = [a; B];
                    rb = [b; B];
                }
                (None, Some(rad)) => {
                    let mut s = [1.0; B];
                    lanes(&mut s[..nl], p.sigma, lo);
                    for t in 0..nl {
                        (ra[t], rb[t]) = rad.at(s[t]);
                    }
                }
                (None, None) => {
                    for t in 0..nl {
                        let e = prep.elem(lo + t)?;
                        (ra[t], rb[t]) = prep.radii(&e, lo + t);
                    }
                }
            }
            factors_block(p.noise, p.order, log, &x[..nl], &ra[..nl], &rb[..nl])
        }
    };
    if log {
        for (t, ot) in o.iter_mut().enumerate() {
            let e = Elem {
                noise: p.noise,
                order: p.order,
                rad: Radii::default(),
                n: n[t],
                i: ix[t],
                geo: Geo::default(),
            };
            *ot = finish_log(&e, &f.get(t));
        }
    } else {
        finish_block_value(p.order, &f, &n, &ix, o);
    }
    if p.order == Order::Fixed {
        // the precise path, lane by lane where the condition number asks for it
        for t in 0..nl {
            let k = n[t] - ix[t];
            if !wants_precise(p.noise, k * f.lb[t], rb[t], f.a[t]) {
                continue;
            }
            let j = lo + t;
            let g = || precise_lb(p.noise, &Geo::at(p, j), at(eps, j), at(p.sigma, j));
            let lb = if fac_once.is_some() {
                *lb_once.get_or_init(g)
            } else {
                g()
            };
            if let Some(lb) = lb {
                let v = if log {
                    log_fixed_precise(f.la[t], lb, k)
                } else {
                    value_fixed_precise(f.a[t], lb, k)
                };
                o[t] = o[t].min(v);
            }
        }
    }
    Ok(())
}

/// The value formula of `order` over the lanes of a block (one loop per order, vectorized).
#[inline(always)]
fn finish_block_value(order: Order, f: &Facs, n: &[f64], ix: &[f64], o: &mut [f64]) {
    let nl = o.len();
    match order {
        Order::Fixed => {
            for t in 0..nl {
                o[t] = value_fixed(f.a[t], f.lb[t], n[t] - ix[t]);
            }
        }
        Order::Shuffled => {
            for t in 0..nl {
                o[t] = value_geometric(f.a[t], f.u[t], n[t], 1.0);
            }
        }
        Order::RandomStop => {
            for t in 0..nl {
                let m = n[t] - ix[t] + 1.0;
                o[t] = value_geometric(f.a[t], f.u[t], m, m / n[t]);
            }
        }
        Order::RandomStopAsPublished => {
            for t in 0..nl {
                o[t] = value_published(f.a[t], f.u[t], n[t]);
            }
        }
    }
}

simd! {
    /// δ (or ln δ) for one chunk, block by block.
    fn k_delta(prep: &Prepared, eps: &[f64], fac_once: Option<Fac>, lb_once: &OnceLock<Option<Dd>>, log: bool, j0: usize, out: &mut [f64]) -> Result<()> {
        for (c, o) in out.chunks_mut(theta::BLOCK).enumerate() {
            delta_block(prep, eps, fac_once, lb_once, log, j0 + c * theta::BLOCK, o)?;
        }
        Ok(())
    }

    /// (A, B, 1 − B) for one chunk, block by block: Gaussian lanes by the engine's block
    /// kernels (bitwise equal to the scalar functions), Laplace lanes by the closed forms.
    fn k_factors(prep: &Prepared, eps: &[f64], j0: usize, a: &mut [f64], b: &mut [f64], u: &mut [f64]) -> Result<()> {
        const B: usize = theta::BLOCK;
        let p = &prep.p;
        for (c, ((ab, bb), ub)) in a
            .chunks_mut(B)
            .zip(b.chunks_mut(B))
            .zip(u.chunks_mut(B))
            .enumerate()
        {
            let lo = j0 + c * B;
            let nl = ab.len();
            let (mut x, mut ra, mut rb) = ([0.0; B], [0.0; B], [0.0; B]);
            lanes(&mut x[..nl], eps, lo);
            for t in 0..nl {
                (ra[t], rb[t]) = match prep.r_once {
                    Some(r) => r,
                    None => {
                        let e = prep.elem(lo + t)?;
                        prep.radii(&e, lo + t)
                    }
                };
            }
            match p.noise {
                Noise::Gaussian => {
                    theta::theta_block(&x[..nl], &ra[..nl], ab);
                    theta::theta_block(&x[..nl], &rb[..nl], bb);
                    theta::theta_complement_block(&x[..nl], &rb[..nl], ub);
                }
                Noise::Laplace => {
                    for t in 0..nl {
                        ab[t] = theta::laplace_theta(x[t], ra[t]);
                        bb[t] = theta::laplace_theta(x[t], rb[t]);
                        ub[t] = theta::laplace_theta_complement(x[t], rb[t]);
                    }
                }
            }
        }
        Ok(())
    }

    /// Inversion in ε (`Solve::Epsilon`, `eps` unused) or calibration of σ for one chunk: the
    /// lock-step block solver ([`solve_lanes`]), the scalar solvers for a few elements.
    fn k_solve(prep: &Prepared, kind: Solve, eps: &[f64], target: &[f64], j0: usize, out: &mut [f64]) -> Result<()> {
        if out.len() < SOLVE_LANES_MIN {
            for (t, o) in out.iter_mut().enumerate() {
                *o = match kind {
                    Solve::Epsilon => solve_epsilon(prep, target, j0 + t)?,
                    Solve::Sigma => solve_sigma(prep, eps, target, j0 + t)?,
                };
            }
            return Ok(());
        }
        solve_lanes(prep, kind, eps, target, j0, out)
    }
}

/// Validated arguments and what does not vary across elements: M (lr, smoothness,
/// strong_convexity scalars), the radii numerators (also lipschitz, diameter scalars), the
/// radii themselves (also sigma scalar).
struct Prepared<'a> {
    p: Params<'a>,
    m_once: Option<f64>,
    rad_once: Option<Radii>,
    r_once: Option<(f64, f64)>,
}

impl<'a> Prepared<'a> {
    fn new(p: Params<'a>, len: usize, need_sigma: bool) -> Result<Prepared<'a>> {
        check_params(&p, len, need_sigma)?;
        let m_scalar = p.lr.len() == 1
            && p.strong_convexity.len() == 1
            && p.smoothness.is_none_or(|b| b.len() == 1);
        let m_once = if m_scalar {
            Some(contraction(&p, 0)?)
        } else {
            None
        };
        let rad_once = match m_once {
            Some(m) if p.lipschitz.len() == 1 && p.diameter.len() == 1 => {
                Some(Radii::new(p.lipschitz[0], m, p.diameter[0], p.lr[0]))
            }
            _ => None,
        };
        let r_once = match rad_once {
            Some(r) if need_sigma && p.sigma.len() == 1 => Some(r.at(p.sigma[0])),
            _ => None,
        };
        Ok(Prepared {
            p,
            m_once,
            rad_once,
            r_once,
        })
    }

    #[inline(always)]
    fn elem(&self, j: usize) -> Result<Elem> {
        let p = &self.p;
        let rad = match self.rad_once {
            Some(r) => r,
            None => {
                let m = match self.m_once {
                    Some(m) => m,
                    None => contraction(p, j)?,
                };
                Radii::new(at(p.lipschitz, j), m, at(p.diameter, j), at(p.lr, j))
            }
        };
        Ok(Elem {
            noise: p.noise,
            order: p.order,
            rad,
            n: at(p.n, j),
            i: p.index.map_or(1.0, |ix| at(ix, j)),
            geo: Geo::at(p, j),
        })
    }

    /// The radii of element j (data `e`) at its own σ.
    #[inline(always)]
    fn radii(&self, e: &Elem, j: usize) -> (f64, f64) {
        match self.r_once {
            Some(r) => r,
            None => e.radii(at(self.p.sigma, j)),
        }
    }
}

fn check_eps(eps: &[f64]) -> Result<()> {
    check(eps, "eps", "finite and >= 0", |x| x >= 0.0 && x.is_finite())
}

/// δ(ε) of the PNSGD bound selected by `p.order` / `p.noise`, elementwise (upper bound, in
/// [0, 1]). `out.len()` is the broadcast length; `eps` and every slice of `p` have length 1 or
/// `out.len()`.
pub fn delta(eps: &[f64], p: Params, out: &mut [f64]) -> Result<()> {
    run_delta(eps, p, out, false)
}

/// ln δ(ε) (upper bound; −∞ where δ = 0), for δ that underflows.
pub fn log_delta(eps: &[f64], p: Params, out: &mut [f64]) -> Result<()> {
    run_delta(eps, p, out, true)
}

fn run_delta(eps: &[f64], p: Params, out: &mut [f64], log: bool) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("eps", eps.len())])?;
    check_eps(eps)?;
    let prep = Prepared::new(p, len, true)?;
    // ε and the radii scalar (e.g. a sweep over n or the index): the factors once.
    let fac_once = match prep.r_once {
        Some((ra, rb)) if eps.len() == 1 => {
            Some(factors_one(p.noise, p.order, log, eps[0], ra, rb))
        }
        _ => None,
    };
    // the precise ln B of the fixed order, computed once (on first need) when it does not vary
    let lb_once = OnceLock::new();
    drive(out, PAR_DELTA, |j0, o| {
        k_delta(&prep, eps, fac_once, &lb_once, log, j0, o)
    })
}

/// The factors (A, B, 1 − B) elementwise: A, B rounded up, 1 − B rounded down (computed
/// directly, not by subtraction). Arguments as in [`delta`] (only noise, sigma, lipschitz, lr,
/// diameter, smoothness, strong_convexity are used).
pub fn factors(
    eps: &[f64],
    p: Params,
    a_out: &mut [f64],
    b_out: &mut [f64],
    u_out: &mut [f64],
) -> Result<()> {
    let len = a_out.len();
    check_broadcast(len, &[("eps", eps.len())])?;
    check_eps(eps)?;
    if b_out.len() != len || u_out.len() != len {
        return Err(PabiError::Shape {
            message: format!(
                "output lengths {}, {}, {} differ",
                len,
                b_out.len(),
                u_out.len()
            ),
        });
    }
    let prep = Prepared::new(p, len, true)?;
    let chunk = |j0: usize, a: &mut [f64], b: &mut [f64], u: &mut [f64]| -> Result<()> {
        crate::interrupt::check()?;
        k_factors(&prep, eps, j0, a, b, u)
    };
    const CH: usize = 1 << 11;
    match pool() {
        Some(pl) if len >= PAR_DELTA => {
            let res: Vec<Result<()>> = pl.install(|| {
                a_out
                    .par_chunks_mut(CH)
                    .zip(b_out.par_chunks_mut(CH))
                    .zip(u_out.par_chunks_mut(CH))
                    .enumerate()
                    .map(|(c, ((a, b), u))| chunk(c * CH, a, b, u))
                    .collect()
            });
            res.into_iter().collect()
        }
        _ => chunk(0, a_out, b_out, u_out),
    }
}

fn check_target(delta: &[f64]) -> Result<()> {
    check(delta, "delta", "in (0, 1)", |x| x > 0.0 && x < 1.0)
}

/// Targets below this (subnormal) are compared in log space by the inversions; every normal
/// target is compared with the value [`delta`] returns, so that the inversions are exactly
/// minimal with respect to it: δ(ε) ≤ target and δ(the previous double of ε) > target (the
/// same for σ). (Comparing in log space from 1e-290 on, as before, made the result differ by
/// one or a few ulp from the value-space decision a user checks with `pnsgd_delta`.) For a
/// subnormal target, whose value comparison would be coarse (and impossible below [`TINY`],
/// the smallest non-zero value [`delta`] returns), ln δ ≤ ln(target)·(1 + 4 ulp) decides:
/// minimal with respect to [`log_delta`] against that (rounded-down) logarithm.
const LOG_TARGET: f64 = f64::MIN_POSITIVE;

/// Does the bound at (ε, σ) meet the target δ? Compared in value space unless the target is
/// below the normal range ([`LOG_TARGET`]), then in log space.
///
/// Equal to `delta_value(..) <= target` (resp. `delta_log`), but the precise path of the fixed
/// order is only evaluated near the decision: the fast value exceeds the exact one by less than
/// `slack` (relative; absolute for the log) = 1e-12 + 1e-13·w·|k ln B| (measured: ≤ 1.5e-14 +
/// 4e-15·w·|k ln B|), so a fast value beyond target·(1 + slack) has a precise value (≥ exact)
/// beyond the target too. (Were the slack ever exceeded, the returned ε or σ would still meet
/// the target, only not be the smallest.)
#[inline(always)]
fn meets(e: &Elem, eps: f64, s: f64, target: f64, log_target: f64) -> bool {
    let (ra, rb) = e.radii(s);
    let f = factors_one(e.noise, e.order, target < LOG_TARGET, eps, ra, rb);
    meets_with(e, &f, eps, s, rb, target, log_target)
}

/// [`meets`] given the factors `f` of (ε, σ) (`f.la` needed where target < [`LOG_TARGET`]) and r_B.
#[inline(always)]
fn meets_with(e: &Elem, f: &Fac, eps: f64, s: f64, rb: f64, target: f64, log_target: f64) -> bool {
    let log = target < LOG_TARGET;
    let (fast, goal) = if log {
        (finish_log(e, f), log_target)
    } else {
        (finish_value(e, f), target)
    };
    if fast <= goal {
        return true;
    }
    if e.order != Order::Fixed {
        return false;
    }
    let t = (e.n - e.i) * f.lb;
    // The fast ln B's relative error is a few ulp of r_B times the sensitivity
    // d ln|ln B|/d ln r = r·B_r/(B·|ln B|), with B_r = (1 − B)/2 (Laplace) or φ(ε/r − r/2)
    // (Gaussian, θ_r = φ(a)): ≈ r/2 resp. r²/4 for B near 1 (the weight of [`wants_precise`]),
    // but unbounded as B → 0 (Laplace r − ε ≈ 3e-8: B = 1.6e-8, 3.5e6). The shortcut below
    // must never skip a precise value that is ≤ the goal (else the inversions are not minimal
    // with respect to [`delta`]), so the slack takes the larger weight and a factor 100 margin.
    let b = vmath::exp(f.lb);
    let sens = if b > 0.0 && f.lb < 0.0 {
        let br = match e.noise {
            Noise::Gaussian => {
                let a = eps / rb - 0.5 * rb;
                vmath::exp(-0.5 * a * a) * 0.398_942_280_401_432_7
            }
            Noise::Laplace => 0.5 * f.u,
        };
        rb * br / (b * -f.lb)
    } else {
        f64::INFINITY
    };
    let w = match e.noise {
        Noise::Gaussian => 1.0 + rb * rb * (1.0 / 64.0),
        Noise::Laplace => 1.0 + rb * (1.0 / 32.0),
    }
    .max(1.0 + sens);
    let slack = 1e-12 + 1e-11 * w * t.abs();
    // (the first-order model only holds for a small error: beyond 1e-3, as B → 0 where the
    // rounding of r_B is comparable to r_B − ε, the fast value may be off by any factor, and
    // the precise value decides)
    let far = slack < 1e-3
        && if log {
            fast > goal + slack
        } else {
            fast > goal * (1.0 + slack)
        };
    if far {
        return false;
    }
    precise_fixed(e, f, eps, s, rb, log).is_some_and(|v| v <= goal)
}

/// Smallest double x in (lo, hi] with `ok(x)`, given !ok(lo) and ok(hi), both ≥ 0: bisection
/// on the bit patterns (monotone for non-negative doubles), at most 64 steps.
#[inline(always)]
fn bisect_bits(lo: f64, hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    let (mut a, mut b) = (lo.to_bits(), hi.to_bits());
    while b - a > 1 {
        let mid = a + (b - a) / 2;
        if ok(f64::from_bits(mid)) {
            b = mid;
        } else {
            a = mid;
        }
    }
    f64::from_bits(b)
}

/// The smallest ε ≥ 0 (to one ulp) whose δ(ε) does not exceed the target `delta` ∈ (0, 1):
/// 0 if δ(0) ≤ delta. δ is non-increasing in ε; the returned ε always satisfies
/// δ(ε) ≤ delta (as computed by [`delta`]) and the next smaller double does not.
/// Errors with [`PabiError::Unreachable`] when no finite ε reaches the target.
pub fn epsilon(target: &[f64], p: Params, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("delta", target.len())])?;
    check_target(target)?;
    let prep = Prepared::new(p, len, true)?;
    drive_solve(out, |j0, o| {
        k_solve(&prep, Solve::Epsilon, &[], target, j0, o)
    })
}

#[inline(always)]
fn solve_epsilon(prep: &Prepared, target: &[f64], j: usize) -> Result<f64> {
    let p = &prep.p;
    let e = prep.elem(j)?;
    let s = at(p.sigma, j);
    let t = at(target, j);
    let lt = vmath::ln(t) * (1.0 + LOG_REL);
    let ok = |x: f64| meets(&e, x, s, t, lt);
    if ok(0.0) {
        return Ok(0.0);
    }
    let mut hi = 1.0_f64;
    let mut steps = 0;
    while !ok(hi) {
        hi *= 4.0;
        steps += 1;
        if steps > 520 || !hi.is_finite() {
            return Err(no_epsilon(&e, s, t, j));
        }
    }
    let lo = if steps == 0 { 0.0 } else { hi / 4.0 };
    Ok(bisect_bits(lo, hi, ok))
}

/// The smallest noise σ (Gaussian std or Laplace scale, to one ulp) for which the bound meets
/// (ε, δ); δ is non-increasing in σ. Returns 0 when every σ > 0 meets it (e.g. lipschitz = 0).
/// Errors with [`PabiError::Unreachable`] when no σ ≤ 1e300 does. `p.sigma` is ignored.
pub fn calibrate_sigma(eps: &[f64], target: &[f64], p: Params, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("eps", eps.len()), ("delta", target.len())])?;
    check_eps(eps)?;
    check_target(target)?;
    let prep = Prepared::new(p, len, false)?;
    drive_solve(out, |j0, o| {
        k_solve(&prep, Solve::Sigma, eps, target, j0, o)
    })
}

#[inline(always)]
fn solve_sigma(prep: &Prepared, eps: &[f64], target: &[f64], j: usize) -> Result<f64> {
    let e = prep.elem(j)?;
    let x = at(eps, j);
    let t = at(target, j);
    let lt = vmath::ln(t) * (1.0 + LOG_REL);
    let ok = |s: f64| meets(&e, x, s, t, lt);
    if e.rad.two_l == 0.0 || ok(f64::MIN_POSITIVE) {
        return Ok(0.0);
    }
    let mut hi = 1.0_f64;
    if ok(hi) {
        let mut lo = 0.25_f64;
        while ok(lo) {
            lo *= 0.25; // terminates: ok(MIN_POSITIVE) is false
        }
        return Ok(bisect_bits(lo, lo * 4.0, ok));
    }
    let mut steps = 0;
    while !ok(hi) {
        hi *= 4.0;
        steps += 1;
        if steps > 500 {
            return Err(no_sigma(x, t, j));
        }
    }
    Ok(bisect_bits(hi / 4.0, hi, ok))
}

fn no_epsilon(e: &Elem, s: f64, t: f64, j: usize) -> PabiError {
    let (ra, _) = e.radii(s);
    // the bound stays above the target for every finite eps: the noise is too small for the
    // sensitivity (2*lipschitz/sigma overflows or nearly so)
    PabiError::domain(
        "sigma",
        format!(
            "large enough relative to 2*lipschitz that a finite eps reaches delta = {t:e} \
             (2*lipschitz/sigma = {ra:e}; the bound at the largest eps tried is still above \
             the target)"
        ),
        s,
    )
    .at(j)
}

fn no_sigma(x: f64, t: f64, j: usize) -> PabiError {
    PabiError::unreachable(format!(
        "no noise level sigma <= 1e300 reaches (eps = {x}, delta = {t}) at element {j}"
    ))
}

// ---------------------------------------------------------------------------------------------
// Lock-step inversions
//
// [`solve_epsilon`] / [`solve_sigma`] evaluate [`meets`] ~60–100 times per element, each
// evaluation waiting for the previous one: latency-bound (~700 ns per Gaussian evaluation
// against ~50 ns of throughput in the block kernels). The array path runs the same searches for
// [`theta::BLOCK`] elements at once: every round evaluates the query point of every live lane
// through [`factors_block`] (bitwise equal to [`factors_one`]) and [`meets_with`], and each lane
// takes the step its scalar search would take. A lane that finishes is refilled with the next
// element of the chunk. The sequence of query points of an element, hence its result and its
// error, is exactly the scalar one (unit test `lock_step_solvers_equal_scalar`).

/// Chunks shorter than this use the scalar solvers.
const SOLVE_LANES_MIN: usize = 4;

/// Which inversion a lane runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Solve {
    /// The smallest ε ([`solve_epsilon`]).
    Epsilon,
    /// The smallest σ ([`solve_sigma`]).
    Sigma,
}

/// Where a lane is in the search of [`solve_epsilon`] / [`solve_sigma`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Querying ε = 0 (σ = f64::MIN_POSITIVE): met → 0.
    Start,
    /// σ only: querying σ = 1.
    One,
    /// σ only, σ = 1 met: querying 1/4, 1/16, … until one fails.
    Down,
    /// Querying 1, 4, 16, … (σ: from 4) until one meets.
    Up,
    /// Bisection on the bit patterns (a, b], querying the midpoint `x`.
    Bisect,
}

/// One element's search state.
#[derive(Debug, Clone, Copy)]
struct Lane {
    j: usize,
    e: Elem,
    /// σ (ε solver) or ε (σ solver): the coordinate that does not move.
    fixed: f64,
    t: f64,
    lt: f64,
    phase: Phase,
    /// The query point.
    x: f64,
    steps: u32,
    a: u64,
    b: u64,
}

/// A lane's next query (`None`) or its result.
type Next = Option<Result<f64>>;

impl Lane {
    /// A lane for element j, or its result where no query is needed (σ with L = 0).
    #[inline(always)]
    fn new(
        prep: &Prepared,
        kind: Solve,
        eps: &[f64],
        target: &[f64],
        j: usize,
    ) -> std::result::Result<Lane, Result<f64>> {
        let e = prep.elem(j).map_err(Err)?;
        let t = at(target, j);
        let (fixed, x) = match kind {
            Solve::Epsilon => (at(prep.p.sigma, j), 0.0),
            Solve::Sigma => {
                if e.rad.two_l == 0.0 {
                    return Err(Ok(0.0));
                }
                (at(eps, j), f64::MIN_POSITIVE)
            }
        };
        Ok(Lane {
            j,
            e,
            fixed,
            t,
            lt: vmath::ln(t) * (1.0 + LOG_REL),
            phase: Phase::Start,
            x,
            steps: 0,
            a: 0,
            b: 0,
        })
    }

    /// (ε, σ) of the query.
    #[inline(always)]
    fn point(&self, kind: Solve) -> (f64, f64) {
        match kind {
            Solve::Epsilon => (self.x, self.fixed),
            Solve::Sigma => (self.fixed, self.x),
        }
    }

    /// [`bisect_bits`] on (lo, hi]: its first midpoint, or its result.
    #[inline(always)]
    fn bisect(&mut self, lo: f64, hi: f64) -> Next {
        self.phase = Phase::Bisect;
        self.a = lo.to_bits();
        self.b = hi.to_bits();
        self.mid()
    }

    #[inline(always)]
    fn mid(&mut self) -> Next {
        if self.b - self.a > 1 {
            self.x = f64::from_bits(self.a + (self.b - self.a) / 2);
            None
        } else {
            Some(Ok(f64::from_bits(self.b)))
        }
    }

    #[inline(always)]
    fn query(&mut self, phase: Phase, x: f64) -> Next {
        self.phase = phase;
        self.x = x;
        None
    }

    /// The step of the scalar search after `ok` = meets(query).
    #[inline(always)]
    fn advance(&mut self, kind: Solve, ok: bool) -> Next {
        match (self.phase, kind) {
            (Phase::Start, _) if ok => Some(Ok(0.0)),
            (Phase::Start, Solve::Epsilon) => self.query(Phase::Up, 1.0),
            (Phase::Start, Solve::Sigma) => self.query(Phase::One, 1.0),
            (Phase::One, _) if ok => self.query(Phase::Down, 0.25),
            (Phase::One, _) => {
                // ok(1) failed: [`solve_sigma`]'s loop goes to 4 (its repeated query of 1 is
                // skipped: same answer)
                self.steps = 1;
                self.query(Phase::Up, 4.0)
            }
            (Phase::Down, _) if ok => self.query(Phase::Down, self.x * 0.25),
            (Phase::Down, _) => self.bisect(self.x, self.x * 4.0),
            (Phase::Up, Solve::Epsilon) if ok => {
                let lo = if self.steps == 0 { 0.0 } else { self.x / 4.0 };
                self.bisect(lo, self.x)
            }
            (Phase::Up, Solve::Sigma) if ok => self.bisect(self.x / 4.0, self.x),
            (Phase::Up, Solve::Epsilon) => {
                self.x *= 4.0;
                self.steps += 1;
                if self.steps > 520 || !self.x.is_finite() {
                    return Some(Err(no_epsilon(&self.e, self.fixed, self.t, self.j)));
                }
                None
            }
            (Phase::Up, Solve::Sigma) => {
                self.x *= 4.0;
                self.steps += 1;
                if self.steps > 500 {
                    return Some(Err(no_sigma(self.fixed, self.t, self.j)));
                }
                None
            }
            (Phase::Bisect, _) => {
                if ok {
                    self.b = self.x.to_bits();
                } else {
                    self.a = self.x.to_bits();
                }
                self.mid()
            }
        }
    }
}

/// The inversions of the chunk `j0..j0 + out.len()` in lock-step (section doc); the error of the
/// smallest failing element, as the scalar loop would return it.
#[inline(always)]
fn solve_lanes(
    prep: &Prepared,
    kind: Solve,
    eps: &[f64],
    target: &[f64],
    j0: usize,
    out: &mut [f64],
) -> Result<()> {
    const B: usize = theta::BLOCK;
    let p = &prep.p;
    let len = out.len();
    let w = len.min(B);
    let mut slot: [Option<Lane>; B] = [None; B];
    let mut next = 0usize;
    let mut first_err: Option<(usize, PabiError)> = None;
    let mut done = |j: usize, r: Result<f64>, out: &mut [f64]| match r {
        Ok(v) => out[j - j0] = v,
        Err(e) => {
            if first_err.as_ref().is_none_or(|(i, _)| *i >= j) {
                first_err = Some((j, e));
            }
        }
    };
    loop {
        let mut live = false;
        let mut log = false;
        let (mut x, mut s, mut ra, mut rb) = ([1.0; B], [1.0; B], [1.0; B], [1.0; B]);
        for k in 0..w {
            while slot[k].is_none() && next < len {
                let j = j0 + next;
                next += 1;
                match Lane::new(prep, kind, eps, target, j) {
                    Ok(l) => slot[k] = Some(l),
                    Err(r) => done(j, r, out),
                }
            }
            if let Some(l) = &slot[k] {
                live = true;
                log |= l.t < LOG_TARGET;
                (x[k], s[k]) = l.point(kind);
                (ra[k], rb[k]) = l.e.radii(s[k]);
            }
        }
        if !live {
            break;
        }
        let f = factors_block(p.noise, p.order, log, &x[..w], &ra[..w], &rb[..w]);
        for k in 0..w {
            if let Some(l) = &mut slot[k] {
                let ok = meets_with(&l.e, &f.get(k), x[k], s[k], rb[k], l.t, l.lt);
                if let Some(r) = l.advance(kind, ok) {
                    let j = l.j;
                    slot[k] = None;
                    done(j, r, out);
                }
            }
        }
    }
    match first_err {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// [`drive`] for the solvers: chunks of a multiple of [`theta::BLOCK`] elements (at least 16
/// chunks where the array allows it, at most 1024 elements), in parallel from [`PAR_SOLVE`].
fn drive_solve(out: &mut [f64], k: impl Fn(usize, &mut [f64]) -> Result<()> + Sync) -> Result<()> {
    const B: usize = theta::BLOCK;
    let ch = (out.len() / 16 / B).clamp(1, 32) * B;
    match pool() {
        Some(p) if out.len() >= PAR_SOLVE => {
            let res: Vec<Result<()>> = p.install(|| {
                out.par_chunks_mut(ch)
                    .enumerate()
                    .map(|(c, o)| crate::interrupt::check().and_then(|_| k(c * ch, o)))
                    .collect()
            });
            res.into_iter().collect()
        }
        _ => k(0, out),
    }
}

// ---------------------------------------------------------------------------------------------
// RDP comparison bound (000 Proposition 1, SPEC §3.5)

/// Broadcast arguments of the RDP comparison bound (Gaussian noise only).
#[derive(Debug, Clone, Copy)]
pub struct RdpParams<'a> {
    pub sigma: &'a [f64],
    pub lipschitz: &'a [f64],
    pub lr: &'a [f64],
    pub n: &'a [f64],
    pub index: &'a [f64],
    pub smoothness: Option<&'a [f64]>,
    pub strong_convexity: &'a [f64],
}

impl<'a> RdpParams<'a> {
    fn as_params(&self) -> Params<'a> {
        Params {
            noise: Noise::Gaussian,
            order: Order::Fixed,
            sigma: self.sigma,
            lipschitz: self.lipschitz,
            lr: self.lr,
            diameter: &[0.0],
            n: self.n,
            index: Some(self.index),
            smoothness: self.smoothness,
            strong_convexity: self.strong_convexity,
        }
    }
}

/// x = 1 − M² of the RDP slope with ln(1 − x) = ln M² as a double-double.
///
/// c_i depends on x through ln c = ln x + k·ln(1 − x) − ln(1 − (1 − x)^{k+1}); the middle term
/// has the condition number k·x/(1 − x) with respect to the relative error of x, which reaches
/// thousands for M ≈ 0.1 and k ≈ 80 (a few ulp of a rounded x cost 1e-12 of c). So ln M² is
/// formed from the double-double x and M² of [`step_contraction`] (log1p(−x) for x ≤ ½, ln M²
/// above, where M² = (β + ρ − 2ηβρ)/(β + ρ) carries no cancellation of 1 − x), and its error
/// bound `l1_err` (absolute) is carried to the result.
#[derive(Debug, Clone, Copy)]
pub struct RdpM {
    /// x = 1 − M² to nearest.
    pub x: f64,
    /// ln M² = log1p(−x) (≤ 0), double-double.
    pub l1: Dd,
    /// Absolute error bound of `l1`.
    pub l1_err: f64,
}

impl RdpM {
    /// From the contraction of [`step_contraction`].
    pub fn new(c: &StepContraction) -> RdpM {
        let x = c.one_minus_m2;
        if x == 0.0 || c.m2_dd.hi <= 0.0 {
            return RdpM {
                x,
                l1: Dd::from_f64(if x == 0.0 { 0.0 } else { f64::NEG_INFINITY }),
                l1_err: 0.0,
            };
        }
        if x <= 0.5 {
            let l1 = crate::dd::log1p_dd(-c.x_dd);
            // x_dd relative 2^-100·(1 + ...) moves log1p by ≤ 2·x·2^-100 ≤ 2^-99·|l1|
            RdpM {
                x,
                l1,
                l1_err: l1.hi.abs() * 2f64.powi(-96),
            }
        } else {
            let l1 = crate::dd::ln_dd(c.m2_dd);
            RdpM {
                x,
                l1,
                l1_err: crate::gd::m2_dd_rel_err(c.m2_dd.hi) * 2.0 + l1.hi.abs() * 2f64.powi(-96),
            }
        }
    }

    /// From a double x ∈ [0, 1] taken as exact (tests).
    pub fn from_x(x: f64) -> RdpM {
        if x == 0.0 || x >= 1.0 {
            return RdpM {
                x: x.min(1.0),
                l1: Dd::from_f64(if x == 0.0 { 0.0 } else { f64::NEG_INFINITY }),
                l1_err: 0.0,
            };
        }
        let l1 = crate::dd::log1p_dd(Dd::from_f64(-x));
        RdpM {
            x,
            l1,
            l1_err: l1.hi.abs() * 2f64.powi(-96),
        }
    }
}

/// ln c_i of the RDP slope (PNSGD is (α, α c_i)-RDP for record i), rounded up:
/// c = (2L²/σ²)·x·e^{k ln M²}/(−expm1((k+1) ln M²)), x = 1 − M², k = n − i;
/// continuous at x = 0 (Feldman et al.: 2L²/(σ²(k+1))). In log form so that a c_i far below
/// the double range (strong convexity, large n − i) keeps its digits. −∞ iff c = 0 (L = 0,
/// or M = 0 and k > 0).
///
/// Error: k·ln M² is formed in double-double from [`RdpM`] (its error k·`l1_err` added), the
/// other terms (ln L − ln σ, ln x, ln(−expm1(t1))) to a few ulp each (t1 = (k+1) ln M² rounded
/// to a double moves ln(−expm1(t1)) by ≤ ulp·|t1|·e^{t1}/(1 − e^{t1}) ≤ 1 ulp), and every
/// rounding of the sum is bounded by 4 half-ulps of the magnitude of the summed terms.
#[inline]
pub fn rdp_log_slope(lipschitz: f64, sigma: f64, cm: &RdpM, k: f64) -> f64 {
    if lipschitz == 0.0 {
        return f64::NEG_INFINITY;
    }
    let lq = vmath::ln(lipschitz) - vmath::ln(sigma);
    let lbase = std::f64::consts::LN_2 + 2.0 * lq;
    let x = cm.x;
    // (value, magnitude of the summed terms, extra absolute error)
    let (v, scale, extra) = if x == 0.0 {
        let l = vmath::ln(k + 1.0);
        (lbase - l, lbase.abs() + l, 0.0)
    } else if x >= 1.0 || cm.l1.hi == f64::NEG_INFINITY {
        if k > 0.0 {
            return f64::NEG_INFINITY; // M = 0: record i is forgotten
        }
        (lbase, lbase.abs(), 0.0)
    } else {
        let t0 = cm.l1.mul_f(k);
        let t1 = cm.l1.mul_f(k + 1.0).to_f64();
        let lx = vmath::ln(x);
        let ld = vmath::ln(-vmath::expm1(t1));
        (
            ((lbase + lx) - ld) + t0.hi + t0.lo,
            lbase.abs() + lx.abs() + t0.hi.abs() + 2.0 * ld.abs() + 1.0,
            (k + 1.0) * cm.l1_err,
        )
    };
    v + 4.0 * HALF_ULP * (scale + 2.0 * lq.abs() + 1.0) + extra
}

/// The RDP slope c_i itself, rounded up: computed in value space (relative error a few ulp
/// times 1 + |k ln M²|) when it is a normal double, else exp of [`rdp_log_slope`]; 0 iff c = 0.
#[inline]
pub fn rdp_slope(lipschitz: f64, sigma: f64, cm: &RdpM, k: f64) -> f64 {
    let lc = rdp_log_slope(lipschitz, sigma, cm, k);
    if lc == f64::NEG_INFINITY {
        return 0.0;
    }
    if lc < -700.0 {
        return up(vmath::exp(lc));
    }
    let q = lipschitz / sigma;
    let base = 2.0 * q * q;
    let x = cm.x;
    let (f, ulps) = if x == 0.0 {
        (1.0 / (k + 1.0), 8.0)
    } else if x >= 1.0 || cm.l1.hi == f64::NEG_INFINITY {
        (if k == 0.0 { 1.0 } else { 0.0 }, 8.0)
    } else {
        let t0 = cm.l1.mul_f(k);
        let t1 = cm.l1.mul_f(k + 1.0).to_f64();
        let err = (k + 1.0) * cm.l1_err;
        (
            x * (vmath::exp(t0.hi) * (1.0 + t0.lo)) / -vmath::expm1(t1),
            20.0 + 2.0 * err / HALF_ULP,
        )
    };
    (base * f) * (1.0 + ulps * HALF_ULP)
}

/// (ln c_i, c_i) for element j.
fn rdp_slope_at(p: &RdpParams, j: usize) -> Result<(f64, f64)> {
    let c = step_contraction(
        at(p.lr, j),
        p.smoothness.map(|b| at(b, j)),
        at(p.strong_convexity, j),
    )
    .map_err(|e| e.at(j))?;
    let k = at(p.n, j) - at(p.index, j);
    let (l, s) = (at(p.lipschitz, j), at(p.sigma, j));
    let cm = RdpM::new(&c);
    Ok((rdp_log_slope(l, s, &cm, k), rdp_slope(l, s, &cm, k)))
}

/// ln δ_B(ε) = −(ε − c)²/(4c) for ε > c, else 0 (rounded up); `lc` = ln c, `c_val` = c.
/// c = 0 (L = 0, or M = 0 with k > 0) is 0-zCDP: every Rényi divergence of the two output
/// distributions is 0, they are equal, and δ = 0 for every ε ≥ 0 (ln δ = −∞), consistently
/// with ε(δ) = c + 2√(c ln(1/δ)) = 0 (the formula's "else 1" at ε ≤ c is only the trivial
/// bound; at c = 0 it would contradict the inverse).
#[inline]
fn rdp_log_delta_one(eps: f64, lc: f64, c_val: f64) -> f64 {
    if lc == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    let c = c_val;
    if eps <= c {
        return 0.0;
    }
    if c >= 1e-290 {
        let d = eps - c;
        return log_up(-(d * d) / (4.0 * c));
    }
    // c below the normal range: −(ε − c)²/(4c) = −exp(2 ln ε − ln 4 − ln c)·(1 − c/ε)², the
    // last factor is 1 to double precision; an overflowing magnitude becomes −MAX (an upper bound)
    let t = 2.0 * vmath::ln(eps) - 2.0 * std::f64::consts::LN_2 - lc;
    let t = t - 4.0 * HALF_ULP * (t.abs() + lc.abs() + 2.0 * vmath::ln(eps).abs() + 2.0);
    -(vmath::exp(t).min(f64::MAX))
}

/// δ_B(ε) of 000 Proposition 1 (or its log), elementwise; `index` is required.
pub fn rdp_delta(eps: &[f64], p: RdpParams, out: &mut [f64], log: bool) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("eps", eps.len())])?;
    check_eps(eps)?;
    check_params(&p.as_params(), len, true)?;
    drive(out, PAR_DELTA, |j0, o| {
        for (t, slot) in o.iter_mut().enumerate() {
            let j = j0 + t;
            let (lc, c) = rdp_slope_at(&p, j)?;
            let l = rdp_log_delta_one(at(eps, j), lc, c);
            *slot = if log { l } else { rdp_value(l) };
        }
        Ok(())
    })
}

/// δ_B from its logarithm as [`rdp_delta`] returns it (1 at ln δ = 0, 0 at −∞, rounded up).
#[inline]
fn rdp_value(l: f64) -> f64 {
    if l == 0.0 {
        1.0
    } else if l == f64::NEG_INFINITY {
        0.0
    } else {
        up(vmath::exp(l)).min(1.0)
    }
}

/// The smallest ε (to the ulp) whose δ_B as [`rdp_delta`] returns it meets `target`, given the
/// slope (ln c, c): the closed form ε(δ) = c + 2√(c ln(1/δ)) (rounded up) as the starting
/// point, then a bracket of a few ulp around it and [`bisect_bits`] on the bit patterns (δ_B is
/// non-increasing in ε to the ulp: a composition of monotone roundings). Sound: δ_B ≥ the
/// exact δ, so δ_B(ε) ≤ target implies the exact δ at ε is, and ε ≥ the exact inverse.
/// Normal targets are compared in value space; subnormal ones on ln δ ≤ ln(target)·(1 + 4 ulp).
fn rdp_epsilon_one(target: f64, lc: f64, c: f64) -> f64 {
    if lc == f64::NEG_INFINITY {
        return 0.0; // c = 0: δ_B = 0 at every ε ≥ 0
    }
    let log = target < f64::MIN_POSITIVE;
    let lt = vmath::ln(target) * (1.0 + LOG_REL);
    let ok = |x: f64| {
        let l = rdp_log_delta_one(x, lc, c);
        if log {
            l <= lt
        } else {
            rdp_value(l) <= target
        }
    };
    // c + 2√(c ln(1/δ)) with the root as exp(½(ln c + ln ln(1/δ))) (c may underflow)
    let ll = vmath::ln(-vmath::ln(target));
    let h = 0.5 * (lc + ll);
    let root = vmath::exp(h + 4.0 * HALF_ULP * (h.abs() + ll.abs() + 1.0));
    let e0 = up(c + 2.0 * root);
    if !(e0.is_finite() && e0 > 0.0) {
        return e0;
    }
    // bracket (lo, hi] with !ok(lo), ok(hi): relative steps from 2^-44, doubling
    let mut step = 2f64.powi(-44);
    let mut hi = e0;
    let mut n = 0;
    while !ok(hi) {
        hi = hi * (1.0 + step) + TINY;
        step *= 2.0;
        n += 1;
        if n > 80 || !hi.is_finite() {
            return e0.max(hi); // (not reached: δ_B → 0 as ε grows)
        }
    }
    let mut step = 2f64.powi(-44);
    let mut lo = e0 * (1.0 - step);
    while ok(lo) {
        if lo <= c {
            break; // (not reached: δ_B = 1 for ε ≤ c)
        }
        step = (step * 2.0).min(0.5);
        lo = (lo * (1.0 - step)).max(c);
    }
    if ok(lo) {
        return lo;
    }
    bisect_bits(lo, hi, ok)
}

/// ε(δ) of 000 Proposition 1 (c + 2√(c ln(1/δ)), the smallest double whose δ_B as
/// [`rdp_delta`] returns it meets δ: [`rdp_epsilon_one`]), elementwise.
pub fn rdp_epsilon(target: &[f64], p: RdpParams, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("delta", target.len())])?;
    check_target(target)?;
    check_params(&p.as_params(), len, true)?;
    drive(out, PAR_DELTA, |j0, o| {
        for (t, slot) in o.iter_mut().enumerate() {
            let j = j0 + t;
            let (lc, c) = rdp_slope_at(&p, j)?;
            *slot = rdp_epsilon_one(at(target, j), lc, c);
        }
        Ok(())
    })
}

/// The RDP slope c_i of 000 Proposition 1 (PNSGD is (α, α c_i)-RDP, i.e. c_i-zCDP, for record
/// i), rounded up, elementwise.
pub fn rdp_slope_values(p: RdpParams, out: &mut [f64]) -> Result<()> {
    check_params(&p.as_params(), out.len(), true)?;
    drive(out, PAR_DELTA, |j0, o| {
        for (t, slot) in o.iter_mut().enumerate() {
            *slot = rdp_slope_at(&p, j0 + t)?.1;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params<'a>(order: Order, index: Option<&'a [f64]>) -> Params<'a> {
        Params {
            noise: Noise::Gaussian,
            order,
            sigma: &[1.0],
            lipschitz: &[1.0],
            lr: &[0.5],
            diameter: &[1.0],
            n: &[100.0],
            index,
            smoothness: None,
            strong_convexity: &[0.0],
        }
    }

    #[test]
    fn fixed_last_index_is_a_and_random_stop_worst_is_shuffled() {
        let mut o = [0.0];
        delta(&[1.0], params(Order::Fixed, Some(&[100.0])), &mut o).unwrap();
        assert_eq!(o[0], theta::theta(1.0, 2.0));
        let mut s = [0.0];
        delta(&[1.0], params(Order::Shuffled, None), &mut s).unwrap();
        let mut r = [0.0];
        delta(&[1.0], params(Order::RandomStop, None), &mut r).unwrap();
        assert_eq!(s, r);
        let mut r1 = [0.0];
        delta(&[1.0], params(Order::RandomStop, Some(&[1.0])), &mut r1).unwrap();
        assert!((r1[0] / s[0] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn validation() {
        let mut o = [0.0];
        assert!(delta(&[1.0], params(Order::Fixed, None), &mut o).is_err());
        assert!(delta(&[1.0], params(Order::Shuffled, Some(&[1.0])), &mut o).is_err());
        assert!(delta(&[1.0], params(Order::Fixed, Some(&[101.0])), &mut o).is_err());
        assert!(delta(&[1.0], params(Order::Fixed, Some(&[1.5])), &mut o).is_err());
        assert!(delta(&[-1.0], params(Order::Shuffled, None), &mut o).is_err());
        let mut p = params(Order::Shuffled, None);
        p.smoothness = Some(&[1.0]);
        assert!(delta(&[1.0], p, &mut o).is_ok());
        p.lr = &[2.5];
        let err = delta(&[1.0], p, &mut o).unwrap_err();
        assert!(err.to_string().starts_with("lr must be"));
        let mut p = params(Order::Shuffled, None);
        p.n = &[0.0];
        assert!(delta(&[1.0], p, &mut o).is_err());
        p.n = &[N_MAX];
        assert!(delta(&[1.0], p, &mut o).is_err());
    }

    #[test]
    fn inversions_round_trip() {
        let p = params(Order::Shuffled, None);
        let mut e = [0.0];
        epsilon(&[1e-6], p, &mut e).unwrap();
        let mut d = [0.0];
        delta(&e, p, &mut d).unwrap();
        assert!(d[0] <= 1e-6);
        let below = f64::from_bits(e[0].to_bits() - 1);
        delta(&[below], p, &mut d).unwrap();
        assert!(d[0] > 1e-6);
        let mut s = [0.0];
        calibrate_sigma(&[1.0], &[1e-6], p, &mut s).unwrap();
        let mut q = p;
        let sv = [s[0]];
        q.sigma = &sv;
        delta(&[1.0], q, &mut d).unwrap();
        assert!(d[0] <= 1e-6);
    }

    /// The lock-step solvers of the array path return, per element, bitwise the result of the
    /// scalar solvers ([`solve_epsilon`], [`solve_sigma`]): every order, both noises, targets in
    /// value and in log space, fixed order with large |k ln B| (the precise path decides), M < 1
    /// per element, L = 0 lanes; and the same error (the first failing element) as the scalar loop.
    #[test]
    fn lock_step_solvers_equal_scalar() {
        let mut st = 0x2545_F491_4F6C_DD1D_u64;
        let mut rnd = move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            (st >> 11) as f64 / (1u64 << 53) as f64
        };
        let m = 300;
        let mut total = 0;
        let mut precise = 0;
        for noise in [Noise::Gaussian, Noise::Laplace] {
            for order in [
                Order::Fixed,
                Order::Shuffled,
                Order::RandomStop,
                Order::RandomStopAsPublished,
            ] {
                let n: Vec<f64> = (0..m).map(|_| (10f64.powf(6.0 * rnd())).floor()).collect();
                let ix: Vec<f64> = n
                    .iter()
                    .map(|&x| {
                        if rnd() < 0.5 {
                            1.0
                        } else {
                            (x * rnd()).floor().max(1.0)
                        }
                    })
                    .collect();
                let sigma: Vec<f64> = (0..m).map(|_| 10f64.powf(1.3 * rnd() - 0.3)).collect();
                let diam: Vec<f64> = (0..m).map(|_| 0.2 + 2.0 * rnd()).collect();
                let lip: Vec<f64> = (0..m)
                    .map(|_| if rnd() < 0.03 { 0.0 } else { 0.2 + rnd() })
                    .collect();
                let beta: Vec<f64> = (0..m).map(|_| 1.0 + 9.0 * rnd()).collect();
                let rho: Vec<f64> = (0..m)
                    .map(|_| if rnd() < 0.5 { 0.0 } else { 0.5 * rnd() })
                    .collect();
                let target: Vec<f64> = (0..m)
                    .map(|_| {
                        if rnd() < 0.1 {
                            10f64.powf(-290.0 - 15.0 * rnd())
                        } else {
                            10f64.powf(-1.0 - 14.0 * rnd())
                        }
                    })
                    .collect();
                let eps: Vec<f64> = (0..m).map(|_| 8.0 * rnd() * rnd()).collect();
                let mut p = params(order, None);
                p.noise = noise;
                p.sigma = &sigma;
                p.n = &n;
                p.lr = &[0.05];
                p.diameter = &diam;
                p.lipschitz = &lip;
                p.smoothness = Some(&beta);
                p.strong_convexity = &rho;
                if order != Order::Shuffled {
                    p.index = Some(&ix);
                }
                let prep = Prepared::new(p, m, true).unwrap();
                let mut out = vec![0.0; m];
                // ε: L = 0 lanes have δ = 0 at ε = 0 (result 0)
                epsilon(&target, p, &mut out).unwrap();
                for j in 0..m {
                    let sc = solve_epsilon(&prep, &target, j).unwrap();
                    assert_eq!(
                        out[j].to_bits(),
                        sc.to_bits(),
                        "eps {noise:?} {order:?} j={j}"
                    );
                    // at the solution, is the decision the precise path's?
                    let e = prep.elem(j).unwrap();
                    let (ra, rb) = e.radii(sigma[j]);
                    let f = factors_one(noise, order, false, out[j], ra, rb);
                    precise += (order == Order::Fixed
                        && wants_precise(noise, (e.n - e.i) * f.lb, rb, f.a))
                        as usize;
                }
                calibrate_sigma(&eps, &target, p, &mut out).unwrap();
                for (j, o) in out.iter().enumerate().take(m) {
                    let sc = solve_sigma(&prep, &eps, &target, j).unwrap();
                    assert_eq!(o.to_bits(), sc.to_bits(), "sigma {noise:?} {order:?} j={j}");
                }
                total += 2 * m;
            }
        }
        assert_eq!(total, 4800);
        assert!(precise > 50, "{precise} elements near the precise path");
        // errors: σ for ε = 0 and δ = 1e-310 is unreachable (θ(0, r) ≥ r/√(2π) with r ≥ 1e-300):
        // the first such element is reported, as by the scalar loop
        let p = params(Order::Shuffled, None);
        let mut eps = vec![1.0; 40];
        let mut target = vec![1e-6; 40];
        for &j in &[33, 17, 29] {
            eps[j] = 0.0;
            target[j] = 1e-310;
        }
        let mut out = vec![0.0; 40];
        let err = calibrate_sigma(&eps, &target, p, &mut out).unwrap_err();
        let prep = Prepared::new(p, 40, false).unwrap();
        let want = solve_sigma(&prep, &eps, &target, 17).unwrap_err();
        assert_eq!(err.to_string(), want.to_string());
        assert!(err.to_string().contains("element 17"), "{err}");
    }

    /// The block kernel (arrays) and the scalar path (one element at a time) are the same
    /// formulas: bitwise equal, for every order, both noises, value and log.
    #[test]
    fn block_kernel_equals_scalar_path() {
        let m = 3 * theta::BLOCK + 5;
        let eps: Vec<f64> = (0..m).map(|k| 0.05 * k as f64).collect();
        let sigma: Vec<f64> = (0..m).map(|k| 0.2 + 0.1 * ((k * 37 % 50) as f64)).collect();
        let n: Vec<f64> = (0..m)
            .map(|k| 1.0 + ((k * 7919) % 100_000) as f64)
            .collect();
        let idx: Vec<f64> = n.iter().map(|&x| (x - 3.0).max(1.0)).collect();
        for noise in [Noise::Gaussian, Noise::Laplace] {
            for order in [
                Order::Fixed,
                Order::Shuffled,
                Order::RandomStop,
                Order::RandomStopAsPublished,
            ] {
                for log in [false, true] {
                    let mut p = params(order, None);
                    p.noise = noise;
                    p.sigma = &sigma;
                    p.n = &n;
                    p.lr = &[0.05];
                    if order == Order::Fixed || order == Order::RandomStop {
                        p.index = Some(&idx);
                    }
                    let mut out = vec![0.0; m];
                    run_delta(&eps, p, &mut out, log).unwrap();
                    for j in 0..m {
                        let mut one = [0.0];
                        let mut q = p;
                        let (e1, s1, n1) = ([eps[j]], [sigma[j]], [n[j]]);
                        let i1 = [idx[j]];
                        q.sigma = &s1;
                        q.n = &n1;
                        if q.index.is_some() {
                            q.index = Some(&i1);
                        }
                        run_delta(&e1, q, &mut one, log).unwrap();
                        assert_eq!(
                            out[j].to_bits(),
                            one[0].to_bits(),
                            "{noise:?} {order:?} log={log} j={j}"
                        );
                        let e = prep_elem(q);
                        let (ra, rb) = e.radii(s1[0]);
                        let sc = if log {
                            delta_log(&e, e1[0], s1[0], ra, rb)
                        } else {
                            delta_value(&e, e1[0], s1[0], ra, rb)
                        };
                        assert_eq!(
                            out[j].to_bits(),
                            sc.to_bits(),
                            "{noise:?} {order:?} scalar j={j}"
                        );
                    }
                }
            }
        }
    }

    /// The precise path of the fixed order at large |k ln B| against mpmath (50 digits,
    /// `pabi.reference.pnsgd_delta` / `pnsgd_log_delta` at ε = 1, σ = L = 1, order="fixed"):
    /// never below, within 1e-13 relative (value) / 2 ulp (log).
    #[test]
    fn fixed_precise_golden() {
        // (noise, lr, diameter, n, index, smoothness, strong_convexity, δ, ln δ)
        let cases = [
            (
                Noise::Gaussian,
                0.5,
                1.0,
                700.0,
                1.0,
                None,
                0.0,
                1.646830720565693e-205,
                -471.5310913983363,
            ),
            (
                Noise::Gaussian,
                0.05,
                0.7,
                1e15,
                1.0,
                Some(10.0),
                1e-14,
                0.0,
                -4210.429368149016,
            ),
            (
                Noise::Laplace,
                0.05,
                3.0,
                2e15,
                5.0,
                None,
                0.0,
                3.872865941117902e-135,
                -309.4949927679683,
            ),
        ];
        for (noise, lr, d, n, i, beta, rho, dv, lv) in cases {
            let sm = beta.map(|b| [b]);
            let p = Params {
                noise,
                order: Order::Fixed,
                sigma: &[1.0],
                lipschitz: &[1.0],
                lr: &[lr],
                diameter: &[d],
                n: &[n],
                index: Some(&[i]),
                smoothness: sm.as_ref().map(|b| &b[..]),
                strong_convexity: &[rho],
            };
            let (mut v, mut l) = ([0.0], [0.0]);
            delta(&[1.0], p, &mut v).unwrap();
            log_delta(&[1.0], p, &mut l).unwrap();
            assert!(
                l[0] >= lv && l[0] - lv <= 2.0 * f64::EPSILON * lv.abs(),
                "{noise:?} {l:?} {lv}"
            );
            if dv > 0.0 {
                assert!(
                    v[0] >= dv && v[0] / dv - 1.0 < 1e-13,
                    "{noise:?} {v:?} {dv}"
                );
            } else {
                assert!(v[0] <= 4.0 * 5e-324); // underflow: TINY
            }
        }
    }

    /// `factors` over an array (block kernels, chunks across the pool) equals the scalar
    /// engine functions at the radii of each element, bitwise.
    #[test]
    fn factors_array_equals_scalar() {
        let m = 3 * PAR_DELTA / 2 + 7;
        let eps: Vec<f64> = (0..m).map(|k| 0.001 * (k % 3000) as f64).collect();
        let sigma: Vec<f64> = (0..m)
            .map(|k| 0.2 + 0.01 * ((k * 37 % 500) as f64))
            .collect();
        for noise in [Noise::Gaussian, Noise::Laplace] {
            let mut p = params(Order::Shuffled, None);
            p.noise = noise;
            p.sigma = &sigma;
            let (mut a, mut b, mut u) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
            factors(&eps, p, &mut a, &mut b, &mut u).unwrap();
            let rad = Radii::new(1.0, 1.0, 1.0, 0.5);
            for j in (0..m).step_by(97) {
                let (ra, rb) = rad.at(sigma[j]);
                let want = match noise {
                    Noise::Gaussian => (
                        theta::theta(eps[j], ra),
                        theta::theta(eps[j], rb),
                        theta::theta_complement(eps[j], rb),
                    ),
                    Noise::Laplace => (
                        theta::laplace_theta(eps[j], ra),
                        theta::laplace_theta(eps[j], rb),
                        theta::laplace_theta_complement(eps[j], rb),
                    ),
                };
                assert_eq!((a[j], b[j], u[j]), want, "{noise:?} j={j}");
            }
        }
    }

    fn prep_elem(p: Params) -> Elem {
        Prepared::new(p, 1, true).unwrap().elem(0).unwrap()
    }

    /// The strongly convex example (k·x/(1 − x) ≈ 6400): c_i ≥ the exact
    /// 1.099632308480122e-143 (mpmath, 50 digits) and within 1e-14; it was 1.1e-12 below when
    /// ln(1 − x) came from a rounded x. c = 0 gives δ_B = 0 at every ε and ε(δ) = 0.
    #[test]
    fn rdp_slope_strongly_convex_example() {
        let c = step_contraction(
            0.479_205_791_304_832_65,
            Some(2.317_021_061_480_099),
            1.856_551_203_901_308,
        )
        .unwrap();
        let cm = RdpM::new(&c);
        let v = rdp_slope(100.0, 0.01, &cm, 79.0);
        let exact = 1.099_632_308_480_122_2e-143;
        assert!(v >= exact && v / exact - 1.0 < 1e-14, "{v:e}");
        let lv = rdp_log_slope(100.0, 0.01, &cm, 79.0);
        assert!(lv >= exact.ln() && lv - exact.ln() < 1e-12);
        assert_eq!(rdp_slope(0.0, 1.0, &cm, 3.0), 0.0);
        assert_eq!(
            rdp_log_delta_one(0.0, f64::NEG_INFINITY, 0.0),
            f64::NEG_INFINITY
        );
        assert_eq!(rdp_epsilon_one(0.1, f64::NEG_INFINITY, 0.0), 0.0);
        let e = rdp_epsilon_one(1e-10, lv, v);
        assert!(rdp_value(rdp_log_delta_one(e, lv, v)) <= 1e-10);
        let below = f64::from_bits(e.to_bits() - 1);
        assert!(rdp_value(rdp_log_delta_one(below, lv, v)) > 1e-10);
    }

    #[test]
    fn rdp_slope_feldman_limit() {
        let c0 = rdp_slope(1.0, 2.0, &RdpM::from_x(0.0), 20.0);
        let c1 = rdp_slope(1.0, 2.0, &RdpM::from_x(1e-12), 20.0);
        assert!(rdp_log_slope(1.0, 2.0, &RdpM::from_x(0.5), 1e12) < -6e11);
        assert!((c0 / (2.0 / (4.0 * 21.0)) - 1.0).abs() < 1e-13);
        assert!((c1 / c0 - 1.0).abs() < 1e-9);
    }
}
