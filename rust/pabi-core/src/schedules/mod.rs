//! Noise schedules of shuffled PNSGD, online decaying noise and their limits δ*
//! (Sordello–Bu–Dong, *Privacy amplification via iteration for shuffled and online PNSGD*,
//! §4 and §6; SPEC_pabi.md §4).
//!
//! Conventions (SPEC §2): A = h(ε, 2L/s), B = h(ε, M·D/(η·s)) with h = θ (Gaussian noise of
//! standard deviation s = σ) or the Laplace factor (scale s = v, D = b − a), M from
//! [`gd::step_contraction`]. Every δ is an upper bound of the formula it implements (inputs of
//! the engine's θ are nudged outward by a few ulp, θ-type factors and logs are rounded up, gaps
//! 1 − B rounded down, the result moved up by [`num::INFLATE`]). Noise levels (σ, v) and the
//! calibrated constant are returned to nearest (a larger noise is *not* the conservative side
//! of a schedule the user applies).
//!
//! Direction of M (strong convexity, M < 1). A schedule sets the noise proportional to M
//! (σ(n) = M·D/(2η·sqrt(W0(z_n))), v(n) = M·D/(2η·ln z_n)), so r_B = M·D/(η·s) = 2·sqrt(W0(z_n))
//! (resp. 2 ln z_n) is free of M, and M enters δ only through r_A = 2L/s = κ·r_B with
//! κ = 2ηL/(M·D), which *decreases* with M: κ is formed from M rounded down
//! ([`gd::StepContraction::m_dn`]), each operation rounded up. (Rounding M up there, as the
//! PNSGD radius r_B = M·D/(η·s) of a *given* noise needs, made A too small: δ was up to
//! ~1e-11 below the exact value where A sits deep in its tail, e.g. 8.4e-12 for
//! `gauss_schedule_delta(5, 0.5, 0.1, 1, 100, 1e3, 2, β = 1, ρ = 0.5)`.) The general online
//! product [`online::online_delta_all`] with user-given noise takes M rounded up (r_B grows with
//! M); the noise levels take M to nearest.
//!
//! * [`laplace_schedule_scale`], [`laplace_schedule_delta`], [`gauss_schedule_sigma`],
//!   [`gauss_schedule_delta`], [`schedule_delta_star`], [`schedule_c1_for_target`] — 003 Thms 3, 4.
//! * [`online`] — decaying noise: the general suffix product (eq. (11)) and the online
//!   schedules of 003 Thms 6, 7 with their exact limits and integral bounds.

pub mod online;

use rayon::prelude::*;

use multiversion::multiversion;

use crate::batch::{pool, PAR_MIN};
use crate::error::{PabiError, Result};
use crate::num::{down, geometric_average, up};
use crate::{gd, lambertw, theta, vmath};

/// Relative outward nudge (4 ulp) applied to arguments r of θ computed with a few roundings
/// (r = 2·sqrt(W0) carries ≤ 3 ulp: W from `wright_omega` ≤ 2 ulp, ln z ≤ 1 ulp relative to W).
pub(crate) const NUDGE: f64 = 1.0 / 2_251_799_813_685_248.0; // 2^-51
const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// Noise family of a PNSGD run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noise {
    /// Gaussian noise, parameter = standard deviation σ.
    Gaussian,
    /// Laplace noise (d = 1), parameter = scale v; `diameter` = b − a.
    Laplace,
}

/// The problem constants shared by every bound: ε, L, η, D and the step contraction M.
#[derive(Debug, Clone, Copy)]
pub struct Problem {
    pub eps: f64,
    pub lipschitz: f64,
    pub lr: f64,
    pub diameter: f64,
    /// M rounded up: the radius r_B = M·D/(η·s) of a given noise s ([`Problem::radii`]).
    pub m: f64,
    /// M rounded down: κ = 2ηL/(M·D) ([`Problem::kappa`]), which decreases with M. Under a
    /// schedule the noise is proportional to M, so r_B = M·D/(η·s) does not depend on M and
    /// M enters δ only through r_A = κ·r_B: rounding M up there would make A too small.
    pub m_dn: f64,
    /// M to nearest: the noise levels σ(n), v(n) (returned to nearest).
    pub m_near: f64,
}

#[inline(always)]
pub(crate) fn finite_pos(name: &'static str, x: f64) -> Result<()> {
    if x > 0.0 && x.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain(name, "finite and > 0", x))
    }
}

#[inline(always)]
pub(crate) fn finite_nonneg(name: &'static str, x: f64) -> Result<()> {
    if x >= 0.0 && x.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain(name, "finite and >= 0", x))
    }
}

/// An integer-valued count ≥ `lo` (every double ≥ 2^53 is an integer).
#[inline(always)]
pub(crate) fn count(name: &'static str, x: f64, lo: f64) -> Result<()> {
    if x >= lo && x.is_finite() && x == x.floor() {
        Ok(())
    } else {
        Err(PabiError::domain(
            name,
            format!("an integer >= {lo} (finite)"),
            x,
        ))
    }
}

impl Problem {
    /// Validate (lr, smoothness, strong_convexity, diameter) and compute M. ε and L are
    /// validated too (`eps` ≥ 0 finite, `lipschitz` ≥ 0 finite).
    #[inline(always)]
    pub fn new(
        eps: f64,
        lipschitz: f64,
        lr: f64,
        diameter: f64,
        smoothness: Option<f64>,
        strong_convexity: f64,
    ) -> Result<Self> {
        finite_nonneg("eps", eps)?;
        finite_nonneg("lipschitz", lipschitz)?;
        finite_pos("diameter", diameter)?;
        let c = gd::step_contraction(lr, smoothness, strong_convexity)?;
        Ok(Problem {
            eps,
            lipschitz,
            lr,
            diameter,
            m: c.m,
            m_dn: c.m_dn,
            m_near: c.m_near,
        })
    }

    /// The numerators of the radii r_A = 2L/s, r_B = M·D/(η s) ([`gd::Radii`], rounded up).
    #[inline(always)]
    pub fn radii(&self) -> gd::Radii {
        gd::Radii::new(self.lipschitz, self.m, self.diameter, self.lr)
    }

    /// M·D/η to nearest (≤ 1.5 ulp): the numerator of the schedules' noise levels
    /// σ = M·D/(2η·sqrt(W)), v = M·D/(2η·ln z) (not a bound: the user applies that noise).
    #[inline(always)]
    pub(crate) fn mdl_near(&self) -> f64 {
        self.m_near * self.diameter / self.lr
    }

    /// κ = r_A/r_B = 2ηL/(M D) (κ_L for Laplace, κ_G for Gaussian; Sordello–Bu–Dong §4), rounded up: from
    /// M rounded down (κ decreases with M).
    #[inline(always)]
    pub(crate) fn kappa(&self) -> f64 {
        gd::Radii::kappa(self.lipschitz, self.m_dn, self.diameter, self.lr)
    }
}

// ---------------------------------------------------------------------------------------------
// Shuffled schedules (003 Thms 3, 4)

/// ln(n/C1 + C2) for the Laplace schedule, accurate when the argument is close to 1; requires
/// n/C1 + C2 > 1.
#[inline(always)]
pub(crate) fn ln_laplace_arg(n: f64, c1: f64, c2: f64, name: &'static str) -> Result<f64> {
    let q = n / c1;
    let z = q + c2;
    if z.partial_cmp(&1.0) != Some(std::cmp::Ordering::Greater) || !z.is_finite() {
        return Err(PabiError::domain(
            name,
            format!("such that {name}/c1 + c2 > 1 (c1 = {c1}, c2 = {c2})"),
            n,
        ));
    }
    Ok(if z < 2.0 {
        vmath::log1p(q + (c2 - 1.0))
    } else {
        vmath::ln(z)
    })
}

#[inline(always)]
fn check_c(c1: f64, c2: f64) -> Result<()> {
    finite_pos("c1", c1)?;
    finite_nonneg("c2", c2)
}

/// Laplace scale v(n) = M(b−a)/(2η·ln(n/C1 + C2)) (003 eq. (7)), to nearest.
#[multiversion(targets = "simd")]
pub fn laplace_schedule_scale(
    n: f64,
    c1: f64,
    c2: f64,
    lr: f64,
    diameter: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
) -> Result<f64> {
    let p = Problem::new(0.0, 0.0, lr, diameter, smoothness, strong_convexity)?;
    check_c(c1, c2)?;
    count("n", n, 1.0)?;
    let lz = ln_laplace_arg(n, c1, c2, "n")?;
    Ok(p.mdl_near() / (2.0 * lz))
}

/// δ(n) = A_n·G(u_n, n) for the Laplace schedule (003 Thm 3, SPEC §4.1): u_n = e^{ε/2}/(n/C1+C2)
/// exactly, A_n = (1 − e^{ε/2}(n/C1 + C2)^{−κ_L})_+. Upper bound, ≤ 1e-13 relative.
#[multiversion(targets = "simd")]
pub fn laplace_schedule_delta(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<f64> {
    check_c(c1, c2)?;
    count("n", n, 1.0)?;
    let lz = ln_laplace_arg(n, c1, c2, "n")?;
    // A = laplace_theta(ε, r_A) with r_A = 2L/v = 2κ·ln z, nudged up (A increases with r).
    let a = theta::laplace_theta(p.eps, 2.0 * p.kappa() * lz * (1.0 + NUDGE));
    // u = e^{ε/2 − ln z}, exponent moved down by its rounding error.
    let e = 0.5 * p.eps - lz;
    let e_dn = e - 4.0 * f64::EPSILON * (0.5 * p.eps + lz);
    let u = down(vmath::exp(e_dn)).min(1.0);
    Ok(up(a * geometric_average(u, n)).min(a))
}

/// ln z_n = ln(n²/(2πC1²) + C2) for the Gaussian schedule, without forming n² (n up to 1e300).
#[inline(always)]
pub(crate) fn ln_gauss_arg(ln_n2: f64, c1: f64, c2: f64) -> f64 {
    let a = ln_n2 - LN_2PI - 2.0 * vmath::ln(c1);
    let b = if c2 > 0.0 {
        vmath::ln(c2)
    } else {
        f64::NEG_INFINITY
    };
    crate::num::log_add_exp(a, b)
}

/// Gaussian noise σ(n) = M·D/(2η·sqrt(W0(n²/(2πC1²) + C2))) (003 eq. (9)), to nearest;
/// W0 through `wright_omega(ln z)` so n may be as large as 1e300.
#[multiversion(targets = "simd")]
pub fn gauss_schedule_sigma(
    n: f64,
    c1: f64,
    c2: f64,
    lr: f64,
    diameter: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
) -> Result<f64> {
    let p = Problem::new(0.0, 0.0, lr, diameter, smoothness, strong_convexity)?;
    check_c(c1, c2)?;
    count("n", n, 1.0)?;
    let w = lambertw::wright_omega(ln_gauss_arg(2.0 * vmath::ln(n), c1, c2));
    Ok(p.mdl_near() / (2.0 * w.sqrt()))
}

/// The radii (r_A, r_B) = (κ_G·r_B, 2·sqrt(W0(z_n))) of the Gaussian schedule (rounded up).
#[inline(always)]
fn gauss_schedule_radii(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<(f64, f64)> {
    check_c(c1, c2)?;
    count("n", n, 1.0)?;
    let w = lambertw::wright_omega(ln_gauss_arg(2.0 * vmath::ln(n), c1, c2));
    let rb = 2.0 * w.sqrt() * (1.0 + NUDGE);
    Ok((p.kappa() * rb * (1.0 + NUDGE), rb))
}

/// A·G(u, n) rounded up (≤ A).
#[inline(always)]
fn shuffled_value(a: f64, u: f64, n: f64) -> f64 {
    crate::num::up(a * geometric_average(u, n)).min(a)
}

/// δ(n) = θ(ε, κ_G r_B)·G(1 − θ(ε, r_B), n), r_B = 2·sqrt(W0(z_n)) (003 Thm 4, SPEC §4.2).
#[multiversion(targets = "simd")]
pub fn gauss_schedule_delta(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<f64> {
    let (ra, rb) = gauss_schedule_radii(p, n, c1, c2)?;
    let a = theta::theta(p.eps, ra);
    let u = theta::theta_complement(p.eps, rb);
    Ok(shuffled_value(a, u, n))
}

/// Broadcast arguments of [`schedule_delta`]: each slice has length 1 or the output length.
#[derive(Debug, Clone, Copy)]
pub struct ScheduleArgs<'a> {
    pub eps: &'a [f64],
    pub lipschitz: &'a [f64],
    pub lr: &'a [f64],
    pub diameter: &'a [f64],
    pub n: &'a [f64],
    pub c1: &'a [f64],
    pub c2: &'a [f64],
    /// None: no smoothness (convex case, M = 1 unless validation fails).
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

impl ScheduleArgs<'_> {
    /// The problem of element j (validated).
    #[inline(always)]
    fn problem(&self, j: usize) -> Result<Problem> {
        Problem::new(
            at(self.eps, j),
            at(self.lipschitz, j),
            at(self.lr, j),
            at(self.diameter, j),
            self.smoothness.map(|b| at(b, j)),
            at(self.strong_convexity, j),
        )
    }

    fn check_lengths(&self, len: usize) -> Result<()> {
        let mut all = vec![
            ("eps", self.eps.len()),
            ("lipschitz", self.lipschitz.len()),
            ("lr", self.lr.len()),
            ("diameter", self.diameter.len()),
            ("n", self.n.len()),
            ("c1", self.c1.len()),
            ("c2", self.c2.len()),
            ("strong_convexity", self.strong_convexity.len()),
        ];
        if let Some(b) = self.smoothness {
            all.push(("smoothness", b.len()));
        }
        for (name, m) in all {
            if m != 1 && m != len {
                return Err(PabiError::Shape {
                    message: format!("{name} has length {m}, expected 1 or {len}"),
                });
            }
        }
        Ok(())
    }

    /// Every problem argument a broadcast scalar.
    fn problem_scalar(&self) -> bool {
        [
            self.eps,
            self.lipschitz,
            self.lr,
            self.diameter,
            self.strong_convexity,
        ]
        .iter()
        .all(|s| s.len() == 1)
            && self.smoothness.is_none_or(|b| b.len() == 1)
    }
}

/// δ(n) of the Laplace (`laplace`) or Gaussian schedule elementwise with broadcasting (every
/// slice of `a` has length 1 or `out.len()`); errors are located at the first failing index.
/// The Gaussian factors go through the engine's block kernels (bitwise equal to
/// [`gauss_schedule_delta`]), in parallel for long arrays; the problem (M, κ) is validated
/// and computed once when its arguments are scalars.
pub fn schedule_delta(laplace: bool, a: ScheduleArgs, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    a.check_lengths(len)?;
    let once = if a.problem_scalar() {
        Some(a.problem(0)?)
    } else {
        None
    };
    crate::pnsgd::drive(out, PAR_MIN, |j0, o| {
        k_schedule_delta(laplace, &a, once, j0, o)
    })
}

/// δ of the schedule for the lanes `lo..lo + o.len()` (at most one block).
#[inline(always)]
fn schedule_delta_block(
    laplace: bool,
    a: &ScheduleArgs,
    once: Option<Problem>,
    lo: usize,
    o: &mut [f64],
) -> Result<()> {
    const B: usize = theta::BLOCK;
    let nl = o.len();
    let prob = |j: usize| -> Result<Problem> {
        match once {
            Some(p) => Ok(p),
            None => a.problem(j).map_err(|e| e.at(j)),
        }
    };
    if laplace {
        for (t, ot) in o.iter_mut().enumerate() {
            let j = lo + t;
            let p = prob(j)?;
            *ot = laplace_schedule_delta(&p, at(a.n, j), at(a.c1, j), at(a.c2, j))
                .map_err(|e| e.at(j))?;
        }
        return Ok(());
    }
    let (mut x, mut ra, mut rb, mut n) = ([0.0; B], [0.0; B], [0.0; B], [1.0; B]);
    for t in 0..nl {
        let j = lo + t;
        let p = prob(j)?;
        n[t] = at(a.n, j);
        x[t] = p.eps;
        (ra[t], rb[t]) =
            gauss_schedule_radii(&p, n[t], at(a.c1, j), at(a.c2, j)).map_err(|e| e.at(j))?;
    }
    let (mut av, mut uv) = ([0.0; B], [0.0; B]);
    theta::theta_block(&x[..nl], &ra[..nl], &mut av[..nl]);
    theta::theta_complement_block(&x[..nl], &rb[..nl], &mut uv[..nl]);
    for t in 0..nl {
        o[t] = shuffled_value(av[t], uv[t], n[t]);
    }
    Ok(())
}

#[multiversion(targets = "simd")]
fn k_schedule_delta(
    laplace: bool,
    a: &ScheduleArgs,
    once: Option<Problem>,
    j0: usize,
    out: &mut [f64],
) -> Result<()> {
    for (c, o) in out.chunks_mut(theta::BLOCK).enumerate() {
        schedule_delta_block(laplace, a, once, j0 + c * theta::BLOCK, o)?;
    }
    Ok(())
}

/// ln x of δ* = (1 − e^{−x})/x: x_L = C1·e^{ε/2} (Laplace), x_G = 2·C1·e^{ε/2} (Gaussian).
#[inline(always)]
fn ln_x_star(noise: Noise, eps: f64, c1: f64) -> f64 {
    let base = vmath::ln(c1) + 0.5 * eps;
    match noise {
        Noise::Laplace => base,
        Noise::Gaussian => base + std::f64::consts::LN_2,
    }
}

/// δ* = (1 − e^{−x})/x (003 eqs. (8), (10)), rounded up; `-expm1(-x)/x`, and e^{−ln x} when x
/// overflows.
#[multiversion(targets = "simd")]
pub fn schedule_delta_star(noise: Noise, eps: f64, c1: f64) -> Result<f64> {
    finite_nonneg("eps", eps)?;
    finite_pos("c1", c1)?;
    let lx = ln_x_star(noise, eps, c1);
    // δ* decreases in x: move ln x down by its rounding error.
    let lx = lx - 4.0 * f64::EPSILON * lx.abs().max(1.0);
    let v = if lx > 700.0 {
        vmath::exp(-lx)
    } else {
        let x = vmath::exp(lx);
        -vmath::expm1(-x) / x
    };
    Ok(up(v).min(1.0))
}

/// 1 − (1 − e^{−x})/x = (x − 1 + e^{−x})/x and its derivative, by their series (x ≤ 2).
#[inline(always)]
fn one_minus_f_series(x: f64) -> (f64, f64) {
    // g = Σ_{k≥1} (−1)^{k+1} x^k/(k+1)!, g' = Σ_{k≥1} (−1)^{k+1} k x^{k−1}/(k+1)!
    let (mut g, mut dg) = (0.0, 0.0);
    let mut term = 1.0; // x^{k-1}/(k+1)! times sign, starting at k = 1: 1/2
    let mut fact = 2.0;
    term /= fact;
    for k in 1..40 {
        let kf = k as f64;
        g += term * x;
        dg += term * kf;
        fact = kf + 2.0;
        term *= -x / fact;
        if term.abs() < 1e-18 * g.abs().max(1e-300) && k > 3 {
            break;
        }
    }
    (g, dg)
}

/// The x > 0 with (1 − e^{−x})/x = δ* for δ* ∈ (0, 1) (SPEC §4.1 calibration, C24):
/// x = 1/δ* + W0(−e^{−1/δ*}/δ*) for δ* ≤ 1/2, Newton on 1 − (1 − e^{−x})/x = 1 − δ* (series,
/// no cancellation) above.
pub fn x_for_delta_star(delta_star: f64) -> Result<f64> {
    if !(delta_star > 0.0 && delta_star < 1.0) {
        return Err(PabiError::domain("delta_star", "in (0, 1)", delta_star));
    }
    if delta_star <= 0.5 {
        let y = 1.0 / delta_star;
        let w = if y < 700.0 {
            lambertw::lambertw0(-y * vmath::exp(-y))
        } else {
            0.0
        };
        return Ok(y + w);
    }
    let target = 1.0 - delta_star; // exact (Sterbenz)
    let mut x = 2.0 * target;
    for _ in 0..100 {
        let (g, dg) = one_minus_f_series(x);
        let step = (target - g) / dg;
        x += step;
        if step.abs() <= 1e-17 * x {
            break;
        }
    }
    Ok(x)
}

/// C1 such that the schedule's limit δ* equals `delta_star` (SPEC §4.1 calibration):
/// C1 = x·e^{−ε/2} (Laplace), x·e^{−ε/2}/2 (Gaussian). Rounded to nearest.
#[multiversion(targets = "simd")]
pub fn schedule_c1_for_target(noise: Noise, delta_star: f64, eps: f64) -> Result<f64> {
    finite_nonneg("eps", eps)?;
    let x = x_for_delta_star(delta_star)?;
    let lc = vmath::ln(x)
        - 0.5 * eps
        - match noise {
            Noise::Laplace => 0.0,
            Noise::Gaussian => std::f64::consts::LN_2,
        };
    if lc < -745.0 {
        // the constant exists but is below the smallest double: the eps asked for is too large
        return Err(PabiError::domain(
            "eps",
            format!(
                "small enough that c1 for delta_star = {delta_star} is a positive double \
                 (here ln c1 = {lc:e} < -745)"
            ),
            eps,
        ));
    }
    Ok(vmath::exp(lc))
}

// ---------------------------------------------------------------------------------------------
// Array drivers

/// Map `f` over equally long argument slices (index k gets `args[j][k]`), in parallel for long
/// arrays; the error of the smallest failing index is returned, located with `.at(index)`.
pub fn map_args<const K: usize>(
    args: [&[f64]; K],
    out: &mut [f64],
    f: impl Fn([f64; K]) -> Result<f64> + Sync,
) -> Result<()> {
    let n = out.len();
    for a in args.iter() {
        if a.len() != n {
            return Err(PabiError::Shape {
                message: format!(
                    "argument arrays have lengths {} and {n} (they must be equal)",
                    a.len()
                ),
            });
        }
    }
    let run = |start: usize, o: &mut [f64]| -> Result<()> {
        for (j, slot) in o.iter_mut().enumerate() {
            crate::interrupt::check()?;
            let k = start + j;
            let mut v = [0.0; K];
            for (q, a) in args.iter().enumerate() {
                v[q] = a[k];
            }
            *slot = f(v).map_err(|e| e.at(k))?;
        }
        Ok(())
    };
    const CH: usize = 1 << 12;
    match pool() {
        Some(p) if n >= PAR_MIN => p.install(|| {
            let errs: Vec<PabiError> = out
                .par_chunks_mut(CH)
                .enumerate()
                .filter_map(|(c, o)| run(c * CH, o).err())
                .collect();
            match errs.into_iter().next() {
                Some(e) => Err(e),
                None => Ok(()),
            }
        }),
        _ => run(0, out),
    }
}

/// `Some(x)` when `has` is set.
#[inline]
pub fn opt(has: bool, x: f64) -> Option<f64> {
    if has {
        Some(x)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig2_delta_star_and_calibration() {
        let d = schedule_delta_star(Noise::Laplace, 1.0, 1e5).unwrap();
        assert!((d / 6.065_306_597_126_334e-6 - 1.0).abs() < 1e-12);
        let c1 = schedule_c1_for_target(Noise::Laplace, 6.065_306_597_126_334e-6, 1.0).unwrap();
        assert!((c1 / 1e5 - 1.0).abs() < 1e-12);
        for &t in &[0.999_999, 0.9, 0.6, 0.5, 0.1, 1e-9] {
            let x = x_for_delta_star(t).unwrap();
            let f = -(-x).exp_m1() / x;
            assert!((f / t - 1.0).abs() < 1e-14, "{t} {x} {f}");
        }
        assert!(x_for_delta_star(1.0).is_err());
    }
}
