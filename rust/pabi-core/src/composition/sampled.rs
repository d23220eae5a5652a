//! Sampled privacy profiles: values δ_i = δ(ε_i) at sample points, given either as δ or as
//! ln δ ([`ProfileValues`]), and the quantities computed from them as a whole: the dominating
//! GDP level ([`gdp_mu_dominating`], [`gdp_dominating_pair`], Dong–Roth–Su Prop. 2.12; the
//! solvers are in [`super::gdp`]) and the trade-off curve sup_i f_{ε_i,δ_i}
//! ([`tradeoff_from_profile`], Dong–Roth–Su Prop. 2.12 with eq. (5)).
//!
//! # Directions
//! Every consumer here needs an **upper** bound of each δ_i: the dominating μ is the largest of
//! the μ_i solving θ_{e^{ε}}(μ_i) = δ_i, increasing in δ_i; in the pair, δ_J enters as an atom
//! (the bound δ_J + (1 − δ_J)·θ is increasing in δ_J since θ ≤ 1) and through the shift
//! −ln(1 − δ_J) (increasing). So a δ given as a double is turned into ln δ rounded **up**
//! ([`ln_prob_up`]: ln 0 = −∞ exactly, ln 1 = 0 exactly). A given ln δ is used as is.
//! The trade-off curve is a lower bound on the type II error: each f_{ε,δ} is rounded down
//! (by [`tradeoff_eps_delta`]) and the supremum over a finite set of samples can only be lower
//! than over all ε.

use super::gdp;
use super::kov::tradeoff_eps_delta;
use crate::error::{PabiError, Result};
use crate::num::round::ln_prob_up;

/// The values of a sampled privacy profile: δ_i, or ln δ_i (−∞ for δ_i = 0).
#[derive(Clone, Copy, Debug)]
pub enum ProfileValues<'a> {
    /// δ_i ∈ [0, 1].
    Delta(&'a [f64]),
    /// ln δ_i ∈ [−∞, 0].
    LogDelta(&'a [f64]),
}

impl<'a> ProfileValues<'a> {
    /// The number of samples.
    pub fn len(&self) -> usize {
        self.values().len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn values(&self) -> &'a [f64] {
        match *self {
            ProfileValues::Delta(v) | ProfileValues::LogDelta(v) => v,
        }
    }

    /// The parameter name the user gave the values under.
    pub fn param(&self) -> &'static str {
        match self {
            ProfileValues::Delta(_) => "delta",
            ProfileValues::LogDelta(_) => "log_delta",
        }
    }

    /// ln δ_i rounded up (see the module doc); a value outside [0, 1] becomes one the GDP
    /// solvers reject (NaN or positive), and [`Self::locate`] then reports the value given.
    fn log_upper(&self) -> std::borrow::Cow<'a, [f64]> {
        match *self {
            ProfileValues::Delta(d) => d.iter().map(|&x| ln_prob_up(x)).collect(),
            ProfileValues::LogDelta(l) => l.into(),
        }
    }

    /// A domain error of the solvers on "delta" at index i, re-stated with the value the user
    /// gave (δ_i itself, not e^{ln δ_i}).
    fn locate(&self, e: PabiError) -> PabiError {
        match (e, self) {
            (
                PabiError::Domain {
                    param: "delta",
                    allowed,
                    index: Some(i),
                    ..
                },
                ProfileValues::Delta(d),
            ) if i < d.len() => PabiError::domain("delta", allowed, d[i]).at(i),
            (e, _) => e,
        }
    }
}

/// The profile's values must pair with the sample points one to one.
fn same_length(eps: &[f64], values: &ProfileValues<'_>) -> Result<()> {
    PabiError::same_lengths("eps", eps.len(), values.param(), values.len())?;
    Ok(())
}

/// The smallest μ whose GDP profile dominates the profile at the sample points (rounded up);
/// [`gdp::gdp_mu_dominating`] on ln δ rounded up.
pub fn gdp_mu_dominating(eps: &[f64], values: ProfileValues<'_>) -> Result<f64> {
    same_length(eps, &values)?;
    gdp::gdp_mu_dominating(eps, &values.log_upper()).map_err(|e| values.locate(e))
}

/// The GDP dominating pair (μ*, δ_J) over all ε ≥ 0 (rounded up);
/// [`gdp::gdp_dominating_pair`] on ln δ rounded up.
pub fn gdp_dominating_pair(eps: &[f64], values: ProfileValues<'_>) -> Result<(f64, f64)> {
    same_length(eps, &values)?;
    gdp::gdp_dominating_pair(eps, &values.log_upper()).map_err(|e| values.locate(e))
}

/// `out[i]` = max_j f_{ε_j,δ_j}(α_i), the trade-off curve of the sampled profile (each term
/// rounded down by [`tradeoff_eps_delta`], so the maximum is ≤ the exact sup over the samples).
///
/// Checked before any work: `eps` and `delta` equally long and non-empty; every ε_j ≥ 0 and
/// δ_j ∈ [0, 1] (first bad index), then every α_i ∈ [0, 1] (first bad index).
pub fn tradeoff_from_profile(
    alpha: &[f64],
    eps: &[f64],
    delta: &[f64],
    out: &mut [f64],
) -> Result<()> {
    if eps.is_empty() || eps.len() != delta.len() {
        return Err(PabiError::Shape {
            message: format!(
                "eps and delta must be non-empty 1-D arrays of equal length, got {} and {}",
                eps.len(),
                delta.len()
            ),
        });
    }
    crate::batch::check_len(alpha.len(), &[("out", out.len())])?;
    // one sample checks ε_j and δ_j with the element function's own messages
    for (j, (&e, &d)) in eps.iter().zip(delta).enumerate() {
        tradeoff_eps_delta(0.0, e, d).map_err(|err| err.at(j))?;
    }
    crate::batch::check(alpha, "type1_error", "in [0, 1]", |a| {
        (0.0..=1.0).contains(&a)
    })?;
    for (o, &a) in out.iter_mut().zip(alpha) {
        let mut best = 0.0f64;
        for (&e, &d) in eps.iter().zip(delta) {
            best = best.max(tradeoff_eps_delta(a, e, d)?);
        }
        *o = best;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_and_log_delta_agree_where_the_log_is_exact() {
        // δ = 1 and δ = 0 have exact logs: both inputs give the same μ
        let eps = [0.0, 1.0, 2.0];
        let d = [1.0, 0.0, 0.0];
        let l = [0.0, f64::NEG_INFINITY, f64::NEG_INFINITY];
        assert_eq!(
            gdp_mu_dominating(&eps, ProfileValues::Delta(&d)).unwrap(),
            gdp_mu_dominating(&eps, ProfileValues::LogDelta(&l)).unwrap()
        );
    }

    #[test]
    fn a_delta_is_never_below_its_nearest_log() {
        // ln δ rounded up gives a μ at least that of the nearest log
        let eps = [0.0, 0.5, 1.0, 1.5];
        let d: [f64; 4] = [0.9, 0.4, 0.13, 0.04];
        let near: Vec<f64> = d.iter().map(|&x: &f64| x.ln()).collect();
        let up = gdp_mu_dominating(&eps, ProfileValues::Delta(&d)).unwrap();
        let nr = gdp_mu_dominating(&eps, ProfileValues::LogDelta(&near)).unwrap();
        assert!(up >= nr && up <= nr * (1.0 + 1e-13));
    }

    #[test]
    fn errors_name_the_value_given() {
        let eps = [0.0, 1.0];
        match gdp_mu_dominating(&eps, ProfileValues::Delta(&[0.5, -0.25])) {
            Err(PabiError::Domain {
                param: "delta",
                value,
                index: Some(1),
                ..
            }) => assert_eq!(value, -0.25),
            other => panic!("{other:?}"),
        }
        match gdp_dominating_pair(&eps, ProfileValues::Delta(&[1.5, 0.0])) {
            Err(PabiError::Domain {
                param: "delta",
                value,
                index: Some(0),
                ..
            }) => assert_eq!(value, 1.5),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            gdp_mu_dominating(&eps, ProfileValues::LogDelta(&[0.0])),
            Err(PabiError::Shape { .. })
        ));
    }

    #[test]
    fn tradeoff_sup_is_the_max_of_the_elements() {
        let eps = [0.0, 0.5, 1.0];
        let delta = [0.3, 0.1, 0.02];
        let alpha = [0.0, 0.05, 0.5, 1.0];
        let mut out = [0.0; 4];
        tradeoff_from_profile(&alpha, &eps, &delta, &mut out).unwrap();
        for (i, &a) in alpha.iter().enumerate() {
            let m = eps
                .iter()
                .zip(&delta)
                .map(|(&e, &d)| tradeoff_eps_delta(a, e, d).unwrap())
                .fold(0.0, f64::max);
            assert_eq!(out[i].to_bits(), m.to_bits());
        }
        let mut o1 = [0.0];
        let bad = tradeoff_from_profile(&[0.1], &eps, &[0.3, 1.5, 0.0], &mut o1);
        assert!(matches!(
            bad,
            Err(PabiError::Domain {
                param: "delta",
                index: Some(1),
                ..
            })
        ));
        let bad = tradeoff_from_profile(&[0.1, 2.0], &eps, &delta, &mut [0.0; 2]);
        assert!(matches!(
            bad,
            Err(PabiError::Domain {
                param: "type1_error",
                index: Some(1),
                ..
            })
        ));
    }
}
