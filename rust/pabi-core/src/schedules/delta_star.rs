//! The limit δ* = lim_n δ(n) = (1 − e^{−x})/x of the two fixed-horizon schedules
//! (x_L = C1·e^{ε/2}, x_G = 2·C1·e^{ε/2}: Sordello–Bu–Dong §4, eqs. (8), (10)) and the
//! calibration that inverts it, C1 for a target δ* (derivation: `docs/derivations/schedules.md`).

use multiversion::multiversion;

use super::params::{finite_nonneg, finite_pos, Noise};
use crate::error::{PabiError, Result};
use crate::num::round::EPS4;
use crate::num::up;
use crate::{lambertw, vmath};

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
    let lx = lx - EPS4 * lx.abs().max(1.0);
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

/// The x > 0 with (1 − e^{−x})/x = δ* for δ* ∈ (0, 1): x = 1/δ* + W0(−e^{−1/δ*}/δ*) for
/// δ* ≤ 1/2, Newton on 1 − (1 − e^{−x})/x = 1 − δ* (series, no cancellation) above
/// (`docs/derivations/schedules.md`, calibration; checked in `docs/errata.md#p-c24`).
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

/// C1 such that the schedule's limit δ* equals `delta_star` (003 eqs. (8), (10) inverted):
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
