//! What the kernels need per element, validated once: [`Prepared`] (the checked arguments and
//! whatever does not vary across elements: M, the radii numerators, the radii) and [`Elem`] (one
//! element's problem data, independent of ε and σ). M is the Lipschitz constant of a gradient
//! step (Asoodeh–Diaz–Calmon Lemma 4, [`crate::gd::step_contraction`]); the radii r_A = 2L/s and
//! r_B = M·D/(η·s) are those of Sordello–Bu–Dong Thm 1. See `docs/derivations/pnsgd.md`.

use crate::error::Result;
use crate::gd::Radii;

use super::at;
use super::fixed_precise::Geo;
use super::params::{check_params, Noise, Order, Params};

/// The contraction factor M (rounded up, within 2 ulp: [`crate::gd::step_contraction`]) for element j.
#[inline]
fn contraction(p: &Params, j: usize) -> Result<f64> {
    let c = p.setup().at(j).contraction().map_err(|e| e.at(j))?;
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

/// Validated arguments and what does not vary across elements: M (lr, smoothness,
/// strong_convexity scalars), the radii numerators (also lipschitz, diameter scalars), the
/// radii themselves (also sigma scalar).
pub(super) struct Prepared<'a> {
    pub(super) p: Params<'a>,
    pub(super) m_once: Option<f64>,
    pub(super) rad_once: Option<Radii>,
    pub(super) r_once: Option<(f64, f64)>,
}

impl<'a> Prepared<'a> {
    pub(super) fn new(p: Params<'a>, len: usize, need_sigma: bool) -> Result<Prepared<'a>> {
        check_params(&p, len, need_sigma)?;
        let m_once = if p.setup().contraction_scalar() {
            Some(contraction(&p, 0)?)
        } else {
            None
        };
        let rad_once = match m_once {
            Some(m) if p.lipschitz.len() == 1 && p.diameter.len() == 1 => {
                Some(Radii::new(p.lipschitz[0], m, p.diameter[0], p.lr[0]))
            }
            _ => None,
        };
        let r_once = match rad_once {
            Some(r) if need_sigma && p.sigma.len() == 1 => Some(r.at(p.sigma[0])),
            _ => None,
        };
        Ok(Prepared {
            p,
            m_once,
            rad_once,
            r_once,
        })
    }

    #[inline(always)]
    pub(super) fn elem(&self, j: usize) -> Result<Elem> {
        let p = &self.p;
        let rad = match self.rad_once {
            Some(r) => r,
            None => {
                let m = match self.m_once {
                    Some(m) => m,
                    None => contraction(p, j)?,
                };
                Radii::new(at(p.lipschitz, j), m, at(p.diameter, j), at(p.lr, j))
            }
        };
        Ok(Elem {
            noise: p.noise,
            order: p.order,
            rad,
            n: at(p.n, j),
            i: p.index.map_or(1.0, |ix| at(ix, j)),
            geo: Geo::at(p, j),
        })
    }

    /// The radii of element j (data `e`) at its own σ.
    #[inline(always)]
    pub(super) fn radii(&self, e: &Elem, j: usize) -> (f64, f64) {
        match self.r_once {
            Some(r) => r,
            None => e.radii(at(self.p.sigma, j)),
        }
    }
}
