//! The array queries of a [`Composition`]: the domain of each query checked over the whole
//! array first (the first bad element named with its index, before any work), then the
//! (lower, estimate, upper) brackets of every element, interruptible; and the terms of the
//! error budget under their names. Derivation: `docs/derivations/composition.md`.

use super::{Bracket, Composition};
use crate::error::{PabiError, Result};
use crate::interrupt;

impl Composition {
    /// The first ε of `eps` outside [0, ∞] (or NaN), as a domain error located at its index.
    pub fn check_eps(eps: &[f64]) -> Result<()> {
        match eps.iter().position(|&x| x.is_nan() || x < 0.0) {
            Some(i) => Err(PabiError::domain("eps", ">= 0", eps[i]).at(i)),
            None => Ok(()),
        }
    }

    /// The first δ of `delta` outside (0, 1), as a domain error located at its index.
    pub fn check_delta(delta: &[f64]) -> Result<()> {
        match delta.iter().position(|&x| !(x > 0.0 && x < 1.0)) {
            Some(i) => Err(PabiError::domain("delta", "in (0, 1)", delta[i]).at(i)),
            None => Ok(()),
        }
    }

    /// [`Composition::delta`] at every element of `eps` into (`lo`, `est`, `hi`) (each as long
    /// as `eps`), after [`Composition::check_eps`].
    pub fn delta_each(
        &self,
        eps: &[f64],
        lo: &mut [f64],
        est: &mut [f64],
        hi: &mut [f64],
    ) -> Result<()> {
        Self::check_eps(eps)?;
        self.each(eps, Composition::delta, lo, est, hi)
    }

    /// [`Composition::epsilon`] at every element of `delta` into (`lo`, `est`, `hi`), after
    /// [`Composition::check_delta`].
    pub fn epsilon_each(
        &self,
        delta: &[f64],
        lo: &mut [f64],
        est: &mut [f64],
        hi: &mut [f64],
    ) -> Result<()> {
        Self::check_delta(delta)?;
        self.each(delta, Composition::epsilon, lo, est, hi)
    }

    fn each(
        &self,
        xs: &[f64],
        f: fn(&Composition, f64) -> Bracket,
        lo: &mut [f64],
        est: &mut [f64],
        hi: &mut [f64],
    ) -> Result<()> {
        let n = xs.len();
        if lo.len() != n || est.len() != n || hi.len() != n {
            return Err(PabiError::internal(
                "Composition query: outputs not as long as the input",
            ));
        }
        self.ready_for(n);
        for (i, &x) in xs.iter().enumerate() {
            interrupt::check()?;
            (lo[i], est[i], hi[i]) = f(self, x);
        }
        Ok(())
    }

    /// The terms of the error budget under their public names (the fields of Python's
    /// `pabi.ErrorBudget`): the grid step, the number of window points, the +∞ mass, the
    /// truncated mass, the Chernoff tails above and below the window, the FFT round-off and the
    /// number of composed mechanisms.
    pub fn budget(&self) -> [(&'static str, f64); 8] {
        [
            ("grid_step", self.h),
            ("window_points", self.pmf.len() as f64),
            ("inf_mass", self.inf),
            ("truncated_mass", self.bad),
            ("tail_above", self.tail_hi),
            ("tail_below", self.tail_lo),
            ("fft_error", self.fft_err),
            ("compositions", self.steps),
        ]
    }
}
