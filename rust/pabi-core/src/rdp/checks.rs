//! The argument checks of the RDP bounds: one checker per kind of parameter, one wording each,
//! every error a `PabiError::Domain` naming the parameter at fault (its range and value).
//!
//! | checker | accepts | wording |
//! | --- | --- | --- |
//! | [`pos`] | (0, ∞) | `> 0 and finite` |
//! | [`nonneg`] | [0, ∞) | `>= 0 and finite` |
//! | [`unit_open`] | (0, 1) | `in (0, 1)` |
//! | [`unit_closed`] | [0, 1] | `in [0, 1]` (`sample_rate` of the sampled Gaussian: [`check_q`]) |
//! | [`gt1`] | (1, ∞) | `> 1 and finite` (`order`: [`rdp_order`]; `holder_exponent`: [`check_p`]) |
//! | [`check_alpha`] | (1, max] | the order named `order`: `> 1 and finite` for max = f64::MAX, else `> 1 and <= max (not NaN)` |
//! | [`count`] | integers ≥ 1 | `an integer >= 1` |
//! | [`check_t_ell`], [`check_t_star`] | T ≥ ℓ ≥ 1, 1 ≤ t* ≤ ℓ | the cycle's indices |
//! | [`index_in`] | integers in 1..=upper | the caller's wording of the range |
//! | [`noisy_step`] | λ > 0, C ≥ 0, σ > 0 | the clipped noisy gradient step (as [`pos`], [`nonneg`]) |
//! | [`shift_args`] | α > 1, σ > 0, a drift ≥ 0, s̄ ≥ 0 | the shifted-divergence bounds |
//! | [`check_sensitivities`] | non-empty, each in [0, ∞) | first bad index reported |

use crate::error::{PabiError, Result};

/// v > 0 and finite.
pub(super) fn pos(name: &'static str, v: f64) -> Result<()> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain(name, "> 0 and finite", v))
    }
}

/// v ≥ 0 and finite.
pub(super) fn nonneg(name: &'static str, v: f64) -> Result<()> {
    if v >= 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain(name, ">= 0 and finite", v))
    }
}

/// v ∈ (0, 1).
pub(super) fn unit_open(name: &'static str, v: f64) -> Result<()> {
    if v > 0.0 && v < 1.0 {
        Ok(())
    } else {
        Err(PabiError::domain(name, "in (0, 1)", v))
    }
}

/// v ∈ [0, 1].
pub(super) fn unit_closed(name: &'static str, v: f64) -> Result<()> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(PabiError::domain(name, "in [0, 1]", v))
    }
}

/// v > 1 and finite.
pub(super) fn gt1(name: &'static str, v: f64) -> Result<()> {
    if v > 1.0 && v.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain(name, "> 1 and finite", v))
    }
}

/// An RDP order α ∈ (1, max], named `order` (the public name; max = f64::MAX: the wording of
/// [`gt1`]).
pub(super) fn check_alpha(alpha: f64, max: f64) -> Result<()> {
    if max == f64::MAX {
        gt1("order", alpha)
    } else if alpha > 1.0 && alpha <= max {
        Ok(())
    } else {
        Err(PabiError::domain(
            "order",
            format!("> 1 and <= {max:e} (not NaN)"),
            alpha,
        ))
    }
}

/// The sampling probability q ∈ [0, 1] (`sample_rate`).
pub(super) fn check_q(q: f64) -> Result<()> {
    unit_closed("sample_rate", q)
}

/// The Hölder exponent: p > 1 and finite (p = +inf would make t_i = p(β_i − 1) infinite and
/// the printed map's fixed point (p − 1)/p undefined).
pub(super) fn check_p(p: f64) -> Result<()> {
    gt1("holder_exponent", p)
}

/// A count (steps, batch size, cycle length, sample size): an integer ≥ 1.
pub(super) fn count(name: &'static str, v: u64) -> Result<()> {
    if v >= 1 {
        Ok(())
    } else {
        Err(PabiError::domain(name, "an integer >= 1", v as f64))
    }
}

/// T ≥ ℓ ≥ 1, each error naming the parameter at fault.
pub(super) fn check_t_ell(t: u64, ell: u64) -> Result<()> {
    count("batches_per_epoch", ell)?;
    if t < ell {
        return Err(PabiError::domain(
            "steps",
            format!("an integer >= batches_per_epoch (batches_per_epoch = {ell})"),
            t as f64,
        ));
    }
    Ok(())
}

/// A 1-based index in 1..=upper; the error names `name` with the range as `allowed` words it.
pub(super) fn index_in(
    name: &'static str,
    v: u64,
    upper: u64,
    allowed: impl FnOnce() -> String,
) -> Result<()> {
    if v == 0 || v > upper {
        return Err(PabiError::domain(name, allowed(), v as f64));
    }
    Ok(())
}

/// The first index t* of the record in a cycle of length ℓ: 1 ≤ t* ≤ ℓ.
pub(super) fn check_t_star(ts: u64, ell: u64) -> Result<()> {
    index_in("index", ts, ell, || format!("an integer in 1..={ell}"))
}

/// The clipped noisy gradient step of the last-iterate bounds: step size λ > 0, clipping
/// norm C ≥ 0, noise σ > 0 (in that order).
pub(super) fn noisy_step(lam: f64, clip: f64, sigma: f64) -> Result<()> {
    pos("lr", lam)?;
    nonneg("max_grad_norm", clip)?;
    pos("noise_scale", sigma)
}

/// The shifted-divergence bounds (Kong–Ribero Prop. 2.2): order α > 1, noise σ > 0, the
/// drift (`drift` = its name: ζ or τ) ≥ 0 and, where given, the shift s̄ ≥ 0 (in that order).
pub(super) fn shift_args(
    alpha: f64,
    sigma: f64,
    drift: (&'static str, f64),
    sbar: Option<f64>,
) -> Result<()> {
    rdp_order(alpha)?;
    pos("noise_scale", sigma)?;
    nonneg(drift.0, drift.1)?;
    sbar.map_or(Ok(()), |s| nonneg("map_difference", s))
}

/// Sensitivity samples: non-empty, finite, non-negative (first bad index reported).
pub(super) fn check_sensitivities(sens: &[f64]) -> Result<()> {
    if sens.is_empty() {
        return Err(PabiError::Shape {
            message: "sensitivities must be non-empty".into(),
        });
    }
    crate::batch::check(sens, "sensitivities", ">= 0 and finite", |x| {
        x >= 0.0 && x.is_finite()
    })
}

/// An RDP order α > 1, finite, named by its public name `order` (the glossary's).
pub(super) fn rdp_order(alpha: f64) -> Result<()> {
    gt1("order", alpha)
}
