//! The θ-type factors of the PNSGD bounds at one ε: A = h(ε, r_A) and B = h(ε, r_B), h = θ
//! (Gaussian, Sordello–Bu–Dong eq. (4)) or the Laplace divergence (their eq. (5)), with the
//! complement u = 1 − B (never formed by subtraction) and the logarithms ln A, ln B, for one
//! element ([`factors_one`]) or a block of lanes ([`factors_block`], bitwise equal). The
//! engine's θ is [`crate::theta`]; see `docs/derivations/pnsgd.md`.

use crate::theta;
use crate::vmath;

use super::params::{Noise, Order};
use crate::num::round::{ln_up, log_up_rel};

/// Where u = 1 − B ≤ this, ln B = log1p(−u) (1 − u is exact for u ≥ ½): its absolute error
/// from the complement's rounding, u·2^-49/B, is below the 2^-46 of ln θ while B ≥ 1/8.
const U_LOG1P: f64 = 0.875;

/// The θ-type factors of one element at one ε: A (rounded up), ln A (rounded up; log mode and
/// the published random stop), u = 1 − B (rounded down, never formed by subtraction) and `lb`:
/// ln B (rounded up) for the fixed order, ln(1 − B) (rounded down) for the published random
/// stop A/(n(1 − B)), whose value is formed in logarithms where A or 1 − B underflow (see
/// `orders::value_published`), 0 otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Fac {
    pub(super) a: f64,
    pub(super) la: f64,
    pub(super) u: f64,
    pub(super) lb: f64,
}

/// ln θ from θ (rounded up, a few ulp), moved up by [`log_up_rel`]; NaN (fallback marker) where
/// θ ≤ 1e-300.
#[inline(always)]
fn ln_of_theta(th: f64) -> f64 {
    let l = vmath::ln(th);
    if th > 1e-300 {
        log_up_rel(l)
    } else {
        f64::NAN
    }
}

/// `l`, a lane's [`ln_of_theta`], or the engine's ln θ(ε, r) where that is the fallback marker
/// (θ ≤ 1e-300): ln θ rounded up, for ln A and ln B alike.
#[inline(always)]
fn or_log_theta(l: f64, eps: f64, r: f64) -> f64 {
    if l.is_nan() {
        theta::log_theta(eps, r)
    } else {
        l
    }
}

/// ln B for a Gaussian B = θ(ε, r_B) from u = 1 − B (the engine's complement, rounded down),
/// rounded up: log1p(−u) while u ≤ 7/8 (1 − u exact for u ≥ ½; the absolute error from the
/// complement's rounding, u·2^-49/B, stays below the 2^-46 of θ), else ln of θ (rounded up),
/// and the engine's ln θ where θ ≤ 1e-300.
#[inline(always)]
fn log_b_gauss(u: f64, eps: f64, rb: f64) -> f64 {
    if u <= U_LOG1P {
        log_up_rel(vmath::log1p(-u))
    } else {
        or_log_theta(ln_of_theta(theta::theta(eps, rb)), eps, rb)
    }
}

/// [`log_b_gauss`] over a block (bitwise equal per lane), given u = 1 − B of every lane: the
/// lanes with u > 7/8 are gathered through the engine's θ block kernel (`tb`: the caller's
/// block storage).
#[inline(always)]
pub(crate) fn log_b_gauss_block(
    tb: &mut theta::ThetaBlocks,
    u: &[f64],
    eps: &[f64],
    rb: &[f64],
    out: &mut [f64],
) {
    const B: usize = theta::BLOCK;
    let n = out.len().min(u.len()).min(B);
    let mut idx = [0usize; B + 1]; // (branch-free compaction writes one past the group)
    let mut nb = 0;
    // two loops: the compaction's carried count kept the log1p loop from vectorizing
    for j in 0..n {
        out[j] = log_up_rel(vmath::log1p(-u[j]));
    }
    for (j, &uj) in u[..n].iter().enumerate() {
        idx[nb] = j;
        nb += (uj > U_LOG1P) as usize;
    }
    if nb == 0 {
        return;
    }
    let (mut gx, mut gr, mut gv) = ([1.0; B], [1.0; B], [0.0; B]);
    for t in 0..nb {
        gx[t] = eps[idx[t]];
        gr[t] = rb[idx[t]];
    }
    tb.theta(&gx[..nb], &gr[..nb], &mut gv[..nb]);
    for t in 0..nb {
        let j = idx[t];
        out[j] = or_log_theta(ln_of_theta(gv[t]), eps[j], rb[j]);
    }
}

/// ln A rounded up: the one rule for ln A (both noises; the constant bound's scalar and block
/// forms, the per-step bound). The smaller of two upper bounds of ln h(ε, r_A): `direct`, the
/// engine's logarithm computed without forming A (Gaussian [`theta::log_theta`], within 2^-46
/// relative of ln θ: the tighter one where |ln A| is small; Laplace
/// [`theta::log_laplace_theta`]), and [`ln_up`] of `a`, the engine's h rounded up (its 2^-46
/// relative error enters ln A as an absolute ~2^-46, ~1.4e-14 relative in δ: the tighter one
/// where |ln A| is large, up to 6e-12 relative in δ better at ln A = −448). Both are upper
/// bounds for any a ≥ A (subnormal a included, and a = 0 gives −∞ = ln 0), so their minimum is.
#[inline(always)]
pub(crate) fn log_a_up(a: f64, direct: f64) -> f64 {
    direct.min(ln_up(a))
}

/// [`log_a_up`] over a block (bitwise equal per lane): `out` holds `direct` of every lane on
/// entry.
#[inline(always)]
fn log_a_up_block(a: &[f64], out: &mut [f64]) {
    for (o, &v) in out.iter_mut().zip(a) {
        *o = log_a_up(v, *o);
    }
}

/// ln A (rounded up) of the online schedules' Gaussian kernel from A = θ (the engine's θ,
/// rounded up) of every lane: the second bound of [`log_a_up`] alone, ln of the value (its
/// error, θ's 2^-46 relative, enters δ once) by the vectorized ln moved up by [`log_up_rel`],
/// and the engine's ln θ where θ ≤ 1e-300. The first bound of [`log_a_up`] (the engine's ln θ
/// in every lane) would be a third θ-type evaluation per step, about half the kernel's time,
/// for at most 2^-46 relative in δ (where |ln A| < 1).
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
            out[j] = or_log_theta(out[j], eps[j], ra[j]);
        }
    }
}

/// The factors needed by (`order`, `log`) for one element (scalar engine calls).
#[inline(always)]
pub(super) fn factors_one(
    noise: Noise,
    order: Order,
    log: bool,
    eps: f64,
    ra: f64,
    rb: f64,
) -> Fac {
    let fixed = order == Order::Fixed;
    let published = order == Order::RandomStopAsPublished;
    let log = log || published;
    match noise {
        Noise::Gaussian => {
            let u = theta::theta_complement(eps, rb);
            let a = theta::theta(eps, ra);
            Fac {
                a,
                la: if log {
                    log_a_up(a, theta::log_theta(eps, ra))
                } else {
                    0.0
                },
                u,
                lb: if fixed {
                    log_b_gauss(u, eps, rb)
                } else if published {
                    theta::log_theta_complement(eps, rb)
                } else {
                    0.0
                },
            }
        }
        Noise::Laplace => {
            let a = theta::laplace_theta(eps, ra);
            Fac {
                a,
                la: if log {
                    log_a_up(a, theta::log_laplace_theta(eps, ra))
                } else {
                    0.0
                },
                u: theta::laplace_theta_complement(eps, rb),
                lb: if fixed {
                    theta::log_laplace_theta(eps, rb)
                } else if published {
                    theta::log_laplace_theta_complement(eps, rb)
                } else {
                    0.0
                },
            }
        }
    }
}

/// Structure-of-arrays factors of one block of lanes.
pub(super) struct Facs {
    pub(super) a: [f64; theta::BLOCK],
    pub(super) la: [f64; theta::BLOCK],
    pub(super) u: [f64; theta::BLOCK],
    pub(super) lb: [f64; theta::BLOCK],
}

impl Facs {
    #[inline(always)]
    pub(super) fn get(&self, t: usize) -> Fac {
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
pub(super) fn factors_block(
    tb: &mut theta::ThetaBlocks,
    noise: Noise,
    order: Order,
    log: bool,
    x: &[f64],
    ra: &[f64],
    rb: &[f64],
) -> Facs {
    let n = x.len();
    let z = [0.0; theta::BLOCK];
    let mut f = Facs {
        a: z,
        la: z,
        u: z,
        lb: z,
    };
    let published = order == Order::RandomStopAsPublished;
    match noise {
        Noise::Gaussian if published => {
            for t in 0..n {
                let g = factors_one(noise, order, log, x[t], ra[t], rb[t]);
                (f.a[t], f.la[t], f.u[t], f.lb[t]) = (g.a, g.la, g.u, g.lb);
            }
        }
        Noise::Gaussian => {
            tb.theta(x, ra, &mut f.a[..n]);
            if log {
                tb.log_theta(x, ra, &mut f.la[..n]);
                log_a_up_block(&f.a[..n], &mut f.la[..n]);
            }
            tb.theta_complement(x, rb, &mut f.u[..n]);
            if order == Order::Fixed {
                log_b_gauss_block(tb, &f.u[..n], x, rb, &mut f.lb[..n]);
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
