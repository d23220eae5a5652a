//! The array drivers of this family: split an output array into chunks and run a kernel on
//! each, across the thread pool for long arrays ([`drive`] for the forward bounds, also used by
//! `schedules`; [`drive_solve`] for the inversions). No mathematics here.

use rayon::prelude::*;

use crate::batch::pool;
use crate::error::Result;
use crate::theta;

/// Arrays at least this long are split across the thread pool (δ evaluation).
pub(super) const PAR_DELTA: usize = 1 << 14;
/// Inversions cost ~100 evaluations per element: parallelize from this length.
pub(super) const PAR_SOLVE: usize = 64;

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

/// [`drive`] for the solvers: chunks of a multiple of [`theta::BLOCK`] elements (at least 16
/// chunks where the array allows it, at most 1024 elements), in parallel from [`PAR_SOLVE`].
pub(super) fn drive_solve(
    out: &mut [f64],
    k: impl Fn(usize, &mut [f64]) -> Result<()> + Sync,
) -> Result<()> {
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
