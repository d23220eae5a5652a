//! Last-iterate RDP of cyclically sampled DP-SGD: Kong & Ribero, *Privacy of the last iterate
//! in cyclically-sampled DP-SGD on nonconvex composite losses* — θ_L and Φ_L (eq. (6)), the
//! Lipschitz constant of the clipped step (Prop. 3.4, docs/errata.md#r-k1), the shifted
//! bounds (Prop. 2.2), Thms 4.3–4.5 (correct indexing: docs/errata.md#r-k3,
//! docs/errata.md#r-k4), the App. B residuals, Lemma C.1 and Cors. C.2–C.3
//! (docs/errata.md#r-k11). Derivations: docs/derivations/rdp.md.

use super::checks::{
    check_t_ell, check_t_star, count, gt1, index_in, noisy_step, nonneg, pos, rdp_order, shift_args,
};
use super::last_iterate_scaled::{lip_scaled_up, step_limit_down, theta_scaled_up, Sc};
use super::scalar::{prod_div, up_pos};
use crate::error::{PabiError, Result};
use crate::num::round::rel_err;
use crate::num::round::up_signed;
use crate::num::{INFLATE, TINY};

/// Below this |s·u| θ_L(s) is 1/s to 1e-200 relative (see [`theta_u`]).
const TINY_SU: f64 = 1e-200;

/// θ_L(s) from u = ln L² (s ≥ 0 real; θ(0) = 0): 1/s at u = 0,
/// expm1(−u)/expm1(−su) for u > 0, e^{(s−1)u} expm1(u)/expm1(su) for u < 0.
fn theta_u(u: f64, s: f64) -> f64 {
    if s == 0.0 {
        0.0
    } else if u == 0.0 || (s * u).abs() < TINY_SU {
        // θ = (1/s)(1 + (s − 1)u/2 + O(u²)): within 1e-200 relative of 1/s here (a subnormal u
        // made the quotient of two subnormal expm1 values wrong by up to 25%, either way)
        1.0 / s
    } else if u == f64::NEG_INFINITY {
        if s <= 1.0 {
            1.0
        } else {
            0.0
        }
    } else if u > 0.0 {
        (-u).exp_m1() / (-s * u).exp_m1()
    } else if s < TWO53 {
        // e^{(s−1)u} with (s − 1)u = P + p exactly (s − 1 exact below 2^53; TwoProd): e^P·(1 + p)
        // (|p| ≤ 2^-53|P| ≤ 1e-13, so e^p = 1 + p to 1e-26); the rounded product lost
        // |(s − 1)u|·u relative (6.9e-13 of θ at (s − 1)u = −705)
        let (pp, pl) = crate::num::dd::two_prod(s - 1.0, u);
        pp.exp() * (1.0 + pl) * (u.exp_m1() / (s * u).exp_m1())
    } else {
        ((s - 1.0) * u).exp() * u.exp_m1() / (s * u).exp_m1()
    }
}

/// 2^53: below it s − 1 is exact for a double s ≥ 1.
const TWO53: f64 = 9_007_199_254_740_992.0;

/// ln θ_L(s) from u = ln L² (s ≥ 1; no underflow): ln(1/s) at u = 0,
/// ln(expm1(−u)/expm1(−su)) for u > 0, (s − 1)u + ln(expm1(u)/expm1(su)) for u < 0.
pub(super) fn ln_theta_u(u: f64, s: f64) -> f64 {
    if u == 0.0 || (s * u).abs() < TINY_SU {
        -s.ln()
    } else if u == f64::NEG_INFINITY {
        if s <= 1.0 {
            0.0
        } else {
            f64::NEG_INFINITY
        }
    } else if u > 0.0 {
        ((-u).exp_m1() / (-s * u).exp_m1()).ln()
    } else {
        (s - 1.0) * u + (u.exp_m1() / (s * u).exp_m1()).ln()
    }
}

/// u = ln L² from κ = L² − 1 ≥ −1: log1p(κ) rounded up by 2 ulp (log1p is within 1 ulp: ≥ the
/// exact ln(1 + κ); θ_L is increasing in L, and [`theta_l_u`] no longer widens by the
/// |(s − 1)u|ε that covered a to-nearest u); −∞ at κ = −1.
pub fn lip_u_from_kappa(kappa: f64) -> Result<f64> {
    if !(kappa >= -1.0 && kappa.is_finite()) {
        return Err(PabiError::domain("kappa", ">= -1 and finite", kappa));
    }
    Ok(if kappa == -1.0 {
        f64::NEG_INFINITY
    } else if kappa == 0.0 {
        0.0 // exact
    } else {
        kappa.ln_1p().next_up().next_up()
    })
}

/// u = ln L² from L ≥ 0, rounded up by 2 ulp (next_up twice; a larger L is always sound: an L-Lipschitz step
/// is L'-Lipschitz for L' ≥ L): 2·log1p(L − 1) for L ∈ [1/2, 2] (L − 1 exact, full relative
/// accuracy near 1), 2·ln L elsewhere (full accuracy for small L, which κ = L² − 1 ≈ −1 loses:
/// its ulp is 1e-16/L² of L²); −∞ at L = 0.
pub fn lip_u_from_l(l: f64) -> Result<f64> {
    nonneg("step_lipschitz", l)?;
    if l == 0.0 {
        return Ok(f64::NEG_INFINITY);
    }
    let u = if (0.5..=2.0).contains(&l) {
        2.0 * (l - 1.0).ln_1p()
    } else {
        2.0 * l.ln()
    };
    // ln and log1p are within 1 ulp, the doubling exact: two steps up (at a power of two the
    // lower binade's ulp is half) are ≥ the exact ln L². rel_up(u, 2ε) moved 2–4 ulp, which
    // θ_L(s) carries (s − 1)-fold: 2.7e-13 of θ at s = 1201, L = 0.75. L = 1: exactly 0.
    Ok(if u == 0.0 { 0.0 } else { u.next_up().next_up() })
}

/// θ_L(s) = L^{2(s−1)}/Σ_{j<s} L^{2j} with L² = 1 + κ (κ ≥ −1), rounded up.
pub fn theta_l_kappa(kappa: f64, s: f64) -> Result<f64> {
    theta_l_u(lip_u_from_kappa(kappa)?, s)
}

/// θ_L(s) from u = ln L² (−∞ for L = 0), rounded up.
pub fn theta_l_u(u: f64, s: f64) -> Result<f64> {
    if u.is_nan() || u == f64::INFINITY {
        return Err(PabiError::domain(
            "step_lipschitz",
            "finite (ln L^2 < inf)",
            u,
        ));
    }
    if !(s == 0.0 || s >= 1.0) || !s.is_finite() {
        return Err(PabiError::domain("steps", "0 or >= 1 (finite)", s));
    }
    let v = theta_u(u, s);
    if s == 0.0 || v == 1.0 || u == f64::NEG_INFINITY {
        return Ok(v); // exact cases: s = 0, s = 1, L = 0 (an underflowed θ > 0 is rounded up below)
    }
    // L < 1: e^{(s−1)u} from the exact product below s = 2^53 ([`theta_u`]: ≤ 8 roundings);
    // beyond, conditioned like e^{(s−1)u} (relative error ~ |(s−1)u|·2^-53): widen by it
    let widen = if u < 0.0 && s < TWO53 {
        INFLATE + rel_err(8.0)
    } else if u < 0.0 {
        INFLATE + rel_err(2.0 * ((s - 1.0) * u).abs())
    } else {
        INFLATE
    };
    Ok((v * (1.0 + widen) + TINY).min(1.0))
}

/// Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ) (bracket of Kong–Ribero (7), (21), (27)).
/// `u` = ln L² ([`lip_u_from_l`], [`lip_u_from_kappa`]).
pub fn cyclic_theta_sum(u: f64, t: u64, ell: u64) -> Result<f64> {
    count("batches_per_epoch", ell)?;
    let e = (t / ell) as f64;
    let r = (t % ell) as f64;
    Ok(up_signed(e * theta_l_u(u, ell as f64)? + theta_l_u(u, r)?))
}

/// Lipschitz model of the clipped gradient step x − λ·mean clip(∇f_i(x)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LipschitzModel {
    /// 1 + λ max(m, M): proven with clipping (clipping is nonexpansive). Default.
    Triangle,
    /// eq. (12): √(1 + 2λm(1 + m/(M + m))), valid for the UNCLIPPED step; as published for the
    /// clipped step it is unproven and false in dimension ≥ 2 (docs/errata.md#r-k1).
    AsPublished,
}

/// κ = L_λ² − 1 for the chosen model (m = weak-convexity, M = smoothness constants).
///
/// Domain (Kong–Ribero Prop. 3.4 and every theorem using L_λ: Thms 4.4, 4.5, Cor. C.2, C.3;
/// the Lipschitz bound of the gradient step): λ ∈ (0, 1/(2(m + M))], m, M ≥ 0 finite; any
/// λ > 0 when m = M = 0. The limit is the double fl(½/fl(m + M)) (= fl(1/(2(m + M))) without the overflow of 2(m + M)), the same
/// number a caller computes for λ̄ = 1/(2(m + M)), so that value is accepted. Beyond it the
/// Lipschitz constant is not established and the result would not be one: a domain error
/// naming `lam` and the limit.
pub fn l_lambda_kappa(lam: f64, m: f64, big_m: f64, model: LipschitzModel) -> Result<f64> {
    pos("lr", lam)?;
    nonneg("weak_convexity", m)?;
    nonneg("smoothness", big_m)?;
    let s = m + big_m;
    if s > 0.0 {
        let lam_max = 0.5 / s;
        // also every λ ≤ 1/(2(m + M)) exactly (the λ̄ of `cyclic_calibration`), which the rounded
        // limit can be one ulp below
        if lam > lam_max && !(s.is_finite() && lam <= step_limit_down(m, big_m)) {
            return Err(PabiError::domain(
                "lr",
                format!(
                    "<= 1/(2(weak_convexity + smoothness)) = {lam_max} (weak_convexity = {m}, \
                     smoothness = {big_m}), the step-size condition of the theorems"
                ),
                lam,
            ));
        }
    }
    Ok(match model {
        LipschitzModel::Triangle => {
            let x = lam * m.max(big_m);
            up_signed(x * (2.0 + x))
        }
        LipschitzModel::AsPublished => {
            if m == 0.0 {
                0.0
            } else {
                up_signed(2.0 * lam * m * (1.0 + m / (big_m + m)))
            }
        }
    })
}

/// κ = L_λ² − 1 for the bounds that assume the step size λ ≤ 1/(2(m + M)) (Kong–Ribero
/// Thms 4.4, 4.5 and Cor. C.3): [`l_lambda_kappa`], which checks that condition itself.
pub fn smooth_step_kappa(lam: f64, m: f64, big_m: f64, model: LipschitzModel) -> Result<f64> {
    l_lambda_kappa(lam, m, big_m, model)
}

/// Thm 4.3 (no curvature assumption): 8αT(λC/σ)².
pub fn last_iterate_rdp_general(
    alpha: f64,
    lam: f64,
    clip: f64,
    sigma: f64,
    t: u64,
) -> Result<f64> {
    rdp_order(alpha)?;
    noisy_step(lam, clip, sigma)?;
    // T = 0 steps: 0 (not 0·inf when λC/σ overflows); an underflowed positive product is not 0
    let v = prod_div(
        &[8.0, alpha, t as f64, lam, lam, clip, clip],
        &[sigma, sigma],
    );
    Ok(up_pos(v, t > 0 && clip > 0.0))
}

/// Kong–Ribero Prop. 2.2(b) with the exact residual sum of its proof (an extension;
/// docs/derivations/rdp.md):
/// τ = 0, drift ζ ≥ 0 and shift s̄ ≥ 0 at the first step of each of the ⌈T/ℓ⌉ cycles; the
/// residuals a_t = ζ + s_t keep the shift at 0 for any L, so
/// D_α(Y_T‖Y'_T) − D_α(Y_0‖Y'_0) ≤ α/(2σ²)[Tζ² + ⌈T/ℓ⌉(2ζs̄ + s̄²)].
/// For ζ = s̄ this is αζ²(T + 3⌈T/ℓ⌉)/(2σ²) ≤ 2αT(ζ/σ)², the printed eq. (8).
pub fn shifted_drift_bound(
    alpha: f64,
    sigma: f64,
    zeta: f64,
    sbar: f64,
    t: u64,
    ell: u64,
) -> Result<f64> {
    shift_args(alpha, sigma, ("drift", zeta), Some(sbar))?;
    count("steps", t)?;
    index_in("batches_per_epoch", ell, t, || {
        format!("an integer in 1..=steps (steps = {t})")
    })?;
    let occ = t.div_ceil(ell) as f64;
    // in units of σ: α/(2σ²) overflowed for tiny σ and met a zero body (inf·0 = NaN)
    // 2ζ + s̄ overflowed for ζ near the double maximum (σ = ζ = 1.8e308: inf, exact 9.5):
    // ½(2ζ + s̄) = 2(ζ/2 + s̄/4) there, the scalings exact or losing < 2^-1074 of a sum ≥ 4e307
    let w = 2.0 * zeta + sbar;
    let (c, w) = if w.is_finite() {
        (0.5, w)
    } else {
        (2.0, 0.5 * zeta + 0.25 * sbar)
    };
    let v = prod_div(&[0.5, alpha, t as f64, zeta, zeta], &[sigma, sigma])
        + prod_div(&[c, alpha, occ, sbar, w], &[sigma, sigma]);
    Ok(up_pos(up_signed(v), zeta > 0.0 || sbar > 0.0))
}

/// Kong–Ribero Prop. 2.2(b) as printed, eq. (8): 2αT(ζ/σ)² (τ = 0, ζ = s̄, any L).
pub fn shifted_drift_bound_published(alpha: f64, sigma: f64, zeta: f64, t: u64) -> Result<f64> {
    shift_args(alpha, sigma, ("drift", zeta), None)?;
    count("steps", t)?;
    let v = prod_div(&[2.0, alpha, t as f64, zeta, zeta], &[sigma, sigma]);
    Ok(up_pos(v, zeta > 0.0))
}

/// Validation shared by the cyclic last-iterate bounds: α > 1, λ > 0, C ≥ 0, σ > 0, b ≥ 1 and
/// T ≥ ℓ ≥ 1.
fn check_cyclic(
    alpha: f64,
    lam: f64,
    clip: f64,
    sigma: f64,
    t: u64,
    b: u64,
    ell: u64,
) -> Result<()> {
    rdp_order(alpha)?;
    noisy_step(lam, clip, sigma)?;
    count("batch_size", b)?;
    check_t_ell(t, ell)
}

/// Thm 4.3 with the exact residual sum (an extension; docs/derivations/rdp.md):
/// ζ = 2λC (Prop. 3.4(a)),
/// s̄ = 2λC/b (Lemma 4.2), correctly indexed T_eff = T − t* + 1 steps (docs/errata.md#r-k3):
/// (2αλ²C²/σ²)[T_eff + ⌈T_eff/ℓ⌉(2/b + 1/b²)]; without t* the maximum (t* = 1, T_eff = T).
/// Never above the printed 8αT(λC/σ)².
#[allow(clippy::too_many_arguments)]
pub fn last_iterate_rdp_general_exact(
    alpha: f64,
    lam: f64,
    clip: f64,
    sigma: f64,
    t: u64,
    b: u64,
    ell: u64,
    t_star: Option<u64>,
) -> Result<f64> {
    check_cyclic(alpha, lam, clip, sigma, t, b, ell)?;
    let teff = match t_star {
        Some(ts) => {
            check_t_star(ts, ell)?;
            t - ts + 1
        }
        None => t,
    };
    let bf = b as f64;
    let occ = teff.div_ceil(ell) as f64;
    let bracket = teff as f64 + occ * (2.0 / bf + 1.0 / (bf * bf));
    let v = prod_div(
        &[2.0, alpha, lam, lam, clip, clip, up_signed(bracket)],
        &[sigma, sigma],
    );
    Ok(up_pos(up_signed(v), clip > 0.0))
}

/// κ = L² − 1 from L ≥ 0 as (L − 1)(L + 1), to nearest (L − 1 is exact near 1, so κ keeps its
/// relative accuracy there); −1 at L = 0. Only for [`theta_min_steps`] (L > 1, where this is a
/// few ulp and its `up` covers it; a threshold on steps is *decreasing* in L, so L must not be
/// rounded up for it). The θ_L family takes u = ln L² instead ([`lip_u_from_l`]): κ ≈ −1 loses
/// the relative accuracy of L² for small L.
pub fn kappa_from_l(l: f64) -> Result<f64> {
    nonneg("step_lipschitz", l)?;
    let k = (l - 1.0) * (l + 1.0);
    if !k.is_finite() {
        return Err(PabiError::domain(
            "step_lipschitz",
            "<= 1.34e154 (L^2 - 1 must be a finite double)",
            l,
        ));
    }
    Ok(k)
}

/// Thm 4.4 (bounded domain of diameter d_h): α/(2σ²)(L d_h + 2λC/b)², L = √(1 + κ).
pub fn last_iterate_rdp_bounded(
    alpha: f64,
    kappa: f64,
    d_h: f64,
    lam: f64,
    clip: f64,
    b: u64,
    sigma: f64,
) -> Result<f64> {
    rdp_order(alpha)?;
    nonneg("kappa", kappa)?;
    nonneg("diameter", d_h)?;
    noisy_step(lam, clip, sigma)?;
    count("batch_size", b)?;
    let x = (1.0 + kappa).sqrt() * d_h + 2.0 * lam * clip / b as f64;
    // (x/σ)², not x²/σ²: σ² underflows (α/(2σ²)·0 was inf·0 = NaN)
    Ok(up_pos(
        prod_div(&[0.5, alpha, x, x], &[sigma, sigma]),
        x > 0.0,
    ))
}

/// Thm 4.5 (weakly convex, smooth; cyclic batches). Corrected (default, docs/errata.md#r-k3,
/// docs/errata.md#r-k4):
/// with t* known, 2α(λC/(bσ))²Φ_L(T − t* + 1, ℓ); otherwise the maximum over t* ∈ [1, ℓ],
/// 2α(λC/(bσ))²·(Eθ_L(ℓ) + 1) if T mod ℓ ≥ 1, else ((E − 1)θ_L(ℓ) + 1).
/// `as_published`: eq. (21), 4α(λC/(bσ))²Φ_L(T, ℓ) — smaller than the correctly indexed
/// bound in some settings (not certified).
#[allow(clippy::too_many_arguments)]
pub fn last_iterate_rdp_cyclic(
    alpha: f64,
    kappa: f64,
    lam: f64,
    clip: f64,
    b: u64,
    sigma: f64,
    t: u64,
    ell: u64,
    t_star: Option<u64>,
    as_published: bool,
) -> Result<f64> {
    check_cyclic(alpha, lam, clip, sigma, t, b, ell)?;
    let u = lip_u_from_kappa(kappa)?;
    let bf = b as f64;
    // α(λC/(bσ))²·factor without inf·0 or spurious under/overflow
    let unit = |factor: f64| {
        prod_div(
            &[alpha, lam, lam, clip, clip, factor],
            &[bf, bf, sigma, sigma],
        )
    };
    if as_published {
        let phi = cyclic_theta_sum(u, t, ell)?;
        return Ok(up_pos(unit(4.0 * phi), clip > 0.0 && phi > 0.0));
    }
    let phi = match t_star {
        Some(ts) => {
            check_t_star(ts, ell)?;
            cyclic_theta_sum(u, t - ts + 1, ell)?
        }
        None => {
            let e = (t / ell) as f64;
            let th = theta_l_u(u, ell as f64)?;
            if t % ell >= 1 {
                up_signed(e * th + 1.0)
            } else {
                up_signed((e - 1.0) * th + 1.0)
            }
        }
    };
    Ok(up_pos(unit(2.0 * phi), clip > 0.0 && phi > 0.0))
}

/// Prop. 2.2(a): α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}]; `u` = ln L².
#[allow(clippy::too_many_arguments)]
pub fn shifted_cycle_bound(
    alpha: f64,
    sigma: f64,
    u: f64,
    tau: f64,
    sbar: f64,
    t: u64,
    ell: u64,
) -> Result<f64> {
    shift_args(alpha, sigma, ("initial_distance", tau), Some(sbar))?;
    check_t_ell(t, ell)?;
    let th_d = theta_l_u(u, ell as f64)?;
    let rem_d = theta_l_u(u, (t % ell) as f64)?;
    // in scaled form (m·2^e): θ_L(ℓ) ~ 1e-1047 underflowed to TINY and (Lτ + s̄)² ~ 1e600 then
    // inflated it to 1e304 (exact 2e-274); Lτ overflowed (τ = 1.8e308) where the bound is 3e299;
    // L = 5e-324 underflowed and gave an exact 0. Every factor is an upper bound or exact, the
    // ≤ 12 roundings to nearest of the products and sums are covered by up_signed's INFLATE.
    let th = theta_scaled_up(u, ell as f64, th_d);
    let rem = theta_scaled_up(u, (t % ell) as f64, rem_d);
    let l = lip_scaled_up(u); // L rounded up
    let e = (t / ell) as f64; // ≥ 1
    let a = l.mul(Sc::of(tau)).add(Sc::of(sbar));
    let br = th.mul(Sc::of(e - 1.0)).add(rem); // (E − 1)θ_L(ℓ) + θ_L(T − Eℓ)
    let unit = Sc::of(0.5 * alpha).div(Sc::of(sigma)).div(Sc::of(sigma));
    let sb = Sc::of(sbar);
    let v = a
        .mul(a)
        .mul(th)
        .mul(unit)
        .add(sb.mul(sb).mul(br).mul(unit))
        .to_f64();
    // an underflowed product of positive factors (θ_L(ℓ) ~ 1e-1047 for L = 0.3, ℓ = 1000) is
    // not an exact 0: the smallest positive bound instead
    let positive = (!a.is_zero() && !th.is_zero()) || (sbar > 0.0 && !br.is_zero());
    Ok(up_pos(v, positive))
}

/// Optimal residuals of the App. B QP: a_t = (Lτ + s)θ_L(T)L^{1−t}, t = 1..T; `u` = ln L².
///
/// Domain: 1 ≤ T ≤ [`super::MAX_LEN`] (checked before the length-T vector is allocated),
/// τ, s ≥ 0 finite, u < +inf. L = 0 (u = −∞) is the limit of the formula,
/// θ_L(T)L^{1−t} = L^{2T−1−t}/Σ_{j<T} L^{2j}: a_1 = s for T = 1, every a_t = 0 for T ≥ 2.
pub fn optimal_residuals(u: f64, t: u64, tau: f64, s: f64) -> Result<Vec<f64>> {
    nonneg("initial_distance", tau)?;
    nonneg("map_difference", s)?;
    if t == 0 || t > super::MAX_LEN {
        return Err(PabiError::domain(
            "steps",
            format!("an integer in 1..={} (2^26)", super::MAX_LEN),
            t as f64,
        ));
    }
    theta_l_u(u, t as f64)?; // (domain checks of u)
    if u == f64::NEG_INFINITY {
        let mut out = vec![0.0; t as usize];
        if t == 1 {
            out[0] = s;
        }
        return Ok(out);
    }
    // in log space: θ_L(T) underflows for L < 1 over long cycles while L^{1−t} overflows
    // (a_600 at L = 0.5 came out 4e-143 instead of 4e-181); ln(Lτ + s) as a log-sum (Lτ
    // overflows for large L while a_t, t ≥ 2, is finite)
    let ln_lts = crate::num::log_add_exp(0.5 * u + tau.ln(), s.ln());
    let la = ln_lts + ln_theta_u(u, t as f64);
    Ok((1..=t)
        .map(|i| (la + (1.0 - i as f64) * u / 2.0).exp())
        .collect())
}

/// Cor. C.2 calibration: (λ̄, ℓ̄, σ̄) = (1/(2(M + ρ)), ln 2/log1p(ρλ̄), noise level). The
/// corrected σ̄ = (2Cλ̄/b)·√(α/ε·(1 + 4ρE/(M + ρ))) certifies ε; the printed
/// (Cλ̄/(2b))·√((1 + 4ρE/(M + ρ))/(αε)) only certifies 16α²ε (docs/errata.md#r-k11).
#[allow(clippy::too_many_arguments)]
pub fn cyclic_calibration(
    alpha: f64,
    eps: f64,
    rho: f64,
    big_m: f64,
    clip: f64,
    b: u64,
    epochs: u64,
    as_published: bool,
) -> Result<(f64, f64, f64)> {
    rdp_order(alpha)?;
    pos("rdp", eps)?;
    pos("weak_convexity", rho)?;
    nonneg("smoothness", big_m)?;
    pos("max_grad_norm", clip)?;
    count("batch_size", b)?;
    // λ̄ = 1/(2(M + ρ)) must be a positive normal double: M + ρ ≤ 2^1021 (ρ = 1e308 gave
    // 2(M + ρ) = inf, λ̄ = 0, ℓ̄ = inf and σ̄ = NaN)
    let sum = big_m + rho;
    if !(sum <= MAX_M_PLUS_RHO) {
        let (param, v) = if rho >= big_m {
            ("weak_convexity", rho)
        } else {
            ("smoothness", big_m)
        };
        return Err(PabiError::domain(
            param,
            "such that smoothness + weak_convexity <= 2^1021 (lr = 1/(2(smoothness + \
             weak_convexity)) a normal double)",
            v,
        ));
    }
    // λ̄: the greatest double ≤ 1/(2(M + ρ)) exactly (0.5/fl(M + ρ) was one ulp above it in about
    // half of the cases: an inadmissible step size), which `l_lambda_kappa` accepts
    let lam = step_limit_down(big_m, rho);
    let rl = rho * lam; // in (0, 1/2]
    let ell = std::f64::consts::LN_2 / rl.ln_1p();
    if !(rl >= f64::MIN_POSITIVE && ell.is_finite()) {
        return Err(PabiError::domain(
            "weak_convexity",
            "large enough relative to smoothness that weak_convexity/(2(smoothness + \
             weak_convexity)) is a normal double (batches_per_epoch finite)",
            rho,
        ));
    }
    // f = 1 + 4E·ρ/(M + ρ) ≤ 1 + 4E (the product 4ρE overflowed first)
    let f = 1.0 + 4.0 * epochs as f64 * (rho / sum);
    // square roots taken separately: α/ε and αε over- or underflow before σ̄ does
    // as one scaled product (C·λ̄ was subnormal for C = 1e-300, λ̄ = 1e-20 and lost 4.7e-2 of
    // σ̄): 2Cλ̄ = C/fl(M + ρ) with fl(M + ρ) to nearest (½ ulp, inside up_signed's INFLATE with
    // the ≤ 8 other roundings; λ̄ itself is rounded down, which would make σ̄ too small)
    let bf = b as f64;
    let s = if as_published {
        prod_div(&[clip, f.sqrt()], &[4.0, sum, bf, alpha.sqrt(), eps.sqrt()])
    } else {
        up_signed(prod_div(
            &[clip, alpha.sqrt(), f.sqrt()],
            &[bf, sum, eps.sqrt()],
        ))
    };
    if !s.is_finite() {
        return Err(PabiError::domain(
            "rdp",
            "large enough (for this max_grad_norm, lr, batch_size and order) that the noise \
             scale is a finite double",
            eps,
        ));
    }
    if !(s > 0.0) {
        return Err(PabiError::domain(
            "max_grad_norm",
            "large enough that the noise scale does not underflow to 0",
            clip,
        ));
    }
    Ok((lam, up_signed(ell), s))
}

/// Largest M + ρ accepted by [`cyclic_calibration`]: λ̄ = 1/(2(M + ρ)) stays a normal double.
const MAX_M_PLUS_RHO: f64 = 2.247_116_418_577_895e307; // 2^1021

/// Lemma C.1 (Kong–Ribero): for L > 1 and ξ > 1, θ_L(s) ≤ ξ(1 − L^{−2}) once
/// s ≥ s_min = −log1p(−1/ξ)/log1p(κ) (stable form; use ⌈s_min⌉ for integer steps).
pub fn theta_min_steps(kappa: f64, xi: f64) -> Result<f64> {
    if !(kappa > 0.0 && kappa.is_finite()) {
        return Err(PabiError::domain("kappa", "> 0 (L > 1) and finite", kappa));
    }
    gt1("slack", xi)?;
    // ln(ξ/(ξ − 1)) = log1p(1/(ξ − 1)) with ξ − 1 exact (ξ < 2^53): −log1p(−1/ξ) lost
    // 1e-16/(ξ − 1) absolute to the rounding of 1/ξ (below the exact threshold for ξ − 1 < 1e-4)
    Ok(up_signed((1.0 / (xi - 1.0)).ln_1p() / kappa.ln_1p()))
}

/// [`theta_min_steps`] from L itself (L > 1 finite; errors name `L`): ln L² = 2 log1p(L − 1)
/// up to L = 2 (L − 1 exact), 2 ln L beyond, to nearest (the threshold decreases in L, so L is
/// not rounded up; the final rounding up covers the few ulp). κ = L² − 1 overflowed for
/// L > 1.34e154 and the error then named `kappa`, which the caller never passed.
pub fn theta_min_steps_l(l: f64, xi: f64) -> Result<f64> {
    gt1("step_lipschitz", l)?;
    gt1("slack", xi)?;
    let u = if l <= 2.0 {
        2.0 * (l - 1.0).ln_1p()
    } else {
        2.0 * l.ln()
    };
    Ok(up_signed((1.0 / (xi - 1.0)).ln_1p() / u))
}

/// Cor. C.3 (Kong–Ribero): for λ ≤ min{1/√E, 1/(2(m + M))},
/// D_α ≤ 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)] (independent of E and λ; docs/errata.md#r-k1 applies to L_λ).
pub fn last_iterate_rdp_small_step(
    alpha: f64,
    kappa: f64,
    clip: f64,
    b: u64,
    sigma: f64,
    ell: u64,
) -> Result<f64> {
    rdp_order(alpha)?;
    nonneg("max_grad_norm", clip)?;
    pos("noise_scale", sigma)?;
    count("batch_size", b)?;
    count("batches_per_epoch", ell)?;
    let bf = b as f64;
    let f = up_signed(1.0 + theta_l_kappa(kappa, ell as f64)?);
    Ok(up_pos(
        prod_div(&[4.0, alpha, clip, clip, f], &[bf, bf, sigma, sigma]),
        clip > 0.0,
    ))
}

// ---------------------------------------------------------------------------------------------
// The bounds from the step model (λ, m, M): κ = L_λ² − 1 by [`smooth_step_kappa`] (which checks
// λ ≤ 1/(2(m + M)) and names `lam`), then the bound at that κ. The checks of κ's inputs come
// first, so an error names the first bad one among (λ, m, M) before the bound's own.

/// [`last_iterate_rdp_bounded`] with κ from the step model (λ, m, M, `model`).
#[allow(clippy::too_many_arguments)]
pub fn last_iterate_rdp_bounded_smooth(
    alpha: f64,
    lam: f64,
    m: f64,
    big_m: f64,
    d_h: f64,
    clip: f64,
    b: u64,
    sigma: f64,
    model: LipschitzModel,
) -> Result<f64> {
    let kappa = smooth_step_kappa(lam, m, big_m, model)?;
    last_iterate_rdp_bounded(alpha, kappa, d_h, lam, clip, b, sigma)
}

/// [`last_iterate_rdp_cyclic`] with κ from the step model (λ, m, M, `model`).
#[allow(clippy::too_many_arguments)]
pub fn last_iterate_rdp_cyclic_smooth(
    alpha: f64,
    lam: f64,
    m: f64,
    big_m: f64,
    clip: f64,
    b: u64,
    sigma: f64,
    t: u64,
    ell: u64,
    t_star: Option<u64>,
    as_published: bool,
    model: LipschitzModel,
) -> Result<f64> {
    let kappa = smooth_step_kappa(lam, m, big_m, model)?;
    last_iterate_rdp_cyclic(
        alpha,
        kappa,
        lam,
        clip,
        b,
        sigma,
        t,
        ell,
        t_star,
        as_published,
    )
}

/// [`last_iterate_rdp_small_step`] with κ from the step model (λ, m, M, `model`).
#[allow(clippy::too_many_arguments)]
pub fn last_iterate_rdp_small_step_smooth(
    alpha: f64,
    lam: f64,
    m: f64,
    big_m: f64,
    clip: f64,
    b: u64,
    sigma: f64,
    ell: u64,
    model: LipschitzModel,
) -> Result<f64> {
    let kappa = smooth_step_kappa(lam, m, big_m, model)?;
    last_iterate_rdp_small_step(alpha, kappa, clip, b, sigma, ell)
}
