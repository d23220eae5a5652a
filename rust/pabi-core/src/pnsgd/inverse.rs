//! The inversions: the smallest ε for a target δ ([`epsilon`]) and the smallest noise σ for a
//! target (ε, δ) ([`calibrate_sigma`]), exactly minimal with respect to the value [`delta()`]
//! returns (bisection on the bit patterns of a bound monotone in ε and in σ). Arrays run the same
//! searches in lock-step (`inverse_lanes.rs`). See `docs/derivations/pnsgd.md`.

use crate::error::{PabiError, Result};
use crate::num::bisect::Search;
use crate::vmath;

use super::ab_factors::{factors_one, Fac};
use super::at;
use super::drive_solve;
use super::fixed_precise::precise_fixed;
use super::inverse_lanes::{solve_lanes, Solve, SOLVE_LANES_MIN};
use super::orders::{finish_log, finish_value};
use super::params::{check_eps, check_target, Model, Noise, Order, Params};
use super::prepared::{Elem, Prepared};
use super::LOG_REL;
#[allow(unused_imports)] // (doc links)
use super::{delta, log_delta};
use crate::num::round::rel_dn;
#[allow(unused_imports)] // (doc links)
use crate::num::TINY;
use crate::setup::check_broadcast;

/// Targets below this (subnormal) are compared in log space by the inversions; every normal
/// target is compared with the value [`delta()`] returns, so that the inversions are exactly
/// minimal with respect to it: δ(ε) ≤ target and δ(the previous double of ε) > target (the
/// same for σ). (Comparing in log space from 1e-290 on, as before, made the result differ by
/// one or a few ulp from the value-space decision a user checks with `pnsgd_delta`.) For a
/// subnormal target, whose value comparison would be coarse (and impossible below [`TINY`],
/// the smallest non-zero value [`delta()`] returns), ln δ ≤ ln(target)·(1 + 4 ulp) decides:
/// minimal with respect to [`log_delta`] against that (rounded-down) logarithm.
pub(super) const LOG_TARGET: f64 = f64::MIN_POSITIVE;

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
pub(super) fn meets_with(
    e: &Elem,
    f: &Fac,
    eps: f64,
    s: f64,
    rb: f64,
    target: f64,
    log_target: f64,
) -> bool {
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
    // with respect to [`delta()`]), so the slack takes the larger weight and a factor 100 margin.
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
/// on the bit patterns ([`crate::num::bisect::bisect_bits`]).
#[inline(always)]
pub(super) fn bisect_bits(lo: f64, hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    crate::num::bisect::bisect_bits(lo, hi, ok)
}

/// The smallest ε ≥ 0 (to one ulp) whose δ(ε) does not exceed the target `delta` ∈ (0, 1):
/// 0 if δ(0) ≤ delta. δ is non-increasing in ε; the returned ε always satisfies
/// δ(ε) ≤ delta (as computed by [`delta()`]) and the next smaller double does not.
/// Errors with [`PabiError::Unreachable`] when no finite ε reaches the target.
pub fn epsilon(target: &[f64], p: Params, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("delta", target.len())])?;
    check_target(target)?;
    let prep = Prepared::new(p, len)?;
    drive_solve(out, |j0, o| {
        k_solve(&prep, Solve::Epsilon, &[], target, j0, o)
    })
}

#[inline(always)]
pub(super) fn solve_epsilon(prep: &Prepared, target: &[f64], j: usize) -> Result<f64> {
    let e = prep.elem(j)?;
    let s = at(prep.sigma(), j);
    let t = at(target, j);
    let lt = rel_dn(vmath::ln(t), LOG_REL);
    // One call site of `meets`, called directly (a closure would be compiled without the
    // kernel's FMA/AVX, docs/architecture.md): inlined once per instruction set (every call
    // site is a copy). The steps: ε = 0 (met: 0), then
    // 1, 4, 16, … until one meets, then the bisection of (previous step, that one].
    enum Ph {
        Zero,
        Up(u32),
        Bisect(Search),
    }
    let (mut ph, mut x) = (Ph::Zero, 0.0_f64);
    loop {
        let ok = meets(&e, x, s, t, lt);
        match &mut ph {
            Ph::Zero => {
                if ok {
                    return Ok(0.0);
                }
                (ph, x) = (Ph::Up(0), 1.0);
            }
            Ph::Up(steps) if ok => {
                let lo = if *steps == 0 { 0.0 } else { x / 4.0 };
                ph = Ph::Bisect(Search::bisect(lo, x));
            }
            Ph::Up(steps) => {
                x *= 4.0;
                *steps += 1;
                if *steps > 520 || !x.is_finite() {
                    return Err(no_epsilon(&e, s, t, j));
                }
                continue;
            }
            Ph::Bisect(search) => search.feed(ok),
        }
        if let Ph::Bisect(search) = &ph {
            match search.probe() {
                Some(p) => x = p,
                None => return Ok(search.result().unwrap_or(f64::NAN)),
            }
        }
    }
}

/// The smallest noise σ (Gaussian std or Laplace scale, to one ulp) for which the bound meets
/// (ε, δ); δ is non-increasing in σ. Returns 0 when every σ > 0 meets it (e.g. max_grad_norm = 0).
/// Errors with [`PabiError::Unreachable`] when no σ ≤ 1e300 does.
pub fn calibrate_sigma(eps: &[f64], target: &[f64], m: Model, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("eps", eps.len()), ("delta", target.len())])?;
    check_eps(eps)?;
    check_target(target)?;
    let prep = Prepared::searching_sigma(m, len)?;
    drive_solve(out, |j0, o| {
        k_solve(&prep, Solve::Sigma, eps, target, j0, o)
    })
}

#[inline(always)]
pub(super) fn solve_sigma(prep: &Prepared, eps: &[f64], target: &[f64], j: usize) -> Result<f64> {
    let e = prep.elem(j)?;
    let x = at(eps, j);
    let t = at(target, j);
    let lt = rel_dn(vmath::ln(t), LOG_REL);
    if e.rad.two_l == 0.0 {
        return Ok(0.0);
    }
    // One call site of `meets` (as in `solve_epsilon`). The steps: σ = MIN_POSITIVE (met: 0),
    // σ = 1; met there: 1/4, 1/16, … until one fails, else 4, 16, … until one meets; then the
    // bisection of the last factor of 4.
    enum Ph {
        Min,
        One,
        Down,
        Up(u32),
        Bisect(Search),
    }
    let (mut ph, mut sg) = (Ph::Min, f64::MIN_POSITIVE);
    loop {
        let ok = meets(&e, x, sg, t, lt);
        match &mut ph {
            Ph::Min => {
                if ok {
                    return Ok(0.0);
                }
                (ph, sg) = (Ph::One, 1.0);
                continue;
            }
            Ph::One if ok => {
                (ph, sg) = (Ph::Down, 0.25);
                continue;
            }
            Ph::One => {
                (ph, sg) = (Ph::Up(1), 4.0);
                continue;
            }
            // terminates: ok(MIN_POSITIVE) is false
            Ph::Down if ok => {
                sg *= 0.25;
                continue;
            }
            Ph::Down => ph = Ph::Bisect(Search::bisect(sg, sg * 4.0)),
            Ph::Up(_) if ok => ph = Ph::Bisect(Search::bisect(sg / 4.0, sg)),
            Ph::Up(steps) => {
                sg *= 4.0;
                *steps += 1;
                if *steps > 500 {
                    return Err(no_sigma(x, t, j));
                }
                continue;
            }
            Ph::Bisect(search) => search.feed(ok),
        }
        if let Ph::Bisect(search) = &ph {
            match search.probe() {
                Some(p) => sg = p,
                None => return Ok(search.result().unwrap_or(f64::NAN)),
            }
        }
    }
}

pub(super) fn no_epsilon(e: &Elem, s: f64, t: f64, j: usize) -> PabiError {
    let (ra, _) = e.radii(s);
    // the bound stays above the target for every finite eps: the noise is too small for the
    // sensitivity (2*max_grad_norm/noise_scale overflows or nearly so)
    PabiError::domain(
        "noise_scale",
        format!(
            "large enough relative to 2*max_grad_norm that a finite eps reaches delta = {t:e} \
             (2*max_grad_norm/noise_scale = {ra:e}; the bound at the largest eps tried is still above \
             the target)"
        ),
        s,
    )
    .at(j)
}

pub(super) fn no_sigma(x: f64, t: f64, j: usize) -> PabiError {
    PabiError::unreachable(format!(
        "no noise level sigma <= 1e300 reaches (eps = {x}, delta = {t}) at element {j}"
    ))
}

simd! {
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
