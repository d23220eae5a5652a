//! The Gaussian mechanism on its own: the classical (ε, δ) constant (Dwork–Roth Thm A.1;
//! Thudi et al., *Gradients look alike*, footnote 3) with its validity flag, amplification by
//! Poisson sampling, and the Rényi divergence α Δ²/(2σ²) (Mironov 2017, Prop. 7).
//! Derivations: docs/derivations/rdp.md.

use super::checks::{nonneg, pos, rdp_order, unit_closed, unit_open};
use super::scalar::{mul0, prod_div, up_pos};
use crate::error::Result;
use crate::num::round::up_signed;

/// C_{δ,σ} = √(2 ln(1.25/δ))/σ (Dwork–Roth; Thudi et al. footnote 3), rounded up.
pub fn gaussian_dp_constant(delta: f64, sigma: f64) -> Result<f64> {
    unit_open("delta", delta)?;
    pos("noise_scale", sigma)?;
    // ln 1.25 − ln δ: 1.25/δ overflows for δ < 7e-309
    Ok(up_signed(
        (2.0 * (1.25f64.ln() - delta.ln())).sqrt() / sigma,
    ))
}

/// ε = C_{δ,σ}·Δ and whether it is a valid guarantee (ε ≤ 1, Dwork–Roth Thm A.1).
pub fn gaussian_mechanism_epsilon(delta: f64, sigma: f64, sens: f64) -> Result<(f64, bool)> {
    nonneg("sensitivity", sens)?;
    let e = up_pos(mul0(gaussian_dp_constant(delta, sigma)?, sens), sens > 0.0);
    Ok((e, e <= 1.0))
}

/// ln(1 − q + q e^x) (amplification by sampling), stable for tiny q·x and huge x; to a few
/// ulp (the callers move it up by INFLATE).
///
/// Above x = 700 (e^x − 1 overflows from 709.8), y = x + ln q = ln(q e^x) is formed as a
/// double-double (ln q by `ln_dd`, of q·2^600 for tiny q) and the value is
/// ln(1 + e^y − q) ≤ ln(1 + e^y) (q e^{−x} ≤ e^{−700} relative: dropping −q is the safe side
/// and below the rounding): log1p(e^{y_hi}(1 + y_lo)) while y < 36, y + e^{−y} beyond. The
/// former x + ln(q + (1 − q)e^{−x}) cancelled x against ln(·) ≈ −x (absolute error ulp(700),
/// 6.7e-12 relative below the exact 0.0019838 at x = 700.41, q = 1.3e-307) and summed a
/// subnormal e^{−x} (2e-323 for the exact 9.0e-16 at x = 709.8, q = 5e-324).
#[inline]
pub(super) fn amplify(x: f64, q: f64) -> f64 {
    if q == 0.0 {
        0.0
    } else if x <= 700.0 {
        (q * x.exp_m1()).ln_1p()
    } else if q == 1.0 || x == f64::INFINITY {
        x
    } else {
        use crate::dd::{ln_dd, Dd};
        // (ln_dd rescales by 2^-e in one step, which overflows for subnormal q: q·2^600 first)
        const TWO_600: f64 = 4.149515568880993e180; // 2^600
        let lq = if q < 1e-290 {
            ln_dd(Dd::from_f64(q * TWO_600)) - ln_dd(Dd::from_f64(TWO_600))
        } else {
            ln_dd(Dd::from_f64(q))
        };
        let y = Dd::from_f64(x) + lq;
        if y.hi < 36.0 {
            (y.hi.exp() * (1.0 + y.lo)).ln_1p()
        } else {
            y.hi + (y.lo + (-y.hi).exp())
        }
    }
}

/// (ε', δ') = (ln(1 + q(e^ε − 1)), qδ) for Poisson sampling with rate q.
pub fn amplify_by_sampling(eps: f64, delta: f64, q: f64) -> Result<(f64, f64)> {
    nonneg("eps", eps)?;
    unit_closed("delta", delta)?;
    unit_closed("sample_rate", q)?;
    Ok((
        up_pos(amplify(eps, q), eps > 0.0 && q > 0.0),
        up_pos(q * delta, q > 0.0 && delta > 0.0),
    ))
}

/// Gaussian mechanism RDP α Δ²/(2σ²) (Mironov; 001 Prop. 3 proof).
pub fn gaussian_mech_rdp(alpha: f64, sens: f64, sigma: f64) -> Result<f64> {
    rdp_order(alpha)?;
    nonneg("sensitivity", sens)?;
    pos("noise_scale", sigma)?;
    // Δ²/(2σ²) was 0/0 = NaN for Δ = 0 and tiny σ
    let v = prod_div(&[0.5, alpha, sens, sens], &[sigma, sigma]);
    Ok(up_pos(v, sens > 0.0))
}
