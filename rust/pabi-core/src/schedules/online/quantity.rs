//! Which quantity of an online schedule to evaluate ([`OnlineQuantity`]), and the one place that
//! turns its natural logarithm into a probability in the conservative direction: every
//! quantity is an upper bound of δ and is exponentiated rounding up, except the paper's lower
//! integral bound (Sordello–Bu–Dong §6), which brackets δ_∞ from below and is exponentiated
//! rounding down. Derivations in `docs/derivations/schedules.md`.

use super::limit::check_horizon;
use super::suffix::online_log_delta_at;
use super::OnlineSchedule;
use crate::error::Result;
use crate::num::round::prob_up;
use crate::num::{exp_down, exp_up_unit};
use crate::schedules::{map_args, Noise, Problem};
use crate::setup::count;

/// A quantity of an online schedule at record `index` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlineQuantity {
    /// δ_n(i) after n steps ([`OnlineSchedule::log_delta`]).
    Delta,
    /// The exact limit δ_∞(i) ([`OnlineSchedule::log_delta_limit`]).
    Limit,
    /// The certified upper bound of δ_∞(i) ([`OnlineSchedule::log_delta_limit_bound`]).
    LimitBound,
    /// The paper's closed upper bound, eq. (13)/(15) ([`OnlineSchedule::log_delta_star_upper`]),
    /// corrected or as printed.
    StarUpper { as_published: bool },
    /// The paper's lower integral bound ([`OnlineSchedule::log_delta_star_lower`]); rounded down.
    StarLower,
}

impl OnlineSchedule {
    /// The quantity `q` at record `i` after `n` steps (`n` is read by [`OnlineQuantity::Delta`]
    /// only): ln δ with `log`, else δ rounded in the direction of the quantity (up for the upper
    /// bounds and estimates, down for [`OnlineQuantity::StarLower`]).
    pub fn quantity(&self, q: OnlineQuantity, n: f64, i: f64, log: bool) -> Result<f64> {
        let v = match q {
            OnlineQuantity::Delta => self.log_delta(n, i)?,
            OnlineQuantity::Limit => self.log_delta_limit(i)?,
            OnlineQuantity::LimitBound => self.log_delta_limit_bound(i)?,
            OnlineQuantity::StarUpper { as_published } => {
                self.log_delta_star_upper(i, as_published)?
            }
            OnlineQuantity::StarLower => self.log_delta_star_lower(i)?,
        };
        Ok(if log {
            v
        } else if q == OnlineQuantity::StarLower {
            exp_down(v)
        } else {
            exp_up_unit(v)
        })
    }
}

impl OnlineSchedule {
    /// [`OnlineSchedule::quantity`] where the bound may be undefined: `Ok(None)` exactly where
    /// `quantity` fails on the Laplace domain of the index (i^α + C1·C2 ≤ C1·e^{ε/2}, the error
    /// of [`OnlineSchedule::check_index`] after its integer test), else `quantity`'s own result
    /// (its value, or its error on the horizon). With `value` false, the checks only (O(1)):
    /// `Some(NaN)` where the value would be computed.
    pub fn quantity_if_defined(
        &self,
        q: OnlineQuantity,
        n: f64,
        i: f64,
        log: bool,
        value: bool,
    ) -> Result<Option<f64>> {
        count("index", i, 1.0)?;
        if !self.defined_at(i) {
            return Ok(None);
        }
        if value {
            return self.quantity(q, n, i, log).map(Some);
        }
        if q == OnlineQuantity::Delta {
            check_horizon(n, i)?; // (the other quantities check the index only)
        }
        Ok(Some(f64::NAN))
    }
}

/// An online schedule's quantity `q` for many elements, with where it is defined: element j
/// of the broadcast `args` (each of length 1 or the output's) is the schedule, horizon n and
/// index i that `element` builds from it; `defined[j]` is 1 where the bound is defined there,
/// 0 where the Laplace domain fails ([`OnlineSchedule::quantity_if_defined`]), and
/// `values[j]` (when asked) the value [`OnlineSchedule::quantity`] returns, to the bit, NaN
/// where undefined. Every other error (of `element` or of the horizon) is raised as the
/// one-element call raises it, at its index, from a first pass over every element that
/// computes no value (O(1) an element); the values follow in a second pass.
pub fn quantities_if_defined<const K: usize>(
    args: [&[f64]; K],
    q: OnlineQuantity,
    log: bool,
    element: impl Fn([f64; K]) -> Result<(OnlineSchedule, f64, f64)> + Sync,
    defined: &mut [f64],
    values: Option<&mut [f64]>,
) -> Result<()> {
    let at = |a: [f64; K], value: bool| -> Result<Option<f64>> {
        let (s, n, i) = element(a)?;
        s.quantity_if_defined(q, n, i, log, value)
    };
    map_args(args, defined, |a| {
        Ok(if at(a, false)?.is_some() { 1.0 } else { 0.0 })
    })?;
    match values {
        Some(out) => map_args(args, out, |a| Ok(at(a, true)?.unwrap_or(f64::NAN))),
        None => Ok(()),
    }
}

/// δ_n(index) (ln δ with `log`) of a run with the per-step noise array `noise`: the value of
/// [`online_log_delta_at`], exponentiated rounding up ([`prob_up`]).
pub fn online_delta_at(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    index: f64,
    log: bool,
) -> Result<f64> {
    let v = online_log_delta_at(kind, p, noise, index)?;
    Ok(if log { v } else { prob_up(v) })
}
