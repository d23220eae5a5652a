//! The training setup shared by the PNSGD bounds ([`crate::pnsgd`]), the noise schedules and
//! online noise ([`crate::schedules`]): the broadcast helpers of their array arguments.

use crate::error::{PabiError, Result};

/// Element j of a broadcast argument (length 1: the same value for every element).
#[inline(always)]
pub fn at(s: &[f64], j: usize) -> f64 {
    if s.len() == 1 {
        s[0]
    } else {
        s[j]
    }
}

/// Every `(name, length)` is 1 (broadcast) or `len`; the first that is not gives a
/// [`PabiError::Shape`] naming it.
pub fn check_broadcast(len: usize, lens: &[(&'static str, usize)]) -> Result<()> {
    for &(name, m) in lens {
        if m != 1 && m != len {
            return Err(PabiError::Shape {
                message: format!("{name} has length {m}, expected 1 or {len}"),
            });
        }
    }
    Ok(())
}
