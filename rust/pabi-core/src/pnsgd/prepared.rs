//! What the kernels need per element, validated once: [`Prepared`] (the checked arguments of the
//! bounds, σ given or searched), [`PreparedFactors`] (those of the factors), both with their
//! [`Scales`] (whatever does not vary across elements: M, the radii numerators, the radii), and
//! [`Elem`] (one element's problem data, independent of ε and σ). M is the Lipschitz constant of a gradient
//! step (Asoodeh–Diaz–Calmon Lemma 4, [`crate::gd::step_contraction`]); the radii r_A = 2L/s and
//! r_B = M·D/(η·s) are those of Sordello–Bu–Dong Thm 1. See `docs/derivations/pnsgd.md`.

use crate::error::Result;
use crate::gd::{radii_lanes, Radii};
use crate::setup::SetupArgs;

use super::at;
use super::fixed_precise::Geo;
use super::params::{check_factor_params, check_model, FactorParams, Model, Noise, Order, Params};

/// The noise scales and radii of validated arguments: the setup (L, η, D, β, ρ), σ where given
/// (`None` while [`calibrate_sigma`](super::calibrate_sigma) searches it), and what does not
/// vary across elements: M (lr, smoothness, strong_convexity scalars), the radii numerators
/// (also max_grad_norm, diameter scalars), the radii themselves (also sigma scalar).
pub(super) struct Scales<'a> {
    pub(super) setup: SetupArgs<'a>,
    sigma: Option<&'a [f64]>,
    m_once: Option<f64>,
    pub(super) rad_once: Option<Radii>,
    pub(super) r_once: Option<(f64, f64)>,
}

impl<'a> Scales<'a> {
    /// From arguments already validated.
    fn new(setup: SetupArgs<'a>, sigma: Option<&'a [f64]>) -> Result<Scales<'a>> {
        let m_once = if setup.contraction_scalar() {
            Some(contraction(&setup, 0)?)
        } else {
            None
        };
        let rad_once = match m_once {
            Some(m) if setup.max_grad_norm.len() == 1 && setup.diameter.len() == 1 => Some(
                Radii::new(setup.max_grad_norm[0], m, setup.diameter[0], setup.lr[0]),
            ),
            _ => None,
        };
        let r_once = match (rad_once, sigma) {
            (Some(r), Some(s)) if s.len() == 1 => Some(r.at(s[0])),
            _ => None,
        };
        Ok(Scales {
            setup,
            sigma,
            m_once,
            rad_once,
            r_once,
        })
    }

    /// σ as given; under the calibration (σ searched, never read from here) a NaN.
    #[inline(always)]
    pub(super) fn sigma(&self) -> &'a [f64] {
        self.sigma.unwrap_or(&[f64::NAN])
    }

    /// The radii (r_A, r_B) of the lanes `lo..lo + nl` of a block at σ as given (bitwise
    /// `self.numerators(j)?.at(σ_j)`; `nl` ≤ B, lanes past it left as they are): the constants
    /// where they do not vary, else by [`radii_lanes`] from the numerators (once or per lane).
    #[inline(always)]
    pub(super) fn radii_block<const B: usize>(
        &self,
        lo: usize,
        nl: usize,
        ra: &mut [f64; B],
        rb: &mut [f64; B],
    ) -> Result<()> {
        if let Some((a, b)) = self.r_once {
            ra.fill(a);
            rb.fill(b);
            return Ok(());
        }
        let mut s = [1.0; B];
        lanes(&mut s[..nl], self.sigma(), lo);
        match self.rad_once {
            Some(rad) => rad.at_block(&s[..nl], ra, rb),
            None => {
                let mut rad = [Radii::default(); B];
                for (t, r) in rad[..nl].iter_mut().enumerate() {
                    *r = self.numerators(lo + t)?;
                }
                radii_lanes(|t| rad[t], &s[..nl], ra, rb);
            }
        }
        Ok(())
    }

    /// The radii numerators (2L, M·D/η) of element j.
    #[inline(always)]
    pub(super) fn numerators(&self, j: usize) -> Result<Radii> {
        Ok(match self.rad_once {
            Some(r) => r,
            None => {
                let m = match self.m_once {
                    Some(m) => m,
                    None => contraction(&self.setup, j)?,
                };
                let s = &self.setup;
                Radii::new(at(s.max_grad_norm, j), m, at(s.diameter, j), at(s.lr, j))
            }
        })
    }
}

/// `dst[t] = src[lo + t]` (or the broadcast scalar) for the lanes of a block.
#[inline(always)]
pub(super) fn lanes(dst: &mut [f64], src: &[f64], lo: usize) {
    if src.len() == 1 {
        dst.fill(src[0]);
    } else {
        dst.copy_from_slice(&src[lo..lo + dst.len()]);
    }
}

/// The contraction factor M (rounded up, within 2 ulp: [`crate::gd::step_contraction`]) for element j.
#[inline]
fn contraction(s: &SetupArgs, j: usize) -> Result<f64> {
    let c = s.at(j).contraction().map_err(|e| e.at(j))?;
    Ok(c.m)
}

/// One element's problem data, independent of ε and σ.
#[derive(Debug, Clone, Copy)]
pub(super) struct Elem {
    pub(super) noise: Noise,
    pub(super) order: Order,
    /// 2L and M·D/η (rounded up): the numerators of the radii.
    pub(super) rad: Radii,
    pub(super) n: f64,
    /// index (1-based); 1 for the worst case of the random stop.
    pub(super) i: f64,
    /// The inputs of r_B, for the precise path of the fixed order.
    pub(super) geo: Geo,
}

impl Elem {
    /// (r_A, r_B) = (2L/s, M·D/(η s)), rounded up.
    #[inline(always)]
    pub(super) fn radii(&self, s: f64) -> (f64, f64) {
        self.rad.at(s)
    }
}

/// Validated arguments of the bounds: the model and its [`Scales`].
pub(super) struct Prepared<'a> {
    pub(super) p: Model<'a>,
    pub(super) sc: Scales<'a>,
}

impl<'a> Prepared<'a> {
    /// The bounds at the given σ (δ, ln δ, the ε inversion).
    pub(super) fn new(p: Params<'a>, len: usize) -> Result<Prepared<'a>> {
        Self::with(p.model, Some(p.sigma), len)
    }

    /// The calibration: σ is searched.
    pub(super) fn searching_sigma(m: Model<'a>, len: usize) -> Result<Prepared<'a>> {
        Self::with(m, None, len)
    }

    fn with(p: Model<'a>, sigma: Option<&'a [f64]>, len: usize) -> Result<Prepared<'a>> {
        check_model(&p, sigma, len)?;
        let sc = Scales::new(p.setup, sigma)?;
        Ok(Prepared { p, sc })
    }

    /// σ as given (NaN under the calibration: [`Scales::sigma`]).
    #[inline(always)]
    pub(super) fn sigma(&self) -> &'a [f64] {
        self.sc.sigma()
    }

    #[inline(always)]
    pub(super) fn elem(&self, j: usize) -> Result<Elem> {
        let p = &self.p;
        Ok(Elem {
            noise: p.noise,
            order: p.order,
            rad: self.sc.numerators(j)?,
            n: at(p.n, j),
            i: p.index.map_or(1.0, |ix| at(ix, j)),
            geo: Geo::at(&self.sc.setup, j),
        })
    }
}

/// Validated arguments of the factors: the noise and its [`Scales`] (σ given).
pub(super) struct PreparedFactors<'a> {
    pub(super) noise: Noise,
    pub(super) sc: Scales<'a>,
}

impl<'a> PreparedFactors<'a> {
    pub(super) fn new(f: FactorParams<'a>, len: usize) -> Result<PreparedFactors<'a>> {
        check_factor_params(&f, len)?;
        Ok(PreparedFactors {
            noise: f.noise,
            sc: Scales::new(f.setup, Some(f.sigma))?,
        })
    }
}
