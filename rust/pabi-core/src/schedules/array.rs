//! Array drivers of the schedules: δ(n) of the fixed-horizon schedules elementwise with
//! broadcasting ([`schedule_delta`], the Gaussian factors by the engine's block kernels), and
//! [`map_args`] / [`opt`], the generic elementwise driver the bindings of several families use.

use super::gauss::gauss_schedule_radii;
use super::laplace_schedule_delta;
use super::params::{Noise, Problem, ScheduleArgs};
use super::shuffled_value;
use crate::driver::PAR_MIN;
use crate::error::{PabiError, Result};
use crate::setup::at;
use crate::theta;

/// δ(n) of the Laplace or Gaussian schedule (`kind`) elementwise with broadcasting (every
/// slice of `a` has length 1 or `out.len()`); errors are located at the first failing index.
/// The Gaussian factors go through the engine's block kernels (bitwise equal to
/// [`super::gauss_schedule_delta`]), in parallel for long arrays; the problem (M, κ) is validated
/// and computed once when its arguments are scalars.
pub fn schedule_delta(kind: Noise, a: ScheduleArgs, out: &mut [f64]) -> Result<()> {
    let laplace = kind == Noise::Laplace;
    let len = out.len();
    a.check_lengths(len)?;
    let once = if a.problem_scalar() {
        Some(a.problem(0)?)
    } else {
        None
    };
    crate::driver::for_chunks([out], PAR_MIN, 1 << 11, |j0, [o]| {
        k_schedule_delta(laplace, &a, once, j0, o)
    })
}

/// δ of the schedule for the lanes `lo..lo + o.len()` (at most one block).
#[inline(always)]
fn schedule_delta_block(
    tb: &mut theta::ThetaBlocks,
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
    tb.theta(&x[..nl], &ra[..nl], &mut av[..nl]);
    tb.theta_complement(&x[..nl], &rb[..nl], &mut uv[..nl]);
    for t in 0..nl {
        o[t] = shuffled_value(av[t], uv[t], n[t]);
    }
    Ok(())
}

simd! {
    fn k_schedule_delta(
        laplace: bool,
        a: &ScheduleArgs,
        once: Option<Problem>,
        j0: usize,
        out: &mut [f64],
    ) -> Result<()> {
        let mut tb = theta::ThetaBlocks::default();
        for (c, o) in out.chunks_mut(theta::BLOCK).enumerate() {
            schedule_delta_block(&mut tb, laplace, a, once, j0 + c * theta::BLOCK, o)?;
        }
        Ok(())
    }
}

/// Map `f` over equally long argument slices (index k gets `args[j][k]`), in parallel for long
/// arrays; the error of the smallest failing index is returned, located with `.at(index)`:
/// [`crate::driver::map_into`] with chunks of 4096 elements, in parallel from [`PAR_MIN`] (the
/// binding's elementwise driver; kept here under its old path).
pub fn map_args<const K: usize>(
    args: [&[f64]; K],
    out: &mut [f64],
    f: impl Fn([f64; K]) -> Result<f64> + Sync,
) -> Result<()> {
    crate::driver::map_into(
        args,
        out,
        PAR_MIN,
        1 << 12,
        |got, n| PabiError::Shape {
            message: format!("argument arrays have lengths {got} and {n} (they must be equal)"),
        },
        f,
    )
}

/// `Some(x)` when `has` is set.
#[inline]
pub fn opt(has: bool, x: f64) -> Option<f64> {
    has.then_some(x)
}
