//! Logarithms of the Gaussian factors θ and 1 − θ with errors of a few ulp (no INFLATE·|ln|
//! shift): for long products (B^(n−i), online noise), shared by the PNSGD bounds and the
//! online/schedule bounds, where a relative shift per factor would accumulate. Each is one call
//! of θ's engine ([`super::theta`]) plus one logarithm in the usual case. Re-exported by
//! [`super::theta`] (the old paths).

use super::theta::{log_theta, log_theta_complement, theta, theta_complement, ThetaBlocks, BLOCK};
use crate::num::round::EPS2;
use crate::vmath;

/// ln θ_{e^ε}(r) rounded up, with an error ≤ a few ulp + INFLATE absolute: ln of θ (rounded up)
/// where θ < 1/2, log1p(−(1 − θ)) (complement rounded down) where θ > 1/2 — one engine call in
/// the usual case. (The engine's `log_theta` moves its result by INFLATE·|ln θ|, which would
/// accumulate over long products.) θ ≥ 1/2 roughly iff r² > 2ε.
#[inline(always)]
pub fn log_theta_tight(eps: f64, r: f64) -> f64 {
    if r * r > 2.0 * eps {
        let u = theta_complement(eps, r);
        if u <= 0.5 {
            let l = vmath::log1p(-u);
            return l - EPS2 * l;
        }
    } else {
        let t = theta(eps, r);
        if t > 1e-300 && t < 0.5 {
            let l = vmath::ln(t);
            return l - EPS2 * l;
        }
    }
    log_theta(eps, r)
}

/// [`log_theta_tight`] over a block of at most [`BLOCK`] lanes (bitwise equal per lane): the
/// complement kernel for the lanes with r² > 2ε, the θ kernel for the others (each run only
/// when some lane needs it), the rare remaining lanes by [`log_theta`]. `tb`: the caller's block
/// storage (one per loop over blocks).
#[inline(always)]
pub fn log_theta_tight_block(tb: &mut ThetaBlocks, eps: &[f64], r: &[f64], out: &mut [f64]) {
    let n = out.len().min(eps.len()).min(r.len()).min(BLOCK);
    let (mut u, mut t) = ([0.0; BLOCK], [0.0; BLOCK]);
    let mut big = [false; BLOCK];
    let (mut any_big, mut any_small) = (false, false);
    for j in 0..n {
        big[j] = r[j] * r[j] > 2.0 * eps[j];
        any_big |= big[j];
        any_small |= !big[j];
    }
    if any_big {
        tb.theta_complement(&eps[..n], &r[..n], &mut u[..n]);
    }
    if any_small {
        tb.theta(&eps[..n], &r[..n], &mut t[..n]);
    }
    for j in 0..n {
        let v = if big[j] {
            if u[j] <= 0.5 {
                let l = vmath::log1p(-u[j]);
                l - EPS2 * l
            } else {
                f64::NAN
            }
        } else if t[j] > 1e-300 && t[j] < 0.5 {
            let l = vmath::ln(t[j]);
            l - EPS2 * l
        } else {
            f64::NAN
        };
        out[j] = if v.is_nan() {
            log_theta(eps[j], r[j])
        } else {
            v
        };
    }
}

/// ln(1 − θ_{e^ε}(r)) rounded down, with the same error policy as [`log_theta_tight`].
#[inline(always)]
pub fn log_theta_complement_tight(eps: f64, r: f64) -> f64 {
    if r * r > 2.0 * eps {
        let u = theta_complement(eps, r);
        if u > 1e-300 && u < 0.5 {
            let l = vmath::ln(u);
            return l + EPS2 * l;
        }
    } else {
        let t = theta(eps, r);
        if t <= 0.5 {
            let l = vmath::log1p(-t);
            return l + EPS2 * l;
        }
    }
    log_theta_complement(eps, r)
}
