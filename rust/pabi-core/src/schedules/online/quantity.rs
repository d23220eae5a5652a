//! Which quantity of an online schedule to evaluate ([`OnlineQuantity`]), and the one place that
//! turns its natural logarithm into a probability in the conservative direction: every
//! quantity is an upper bound of δ and is exponentiated rounding up, except the paper's lower
//! integral bound (Sordello–Bu–Dong §6), which brackets δ_∞ from below and is exponentiated
//! rounding down. Derivations in `docs/derivations/schedules.md`.

use super::suffix::online_log_delta_at;
use super::OnlineSchedule;
use crate::error::Result;
use crate::num::round::prob_up;
use crate::num::{exp_down, exp_up_unit};
use crate::schedules::{Noise, Problem};

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
