//! The forward bounds over arrays: δ(ε) and ln δ(ε) ([`delta`], [`log_delta`]) and the factors
//! (A, B, 1 − B) ([`factors`]), block by block through the engine's block kernels (module doc of
//! `pnsgd`, "Speed"). The formulas are in `orders.rs`, the factors in `ab_factors.rs`; see
//! `docs/derivations/pnsgd.md`.

use std::sync::OnceLock;

use crate::dd::Dd;
use crate::error::{PabiError, Result};
use crate::gd::Radii;
use crate::setup::check_broadcast;
use crate::theta;

use super::ab_factors::{factors_block, factors_one, Fac, Facs};
use super::at;
use super::fixed_precise::{
    log_fixed_precise, precise_lb, value_fixed_precise, wants_precise, Geo,
};
use super::orders::{finish_block_value, finish_log};
use super::params::{check_eps, FactorParams, Noise, Order, Params};
use super::prepared::{lanes, Elem, Prepared, PreparedFactors};
use super::{drive, PAR_DELTA};
#[cfg(test)]
use super::{fixed_precise::precise_fixed, orders::finish_value};

/// δ for one element at noise scale s (value, upper bound, in [0, 1]): the scalar form of the
/// block kernel (tests check they agree bitwise; [`meets`] is its short-circuiting user).
#[cfg(test)]
pub(super) fn delta_value(e: &Elem, eps: f64, s: f64, ra: f64, rb: f64) -> f64 {
    let f = factors_one(e.noise, e.order, false, eps, ra, rb);
    let v = finish_value(e, &f);
    precise_fixed(e, &f, eps, s, rb, false).map_or(v, |w| v.min(w))
}

/// ln δ for one element at noise scale s (upper bound, ≤ 0, −∞ when δ = 0).
#[cfg(test)]
pub(super) fn delta_log(e: &Elem, eps: f64, s: f64, ra: f64, rb: f64) -> f64 {
    let f = factors_one(e.noise, e.order, true, eps, ra, rb);
    let v = finish_log(e, &f);
    precise_fixed(e, &f, eps, s, rb, true).map_or(v, |w| v.min(w))
}

/// δ (or ln δ) for the lanes `lo..lo + o.len()`: per-lane data, the factors of the block by
/// the engine's block kernels (`tb`: the call's block storage), or `once.0` when they do not
/// vary (`once.1`: the precise ln B of those, computed at most once), then the order's formula
/// in a loop per order (so that it vectorizes).
#[inline(always)]
fn delta_block(
    tb: &mut theta::ThetaBlocks,
    prep: &Prepared,
    eps: &[f64],
    (fac_once, lb_once): (Option<Fac>, &OnceLock<Option<Dd>>),
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
    let (mut ra, mut rb) = ([0.0; B], [0.0; B]);
    prep.sc.radii_block(lo, nl, &mut ra, &mut rb)?;
    let f = match fac_once {
        Some(f) => Facs {
            a: [f.a; B],
            la: [f.la; B],
            u: [f.u; B],
            lb: [f.lb; B],
        },
        None => {
            let mut x = [0.0; B];
            lanes(&mut x[..nl], eps, lo);
            factors_block(tb, p.noise, p.order, log, &x[..nl], &ra[..nl], &rb[..nl])
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
            let g = || {
                let sg = at(prep.sigma(), j);
                precise_lb(p.noise, &Geo::at(&prep.sc.setup, j), at(eps, j), sg)
            };
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

simd! {
    /// δ (or ln δ) for one chunk, block by block.
    fn k_delta(prep: &Prepared, eps: &[f64], fac_once: Option<Fac>, lb_once: &OnceLock<Option<Dd>>, log: bool, j0: usize, out: &mut [f64]) -> Result<()> {
        let mut tb = theta::ThetaBlocks::default();
        for (c, o) in out.chunks_mut(theta::BLOCK).enumerate() {
            delta_block(&mut tb, prep, eps, (fac_once, lb_once), log, j0 + c * theta::BLOCK, o)?;
        }
        Ok(())
    }

    /// (A, B, 1 − B) for one chunk, block by block: Gaussian lanes by the engine's block
    /// kernels (bitwise equal to the scalar functions), Laplace lanes by the closed forms.
    fn k_factors(prep: &PreparedFactors, eps: &[f64], j0: usize, a: &mut [f64], b: &mut [f64], u: &mut [f64]) -> Result<()> {
        const B: usize = theta::BLOCK;
        let mut tb = theta::ThetaBlocks::default();
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
            prep.sc.radii_block(lo, nl, &mut ra, &mut rb)?;
            match prep.noise {
                Noise::Gaussian => {
                    tb.theta(&x[..nl], &ra[..nl], ab);
                    tb.theta(&x[..nl], &rb[..nl], bb);
                    tb.theta_complement(&x[..nl], &rb[..nl], ub);
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

pub(super) fn run_delta(eps: &[f64], p: Params, out: &mut [f64], log: bool) -> Result<()> {
    let len = out.len();
    check_broadcast(len, &[("eps", eps.len())])?;
    check_eps(eps)?;
    let prep = Prepared::new(p, len)?;
    // ε and the radii scalar (e.g. a sweep over n or the index): the factors once.
    let fac_once = match prep.sc.r_once {
        Some((ra, rb)) if eps.len() == 1 => Some(factors_once(
            p.model.noise,
            p.model.order,
            log,
            eps[0],
            ra,
            rb,
        )),
        _ => None,
    };
    // the precise ln B of the fixed order, computed once (on first need) when it does not vary
    let lb_once = OnceLock::new();
    drive(out, PAR_DELTA, |j0, o| {
        k_delta(&prep, eps, fac_once, &lb_once, log, j0, o)
    })
}

simd! {
    /// [`factors_one`] compiled for the vector unit (a scalar call outside the `simd!` kernels
    /// would be compiled for the baseline target, where each `mul_add` of θ is a call of the
    /// software `fma`: ~30 % of the core's time of a scalar `pnsgd_delta`). Same values.
    fn factors_once(noise: Noise, order: Order, log: bool, eps: f64, ra: f64, rb: f64) -> Fac {
        factors_one(noise, order, log, eps, ra, rb)
    }
}

/// The factors (A, B, 1 − B) elementwise: A, B rounded up, 1 − B rounded down (computed
/// directly, not by subtraction). Broadcast as in [`delta`].
pub fn factors(
    eps: &[f64],
    p: FactorParams,
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
    let prep = PreparedFactors::new(p, len)?;
    crate::driver::for_chunks(
        [a_out, b_out, u_out],
        PAR_DELTA,
        1 << 11,
        |j0, [a, b, u]| k_factors(&prep, eps, j0, a, b, u),
    )
}
